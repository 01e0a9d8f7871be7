"""tco.scenario.options: the [[options]], [fx] and [plan] sections of a scenario (frozen, strict pydantic models).

The defaults a user relies on, each bound at its edge (accepted on it, refused past it), the cross-key rules of
[fx], strict types ("36" is not 36), unknown keys refused, and labels: at most 40 visible characters, no control
characters. Properties: every USD/BRL inside the bounds is accepted and every one outside refused."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tco.scenario.options import FX, PRICINGS, Option, Plan

OPT = {"name": "A", "inference_offer": "aws/us-east-1/p5en.48xlarge"}


def _refused(model, data, key: str):
    with pytest.raises(ValidationError) as e:
        model.model_validate(data)
    locs = [".".join(str(x) for x in err["loc"]) for err in e.value.errors()]
    assert any(loc == key or loc.startswith(key + ".") or loc.startswith(key + "[") for loc in locs) or (
        key == "" and locs), locs
    return e.value


# --- options -------------------------------------------------------------------------------------------------------

def test_option_defaults():
    o = Option.model_validate(OPT)
    assert (o.pricing, o.training_pricing, o.fleet, o.autoscale) == ("on_demand", "on_demand", "separate", True)
    assert (o.indexation_rate, o.price_trend_rate, o.burst_pricing) == (0.04, 0.0, "on_demand")
    assert o.label is None and o.training_offer is None and o.committed_instances is None
    assert PRICINGS == ("on_demand", "reserved_1yr", "reserved_3yr", "spot")


def test_unknown_keys_and_loose_types_are_refused():
    _refused(Option, OPT | {"pricng": "spot"}, "pricng")
    _refused(Option, OPT | {"min_term_months": "12"}, "min_term_months")  # text is not a number
    _refused(Option, OPT | {"autoscale": "yes"}, "autoscale")
    _refused(Option, OPT | {"usd_per_hour": float("inf")}, "usd_per_hour")
    _refused(Option, OPT | {"fleet": "mixed"}, "fleet")


def test_label_is_forty_visible_characters():
    assert Option.model_validate(OPT | {"label": "x" * 40}).label == "x" * 40
    _refused(Option, OPT | {"label": "x" * 41}, "label")
    _refused(Option, OPT | {"label": "   "}, "label")
    _refused(Option, OPT | {"label": "a\x1bb"}, "label")
    _refused(Option, OPT | {"label": ""}, "label")


@pytest.mark.parametrize(("key", "ok", "bad"), [("min_term_months", (1, 240), (0, 241)),
                                                ("price_trend_rate", (-0.9, 1.0), (-0.91, 1.01)),
                                                ("storage_usd_per_gb_month", (0.0, 100.0), (-0.01, 100.01)),
                                                ("indexation_rate", (0.0, 1.0), (-0.01, 1.01))])
def test_option_bounds(key, ok, bad):
    for v in ok:
        assert getattr(Option.model_validate(OPT | {key: v}), key) == v
    for v in bad:
        _refused(Option, OPT | {key: v}, key)


def test_committed_instances_one_number_or_one_per_term():
    assert Option.model_validate(OPT | {"committed_instances": 3}).committed_instances == 3
    assert Option.model_validate(OPT | {"committed_instances": [2, 4, 4]}).committed_instances == [2, 4, 4]
    _refused(Option, OPT | {"committed_instances": -1}, "committed_instances")
    _refused(Option, OPT | {"committed_instances": [2, -1]}, "committed_instances")


def test_a_quote_date_is_read_from_text():
    o = Option.model_validate(OPT | {"quote_valid_until": "2027-01-31", "quote_source": "X, proposal 12"})
    assert o.quote_valid_until == dt.date(2027, 1, 31)
    _refused(Option, OPT | {"quote_valid_until": "2027-02-30"}, "quote_valid_until")


def test_an_option_is_frozen():
    o = Option.model_validate(OPT)
    with pytest.raises(ValidationError):
        o.pricing = "spot"  # type: ignore[misc]


def test_burst_pricing_is_an_id_like_the_other_pricings():
    # Was a plain str: it took control characters and 200+ characters, unlike pricing and training_pricing.
    _refused(Option, OPT | {"burst_pricing": "on_demand\x1b[2J"}, "burst_pricing")
    _refused(Option, OPT | {"burst_pricing": "x" * 1000}, "burst_pricing")
    _refused(Plan, {"providers": ["aws\x1b[2J"]}, "providers")
    _refused(Plan, {"taxes": {"aws": "aws_brazil_local\x07"}}, "taxes")


# --- fx ------------------------------------------------------------------------------------------------------------

def test_fx_defaults():
    fx = FX.model_validate({"usdbrl": 5.4})
    assert (fx.model, fx.base_path, fx.volatility, fx.paths, fx.block_months) == ("fixed", None, 0.0, 10_000, 6)
    assert (fx.brl_rate, fx.usd_rate) == (0.1375, 0.0363)


@settings(max_examples=100, deadline=None)
@given(rate=st.floats(0.01, 1000.0))
def test_every_rate_inside_the_bounds_is_accepted(rate):
    assert FX.model_validate({"usdbrl": rate}).usdbrl == rate


@settings(max_examples=100, deadline=None)
@given(rate=st.floats(max_value=0.01, exclude_max=True, allow_nan=False) | st.floats(min_value=1000.0,
                                                                                      exclude_min=True))
def test_every_rate_outside_the_bounds_is_refused(rate):
    _refused(FX, {"usdbrl": rate}, "usdbrl")


def test_fx_cross_key_rules():
    _refused(FX, {"usdbrl": 5.4, "base_path": "list"}, "")  # a list base path needs its path
    assert FX.model_validate({"usdbrl": 5.4, "base_path": "list", "path": [5.4, 5.5]}).path == [5.4, 5.5]
    _refused(FX, {"usdbrl": 5.4, "path": [5.4]}, "")  # a path without base_path = 'list'
    _refused(FX, {"usdbrl": 5.4, "model": "parity", "base_path": "focus"}, "")
    assert FX.model_validate({"usdbrl": 5.4, "model": "parity", "base_path": "forward"}).model == "parity"
    _refused(FX, {"usdbrl": 5.4, "drift": 0.02}, "")  # drift is read only with gbm
    assert FX.model_validate({"usdbrl": 5.4, "model": "gbm", "drift": 0.02}).drift == 0.02
    _refused(FX, {"usdbrl": 5.4, "base_path": "spot", "focus_edition": "2026-03"}, "")
    _refused(FX, {"usdbrl": 5.4, "focus_edition": "2026-13"}, "focus_edition")  # not a month


def test_fx_error_messages_say_what_to_write():
    err = _refused(FX, {"usdbrl": 5.4, "base_path": "list"}, "")
    assert "path = [5.40, 5.45, 5.50]" in str(err)
    err = _refused(FX, {"usdbrl": 5.4, "model": "parity", "base_path": "spot"}, "")
    assert "base_path = 'spot' with model 'fixed'" in str(err)


@pytest.mark.parametrize(("key", "ok", "bad"), [("paths", (1, 10_000_000), (0, 10_000_001)),
                                                ("block_months", (1, 60), (0, 61)),
                                                ("volatility", (0.0, 1.0), (-0.1, 1.1))])
def test_fx_bounds(key, ok, bad):
    for v in ok:
        assert getattr(FX.model_validate({"usdbrl": 5.4, key: v}), key) == v
    for v in bad:
        _refused(FX, {"usdbrl": 5.4, key: v}, key)


# --- plan ------------------------------------------------------------------------------------------------------------

def test_plan_defaults_and_bounds():
    p = Plan.model_validate({})
    assert (p.providers, p.brazil_only, p.hybrids, p.spot_for_serving, p.show) == ([], False, True, False, 3)
    assert p.max_candidates == 5_000_000
    assert Plan.model_validate({"show": 50}).show == 50
    _refused(Plan, {"show": 51}, "show")
    _refused(Plan, {"max_candidates": 0}, "max_candidates")
    _refused(Plan, {"storage_usd_per_gb_month": {"azure": -0.01}}, "storage_usd_per_gb_month")
    _refused(Plan, {"providers": "aws"}, "providers")  # a list, not one name


def test_plan_storage_price_has_the_options_bound():
    # Found by the mutation test: [plan] storage_usd_per_gb_month = { azure = 23000 } passed the schema, then the plan
    # search built an Option with it and `run` stopped on that Option's own bound (100 USD/GB-month) with a traceback.
    assert Plan.model_validate({"storage_usd_per_gb_month": {"azure": 100.0}}).storage_usd_per_gb_month == {
        "azure": 100.0}
    _refused(Plan, {"storage_usd_per_gb_month": {"azure": 23000.0}}, "storage_usd_per_gb_month")
    _refused(Option, {"name": "x", "offer": "y", "storage_usd_per_gb_month": 23000.0}, "storage_usd_per_gb_month")
