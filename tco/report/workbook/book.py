"""Plumbing of the workbook renderer: cell styles, and writers that put a formula together
with the engine's value as its cached result.

Layout shared by every sheet with a timeline (FAST standard): column A label, B unit, C constant or
row total, D an empty spacer, month 1 in column E, month H in column E + H − 1. A formula that needs
"the previous month" reads the column to its left, which for month 1 is the empty spacer (= 0).
"""

from __future__ import annotations

import functools
from typing import Any
import math
from dataclasses import dataclass, field

import numpy as np
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from tco.domain import CostLine, Currency, TaxMethod
from tco.report import i18n
from tco.report.workbook.cells import plain, row_texts

FIRST_COL = 4
"""Column index (0-based) of month 1 on every timeline sheet (column E)."""


def col(i: int) -> str:
    return xl_col_to_name(i)


def month_col(m: int) -> str:
    """Column letter of timeline month m (1-based)."""
    return col(FIRST_COL + m - 1)


def qs(sheet: str) -> str:
    """A sheet name quoted for a formula reference."""
    return "'" + sheet.replace("'", "''") + "'!"


def num(x) -> float:
    v = float(x)
    return 0.0 if math.isnan(v) or math.isinf(v) else v


@dataclass
class Book:
    """What the sheet writers share: the XlsxWriter workbook, its formats, the locale and where
    things were put (sheet names, defined names, rows of the timeline)."""

    wb: Any  # an xlsxwriter.Workbook (untyped library)
    locale: str
    horizon: int
    sheets: dict[str, str] = field(default_factory=dict)
    fmts: dict = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    """Timeline rows (0-based) by key."""
    sizing: dict[tuple[int, str], str] = field(default_factory=dict)
    """(option index, key) → absolute reference of a Sizing cell."""
    outputs: dict = field(default_factory=dict)
    """(option index, key) → absolute reference of an option's result (tco, npv, total row…)."""
    inputs: list = field(default_factory=list)
    """(label, absolute cell, generated value) of every input cell, for the "inputs changed" check."""
    scaling: dict = field(default_factory=dict)
    """Scaling efficiency by interconnect used by the engine (``Results.efficiencies``)."""
    training_precision: str = "bf16"
    """The scenario's [training] precision (the training peak and MFU are taken at it)."""
    training_mfu: dict | None = None
    """The catalog's training MFU tables (``Results.efficiencies.training_mfu``) when the MFU is derived, else None."""

    def t(self, key: str, **kw) -> str:
        """The text for `key` in the workbook's locale (the shared catalog, tco.report.i18n)."""
        return i18n.t(key, self.locale, **kw)

    def term(self, prefix: str, value, default: str | None = None) -> str:
        """The label of an engine or scenario id (`prefix` + id); `default`, else the id, when none is listed."""
        return i18n.term(prefix, value, self.locale, default)

    def fmt(self, name: str):
        return self.fmts[name]

    def name(self, name: str, ref: str) -> None:
        self.wb.define_name(name, "=" + ref)


NUMBER_FORMATS = {
    "brl": '"R$" #,##0.00', "usd": '"US$" #,##0.00', "int": "#,##0", "num": "#,##0.00", "num4": "#,##0.0000",
    # unit prices (per hour, per GB): every decimal a catalog gives, up to 5 (0.0405, 0.085, 39.94583)
    "usd_unit": '"US$" #,##0.00####', "brl_unit": '"R$" #,##0.00####',
    "num6": "0.000000", "pct": "0.00%", "date": "mmm/yy", "gen": "General", "sci": "0.00E+00",
}


def make_formats(wb) -> dict:
    """Formats: plain calculation, input (blue on yellow, FAST convention), engine value (grey),
    headers; each crossed with the number formats above."""
    out: dict[str, Any] = {}
    styles: dict[str, dict[str, Any]] = {
        "calc": {}, "in": {"font_color": "#0000FF", "bg_color": "#FFF2CC", "border": 1, "border_color": "#BFBFBF"},
        "eng": {"bg_color": "#EDEDED", "italic": True}, "cst": {"bg_color": "#DDEBF7"}, "bold": {"bold": True}}
    for style, props in styles.items():
        for k, nf in NUMBER_FORMATS.items():
            out[f"{style}_{k}"] = wb.add_format({**props, "num_format": nf})
    out["in_text"] = wb.add_format({"font_color": "#0000FF", "bg_color": "#FFF2CC", "border": 1,
                                    "border_color": "#BFBFBF"})
    out["lbl_text"] = wb.add_format({"font_color": "#404040", "bg_color": "#F2F2F2", "italic": True})
    out["text"] = wb.add_format({})
    out["wrap"] = wb.add_format({"text_wrap": True, "valign": "top"})
    out["small"] = wb.add_format({"font_size": 8, "font_color": "#595959"})
    out["small_wrap"] = wb.add_format({"font_size": 8, "font_color": "#595959", "text_wrap": True, "valign": "top"})
    out["title"] = wb.add_format({"bold": True, "font_size": 16, "font_color": "#1F3864"})
    out["h1"] = wb.add_format({"bold": True, "font_size": 12, "font_color": "#FFFFFF", "bg_color": "#1F3864"})
    out["h2"] = wb.add_format({"bold": True, "bottom": 1})
    out["head"] = wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "text_wrap": True})
    out["head_date"] = wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "num_format": "mmm/yy"})
    out["check"] = wb.add_format({"bold": True, "align": "center"})
    out["eng_text"] = wb.add_format({"bg_color": "#EDEDED", "italic": True})
    return out


