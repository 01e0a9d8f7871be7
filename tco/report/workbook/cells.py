"""Formula cells written without XlsxWriter's per-formula preparation, and a row's formulas built from one text.

XlsxWriter prepares every formula it is given: about 30 regular-expression passes that prefix the Excel 365
(dynamic-array) functions with ``_xlfn.`` (and, with ``use_future_functions``, some 200 more passes, an option
this workbook leaves off). The workbook calls only classic functions (``SAFE_FUNCTIONS``), which preparation
leaves alone, so for such a formula it only strips the leading ``=``; ``install`` gives each worksheet a
``write_formula`` that does just that and stores the cell as XlsxWriter's own would, and hands anything else
(another function, an array formula, text already holding ``_xlfn.``, A1 notation) to XlsxWriter unchanged.

A timeline row holds the same formula in every month, only its column letters differ: ``row_texts`` renders the
formula once with placeholders for the column and the previous column and fills them in per month.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

from tco.plain import plain as plain_path

SAFE_FUNCTIONS = frozenset({
    "ABS", "AND", "AVERAGE", "CHOOSE", "COUNT", "COUNTA", "COUNTIF", "DATE", "DAY", "EDATE", "EOMONTH", "EXP", "IF",
    "IFERROR", "INDEX", "INT", "ISNUMBER", "LN", "MATCH", "MAX", "MIN", "MONTH", "N", "NOT", "OR", "RANK", "ROUND",
    "ROUNDUP", "ROWS", "SMALL", "SUM", "SUMIF", "SUMPRODUCT", "YEAR",
})
"""Excel functions of the 1990s file format: XlsxWriter's preparation never rewrites them (it prefixes only the
newer functions it lists), so a formula calling nothing else is stored as written, without its ``=``."""

_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\(")
"""A function call: the name (letters, digits, ``_`` and ``.``, as in ``_xlfn.NORM.S.INV``) and its bracket."""

COLUMN, PREVIOUS = "\x01", "\x02"
"""Placeholders for a month's column letter and the column before it (never found in a formula)."""


def plain(formula: str) -> bool:
    """True when XlsxWriter's preparation of `formula` would only strip its leading ``=``: no array braces, no
    ``_xlfn.`` prefix already written, and every function called a classic one (``SAFE_FUNCTIONS``).

    >>> plain("=MAX(0,E5)"), plain("=XLOOKUP(1,A:A,B:B)"), plain("{=SUM(A1:A2)}")
    (True, False, False)
    """
    if formula[:1] == "{" or formula[-1:] == "}" or "_xlfn." in formula:
        return False
    return all(call[:-1] in SAFE_FUNCTIONS for call in _CALL.findall(formula))


def install(ws) -> None:
    """Give worksheet `ws` a ``write_formula`` that stores a plain formula (see ``plain``) directly in the sheet's
    cell table, as XlsxWriter's ``write_formula`` stores it after preparing it; other formulas, and every call on
    an XlsxWriter without that table or in constant-memory mode, take XlsxWriter's own path."""
    from xlsxwriter import worksheet as xw

    if plain_path("cells"):  # TCO_PLAIN: XlsxWriter's own methods (tco.plain)
        return
    table = getattr(ws, "table", None)
    cell = getattr(xw, "CellFormulaTuple", None)
    if table is None or cell is None or getattr(ws, "constant_memory", False):
        return
    library = ws.write_formula
    check = ws._check_dimensions

    def write_formula(row, column, formula, cell_format=None, value=0):
        if not (type(row) is int and type(column) is int and isinstance(formula, str) and formula and plain(formula)):
            return library(row, column, formula, cell_format, value)
        if check(row, column):
            return -1
        table[row][column] = cell(formula[1:] if formula[:1] == "=" else formula, cell_format, value)
        return 0

    def write_plain_row(row: int, first: int, texts: list[str], cell_format, values: list) -> None:
        """Formulas already known to be plain (``plain``), without their ``=``, in columns first, first + 1 …"""
        if check(row, first) or check(row, first + len(texts) - 1):
            raise ValueError(f"row {row}, columns {first}..{first + len(texts) - 1} are outside the worksheet")
        cells = table[row]
        for j, (text, value) in enumerate(zip(texts, values)):
            cells[first + j] = cell(text, cell_format, value)

    ws.write_formula = write_formula
    ws.write_plain_row = write_plain_row
    ws._write_cell = _cell_writer(ws, xw)


