"""tco.report.workbook.outputs: the Comparison and FX-risk sheets, read back from the written workbook.

Comparison: one row per option in scenario order, its TCO and NPV formulas pointing at that option's own results
(evaluated in-process from the cached cells, tests/workbook_eval.py), rank and margin over the best worked from the
TCOs, the cost per million tokens = TCO / (Σ tokens / 10⁶). FX risk: the engine's percentiles per option."""

from __future__ import annotations

import pytest

from tco.report.i18n import t

LOC = "pt-BR"


def _cmp(book):
    return t("sh_comparison", LOC)


def test_every_comparison_formula_is_its_cached_value(book):
    assert book.check_formulas(_cmp(book)) >= 4 * 6


def test_one_row_per_option_pointing_at_its_own_results(small_run, book):
    s = _cmp(book)
    for i, o in enumerate(small_run.options, start=1):
        r = 3 + i
        assert book.cached(s, r, 2) == o.name
        for c, name in ((4, f"out_o{i}_tco"), (5, f"out_o{i}_npv")):  # the very cell the option's result name holds
            sheet, ref = book.name_ref(name)
            assert book.formula(s, r, c).replace("$", "") == f"='{sheet}'!{ref}"
        assert book.cached(s, r, 4) == pytest.approx(o.tco.deterministic, rel=1e-12)
        assert book.cached(s, r, 5) == pytest.approx(o.npv.deterministic, rel=1e-12)
        assert book.name_values(f"out_o{i}_tco")[0] == pytest.approx(o.tco.deterministic, rel=1e-12)


def test_rank_and_margin_over_the_best(small_run, book):
    s = _cmp(book)
    tcos = [o.tco.deterministic for o in small_run.options]
    best = min(tcos)
    for i, tco in enumerate(tcos, start=1):
        r = 3 + i
        assert book.cached(s, r, 6) == sorted(tcos).index(tco) + 1
        assert book.cached(s, r, 7) == pytest.approx(tco / best - 1, rel=1e-12, abs=1e-15)  # e.g. +27,2 %


def test_cost_per_million_tokens(small_run, book):
    s = _cmp(book)
    tokens = float(small_run.tokens.sum())
    for i, o in enumerate(small_run.options, start=1):
        expected = o.tco.deterministic / (tokens / 1e6)
        assert book.cached(s, 3 + i, 8) == pytest.approx(expected, rel=1e-9)
        assert o.cost_per_million_tokens_brl == pytest.approx(expected, rel=1e-9)


def test_sorted_order_puts_the_cheapest_first(small_run, book):
    s = _cmp(book)
    order = [book.cached(s, 3 + i, 15) for i in range(1, len(small_run.options) + 1)]
    by_tco = sorted(range(len(small_run.options)), key=lambda j: small_run.options[j].tco.deterministic)
    assert [by_tco.index(j) + 1 for j in range(len(order))] == order


def test_fx_risk_sheet_holds_the_engine_percentiles(small_run, book):
    s = t("sh_fx", LOC)
    rows = book.labels(s)
    for o in small_run.options:
        r = rows[o.name]
        got = [book.cached(s, r, c) for c in range(2, 12)]
        want = [o.tco.deterministic, o.tco.mean, o.tco.p5, o.tco.p50, o.tco.p95,
                o.npv.deterministic, o.npv.mean, o.npv.p5, o.npv.p50, o.npv.p95]
        assert got == pytest.approx(want, rel=1e-12)
        assert book.cached(s, r, 12) == pytest.approx(o.prob_cheapest, abs=1e-12)
    assert book.cached(s, rows[t("paths", LOC)], 2) == 200
    book.check_formulas(s, horizon=len(small_run.months))


@pytest.mark.slow
def test_an_infeasible_option_is_shown_but_not_ranked(small_run, tmp_path):
    import dataclasses

    from workbook_eval import Book

    from tco.report import view, workbook

    slow = small_run.options[0]
    res = dataclasses.replace(small_run, options=[dataclasses.replace(o, replica=dataclasses.replace(
        o.replica, target_met=False)) if o is slow else o for o in small_run.options])
    workbook.write(res, view.build(res), tmp_path / "b.xlsx")
    b = Book(tmp_path / "b.xlsx")
    s = t("sh_comparison", LOC)
    assert b.cached(s, 4, 6) == t("infeasible", LOC)
    ranks = [b.cached(s, 3 + i, 6) for i in range(2, len(res.options) + 1)]
    assert sorted(ranks) == list(range(1, len(res.options)))
    b.check_formulas(s)
