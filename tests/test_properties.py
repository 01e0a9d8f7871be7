"""Invariants of the whole engine, checked with hypothesis on a small scenario with every kind of option.

The scenario runs in milliseconds (Llama 3.1 8B on L4s, 15 months from November 2027 so the second
contract year and a leap February are inside the horizon); each property tries ~30 cases.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import replicas_needed, servers_for
from tco import finance
from tco.catalog import EgressTable, load_catalog
from tco.costs import LINES, egress_cost_usd
from tco.engine import run_scenario
from tco.scenario import load_text

PROPS = settings(max_examples=30, deadline=None)
CAT = load_catalog()

HEAD = """
[scenario]
name = "properties"
start = "2027-11"
horizon_months = 15
discount_rate = {discount_rate}

[model]
id = "llama-3.1-8b"
precision = "fp8"
kv_precision = "fp8"

[training]
method = "lora"
tokens = 3.0e8
epochs = 2
start_month = 1
target_days = 3

[inference]
start_month = 2
users = {{ model = "list", users = {users} }}
requests_per_user_per_day = 15
input_tokens_per_request = 1200
output_tokens_per_request = 300
tokens_per_second_per_user = 15
daily_profile = "business_hours"
redundancy = "n+1"
egress_kb_per_request = 4000
storage_gb = 200