def _cell_writer(ws, xw):
    """XlsxWriter's ``_write_cell`` (the XML of one cell, its innermost loop) with a short path for the two
    kinds of cell that make most of this workbook: a formatted number, and a formatted formula whose cached value
    is a number. Each writes the bytes XlsxWriter writes (tests/test_workbook_cells.py compares them); any other
    cell goes to XlsxWriter's own method."""
    from xlsxwriter.utility import xl_rowcol_to_cell_fast as cell_name

    library = ws._write_cell
    number, formula = xw.CellNumberTuple, xw.CellFormulaTuple

    def write_cell(row: int, column: int, cell) -> None:
        kind, fmt = type(cell), cell.format
        if fmt is None or not (kind is number or (kind is formula and type(cell.value) in (float, int))):
            return library(row, column, cell)
        head = f'<c r="{cell_name(row, column)}" s="{fmt._get_xf_index()}">'
        if kind is number:
            ws.fh.write(f"{head}<v>{cell.number:.16G}</v></c>")
            return None
        text = cell.formula
        if "&" in text or "<" in text or ">" in text:
            text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        ws.fh.write(f"{head}<f>{text}</f><v>{cell.value}</v></c>")
        return None

    return write_cell


def by_letters(expr) -> bool:
    """True when every node of `expr` renders its month's column only as the letters it is given (so its text
    can be rendered once with placeholders); False when a node of another kind is found (one that computes with
    the column, such as ``tco.costs.upfront_rules.Renewals``, a cell n columns back, or one not listed here yet)."""
    from tco.expr.base import Expr

    hit = _BY_LETTERS.get(id(expr))
    if hit is None:
        hit = _BY_LETTERS[id(expr)] = (expr, _all_letter_nodes(expr, Expr))
    return hit[1]


_BY_LETTERS: dict[int, tuple[object, bool]] = {}
"""by_letters() of each expression walked during one workbook (by identity, the expression kept alive so its id
stays its own; emptied by ``forget`` when the workbook is written)."""


def forget() -> None:
    """Empty the memo of by_letters() (the workbook writer calls it when it is done)."""
    _BY_LETTERS.clear()


def _all_letter_nodes(expr, node: type) -> bool:
    letters = _letter_nodes()
    stack = [expr]
    while stack:
        e = stack.pop()
        if type(e) not in letters:
            return False
        for v in vars(e).values():
            stack += [x for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, node)]
    return True


@functools.lru_cache(maxsize=1)
def _letter_nodes() -> frozenset[type]:
    """The expression nodes whose text uses the month's column only as the letters of the context."""
    from tco.constants import Named
    from tco.expr.base import BinOp, Const, In, Month, Neg, Prev, Row
    from tco.expr.funcs import Fn
    from tco.expr.nodes import CountPositive, Fill, Pick, Ratchet

    return frozenset({BinOp, Const, In, Month, Neg, Prev, Row, Fn, CountPositive, Fill, Pick, Ratchet, Named})


def row_texts(formula: Callable[[str, str], str], columns: list[str] | tuple[str, ...],
              previous: list[str] | tuple[str, ...], by_pattern: bool = True) -> list[str]:
    """``formula(c, p)`` for each month's column c and previous column p. With `by_pattern`, rendered once with
    placeholders and filled in, unless the filled-in text of the first or last month differs from a direct
    rendering; otherwise (a formula that computes with its column, see ``by_letters``) month by month."""
    if not by_pattern or plain_path("cells"):
        return [formula(c, p) for c, p in zip(columns, previous)]
    pattern = formula(COLUMN, PREVIOUS)
    texts = [pattern.replace(COLUMN, c).replace(PREVIOUS, p) for c, p in zip(columns, previous)]
    if texts and (texts[0] != formula(columns[0], previous[0]) or texts[-1] != formula(columns[-1], previous[-1])):
        return [formula(c, p) for c, p in zip(columns, previous)]
    return texts
