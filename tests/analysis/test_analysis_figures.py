"""tco.analysis.figures: the decision figures read from one run without re-running the engine.

The USD/BRL break-even is checked the strongest way: re-running the engine at the break-even spot gives the two
options equal TCOs (the claim that TCO is linear in the spot, the whole base path scaled with it). The payback month,
the decomposition (its parts add up to the difference) and the hedged TCO (Σ USD_m × the parity forward F_m) are
worked by hand from the ledger."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tco.analysis import figures as af
from tco.engine import run_scenario
from tco.results import rankable  # the seed asks for the data in Brazil: its us-east-1 options are not compared


def _by(rows, key="option"):
    return {getattr(r, key): r for r in rows}


def _at_spot(seed_inputs, usdbrl, base_path="spot"):
    sc = seed_inputs.scenario
    sc = sc.model_copy(update={"fx": sc.fx.model_copy(update={"usdbrl": usdbrl, "base_path": base_path})})
    return run_scenario(sc, seed_inputs.catalog, file=seed_inputs.path, simulate=False)


# --- break-evens ----------------------------------------------------------------------------------------------------

def test_breakeven_identity_from_the_ledger(seed_results):
    """One break-even: every feasible option but the leader, against the leader (the workbook's k*, times the spot)."""
    rows = af.fx_breakevens(seed_results)
    feasible = rankable(seed_results.options)  # feasible and within the client's constraints
    lead = min(feasible, key=lambda o: o.tco.deterministic)
    assert [r.option for r in rows] == [o.name for o in feasible if o is not lead]
    assert {r.versus for r in rows} == {lead.name}
    s0 = seed_results.scenario.fx.usdbrl
    ul = seed_results.ledger.usd_share_brl(lead.name)
    bl = lead.tco.deterministic - ul
    for r in rows:
        if r.usdbrl is None:
            continue
        o = next(x for x in feasible if x.name == r.option)
        uo = seed_results.ledger.usd_share_brl(o.name)
        bo = o.tco.deterministic - uo
        k = r.usdbrl / s0
        # BRL part + USD part × k is each option's TCO at spot k × S0: equal at the break-even
        assert bo + uo * k == pytest.approx(bl + ul * k, rel=1e-12)
    assert any(r.usdbrl for r in rows)


def test_a_hand_worked_breakeven():
    """Leader: R$ 90 in BRL + R$ 10 of USD converted; option j: R$ 20 + R$ 100. At k·S0 they tie:
    90 + 10k = 20 + 100k → k = 70/90; at a spot of 5.40 the break-even is 5.40 × 70/90 = 4.20."""
    k = af.fx_multiple(90.0, 10.0, 20.0, 100.0)
    assert k == pytest.approx(70 / 90)
    assert 5.40 * k == pytest.approx(4.20)
    assert af.fx_multiple(90.0, 10.0, 95.0, 100.0) is None  # k = −5/90: no positive rate
    assert af.fx_multiple(90.0, 10.0, 95.0, 10.0) is None  # the same USD part: never tie


def test_rerunning_at_the_breakeven_spot_equalises_the_two(seed_inputs):
    """On the spot base path (the path is the spot), re-running the engine at each break-even spot makes the cloud
    option and the dedicated one cost the same: TCO is linear in the spot."""
    base = _at_spot(seed_inputs, seed_inputs.scenario.fx.usdbrl)
    rows = [r for r in af.fx_breakevens(base) if r.usdbrl]
    assert rows
    for row in rows:
        tco = {o.name: o.tco.deterministic for o in _at_spot(seed_inputs, row.usdbrl).options}
        assert tco[row.option] == pytest.approx(tco[row.versus], rel=1e-9), row
    assert {round(r.usdbrl, 2) for r in rows} != {5.40}  # not trivially the spot


def test_on_the_focus_path_the_breakeven_scales_the_whole_path(seed_inputs, seed_results):
    """With the Focus base path a new spot moves only the first months (the survey's year-ends stay), so the
    break-even is the level of the whole path scaled by k = rate / S0, as its docstring says: scaling the ledger's
    USD part by k equalises, re-running at that spot does not."""
    row = next(r for r in af.fx_breakevens(seed_results) if r.usdbrl)
    k = row.usdbrl / seed_results.scenario.fx.usdbrl
    tco_at = {o.name: o.tco.deterministic - (1 - k) * seed_results.ledger.usd_share_brl(o.name)
              for o in seed_results.options}
    assert tco_at[row.option] == pytest.approx(tco_at[row.versus], rel=1e-9)
    rerun = {o.name: o.tco.deterministic for o in _at_spot(seed_inputs, row.usdbrl, "focus").options}
    assert rerun[row.option] != pytest.approx(rerun[row.versus], rel=0.01)


def test_one_feasible_option_no_breakevens(seed_results):
    one = [o for o in seed_results.options if o.feasible][:1]
    assert af.fx_breakevens(dataclasses.replace(seed_results, options=one)) == []


def test_no_positive_rate_is_said(seed_results):
    """A cloud option whose BRL part alone exceeds the dedicated TCO cannot be matched by any positive rate."""
    ded = min((o for o in rankable(seed_results.options) if o.kind == "dedicated"), key=lambda o: o.tco.deterministic)
    c = next(o for o in rankable(seed_results.options) if o.kind == "cloud")
    setup = c.lines_brl["setup"] + ded.tco.deterministic * 2 / len(seed_results.months)  # a huge BRL setup fee
    heavy = dataclasses.replace(c, tco=dataclasses.replace(c.tco, deterministic=c.tco.deterministic + float(
        setup.sum() - c.lines_brl["setup"].sum())))
    res = dataclasses.replace(seed_results, options=[ded, heavy])
    (row,) = af.fx_breakevens(res)
    assert row.usdbrl is None and row.note == "no positive exchange rate equalises the two"


# --- payback ---------------------------------------------------------------------------------------------------------

def test_payback_against_the_cheapest_cloud_option(seed_results):
    rows = _by(af.paybacks(seed_results))
    c = min((o for o in rankable(seed_results.options) if o.kind == "cloud"), key=lambda o: o.tco.deterministic)
    assert {r.versus for r in rows.values()} == {c.name}
    for name, r in rows.items():
        o = next(x for x in seed_results.options if x.name == name)
        cum = np.cumsum(c.total_brl - o.total_brl)
        if cum[-1] < 0:
            assert r.payback_month is None
        else:  # the month after the last month the saving is still negative (1-based)
            neg = np.nonzero(cum < 0)[0]
            assert r.payback_month == (int(neg[-1]) + 2 if len(neg) else 1)
    assert c.name not in rows


# --- decomposition ----------------------------------------------------------------------------------------------------

def test_decomposition_parts_add_up_to_the_difference(seed_results):
    d = af.decomposition(seed_results)
    ded = min((o for o in rankable(seed_results.options) if o.kind == "dedicated"), key=lambda o: o.tco.deterministic)
    cloud = min((o for o in rankable(seed_results.options) if o.kind == "cloud"), key=lambda o: o.tco.deterministic)
    assert (d.dedicated, d.cloud) == (ded.name, cloud.name)
    assert d.difference_brl == cloud.tco.deterministic - ded.tco.deterministic
    assert d.check_sum_brl == pytest.approx(d.difference_brl, rel=1e-9)
    expected_egress = float(cloud.lines_brl["egress"].sum() - ded.lines_brl["egress"].sum())
    assert d.parts_brl["egress"] == pytest.approx(expected_egress)
    share = float(cloud.lines_brl["egress"].sum()) * (1 + cloud.costs.tax_uplift) / cloud.tco.deterministic
    assert d.egress_share_of_cloud_tco == pytest.approx(share)
    assert d.egress_claim.verdict == ("below" if share < 0.20 else "above" if share > 0.40 else "inside")
    assert d.fx_risk_premium_brl == 0.0  # no Monte Carlo: P95 = P50 for both


def test_no_decomposition_without_both_kinds(seed_results):
    clouds = [o for o in seed_results.options if o.kind == "cloud"]
    assert af.decomposition(dataclasses.replace(seed_results, options=clouds)) is None


# --- hedging -----------------------------------------------------------------------------------------------------------

def test_hedged_tco_by_hand(seed_results):
    fx = seed_results.scenario.fx
    h = len(seed_results.months)
    # the interest-parity forward of month m: S0 × ((1 + i_BRL) / (1 + i_USD))^(m/12), m = 1..H
    fwd = fx.usdbrl * ((1 + fx.brl_rate) / (1 + fx.usd_rate)) ** (np.arange(1, h + 1) / 12)
    out = af.hedging(seed_results)
    assert out.forward_first == pytest.approx(fwd[0], rel=1e-12)
    assert out.forward_last == pytest.approx(fwd[-1], rel=1e-12)
    rows = _by(out.options)
    for o in seed_results.options:
        brl, usd = seed_results.ledger.by_currency(o.name)
        expected = float(brl.sum() + usd @ fwd)
        assert rows[o.name].hedged_tco_brl == pytest.approx(expected, rel=1e-9)
        assert rows[o.name].hedge_cost_vs_deterministic_brl == pytest.approx(expected - o.tco.deterministic,
                                                                                rel=1e-9, abs=1e-6)


def test_hedging_costs_more_for_dollar_heavy_options(seed_results):
    """The forward is above the Focus path here (BRL rate above USD rate), so locking costs a USD-billed option
    something, and an option that pays (almost) nothing in dollars (almost) nothing."""
    rows = _by(af.hedging(seed_results).options)
    aws = next(o for o in seed_results.options if o.name == "AWS us-east-1 — p5en (H200)")
    ded = next(o for o in seed_results.options if o.name == "Dedicado BR — 8x H200")
    assert rows[aws.name].hedge_cost_vs_deterministic_brl > rows[ded.name].hedge_cost_vs_deterministic_brl >= 0