[fx]
usdbrl = {usdbrl}
model = "{fx_model}"
volatility = {volatility}
paths = 200
seed = 11
{drift}
"""

# Every kind of option: shared dedicated; separate dedicated training + dedicated serving (minimum term);
# cloud training + dedicated serving; cloud autoscaled; cloud reserved (ratchet); GCP without a free egress tier.
OPTIONS = [
    dict(name="shared dedicated", training_offer="br-dedicated/sp/l4-4x", inference_offer="br-dedicated/sp/l4-4x",
         fleet="shared"),
    dict(name="separate dedicated", training_offer="br-dedicated/sp/l4-4x", inference_offer="br-dedicated/sp/l4-1x",
         fleet="separate"),
    dict(name="cloud burst, dedicated serving", training_offer="aws/sa-east-1/g6.12xlarge",
         inference_offer="br-dedicated/sp/l4-1x", fleet="separate"),
    dict(name="aws autoscaled", training_offer="aws/sa-east-1/g6.12xlarge", inference_offer="aws/sa-east-1/g6.xlarge",
         pricing="on_demand", autoscale=True, price_trend_rate=-0.1),
    dict(name="aws reserved", training_offer="aws/sa-east-1/g6.12xlarge", inference_offer="aws/sa-east-1/g6.xlarge",
         pricing="reserved_1yr", autoscale=False, taxes="aws_brazil_local"),
    dict(name="gcp on demand", training_offer="gcp/us-central1/g2-standard-48",
         inference_offer="gcp/us-central1/g2-standard-4", autoscale=False),
]


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(float(v)) if isinstance(v, float) else str(v)


def _scenario_text(options=OPTIONS, *, users=(300, 800, 1500), discount_rate=0.14, usdbrl=5.4, fx_model="fixed",
                   volatility=0.0, drift=None):
    text = HEAD.format(discount_rate=discount_rate, users=list(map(float, users)), usdbrl=usdbrl, fx_model=fx_model,
                       volatility=volatility, drift="" if drift is None else f"drift = {drift!r}")
    for o in options:
        text += "\n[[options]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in o.items())
    return text


def _run(cat=CAT, **kw):
    return run_scenario(load_text(_scenario_text(**kw)), cat)


def _priced_options(k: float) -> list[dict]:
    """OPTIONS with every price given explicitly (catalog price × k)."""
    out = []
    for o in OPTIONS:
        o = dict(o)
        for role, key_usd, key_brl in (("inference", "usd_per_hour", "brl_per_month"),
                                       ("training", "training_usd_per_hour", "training_brl_per_month")):
            oid = o[f"{role}_offer"]
            if oid in CAT.cloud_offers:
                pricing = o.get("pricing", "on_demand") if role == "inference" else "on_demand"
                o[key_usd] = CAT.cloud_offers[oid].prices[pricing].usd_per_hour * k
            else:
                o[key_brl] = CAT.dedicated_offers[oid].brl_per_month * k
        ded = [o[f] for f in ("inference_offer", "training_offer") if o[f] in CAT.dedicated_offers]
        o["setup_fee_brl"] = (CAT.dedicated_offers[ded[0]].setup_fee_brl if ded else 100.0) * k
        o["storage_usd_per_gb_month"] = 0.03 * k
        out.append(o)
    return out


def _scaled_catalog(k: float):
    egress = {eid: EgressTable(eid, tuple((lo, hi, None if p is None else p * k) for lo, hi, p in t.tiers),
                               t.source, t.as_of) for eid, t in CAT.egress.items()}
    return replace(CAT, egress=egress)


# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@PROPS
@given(k=st.floats(0.1, 10.0), users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5))
def test_scaling_all_prices_by_k_scales_every_total_by_k(k, users):
    base = _run(options=_priced_options(1.0), users=users)
    scaled = _run(cat=_scaled_catalog(k), options=_priced_options(k), users=users)
    for a, b in zip(base.options, scaled.options, strict=True):
        assert b.tco.deterministic == pytest.approx(k * a.tco.deterministic, rel=1e-9, abs=1e-9)
        assert b.npv.deterministic == pytest.approx(k * a.npv.deterministic, rel=1e-9, abs=1e-9)
        for line in LINES:
            np.testing.assert_allclose(b.lines_brl[line], k * a.lines_brl[line], rtol=1e-9, atol=1e-9)
        # the fleets themselves do not depend on prices
        np.testing.assert_array_equal(a.costs.inference_servers, b.costs.inference_servers)


@PROPS
@given(costs=st.lists(st.floats(0.0, 1e9), min_size=1, max_size=60))
def test_zero_discount_rate_npv_is_the_plain_sum(costs):
    c = np.array(costs)
    assert finance.npv(c, 0.0) == pytest.approx(c.sum(), rel=1e-12, abs=1e-9)


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5))
def test_zero_discount_rate_engine_npv_equals_tco(users):
    res = _run(users=users, discount_rate=0.0)
    for o in res.options:
        assert o.npv.deterministic == pytest.approx(o.tco.deterministic, rel=1e-12)


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5),
       extra=st.lists(st.floats(0.0, 20_000.0), min_size=5, max_size=5))
def test_more_users_never_cost_less(users, extra):
    more = [u + e for u, e in zip(users, extra)]  # at least as many users in every month
    a, b = _run(users=users), _run(users=more)
    for oa, ob in zip(a.options, b.options, strict=True):
        assert ob.tco.deterministic >= oa.tco.deterministic * (1 - 1e-12), oa.name
        assert ob.npv.deterministic >= oa.npv.deterministic * (1 - 1e-12), oa.name


def _breakpoints():
    """(table id, breakpoint) for every tier boundary with a verified price on both sides."""
    out = []
    for eid, t in sorted(CAT.egress.items()):
        for (lo0, hi0, p0), (lo1, _, p1) in zip(t.tiers, t.tiers[1:]):
            if p0 is not None and p1 is not None:
                out.append((eid, lo1))
    return out


@pytest.mark.parametrize("eid, x", _breakpoints())
def test_egress_is_continuous_and_non_decreasing_at_every_breakpoint(eid, x):
    t = CAT.egress[eid]
    eps = 1e-6
    below, at, above = (float(egress_cost_usd(v, t)) for v in (x - eps, x, x + eps))
    assert below <= at <= above
    max_price = max(p for _, _, p in t.tiers if p is not None)
    assert above - below <= 2 * eps * max_price + 1e-9  # no jump at the boundary


def _verified_limit(t: EgressTable) -> float:
    """Volume up to which every tier of a table has a verified price [GB]."""
    for lo, _, p in t.tiers:
        if p is None:
            return lo
    return 1e7


@PROPS
@given(eid=st.sampled_from(sorted(CAT.egress)), a=st.floats(0.0, 1.0), b=st.floats(0.0, 1.0))
def test_egress_is_non_decreasing_in_volume(eid, a, b):
    t = CAT.egress[eid]
    lim = _verified_limit(t)
    x, y = sorted((a * lim, b * lim))
    assert float(egress_cost_usd(x, t)) <= float(egress_cost_usd(y, t)) + 1e-9


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5), usdbrl=st.floats(3.0, 9.0),
       fx_model=st.sampled_from(["fixed", "parity"]))
def test_monthly_lines_add_up_to_the_total(users, usdbrl, fx_model):
    res = _run(users=users, usdbrl=usdbrl, fx_model=fx_model)
    h = len(res.months)
    for o in res.options:
        stacked = np.stack([o.lines_brl[k] for k in LINES])
        assert stacked.shape == (len(LINES), h)
        np.testing.assert_allclose(stacked.sum(axis=0), o.total_brl, rtol=1e-12, atol=1e-9)
        assert o.tco.deterministic == pytest.approx(o.total_brl.sum(), rel=1e-12)
        assert o.npv.deterministic == pytest.approx(finance.npv(o.total_brl, 0.14), rel=1e-12)
        for k in LINES:
            rate = res.fx_path if o.costs.currency[k] == "USD" else 1.0
            np.testing.assert_allclose(o.lines_brl[k], o.costs.lines[k] * rate, rtol=1e-12)
            assert np.all(o.costs.lines[k] >= 0), (o.name, k)  # costs are positive amounts


def _same(a, b):
    assert a.months == b.months
    for name in ("days", "fx_path", "users", "requests", "tokens", "egress_gb", "peak_rps"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for oa, ob in zip(a.options, b.options, strict=True):
        assert oa.name == ob.name
        assert oa.tco == ob.tco and oa.npv == ob.npv
        assert oa.prob_cheapest == ob.prob_cheapest
        assert oa.crossover_month == ob.crossover_month
        assert oa.cost_per_million_tokens_brl == ob.cost_per_million_tokens_brl
        for k in LINES:
            np.testing.assert_array_equal(oa.lines_brl[k], ob.lines_brl[k])
        if oa.tco_samples is not None:
            np.testing.assert_array_equal(oa.tco_samples, ob.tco_samples)
            for q in ("p5", "p50", "p95"):
                np.testing.assert_array_equal(oa.fan_brl[q], ob.fan_brl[q])


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5),
       fx_model=st.sampled_from(["fixed", "parity", "gbm", "bootstrap"]), volatility=st.floats(0.0, 0.3))
def test_same_scenario_twice_gives_identical_results(users, fx_model, volatility):
    _same(_run(users=users, fx_model=fx_model, volatility=volatility),
          _run(users=users, fx_model=fx_model, volatility=volatility))


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5), usdbrl=st.floats(3.0, 9.0),
       fx_model=st.sampled_from(["fixed", "parity"]))
def test_deterministic_fx_gives_equal_percentiles(users, usdbrl, fx_model):
    res = _run(users=users, usdbrl=usdbrl, fx_model=fx_model)
    for o in res.options:
        for d in (o.tco, o.npv):
            assert d.p5 == d.p50 == d.p95 == d.mean == d.deterministic


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5), usdbrl=st.floats(3.0, 9.0),
       drift=st.one_of(st.none(), st.floats(-0.2, 0.2)))
def test_gbm_with_zero_volatility_gives_equal_percentiles(users, usdbrl, drift):
    res = _run(users=users, usdbrl=usdbrl, fx_model="gbm", volatility=0.0, drift=drift)
    for o in res.options:
        for d in (o.tco, o.npv):
            for v in (d.p5, d.p50, d.p95, d.mean):
                assert v == pytest.approx(d.deterministic, rel=1e-9)


# the oracle of the next property (tests/oracles.py), worked by hand before it is trusted


@pytest.mark.parametrize("rps, cap, util, red, expected", [
    (0.0, 1.0, 0.8, "none", 0),        # no load, no replica (and no spare)
    (0.0, 1.0, 0.8, "n+1", 0),
    (1.0, 1.0, 0.8, "none", 2),        # ceil(1 / 0.8) = ceil(1.25) = 2
    (1.0, 1.0, 0.8, "n+1", 3),         # … plus one spare
    (1.6, 1.0, 0.8, "none", 2),        # exactly 2 replicas at 80 %: no extra from rounding noise
    (0.1, 2.0, 0.5, "none", 1),        # ceil(0.1 / 1.0) = 1
    (10.0, 0.5, 1.0, "n+1", 21),       # ceil(10 / 0.5) = 20, + 1
])
def test_replicas_needed(rps, cap, util, red, expected):
    assert replicas_needed(rps, cap, util, red) == expected


def test_replicas_needed_tiny_positive_load_needs_one():
    # costs.inference_servers_by_hour clamps this case to 1 replica; replicas_needed does not
    assert replicas_needed(1e-12, 1.0, 1.0, "none") == 1


@pytest.mark.parametrize("replicas, per_server, expected", [
    (0, 8, 0), (1, 8, 1), (8, 8, 1), (9, 8, 2), (3, 1, 3), (5, 2, 3),
])
def test_servers_for(replicas, per_server, expected):
    assert servers_for(replicas, per_server) == expected


@pytest.mark.slow
@PROPS
@given(rps=st.lists(st.floats(0.0, 50.0), min_size=1, max_size=24), cap=st.floats(0.05, 10.0),
       util=st.floats(0.1, 1.0), per_server=st.integers(1, 8), red=st.sampled_from(["none", "n+1"]))
def test_vectorised_servers_by_hour_equal_the_scalar_formulas(rps, cap, util, per_server, red):
    from tco.costs import inference_servers_by_hour

    rep = replace(_run().options[0].replica, requests_per_second=cap, replicas_per_server=per_server)
    got = inference_servers_by_hour(np.array([rps]), rep, util, red)[0]
    expected = [servers_for(replicas_needed(x, cap, util, red), per_server) for x in rps]
    np.testing.assert_array_equal(got, expected)


def _csv_rows(res):
    import csv
    import io

    from tco.report import ledger_csv

    return list(csv.DictReader(io.StringIO(ledger_csv.render(res))))


@pytest.mark.slow
@PROPS
@given(users=st.lists(st.floats(0.0, 20_000.0), min_size=1, max_size=5), usdbrl=st.floats(3.0, 9.0))
def test_report_totals_equal_engine_totals(users, usdbrl):
    from tco.report import json_out

    res = _run(users=users, usdbrl=usdbrl, fx_model="parity")
    doc = json_out.build(res)
    rows = _csv_rows(res)
    for o, j in zip(res.options, doc["options"], strict=True):
        assert j["name"] == o.name
        assert j["tco_brl"]["deterministic"] == o.tco.deterministic
        assert sum(m["total_brl"] for m in j["monthly"]) == pytest.approx(o.tco.deterministic, rel=1e-12)
        for k in LINES:
            assert j["lines_brl"][k] == pytest.approx(o.lines_brl[k].sum(), rel=1e-12, abs=1e-9)
        ledger = sum(float(r["x_BilledCostBRL"]) for r in rows if r["x_Option"] == o.name)
        assert ledger == pytest.approx(o.tco.deterministic, rel=1e-12)


def test_ledger_server_hours_add_up_to_the_engine_server_hours():
    res = _run()
    rows = _csv_rows(res)
    for o in res.options:
        ledger = sum(float(r["x_ServerHours"]) for r in rows if r["x_Option"] == o.name and r["x_ServerHours"])
        assert ledger == pytest.approx(o.costs.instance_hours.sum(), rel=1e-12), o.name
