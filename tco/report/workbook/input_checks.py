"""Nonsense inputs caught in the workbook (issue 26, the workbook's last mile; review 2026-12-workbook F4): every
input cell takes numbers only, and non-negative ones unless the schema lets it be negative (a price trend, a drift, a
monthly growth rate, an offset of the FX path), as Excel data validation; the Checks sheet tests each input the same
way (an edit through a script or a paste skips data validation), and the master check reads those tests, is FALSE
when any NPV is not a number, and reads FALSE, not an error, when an error reaches it (text in a number cell)."""

from __future__ import annotations

import re

from xlsxwriter.utility import xl_cell_to_rowcol, xl_rowcol_to_cell

SIGNED = re.compile(r"^in_(fx_drift|growth_rate|o\d+_trend|fx_b|fx_w|fx_list|moe_mfu_k|tr_width_k)$")
"""Defined names of the inputs the schema lets be negative (price_trend_rate ≥ −0.9, drift ≥ −1, monthly growth
≥ −1, the FX path's offsets and values as given) and the fitted exponents of the training MFU's expert-size and width
laws (defaults.toml [training.moe] k, −0.004 since the attention FLOPs are counted; [training.width] k)."""


def _cells(ref: str) -> list[str]:
    """The absolute cells of a reference ``'Sheet'!$B$5`` or ``'Sheet'!$B$5:$C$9``, each as ``'Sheet'!$B$5``."""
    sheet, _, rng = ref.lstrip("=").rpartition("!")
    a, _, b = rng.partition(":")
    r1, c1 = xl_cell_to_rowcol(a.replace("$", ""))
    r2, c2 = xl_cell_to_rowcol(b.replace("$", "")) if b else (r1, c1)
    return [f"{sheet}!{xl_rowcol_to_cell(r, c, row_abs=True, col_abs=True)}"
            for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def signed_refs(book) -> set[str]:
    """The input cells that may hold a negative number (their defined names match ``SIGNED``)."""
    out: set[str] = set()
    for name, _, formula, *_ in book.wb.defined_names:
        if SIGNED.match(name):
            out.update(_cells(formula))
    return out


def validity(ref: str, signed: bool) -> str:
    """The test of one input cell: blank, or a number, ≥ 0 unless it is signed."""
    test = f"ISNUMBER({ref})" if signed else f"AND(ISNUMBER({ref}),N({ref})>=0)"
    return f"=OR(ISBLANK({ref}),{test})"  # an input written blank (none given) stays valid blank


def validate_cell(book, ref: str, signed: bool) -> None:
    """Data validation on the input cell `ref`: a number (≥ 0 unless signed), unless the cell has one already
    (a 0/1 list, an owned input's schema bounds)."""
    sheet, _, cell = ref.rpartition("!")
    ws = book.wb.get_worksheet_by_name(sheet.strip("'").replace("''", "'"))
    r, c = xl_cell_to_rowcol(cell.replace("$", ""))
    if any(v["cells"][0][:2] == [r, c] for v in ws.validations):
        return
    rule = {"validate": "decimal", "criteria": "between", "minimum": -1e300, "maximum": 1e300} if signed else \
        {"validate": "decimal", "criteria": ">=", "value": 0}
    ws.data_validation(r, c, r, c, rule | {"error_title": "tco", "error_message": book.t("in_validation")})


def master_formula(first: int, last: int, valid_range: str | None, npvs: list[str]) -> str:
    """The master check: every integrity check, every input valid, every NPV a number; FALSE on any error."""
    parts = [f"E{first + 1}:E{last + 1}"] + ([valid_range] if valid_range else [])
    if npvs:
        parts.append(f"ISNUMBER(SUM({','.join(npvs)}))")
    return f"=IFERROR(AND({','.join(parts)}),FALSE)"
