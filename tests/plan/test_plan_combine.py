"""tco.plan.combine: the best plans as data (ordered, margins by hand), a plan's [[options]] table re-run through
the engine to the same TCO, and ``versus`` by hand."""

from __future__ import annotations

import pytest

from tco.engine import run_scenario
from tco.errors import InputError
from tco.findings import Plan as PlanRecord
from tco.plan_results import ServingFleet
from tco.plan.combine import search, versus
from tco.scenario import Option, Plan

SERVING = ServingFleet(offer="x/y", provider="x", region="y", kind="cloud", gpu="H100", gpus_per_server=8,
                       pricing="on_demand", price=1.0, price_unit="USD/h", status="listed", as_of="2026-11-01",
                       mode="always_on", committed_instances=None, burst_pricing=None, peak_instances=1,
                       tensor_parallel=8, tokens_per_second_per_user=30.0)
"""A serving fleet for the plans built by hand."""


@pytest.fixture(scope="module")
def dedicated(seed_inputs):
    s = seed_inputs.scenario.model_copy(update={"plan": Plan(providers=["br-dedicated"], show=3)})
    return s, seed_inputs.catalog, search(s, seed_inputs.catalog)


def test_best_plans_are_ordered_with_the_margin_to_the_runner_up(dedicated):
    _, _, found = dedicated
    assert list(found.by_provider) == ["br-dedicated"]
    g = found.by_provider["br-dedicated"]
    costs = [g.best.tco_brl] + [p.tco_brl for p in g.runners_up]
    assert costs == sorted(costs) and len(set(round(c, 2) for c in costs)) == len(costs)
    assert len(costs) <= 3                                                 # show = 3
    runner = g.runners_up[0].tco_brl
    assert g.margin_brl == runner - g.best.tco_brl
    assert g.margin_share == pytest.approx((runner - costs[0]) / costs[0])
    assert found.overall.best == g.best and found.overall.runner_up is None
    assert found.search.providers == ("br-dedicated",)


def test_a_plan_re_runs_through_the_engine_to_the_same_tco(dedicated):
    s, cat, found = dedicated
    for plan in [found.overall.best, *found.by_provider["br-dedicated"].runners_up[:1]]:
        opt = Option(**plan.option)
        res = run_scenario(s.model_copy(update={"options": [opt]}), cat, simulate=False)
        assert res.options[0].tco.deterministic == plan.tco_brl
        assert res.options[0].npv.deterministic == plan.npv_brl


def test_versus_by_hand():
    best = PlanRecord(name="Plan x", group="g", fleet="separate", tco_brl=2_500_000.0, npv_brl=2_400_000.0,
                      tax_profile="t", tax_uplift_share=None, training=None, serving=SERVING, notes=(), option={})
    got = versus(best, [("A", 3_000_000.0), ("B", 2_800_000.0)])
    assert got.as_dict() == {"cheapest_option": "B", "cheapest_option_tco_brl": 2_800_000.0, "best_plan": "Plan x",
                   "best_plan_tco_brl": 2_500_000.0, "best_plan_saving_brl": 2_800_000.0 - 2_500_000.0}


def test_too_many_candidates_and_a_bad_section_are_input_errors(seed_inputs):
    s, cat = seed_inputs.scenario, seed_inputs.catalog
    tight = s.model_copy(update={"plan": Plan(providers=["br-dedicated"], max_candidates=2)})
    with pytest.raises(InputError) as e:
        search(tight, cat, file="s.toml", lines={("plan", "max_candidates"): 12})
    p = e.value.problems[0]
    assert (p.key, p.line) == ("plan.max_candidates", 12)
    assert "more than max_candidates (2)" in p.message
    with pytest.raises(InputError, match="unknown provider 'nope'"):
        search(s.model_copy(update={"plan": Plan(providers=["nope"])}), cat)