def write_row(ws, book: Book, r: int, key_label: str, unit: str, formula, values, fmt: str,
              total: str | None = None, name: str | None = None, label_fmt: str = "text",
              by_pattern: bool = True) -> int:
    """One timeline row: the same formula in every month column, each with the engine value cached.

    `formula(c, p)` returns the formula text for month column letter c with previous column p.
    total: 'sum' writes =SUM(row) in column C (cached = sum of values).
    by_pattern: the text may be rendered once with placeholders for the column letters (workbook_cells.row_texts);
    False for a rule that computes with its column (``workbook_cells.by_letters``).
    """
    ws.write_string(r, 0, key_label, book.fmt(label_fmt))
    if unit:
        ws.write_string(r, 1, unit, book.fmt("small"))
    values = np.asarray(values, dtype=float)
    cached = np.where(np.isfinite(values), values, 0.0).tolist()  # num() of each value, at once
    f = book.fmt(fmt)
    cols, prevs = _month_cols(book.horizon)
    texts = row_texts(formula, cols, prevs, by_pattern)
    if hasattr(ws, "write_plain_row") and plain(texts[0]) and plain(texts[-1]):
        ws.write_plain_row(r, FIRST_COL, [x[1:] if x[:1] == "=" else x for x in texts], f, cached)
    else:
        for m, text in enumerate(texts):
            ws.write_formula(r, FIRST_COL + m, text, f, cached[m])
    first, last = month_col(1), month_col(book.horizon)
    if total == "sum":
        ws.write_formula(r, 2, f"=SUM({first}{r + 1}:{last}{r + 1})", book.fmt(fmt.replace("calc", "bold")),
                         num(values.sum()))
    return r


@functools.lru_cache(maxsize=8)
def _month_cols(horizon: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Column letters of months 1..horizon, and of the column before each (the blank spacer for month 1)."""
    cols = tuple(month_col(m) for m in range(1, horizon + 1))
    return cols, (col(FIRST_COL - 1),) + cols[:-1]


def row_range(sheet: str, r: int, horizon: int) -> str:
    """Absolute reference to a whole timeline row of `sheet` (0-based row r)."""
    return f"{qs(sheet)}${month_col(1)}${r + 1}:${month_col(horizon)}${r + 1}"


def abs_cell(sheet: str, r: int, c: int) -> str:
    return qs(sheet) + xl_rowcol_to_cell(r, c, row_abs=True, col_abs=True)

def reform_periods(res) -> list:
    """The catalog's reform periods that fall inside the horizon, in month order (the workbook's in_rf1, in_rf2 …)."""
    from tco.costs.taxes import months_in_force

    return [p for p in res.catalog.tax_reform if months_in_force(res.months, p.start, p.until).any()]


def hybrid_brl_invoice(o) -> bool:
    """A hybrid option whose BRL invoice earns credits netted from its BRL lines (tco.costs.option_taxes)."""
    r = o.resolved
    return (o.costs.currency[CostLine.TAXES] == Currency.USD and r.brl_tax is not None
            and r.brl_tax.method == TaxMethod.LOCAL_INCLUSIVE and o.costs.brl_price_credits is not None)


def merged(seqs) -> list[str]:
    """One order holding every key of each sequence in its own order. A key new to the order goes right after the key
    before it in its sequence (so a group's keys stay together); then the keys are sorted so that each comes after its
    predecessor in every sequence, ties kept in that first order (an order that already agrees is left as it is; where
    two sequences disagree, the key placed first stays first)."""
    draft: list[str] = []
    after: dict[str, set[str]] = {}
    for seq in seqs:
        for j, k in enumerate(seq):
            after.setdefault(k, set()).update(seq[j - 1:j])
            if k in draft:
                continue
            prev = next((seq[n] for n in range(j - 1, -1, -1) if seq[n] in draft), None)
            draft.insert(draft.index(prev) + 1 if prev is not None else 0, k)
    out: list[str] = []
    pending = set(draft)
    while draft:
        ready = next((k for k in draft if after[k].isdisjoint(pending)), draft[0])
        out.append(ready)
        draft.remove(ready)
        pending.discard(ready)
    return out
