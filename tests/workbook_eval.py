"""Reading a written workbook in tests: the sheet a writer made, found by its labels and defined names, and each
formula cell evaluated in-process (the `formulas` package compiles one cell's formula; its inputs are the cached
values of the cells and names it references). A formula that references the wrong cell, or a cached value that is not
what the formula gives, shows as a mismatch, without LibreOffice (tests/test_workbook.py recalculates whole files).

    book = written(res)                      # the workbook of a Results, written once per test session
    book.check_formulas(sheet)               # every sampled formula = its cached value
    r = book.row_of(sheet, "Total")          # 1-based row of a label in column A
"""

from __future__ import annotations

import atexit
import functools
import math
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import openpyxl
from openpyxl.utils import column_index_from_string, get_column_letter

FIRST_MONTH_COL = 5
"""Column E: month 1 on every timeline sheet (1-based, as openpyxl counts)."""


@functools.lru_cache(maxsize=8192)
def _compiled(text: str):
    import formulas

    # formulas 1.3 turns --(boolean array) into zeros; 1*(…) is the same in a spreadsheet
    return formulas.Parser().ast(text.replace("--(", "1*("))[1].compile()


def _number(v, blank=0.0):
    """A cached value as Excel computes with it: a date → its serial number, a blank → `blank`."""
    import datetime as dt

    from openpyxl.utils.datetime import to_excel

    if v is None:
        return blank
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (dt.datetime, dt.date)):
        return float(to_excel(v))
    if isinstance(v, float):  # spreadsheets compare to 15 significant digits (0.1 + 0.2 = 0.3 is TRUE)
        return float(f"{v:.15g}")
    return v


def _array(got) -> np.ndarray:
    """A range as `formulas` passes one: an object Array, blanks as its EMPTY (MIN, COUNT… skip them)."""
    import schedula as sh
    from formulas.functions import Array

    rows = [[_number(c.value, sh.EMPTY) for c in (row if isinstance(row, tuple) else (row,))] for row in got]
    return np.array(rows, dtype=object).view(Array)


class _Fake:
    def __init__(self, value):
        self.value = value


