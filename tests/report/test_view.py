"""tco.report.view: the typed view the proposal and the notes read.

Its only arithmetic is bookkeeping on engine values (sums over months, yearly blocks, a maximum, GPU-hours =
server-hours × GPUs per server, a monthly price over 730 h); each is worked here by hand, and the rest is checked
to be the engine's value unchanged."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report import view
from tco.report.view import FleetView


def _fleet(**kw) -> FleetView:
    base = dict(offer="x/y/z", kind="dedicated", provider="x", gpu="L4", gpus_per_server=4, price=6200.0,
                price_unit="BRL/month", currency="BRL", pricing="monthly", setup_fee_brl=0.0, min_term_months=3,
                status="estimate", source="s", as_of="2026-11-30")
    return FleetView(**(base | kw))


# --- hand-worked ---------------------------------------------------------------------------------------------------

def test_price_per_gpu_hour_of_a_monthly_server():
    # R$ 6,200 a month for a 4× L4 server: over 730 h and 4 GPUs
    expected = 6200 / 730 / 4
    assert _fleet().price_per_gpu_hour == pytest.approx(expected) == pytest.approx(2.1233, abs=1e-4)


def test_price_per_gpu_hour_of_an_hourly_instance():
    # US$ 98.32 per hour for an 8-GPU instance
    expected = 98.32 / 8
    assert _fleet(price=98.32, price_unit="USD/h", gpus_per_server=8).price_per_gpu_hour == pytest.approx(expected)


def test_yearly_blocks_of_twelve_months_and_a_short_last_year():
    monthly = np.arange(1.0, 31.0)  # 1, 2, …, 30
    expected = (sum(range(1, 13)), sum(range(13, 25)), sum(range(25, 31)))  # 78, 222, 165
    assert view.yearly(monthly) == expected == (78, 222, 165)
    assert view.yearly(np.array([])) == ()


@settings(max_examples=100, deadline=None)
@given(monthly=st.lists(st.floats(0, 1e9), max_size=60))
def test_yearly_blocks_add_up_to_the_months(monthly):
    years = view.yearly(np.array(monthly))
    assert len(years) == math.ceil(len(monthly) / 12)
    assert sum(years) == pytest.approx(sum(monthly), rel=1e-12, abs=1e-6)


# --- the view of a run --------------------------------------------------------------------------------------------

def test_ranked_is_the_feasible_options_cheapest_first(seed_results, seed_view):
    tco_of = {o.name: o.tco.deterministic for o in seed_results.options if not o.resolved.breaches}
    assert seed_view.ranked == tuple(sorted(tco_of, key=tco_of.get))
    assert seed_view.recommended.name == seed_view.ranked[0]
    assert [o.name for o in seed_view.ranked_options] == list(seed_view.ranked)


def test_an_infeasible_option_is_in_the_view_but_not_ranked(seed_results):
    first = min(seed_results.options, key=lambda o: o.tco.deterministic)
    slow = dataclasses.replace(first, replica=dataclasses.replace(first.replica, target_met=False))
    v = view.build(dataclasses.replace(seed_results, options=[slow if o is first else o
                                                              for o in seed_results.options]))
    assert first.name not in v.ranked
    assert v.option(first.name).feasible is False
    assert v.recommended.name != first.name


def test_option_totals_are_the_engine_values(seed_results, seed_view):
    for o in seed_results.options:
        ov = seed_view.option(o.name)
        assert ov.tco_brl == o.tco.deterministic and ov.npv_brl == o.npv.deterministic
        assert ov.monthly_brl == tuple(float(x) for x in o.total_brl)
        assert sum(ov.yearly_brl) == pytest.approx(ov.tco_brl, rel=1e-12)
        assert len(ov.yearly_brl) == 3  # 36 months
        assert ov.lines_brl == {k: float(v.sum()) for k, v in o.lines_brl.items()}
        assert ov.cost_per_million_tokens_brl == o.cost_per_million_tokens_brl


def test_labels_come_from_the_scenario_else_the_name(seed_results, seed_view):
    labels = {o.name: o.label for o in seed_results.scenario.options}
    for ov in seed_view.options:
        assert ov.label == (labels[ov.name] or ov.name)
    assert seed_view.option("Dedicado BR — 8x H200").label == "Dedicado 8× H200, frota única"


def test_peak_servers_and_gpu_hours(seed_results, seed_view):
    for o in seed_results.options:
        ov = seed_view.option(o.name)
        c = o.costs
        assert ov.peak_servers == int(np.max(c.inference_servers))
        assert ov.peak_gpus == ov.peak_servers * o.resolved.inference.gpus_per_server
        training_h = float(np.sum(c.training_hours))
        serving_h = float(np.sum(c.instance_hours)) - training_h  # server-hours the serving fleet is paid for
        assert ov.inference_gpu_hours == pytest.approx(serving_h * o.resolved.inference.gpus_per_server)
        tr_gpus = o.resolved.training.gpus_per_server if o.resolved.training is not None else 0
        assert ov.training_gpu_hours == pytest.approx(training_h * tr_gpus)


def test_fleets_lists_training_then_serving(seed_view):
    separate = seed_view.option("Dedicado BR — 8x H200 (frotas separadas)")
    assert [f.offer for f in separate.fleets()] == ["br-dedicated/sp/hgx-h200-8x", "br-dedicated/sp/h200-nvl-1x"]
    assert separate.inference.provider == "br-dedicated"
    assert separate.inference.price_per_gpu_hour == pytest.approx(
        separate.inference.price / 730 / separate.inference.gpus_per_server)


def test_demand_figures(seed_results, seed_view):
    s = seed_results.scenario
    assert seed_view.total_tokens == pytest.approx(float(np.sum(seed_results.tokens)))
    assert seed_view.peak_rps == float(np.max(seed_results.peak_rps))
    # users in the first month of serving (the seed serves from month 2) and in the last month
    assert seed_view.users_first == float(seed_results.users[s.inference.start_month - 1])
    assert seed_view.users_last == float(seed_results.users[-1])
    assert seed_view.users_first < seed_view.users_last


def test_fx_path_and_spot_rate_are_the_run_values(seed_view, seed_results):
    assert seed_view.fx_path == tuple(float(x) for x in seed_results.fx_path)
    assert seed_view.usdbrl == 5.40
    assert seed_view.fx_paths is None and seed_view.fx_model == ""


def test_fx_of_a_full_run(small_run, small_view):
    assert small_run.fx_info is not None
    assert small_view.fx_model == small_run.fx_info.model
    assert small_view.fx_base == small_run.fx_info.base.path == "focus"
    assert small_view.fx_paths == 200


def test_plans_are_each_group_best_cheapest_first(small_run, small_view):
    groups = small_run.analysis.plans.by_provider
    assert [p.provider for p in small_view.plans] == sorted(groups, key=lambda g: groups[g].best.tco_brl)
    for p in small_view.plans:
        best = groups[p.provider].best
        assert p.tco_brl == best.tco_brl
        assert p.serving_offer == best.serving.offer
    assert [p.tco_brl for p in small_view.plans] == sorted(p.tco_brl for p in small_view.plans)


def test_no_plan_search_gives_no_plans(seed_view):
    assert seed_view.plans == ()


def test_a_view_is_frozen(seed_view):
    with pytest.raises(dataclasses.FrozenInstanceError):
        seed_view.name = "x"  # type: ignore[misc]


def test_the_repr_is_one_short_line(small_run, small_view):
    r = repr(small_view)
    assert "\n" not in r and len(r) < 600 and r.startswith(f"View({small_run.scenario.scenario.name!r}")
    assert repr(list(small_view.ranked)) in r and "Analysis(" in r
