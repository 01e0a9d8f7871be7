"""tco.report.workbook.years: the Finance sheet's arithmetic on the engine's arrays (years, unit costs, GPU-hours,
commitments). tests/test_workbook_finance.py works the yearly sums and unit costs by hand; here: which contracts each
kind of option commits to (a shared fleet is one contract, separate fleets two, an on-demand fleet none, a savings plan
its term), the amount inside each, and GPU-hours of separate fleets, all on the seed's options."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.costs import unit_rules
from tco.costs.finance_rules import committed, yearly
from tco.report.workbook.years import calendar_years, commitments, contract_years


def _o(res, start):
    return next(o for o in res.options if o.name.startswith(start))


def _plain(c):
    role, fleet, lines, term, first = c
    return role, fleet.offer_id, lines, term, first


def test_a_shared_fleet_is_one_contract_from_the_first_month_either_starts(seed_results):
    o = _o(seed_results, "Dedicado BR — 8x H200")
    # training starts in month 1, serving in month 2: the shared 8× server is contracted from month 1, for the
    # longer of the two minimum terms (12 months)
    assert [_plain(c) for c in commitments(o, 1, 2)] == [
        ("shared", "br-dedicated/sp/hgx-h200-8x", ["training_compute", "inference_compute"], 12, 1)]


def test_separate_dedicated_fleets_are_two_contracts(seed_results):
    o = _o(seed_results, "Dedicado BR — 8x H200 (frotas separadas)")
    assert [_plain(c) for c in commitments(o, 1, 2)] == [
        ("training", "br-dedicated/sp/hgx-h200-8x", ["training_compute"], 12, 1),
        ("inference", "br-dedicated/sp/h200-nvl-1x", ["inference_compute"],
         o.resolved.inference.min_term_months, 2)]


def test_on_demand_commits_to_nothing_and_a_savings_plan_to_its_term(seed_results):
    assert commitments(_o(seed_results, "AWS us-east-1 — p5en (H200)"), 1, 2) == []
    sp = commitments(_o(seed_results, "AWS us-east-1 — p5en (H200), Savings Plan"), 1, 2)
    assert [(c[0], c[3], c[4]) for c in sp] == [("inference", 36, 2)]  # 3 years from the first serving month


def test_the_amount_inside_a_commitment(seed_results):
    o = _o(seed_results, "Dedicado BR — 8x H200 (frotas separadas)")
    # all-BRL on lucro real: the taxes line is zero, so the taxed part is the line itself
    assert float(o.costs.lines["taxes"].sum()) == pytest.approx(0.0, abs=1e-6)
    line = o.lines_brl["training_compute"]
    assert committed(o, ["training_compute"], 1, 12)[0] == pytest.approx(float(line[0:12].sum()))
    assert committed(o, ["training_compute"], 3, 2)[0] == pytest.approx(float(line[2] + line[3]))
    # a term past the horizon takes the months there are
    assert committed(o, ["training_compute"], 30, 12)[0] == pytest.approx(float(line[29:].sum()))


def test_a_cloud_commitment_carries_its_taxes(seed_results):
    o = _o(seed_results, "AWS us-east-1 — p5en (H200), Savings Plan")
    c = o.costs
    taxed = [k for k in c.lines if k != "taxes" and c.currency[k] == "USD" and np.any(c.lines[k] != 0)]
    ratio = c.lines["taxes"] / sum(c.lines[k] for k in taxed)  # taxes per unit of taxed amount, month by month
    expected = float((o.lines_brl["inference_compute"] * (1 + ratio))[1:37].sum())
    assert committed(o, ["inference_compute"], 2, 36)[0] == pytest.approx(expected, rel=1e-9)
    assert expected > float(o.lines_brl["inference_compute"].sum())


def test_gpu_hours_of_separate_fleets(seed_results):
    o = _o(seed_results, "Dedicado BR — 8x H200 (frotas separadas)")
    assert unit_rules.hour_keys(o.costs.rows) == ("tr_hours", "inf_hours")
    rows = o.costs.rows
    expected = float(np.sum(rows["tr_hours"])) * 8 + float(np.sum(rows["inf_hours"])) * 1  # 8× HGX, then 1× NVL
    assert unit_rules.unit_costs(o, seed_results.users, seed_results.tokens)["gpu_hours"] == expected
    assert unit_rules.hour_keys(_o(seed_results, "Dedicado BR — 8x H200").costs.rows) == ("server_hours",)


@settings(max_examples=100, deadline=None)
@given(h=st.integers(1, 240), first=st.integers(1, 12), year=st.integers(2020, 2040))
def test_years_cover_the_horizon(h, first, year):
    months = [f"{year + (first - 1 + m) // 12}-{(first - 1 + m) % 12 + 1:02d}" for m in range(h)]
    assert contract_years(h) == -(-h // 12)
    cal = calendar_years(months)
    assert cal == list(range(year, int(months[-1][:4]) + 1))
    ones = [1.0] * h
    by_contract, by_calendar, _ = yearly(ones, months)
    assert sum(by_contract) == sum(by_calendar) == h
    assert all(x == 12 for x in by_contract[:-1]) and 1 <= by_contract[-1] <= 12
