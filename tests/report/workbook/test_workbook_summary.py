"""tco.report.workbook.summary: the Summary sheet a reader opens first (scenario, live key inputs, the master check,
key figures, the ranking sorted by formula, the engine's notices).

Read back from the written workbook: every formula equals its cached value evaluated in-process; the ranking lists
the options cheapest first with the engine's TCO, NPV and margin; the ranking re-sorts by formula (evaluated with
the Comparison's order edited, the rows follow); scenario text is text; every notice has its line."""

from __future__ import annotations

import pytest

from tco.report import notices
from tco.report.i18n import t

LOC = "pt-BR"


@pytest.fixture(scope="module")
def sheet():
    return t("sh_summary", LOC)


def _ranking_rows(book, sheet, n):
    head = next(c.row for (c,) in book.f[sheet].iter_rows(min_col=1, max_col=1) if c.value == t("rank", LOC))
    return list(range(head + 1, head + 1 + n))


def test_every_formula_is_its_cached_value(book, sheet):
    assert book.check_formulas(sheet) > 20


def test_scenario_text_and_live_inputs(small_run, book, sheet):
    s = small_run.scenario.scenario
    rows = book.labels(sheet)
    assert book.cached(sheet, rows[t("cover_scenario", LOC)], 2) == s.name
    assert book.cached(sheet, rows[t("cover_client", LOC)], 2) == s.client
    r = rows[t("usdbrl", LOC)]
    assert book.formula(sheet, r, 2) == "=in_usdbrl" and book.cached(sheet, r, 2) == small_run.scenario.fx.usdbrl
    assert book.formula(sheet, rows[t("cover_horizon", LOC)], 2) == "=tl_h"
    assert book.cached(sheet, rows[t("master_check", LOC)], 2) is True


def test_the_ranking_is_cheapest_first_with_the_engine_numbers(small_run, book, sheet):
    ranked = sorted(small_run.options, key=lambda o: o.tco.deterministic)
    best = ranked[0].tco.deterministic
    for k, (r, o) in enumerate(zip(_ranking_rows(book, sheet, len(ranked)), ranked, strict=True), start=1):
        assert book.cached(sheet, r, 1) == k
        assert book.cached(sheet, r, 2) == o.name
        assert book.cached(sheet, r, 3) == pytest.approx(o.tco.deterministic, rel=1e-12)
        assert book.cached(sheet, r, 4) == pytest.approx(o.npv.deterministic, rel=1e-12)
        assert book.cached(sheet, r, 5) == pytest.approx(o.tco.deterministic / best - 1, abs=1e-12)


def test_the_ranking_follows_the_comparison_order(small_run, book, sheet):
    """Row k shows the option whose Comparison order is k: swap the first two orders and the first row names the
    option that was second."""
    cmp_ = t("sh_comparison", LOC)
    n = len(small_run.options)
    orders = {r: book.cached(cmp_, r, 15) for r in range(4, 4 + n)}
    first_row = next(r for r, k in orders.items() if k == 1)
    second_row = next(r for r, k in orders.items() if k == 2)
    r = _ranking_rows(book, sheet, n)[0]
    assert book.evaluate(sheet, r, 6) == first_row - 3
    swapped = {(cmp_, f"O{first_row}"): 2, (cmp_, f"O{second_row}"): 1}
    assert book.evaluate(sheet, r, 6, swapped) == second_row - 3
    assert book.cached(cmp_, second_row, 2) != book.cached(sheet, r, 2)


def test_every_notice_has_its_line(small_run, book, sheet):
    texts = {c.value for row in book.f[sheet].iter_rows(min_col=2, max_col=2) for c in row}
    for n in small_run.notices:
        assert notices.line(n, LOC) in texts
