"""tco.report.workbook.breakeven: the break-even block of the Finance sheet (where the leader changes when the
USD/BRL path or the cloud prices move) and the parts of each option's TCO it moves.

Hand cases for the closed forms and the nearest multiples; the taxed part of an option holds its taxes (the taxed lines
in reais plus the taxes line, month by month); and the sheet, evaluated in-process: the leader is the cheapest option,
the rate at which the leader changes is the multiple × the spot, and at the trial multiple set to the break-even the
gap between the leader and the next option closes to zero (cloud prices and USD/BRL alike)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workbook_eval import written

from tco.report.i18n import t
from tco.analysis.figures import MIN_MULTIPLE, fx_multiple, nearest, tie_multiple
from tco.report.workbook.breakeven import breakevens
from tco.costs import finance_rules
from tco.costs.finance_rules import taxed_lines

LOC = "pt-BR"


def test_closed_forms_by_hand():
    # 100 + 20(m − 1) = 130 + 80(m − 1) → m = 1 − 30/60 = 0.5
    assert tie_multiple(100.0, 20.0, 130.0, 80.0) == 0.5
    # 90 + 10k = 20 + 100k → k = 70/90
    assert fx_multiple(90.0, 10.0, 20.0, 100.0) == pytest.approx(70 / 90)
    assert tie_multiple(100.0, 20.0, 130.0, 20.0) is None  # parallel: never tie
    assert fx_multiple(90.0, 10.0, 95.0, 100.0) is None  # k = −5/90 < 0: no positive rate
    # a tie only where the prices leave nothing (m ≈ 0) is no break-even: 100 + 0 = 100.5 + 100(m − 1) → m = 0.995…
    assert tie_multiple(100.0, 0.0, 100.5, 100.0) == pytest.approx(0.995)
    assert tie_multiple(100.0, 0.0, 199.95, 100.0) is None  # m = 0.0005 < MIN_MULTIPLE


def test_nearest_multiples_around_one():
    assert nearest([0.5, None, 0.8, 1.7, 3.0]) == (0.8, 1.7)
    assert nearest([None, 2.0]) == (None, 2.0)
    assert nearest([]) == (None, None)
    assert nearest([1.0]) == (None, None)  # a tie at 1 is not a change of leader


@settings(max_examples=200, deadline=None)
@given(brl=st.tuples(st.floats(0, 1e7), st.floats(0, 1e7)), usd=st.tuples(st.floats(0, 1e7), st.floats(0, 1e7)))
def test_at_the_fx_multiple_the_two_options_cost_the_same(brl, usd):
    k = fx_multiple(brl[0], usd[0], brl[1], usd[1])
    if k is None:
        return
    assert brl[0] + k * usd[0] == pytest.approx(brl[1] + k * usd[1], rel=1e-9, abs=1e-3)
    assert k > MIN_MULTIPLE


def test_the_taxed_part_holds_the_taxes(small_run):
    # the part of every taxed line, with the taxes they bear, is those lines plus the whole taxes line (in BRL)
    for o in small_run.options:
        taxed = taxed_lines(o.costs.currency)
        whole = finance_rules.parts(o, [], [], taxed)["dedicated_part"]
        expected = sum(float(o.lines_brl[k].sum()) for k in taxed) + float(o.lines_brl["taxes"].sum())
        assert whole == pytest.approx(expected, rel=1e-9, abs=1e-6)
        # a line outside the taxed amount is taken as it is
        other = [k for k in o.lines_brl if k not in taxed and k != "taxes"]
        if other:
            alone = finance_rules.parts(o, [], other[:1], [])["cloud_part"]
            assert alone == pytest.approx(float(o.lines_brl[other[0]].sum()), rel=1e-12)


@pytest.fixture(scope="module")
def fin(small_run):
    return written(small_run), t("sh_finance", LOC)


def _name_cell(book, name):
    s, ref = book.name_ref(name)
    c = book.v[s][ref]
    return s, c.row, c.column, ref


def test_the_leader_is_the_cheapest_option(small_run, fin):
    book, _ = fin
    cheapest = min(small_run.options, key=lambda o: o.tco.deterministic)
    assert book.name_values("be_leader") == [cheapest.name]
    assert book.name_values("be_leader_pos") == [small_run.options.index(cheapest) + 1]
    for name in ("be_leader", "be_leader_pos", "be_fx_up", "be_fx_up_rate", "be_cloud_up", "be_gap_fx"):
        s, r, c, _ = _name_cell(book, name)
        got, want = book.evaluate(s, r, c), book.cached(s, r, c)
        assert got == (pytest.approx(want, rel=1e-9) if isinstance(want, float) else want), name


def test_the_named_multiples_are_the_modules_values(small_run, fin):
    book, _ = fin
    be = breakevens(small_run)
    up = book.name_values("be_fx_up")[0]
    assert up == pytest.approx(be["fx_up"], rel=1e-12)
    # the rate: the multiple × the spot (× the USD/BRL lever, 1 as generated)
    assert book.name_values("be_fx_up_rate")[0] == pytest.approx(be["fx_up"] * small_run.scenario.fx.usdbrl)
    assert book.name_values("be_cloud_up")[0] == pytest.approx(be["cloud_up"], rel=1e-12)
    assert book.name_values("be_gap_fx")[0] == pytest.approx(be["margin"], rel=1e-9)


@pytest.mark.parametrize(("trial", "multiple", "gap"), [("be_trial_fx", "be_fx_up", "be_gap_fx"),
                                                        ("be_trial_cloud", "be_cloud_up", "be_gap_cloud")])
def test_at_the_break_even_the_gap_closes(small_run, fin, trial, multiple, gap):
    book, sheet = fin
    ts, tr, tc, tref = _name_cell(book, trial)
    gs, gr, gc, _ = _name_cell(book, gap)
    k = book.name_values(multiple)[0]
    formula = book.formula(gs, gr, gc)
    col = "M" if trial == "be_trial_fx" else "L"
    first, last = (int(x) for x in re.search(rf"\${col}\$(\d+):\${col}\$(\d+)", formula).groups())
    edit = {(ts, tref): k}
    trial_tcos = {(gs, f"{col}{r}"): book.evaluate(gs, r, book.v[gs][f"{col}{r}"].column, edit)
                  for r in range(first, last + 1)}
    closed = book.evaluate(gs, gr, gc, edit | trial_tcos)
    assert closed == pytest.approx(0.0, abs=1e-6 * small_run.options[0].tco.deterministic)
    assert book.cached(gs, gr, gc) > 1000  # as generated (trial 1) the leader is ahead
