"""tco.report.workbook.book: the plumbing the sheet writers share (column letters, references, the row writer that
puts one formula in every month with the engine's value cached, and the merged order of the calculation rows).

Hand cases for the references; a row written into a small workbook and read back with openpyxl (a formula per month
with its cached value, the total in column C); and properties of ``merged``: every key once, and every sequence kept in
its own order when the sequences agree."""

from __future__ import annotations

import math

import xlsxwriter
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report.workbook.book import (FIRST_COL, Book, abs_cell, col, make_formats, merged, month_col, num, qs,
                                      row_range, write_row)
from tco.report.workbook.cells import install


def test_references_by_hand():
    assert FIRST_COL == 4 and month_col(1) == "E" and month_col(22) == "Z" and month_col(23) == "AA"
    assert month_col(36) == "AN" and col(0) == "A"
    assert qs("Cálculo 1") == "'Cálculo 1'!"
    assert qs("O'Brien") == "'O''Brien'!"  # a quote inside a sheet name is doubled
    assert row_range("Linha do tempo", 8, 24) == "'Linha do tempo'!$E$9:$AB$9"  # 0-based row 8 is row 9
    assert abs_cell("Premissas", 29, 1) == "'Premissas'!$B$30"


def test_num_keeps_finite_values_and_zeroes_the_rest():
    assert num(2.5) == 2.5 and num(3) == 3.0
    assert num(math.nan) == 0.0 and num(math.inf) == 0.0 and num(-math.inf) == 0.0


def test_a_row_is_one_formula_per_month_with_the_engine_value_cached(tmp_path):
    import openpyxl

    path = tmp_path / "row.xlsx"
    wb = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False})
    book = Book(wb, "pt-BR", 3)
    book.fmts = make_formats(wb)
    ws = wb.add_worksheet("s")
    install(ws)
    values = [10.0, 20.0, float("nan")]
    write_row(ws, book, 5, "Custo", "R$", lambda c, p: f"={p}6+{c}5", values, "calc_brl", total="sum")
    wb.close()
    f = openpyxl.load_workbook(path)["s"]
    v = openpyxl.load_workbook(path, data_only=True)["s"]
    assert (f["A6"].value, f["B6"].value) == ("Custo", "R$")
    # month 1 reads the spacer column D (empty: 0), month 2 reads month 1
    assert [f[f"{c}6"].value for c in "EFG"] == ["=D6+E5", "=E6+F5", "=F6+G5"]
    assert [v[f"{c}6"].value for c in "EFG"] == [10.0, 20.0, 0.0]  # a non-finite value is cached as 0
    assert f["C6"].value == "=SUM(E6:G6)"
    assert f["D6"].value is None


_KEYS = list("abcdefgh")


def _is_subsequence(sub, seq):
    it = iter(seq)
    return all(x in it for x in sub)


@settings(max_examples=300, deadline=None)
@given(seqs=st.lists(st.lists(st.sampled_from(_KEYS), unique=True), max_size=5))
def test_merged_holds_every_key_once(seqs):
    out = merged(seqs)
    assert len(out) == len(set(out))
    assert set(out) == set().union(*map(set, seqs)) if seqs else out == []
    if seqs:
        assert _is_subsequence(seqs[0], out)  # the first sequence's order is kept


def test_merged_by_hand():
    assert merged([["a", "c"], ["a", "b", "c"]]) == ["a", "b", "c"]  # b goes right after a
    assert merged([["x", "y"], ["y", "z"], ["w", "x"]]) == ["w", "x", "y", "z"]


def test_merged_keeps_every_sequence_in_order_when_they_agree():
    seqs = [["f"], ["h"], ["f", "h"]]
    out = merged(seqs)
    assert all(_is_subsequence(s, out) for s in seqs)  # ['f', 'h']: h waits for f, its predecessor in the third


@settings(max_examples=300, deadline=None)
@given(order=st.permutations(_KEYS), picks=st.lists(st.lists(st.booleans(), min_size=len(_KEYS),
                                                            max_size=len(_KEYS)), max_size=5))
def test_merged_keeps_sequences_drawn_from_one_order(order, picks):
    seqs = [[k for k, keep in zip(order, pick) if keep] for pick in picks]
    out = merged(seqs)
    assert all(_is_subsequence(s, out) for s in seqs)
