"""tco.report.workbook.cells: formula cells stored and written as XlsxWriter stores and writes them, without its
per-formula preparation, and a row's formulas rendered once with placeholders for the column letters."""

from __future__ import annotations

import zipfile

import xlsxwriter
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.expr import MAX, Prev, Row, XlContext
from tco.report.workbook.cells import by_letters, install, plain, row_texts
from tco.costs.upfront_rules import Renewals


def test_plain_formulas_are_classic_functions_only():
    assert plain("=MAX(0,E5)+ROUNDUP(E6/2,0)")
    assert plain("=E5*in_x")  # no function at all
    assert not plain("=XLOOKUP(1,A:A,B:B)")  # XlsxWriter prefixes it with _xlfn.
    assert not plain("=_xlfn.STDEV.S(A1:A3)")  # already prefixed: XlsxWriter keeps it as written
    assert not plain("{=SUM(A1:A2)}")  # an array formula
    assert not plain("=A1}")  # XlsxWriter strips a closing brace


def _write(path, cells, fast: bool) -> None:
    wb = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False})
    ws = wb.add_worksheet("s")
    if fast:
        install(ws)
    fmt = wb.add_format({"num_format": "0.00"})
    for r, (text, value, with_fmt) in enumerate(cells):
        ws.write_formula(r, 0, text, fmt if with_fmt else None, value)
        ws.write_number(r, 1, r * 1.5 + 0.1, fmt if with_fmt else None)
    wb.close()


def _sheet_xml(path) -> bytes:
    with zipfile.ZipFile(path) as z:
        return z.read("xl/worksheets/sheet1.xml")


CASES = [
    ("=IF(E5>0,E5<1,0)", 1.0, True),  # comparison operators escaped in the XML
    ('=IF(A1="a&b",1,0)', 0.0, True),
    ("=SUM(A1:A3)", 2, True),  # an int cached value
    ("=MAX(1,2)", True, True),  # a boolean cached value
    ('=CHOOSE(1,"x","y")', "x", True),  # a text cached value
    ("=SUM(A1:A3)", 3.0, False),  # no format
    ("=SORT(A1:A3)", 0.0, True),  # a dynamic-array function: XlsxWriter's path
    ("=_xlfn.STDEV.S(A1:A3)", 0.0, True),
    ("{=SUM(A1:A2*B1:B2)}", 0.0, True),
    ("C5", 7.0, True),  # no leading =
]


def test_installed_sheet_writes_the_same_xml_as_xlsxwriter(tmp_path):
    _write(tmp_path / "lib.xlsx", CASES, fast=False)
    _write(tmp_path / "fast.xlsx", CASES, fast=True)
    assert _sheet_xml(tmp_path / "fast.xlsx") == _sheet_xml(tmp_path / "lib.xlsx")


TOKENS = st.sampled_from(["MAX(", "SUM(", "IF(", "SORT(", "XLOOKUP(", "_xlfn.", "N(", "E5", "$C$3", ",", ")", "<", ">",
                          "&", '"', "{", "}", "=", "+", "1.5", "in_x", " ", "FILTER(", "a.b("])


@settings(max_examples=200, deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=12).map("".join), st.sampled_from([0.5, 3, True, "t"]))
def test_any_formula_is_stored_as_xlsxwriter_stores_it(text, value):
    fast = xlsxwriter.Workbook("unused.xlsx", {"in_memory": True}).add_worksheet()
    lib = xlsxwriter.Workbook("unused.xlsx", {"in_memory": True}).add_worksheet()
    install(fast)
    assert fast.write_formula(0, 0, text, None, value) == lib.write_formula(0, 0, text, None, value)
    assert fast.table == lib.table
    assert (fast.dim_rowmax, fast.dim_colmax) == (lib.dim_rowmax, lib.dim_colmax)


def _ctx(c, p):
    return XlContext(col=c, prev=p, row_of=lambda key: {"x": 5, "y": 6}[key], name_of=lambda name: "in_" + name)


def test_row_texts_by_pattern_equal_month_by_month():
    rule = MAX(Prev("y"), Row("x") * 2)
    columns, previous = ["E", "F", "G"], ["D", "E", "F"]
    got = row_texts(lambda c, p: "=" + rule.xl(_ctx(c, p)), columns, previous)
    assert got == ["=MAX(D6,E5*2)", "=MAX(E6,F5*2)", "=MAX(F6,G5*2)"]
    assert by_letters(rule)


def test_a_node_that_computes_with_its_column_goes_month_by_month():
    rule = Renewals("y", Row("x"), 2)  # x + the own cell 2 columns back, from the third month
    assert not by_letters(rule)
    columns, previous = ["E", "F", "G", "H"], ["D", "E", "F", "G"]
    got = row_texts(lambda c, p: "=" + rule.xl(_ctx(c, p)), columns, previous, by_pattern=False)
    assert got == ["=E5", "=F5", "=G5+E6", "=H5+F6"]
