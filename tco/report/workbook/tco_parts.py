"""The parts of an option's TCO that a price or the dollar drives, with the taxes they bear: on the engine's arrays
(the cached values) and as array formulas of the option's Calc sheet (for SUMPRODUCT). The Finance sheet's
break-evens (``workbook_breakeven``), its commitments (``workbook_finance``) and its contract years
(``workbook_years``) read them."""

from __future__ import annotations

import numpy as np

from tco.costs import LINES
from tco.domain import CostLine, Currency
from tco.report.workbook.book import Book, row_range


def taxed_lines(o) -> list[str]:
    """Lines in the taxed amount: every line in the taxes line's currency (``costs.option_taxes``)."""
    cur = o.costs.currency
    return [k for k in LINES if k != CostLine.TAXES and cur[k] == cur[CostLine.TAXES]]


def taxed_part(o, lines: list[str]) -> np.ndarray:
    """Monthly BRL of `lines` with the taxes they bear: a taxed line × (1 + taxes / taxed amount) [BRL]."""
    oc = o.costs
    taxed = taxed_lines(o)
    base = sum((np.asarray(oc.lines[k], dtype=float) for k in taxed), np.zeros(len(o.total_brl)))
    ratio = np.asarray(oc.lines[CostLine.TAXES], dtype=float) / np.where(base == 0, 1.0, base)
    return sum((np.asarray(o.lines_brl[k], dtype=float) * ((1.0 + ratio) if k in taxed else 1.0) for k in lines),
               np.zeros(len(o.total_brl)))


def taxed_part_formula(book: Book, i: int, o, lines: list[str]) -> str:
    """The same as an array expression of the Calc sheet's rows (for SUMPRODUCT)."""
    sheet, rows, h = book.sheets[f"calc{i}"], book.outputs[(i, "rows")], book.horizon

    def rng(key: str) -> str:
        return row_range(sheet, rows[key], h)

    taxed = taxed_lines(o)
    inside = [k for k in lines if k in taxed]
    outside = [k for k in lines if k not in taxed]
    parts = []
    if inside:
        base = "(" + "+".join(rng("l_" + k) for k in taxed) + ")"
        parts.append("(" + "+".join(rng("b_" + k) for k in inside) + f")*(1+{rng('l_taxes')}/({base}+({base}=0)))")
    if outside:
        parts.append("(" + "+".join(rng("b_" + k) for k in outside) + ")")
    return "+".join(parts) if parts else "0"


def price_lines(o, kind: str) -> list[str]:
    """Compute lines driven by the prices of fleets of `kind` (cloud or dedicated)."""
    r = o.resolved
    if getattr(r, "owned", None) is not None:  # bought servers: no rental price drives their lines (tco.costs.owned_rules)
        return []
    out = [line for fleet, line in ((r.training, CostLine.TRAINING_COMPUTE), (r.inference, CostLine.INFERENCE_COMPUTE))
           if fleet is not None and fleet.kind == kind]
    return list(dict.fromkeys(out))


def usd_lines(o) -> list[str]:
    return [k for k in LINES if o.costs.currency[k] == Currency.USD]