class Book:
    """A written workbook opened twice: formulas (``f``) and cached values (``v``)."""

    def __init__(self, path: Path):
        self.path = path
        self.f = openpyxl.load_workbook(path)
        self.v = openpyxl.load_workbook(path, data_only=True)
        self._sheets = {s.upper(): s for s in self.f.sheetnames}
        self._names = {n.upper(): n for n in self.f.defined_names}

    # --- finding things ---------------------------------------------------------------------------------------------

    def sheet(self, name: str):
        return self.f[name]

    def labels(self, sheet: str, column: int = 1) -> dict[str, int]:
        """Text in `column` → its first row (1-based)."""
        out: dict[str, int] = {}
        for (cell,) in self.f[sheet].iter_rows(min_col=column, max_col=column):
            if isinstance(cell.value, str) and cell.value not in out:
                out[cell.value] = cell.row
        return out

    def row_of(self, sheet: str, label: str, column: int = 1) -> int:
        rows = self.labels(sheet, column)
        if label not in rows:
            raise KeyError(f"no row labelled {label!r} on {sheet!r}; labels: {sorted(rows)[:40]}")
        return rows[label]

    def rows_starting(self, sheet: str, prefix: str, column: int = 1) -> dict[str, int]:
        return {k: r for k, r in self.labels(sheet, column).items() if k.startswith(prefix)}

    def formula(self, sheet: str, row: int, col: int):
        return self.f[sheet].cell(row, col).value

    def cached(self, sheet: str, row: int, col: int):
        return self.v[sheet].cell(row, col).value

    def month_values(self, sheet: str, row: int, horizon: int) -> list:
        return [self.cached(sheet, row, FIRST_MONTH_COL + m) for m in range(horizon)]

    def name_ref(self, name: str) -> tuple[str, str]:
        """(sheet, reference) a defined name points to (a single destination)."""
        (dest,) = list(self.f.defined_names[name].destinations)
        return dest[0], dest[1].replace("$", "")

    def name_values(self, name: str) -> list:
        sheet, ref = self.name_ref(name)
        got = self.v[sheet][ref]
        if isinstance(got, tuple):
            return [c.value for row in got for c in (row if isinstance(row, tuple) else (row,))]
        return [got.value]

    # --- evaluating --------------------------------------------------------------------------------------------------

    def _input(self, ref: str, here: str, override: dict | None = None):
        """The cached value(s) of a formula input as `formulas` names it: 'SHEET'!A1:B2, A1, or a defined name;
        `override` {(sheet, "A1"): value} replaces single cells (what an edit would put there)."""
        sheet, _, cells = ref.rpartition("!")
        if sheet:
            sheet = self._sheets[sheet.strip("'").replace("''", "'")]
        else:
            sheet = here
        if re.fullmatch(r"[A-Z]{1,3}\d+(:[A-Z]{1,3}\d+)?", cells):
            return self._cells(sheet, cells, override)
        name = self._names[cells]
        s, r = self.name_ref(name)
        return self._cells(s, r, override)

    def _cells(self, sheet: str, ref: str, override: dict | None):
        got = self.v[sheet][ref]
        got = got if isinstance(got, tuple) else ((got,),)
        rows = [row if isinstance(row, tuple) else (row,) for row in got]
        if override:
            rows = [tuple(_Fake(override[sheet, c.coordinate]) if (sheet, c.coordinate) in override else c
                          for c in row) for row in rows]
        return _array(rows)

    def _rows_count(self, ref: str, here: str) -> int:
        got = self._input(ref.upper() if "!" not in ref else ref, here)
        return int(np.shape(got)[0])

    def evaluate(self, sheet: str, row: int, col: int, override: dict | None = None):
        """The formula of a cell computed from the cached values of what it references (`override`: see _input)."""
        text = self.formula(sheet, row, col)
        # ROWS(reference) needs the reference itself, which `formulas` does not pass on: its count, written in
        text = re.sub(r"ROWS\(([^()]+)\)", lambda m: str(self._rows_count(m[1].replace("$", ""), sheet)), text)
        fn = _compiled(text)
        args = [self._input(k, sheet, override) for k in fn.inputs]
        out = fn(*args)
        out = np.asarray(out).ravel()[0] if np.ndim(out) else out
        return out.item() if hasattr(out, "item") else out

    def formula_cells(self, sheet: str, rows=None, cols=None):
        ws = self.f[sheet]
        for line in ws.iter_rows(min_row=min(rows) if rows else 1, max_row=max(rows) if rows else ws.max_row):
            for c in line:
                if isinstance(c.value, str) and c.value.startswith("=") and (cols is None or c.column in cols) and (
                        rows is None or c.row in rows):
                    yield c.row, c.column

    def check_formulas(self, sheet: str, horizon: int | None = None, rel: float = 1e-9, abs_tol: float = 1e-6,
                       every_month: bool = False) -> int:
        """Evaluate the formula cells of `sheet` (on timeline sheets: columns A–D, the first, a middle and the last
        month, unless `every_month`) and assert each equals its cached value. Returns how many were checked."""
        cols = None
        if horizon and not every_month:
            cols = {1, 2, 3, 4, FIRST_MONTH_COL, FIRST_MONTH_COL + horizon // 2, FIRST_MONTH_COL + horizon - 1}
        bad = []
        n = 0
        for r, c in self.formula_cells(sheet, cols=cols):
            want = self.cached(sheet, r, c)
            got = self.evaluate(sheet, r, c)
            n += 1
            want = _number(want) if want is not None else want
            if isinstance(want, (int, float)) and not isinstance(want, bool):
                try:
                    ok = math.isclose(float(got), float(want), rel_tol=rel, abs_tol=abs_tol)
                except (TypeError, ValueError):
                    ok = False
            else:
                import schedula as sh

                ok = got == want or (want in (None, "") and (got is sh.EMPTY or got in (None, "", 0)))
            if not ok:
                bad.append(f"{sheet}!{get_column_letter(c)}{r}: {self.formula(sheet, r, c)} gives {got!r}, "
                           f"cached {want!r}")
        assert not bad, f"{len(bad)} of {n} formulas disagree with their cached value:\n" + "\n".join(bad[:15])
        return n


def col_index(letter: str) -> int:
    return column_index_from_string(letter)


_BOOKS: dict[int, tuple[object, Book]] = {}


def written(res, scenario_file: str = "scenario.toml") -> Book:
    """The workbook of `res`, written once per session (keyed by the Results object, which is kept alive)."""
    if id(res) not in _BOOKS:
        from tco.report import view, workbook

        folder = Path(tempfile.mkdtemp(prefix="tests-wb-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "book.xlsx"
        workbook.write(res, view.build(res), path)
        _BOOKS[id(res)] = (res, Book(path))
    return _BOOKS[id(res)][1]
