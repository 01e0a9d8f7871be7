"""tco.report.workbook.checks: the Checks sheet (integrity checks, the master check, reconciliation with the engine,
the copy of every input with the value it was generated with).

Every formula equals its cached value evaluated in-process; as written every check passes and no input has changed;
the engine's values beside the live ones are the engine's; and each kind of check can fail: evaluated again with one
cell edited (a workbook TCO R$ 1 off, an input changed), it reports the difference."""

from __future__ import annotations

import pytest

from tco.report.i18n import t

LOC = "pt-BR"


@pytest.fixture(scope="module")
def sheet():
    return t("sh_checks", LOC)


@pytest.mark.slow
def test_every_formula_is_its_cached_value(small_run, book, sheet):
    assert book.check_formulas(sheet, horizon=len(small_run.months)) > 100


def test_as_written_everything_passes_and_nothing_changed(book):
    assert book.name_values("chk_master") == [True]
    assert book.name_values("chk_reconciled") == [True]
    assert book.name_values("chk_inputs_changed") == [0]


def _recon_rows(book, sheet, key):
    label = t(key, LOC)
    return [c.row for (c,) in book.f[sheet].iter_rows(min_col=2, max_col=2) if c.value == label]


def test_reconciliation_beside_the_engine(small_run, book, sheet):
    rows = _recon_rows(book, sheet, "chk_tco")
    assert len(rows) == len(small_run.options)
    for r, o in zip(rows, small_run.options, strict=True):
        assert book.cached(sheet, r, 1) == o.name
        assert book.cached(sheet, r, 4) == pytest.approx(o.tco.deterministic, rel=1e-12)  # the engine's value
        sh, ref = book.name_ref(f"out_o{small_run.options.index(o) + 1}_tco")
        assert book.formula(sheet, r, 3).replace("$", "") == f"='{sh}'!{ref}"  # the live TCO
    monthly = _recon_rows(book, sheet, "chk_monthly")
    assert [book.cached(sheet, r, 3) for r in monthly] == [len(small_run.months)] * len(small_run.options)


def test_a_tco_one_real_off_fails_its_check(book, sheet):
    r = _recon_rows(book, sheet, "chk_tco")[0]
    engine = book.cached(sheet, r, 4)
    assert book.evaluate(sheet, r, 5) is True or book.evaluate(sheet, r, 5) == 1
    off = {(sheet, f"C{r}"): engine + 1.0}  # R$ 1 above the engine: beyond the tolerance
    assert not book.evaluate(sheet, r, 5, off)
    near = {(sheet, f"C{r}"): engine + 0.001}  # a tenth of a centavo: within it
    assert book.evaluate(sheet, r, 5, near)


def test_a_month_that_differs_is_counted(small_run, book, sheet):
    r = _recon_rows(book, sheet, "chk_monthly")[0]
    h = len(small_run.months)
    assert book.evaluate(sheet, r, 3) == h
    sh, ref = book.name_ref("out_o1_total")
    first = ref.split(":")[0]  # month 1 of option 1's total row
    cell = book.v[sh][first]
    assert book.evaluate(sheet, r, 3, {(sh, first): cell.value + 5.0}) == h - 1  # R$ 5 off in one month


def test_an_edited_input_is_flagged(book, sheet):
    label = t("chk_cell", LOC)
    r = next(c.row for (c,) in book.f[sheet].iter_rows(min_col=2, max_col=2) if c.value == label) + 1
    sh, cell = book.cached(sheet, r, 2).split("!")  # the input's own cell, e.g. Premissas!$C$5
    generated = book.cached(sheet, r, 4)
    assert book.cached(sheet, r, 1)  # each copy names its input
    assert book.evaluate(sheet, r, 5) == 0
    edited = (generated or 0) * 1.5 + 1
    assert book.evaluate(sheet, r, 3, {(sh, cell.replace("$", "")): edited}) == pytest.approx(edited)
    assert book.evaluate(sheet, r, 5, {(sheet, f"C{r}"): edited}) == 1


def test_the_master_check_ands_every_integrity_check(book, sheet):
    sh, ref = book.name_ref("chk_master")
    r = int("".join(ch for ch in ref if ch.isdigit()))
    f = book.formula(sh, r, 5)
    assert f.startswith("=IFERROR(AND(E4:E")  # FALSE, not an error (input_checks)
    last = int(f.split(":E")[1].split(",")[0].rstrip(")"))
    assert all(book.cached(sh, x, 5) is True for x in range(4, last + 1) if book.cached(sh, x, 5) is not None)
