"""The Finance sheet's figures, declared once: a monthly amount summed by contract year, by calendar year and over the
horizon; the part of an option's cost a set of lines makes, with the taxes they bear; what a commitment binds
(that part over its term) with its share of the TCO; and the parts of the TCO the break-evens move (USD, BRL, the
cloud and the dedicated prices'). ``yearly`` and ``committed`` evaluate them for the engine's
numbers; the workbook's Finance sheet writes the same rules as its cells' formulas (``tco.report.workbook.finance``),
each caching the value evaluated here.

Rows: ``x`` the amount summed, ``year`` the contract year index ⌊(t − 1)/12⌋ and ``date`` the first day of the month
(a date serial) of the timeline, the option's lines ``l_<line>`` and their BRL ``b_<line>``
(``tco.costs.totals_rules``). Inputs: ``y`` the contract year (1 …), ``cal`` the calendar year, ``start`` and
``term`` a commitment's first month and length, ``c.tco`` the option's TCO, ``c.committed`` the committed amount.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from tco.domain import LINES, CostLine
from tco.expr import IF, ISNUMBER, NOT, OR, YEAR, Blank, Const, Expr, In, Month, Row, Scalar, SumWhere, Total, evaluate

BY_CONTRACT_YEAR = Scalar("by_contract_year", SumWhere(Row("x"), Row("year").eq(In("y") - 1)), "BRL",
                          "Σ of x over contract year y (months 12(y − 1) + 1 … 12y)")
BY_CALENDAR_YEAR = Scalar("by_calendar_year", SumWhere(Row("x"), YEAR(Row("date")).eq(In("cal"))), "BRL",
                          "Σ of x over the months dated in calendar year cal")
OVER_HORIZON = Scalar("over_horizon", Total("x"), "BRL", "Σ_t x_t over the horizon")
BRL_PART = Scalar("brl_part", In("c.tco") - In("c.usd_part"), "BRL",
                  "BRL part = TCO − USD part: what a move of the whole USD/BRL path leaves unchanged")
SHARE_OF_TCO = Scalar("share_of_tco", IF(In("c.tco") > 0, In("c.committed") / In("c.tco"), 0), "",
                      "share of the TCO = committed ÷ TCO (0 when the TCO is not positive)")


def _added(xs: Sequence[Expr]) -> Expr:
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def taxed_lines(currency: dict[str, str]) -> tuple[str, ...]:
    """Lines in the taxed amount: every line in the taxes line's currency (``tco.costs.option_taxes``)."""
    return tuple(k for k in LINES if k != CostLine.TAXES and currency[k] == currency[CostLine.TAXES])


def part(lines: Sequence[str], taxed: Sequence[str]) -> Expr:
    """The monthly BRL of `lines` with the taxes they bear: the taxed ones × (1 + taxes ÷ taxed amount) (the ratio
    read as 0 in a month with nothing taxed), the others as they are (0 without lines)."""
    inside = [Row("b_" + k) for k in lines if k in taxed]
    outside = [Row("b_" + k) for k in lines if k not in taxed]
    parts = []
    if inside:
        base = _added([Row("l_" + k) for k in taxed])
        parts.append(_added(inside) * (1 + Row("l_taxes") / (base + base.eq(0))))
    if outside:
        parts.append(_added(outside))
    return _added(parts) if parts else Const(0.0)


@functools.lru_cache(maxsize=64)
def committed_rule(lines: tuple[str, ...], taxed: tuple[str, ...]) -> Scalar:
    """What a commitment on `lines` binds: their part (``part``) over months start … start + term − 1."""
    window = (Month() >= In("start")) * (Month() < In("start") + In("term"))
    return Scalar("committed", SumWhere(part(lines, taxed), window), "BRL",
                  "committed = Σ over months start … start + term − 1 of the lines' BRL, the taxed ones × (1 + taxes "
                  "÷ taxed amount)")


@functools.lru_cache(maxsize=64)
def usd_part_rule(usd_lines: tuple[str, ...]) -> Scalar:
    """The USD part of the TCO: the lines billed in USD, in BRL, over the horizon (0 without any)."""
    parts = [Total("b_" + k) for k in usd_lines]
    return Scalar("usd_part", _added(parts) if parts else Const(0.0), "BRL",
                  "USD part = Σ over the USD lines of Σ_t line in BRL: what scales with the whole USD/BRL path")


@functools.lru_cache(maxsize=64)
def price_part_rule(key: str, lines: tuple[str, ...], taxed: tuple[str, ...]) -> Scalar:
    """The part of the TCO that the prices driving `lines` make, with the taxes they bear, over the horizon."""
    return Scalar(key, SumWhere(part(lines, taxed)), "BRL",
                  "price part = Σ_t of the lines a price drives in BRL, the taxed ones × (1 + taxes ÷ taxed amount)")


def parts(o: Any, usd_lines: Sequence[str], cloud_lines: Sequence[str], dedicated_lines: Sequence[str]
          ) -> dict[str, float]:
    """An option's USD and BRL parts and the parts its cloud and dedicated prices drive (``usd_part``, ``brl_part``,
    ``cloud_part``, ``dedicated_part``) [BRL]."""
    taxed = taxed_lines(o.costs.currency)
    rules = (usd_part_rule(tuple(usd_lines)), BRL_PART, price_part_rule("cloud_part", tuple(cloud_lines), taxed),
             price_part_rule("dedicated_part", tuple(dedicated_lines), taxed))
    out = evaluate(rules, {"c.tco": o.tco.deterministic}, len(o.total_brl), rows=option_rows(o))
    return {x.key: float(out[x.key][0]) for x in rules}


def option_rows(o: Any) -> dict[str, np.ndarray]:
    """An option's lines and their BRL rows (``o.lines_brl``, the rows ``b_<line>`` of ``tco.costs.totals_rules``), as
    ``part`` reads them."""
    return {"l_" + k: o.costs.lines[k] for k in LINES} | {"b_" + k: o.lines_brl[k] for k in LINES}


def calendar_rows(months: Sequence[str]) -> dict[str, np.ndarray]:
    """The rows ``year`` (the timeline's rule ``tco.timeline.YEAR``) and ``date`` (the first day of each month
    'YYYY-MM' as a date serial, the workbook's Timeline ``date`` row) of the months (read-only, kept per months)."""
    return _calendar_rows(tuple(months))


@functools.lru_cache(maxsize=8)
def _calendar_rows(months: tuple[str, ...]) -> dict[str, np.ndarray]:
    from tco import timeline
    from tco.costs.tax_rules import month_serial

    out = {"year": evaluate((timeline.YEAR,), {}, len(months))["year"],
           "date": np.array([month_serial(m) for m in months])}
    for a in out.values():
        a.flags.writeable = False
    return out


def calendar_years(months: Sequence[str]) -> list[int]:
    """The calendar years the months ('2027-01' …) fall in, in order."""
    return sorted({int(m[:4]) for m in months})


def yearly(x: Any, months: Sequence[str]) -> tuple[list[float], list[float], float]:
    """(by contract year 1 … ⌈H/12⌉, by calendar year, over the horizon) sums of the month row `x` [BRL]."""
    rows = calendar_rows(months) | {"x": np.asarray(x, dtype=float)}

    def one(rule: Scalar, **inputs: float) -> float:
        return float(evaluate((rule,), inputs, len(months), rows=rows)[rule.key][0])

    years = -(-len(months) // 12)
    return ([one(BY_CONTRACT_YEAR, y=float(y)) for y in range(1, years + 1)],
            [one(BY_CALENDAR_YEAR, cal=float(c)) for c in calendar_years(months)], one(OVER_HORIZON))


def committed(o: Any, lines: Sequence[str], start: int, term: int) -> tuple[float, float]:
    """(committed amount, its share of the TCO) of `lines` with their taxes over months start … start + term − 1."""
    rules = (committed_rule(tuple(lines), taxed_lines(o.costs.currency)), SHARE_OF_TCO)
    out = evaluate(rules, {"start": float(start), "term": float(term), "c.tco": o.tco.deterministic},
                   len(o.total_brl), rows=option_rows(o))
    return float(out["committed"][0]), float(out["share_of_tco"][0])


# ---------------------------------------------------------------------------------------------
# the break-evens: where option j ties the leader (inputs: its ranked TCO ``tco``, blank when it is not ranked, its
# number ``i``, the leader's ``lead_pos``, its parts ``usd``, ``brl``, ``cloud`` and the leader's ``*_lead``)

SKIP = OR(NOT(ISNUMBER(In("tco"))), In("i").eq(In("lead_pos")))
"""Option j is not compared: not ranked (its TCO blank), or the leader itself."""
K = (In("brl_lead") - In("brl")) / (In("usd") - In("usd_lead"))
M = 1 + (In("tco_lead") - In("tco")) / (In("cloud") - In("cloud_lead"))
FX_MULTIPLE = Scalar("fx_k", IF(SKIP, Blank(), IF(In("usd").eq(In("usd_lead")), Blank(),
                                                 IF(K > In("min_multiple"), K, Blank()))), "×",
                     "FX multiple k* = (BRL_lead − BRL_j) ÷ (USD_j − USD_lead): the whole USD/BRL path × k* makes BRL + "
                     "k·USD equal on both sides (blank when the USD parts are equal or k* ≤ the smallest multiple)")
FX_RATE = Scalar("fx_rate", IF(ISNUMBER(In("c.fx_k")), In("c.fx_k") * In("spot"), Blank()), "BRL/USD",
                 "break-even spot = k* × spot")
CLOUD_MULTIPLE = Scalar("cloud_m", IF(SKIP, Blank(), IF(In("cloud").eq(In("cloud_lead")), Blank(),
                                                        IF(M > In("min_multiple"), M, Blank()))), "×",
                        "cloud price multiple m* = 1 + (TCO_lead − TCO_j) ÷ (P_j − P_lead), P the part the cloud prices "
                        "drive (blank when the parts are equal or m* ≤ the smallest multiple)")
TRIAL_CLOUD = Scalar("trial_cloud_tco", IF(SKIP, Blank(), In("tco") + (In("trial_cloud") - 1) * In("cloud")), "BRL",
                     "TCO at a trial cloud price multiple m = TCO + (m − 1)·P")
TRIAL_FX = Scalar("trial_fx_tco", IF(SKIP, Blank(), In("brl") + In("trial_fx") * In("usd")), "BRL",
                  "TCO at a trial multiple k of the USD/BRL path = BRL part + k·USD part")


def side(key: str, below: bool) -> Scalar:
    """Multiple `key` (``fx_k`` or ``cloud_m``) when it is below 1 (``below``) or above it, else blank."""
    x = In("c." + key)
    return Scalar(f"{key}_{'below' if below else 'above'}", IF(ISNUMBER(x), IF(x < 1 if below else x > 1, x, Blank()),
                                                               Blank()), "×",
                  f"the multiple when it is {'below' if below else 'above'} 1 (where the leader changes: the nearest)")


MULTIPLES = (FX_MULTIPLE, FX_RATE, CLOUD_MULTIPLE, TRIAL_CLOUD, TRIAL_FX, side("fx_k", True), side("fx_k", False),
             side("cloud_m", True), side("cloud_m", False))
"""The break-even table's columns I … Q, in order."""


def multiples(**inputs: float) -> dict[str, float | None]:
    """The break-even rules of one option against the leader (``MULTIPLES``' keys → value, None where blank)."""
    out = evaluate(MULTIPLES, inputs, 1)
    return {x.key: (None if np.isnan(v := float(out[x.key][0])) else v) for x in MULTIPLES}


def _pair(min_multiple: float, **parts: float) -> dict[str, float | None]:
    """The multiples of a compared option (ranked, not the leader), from the parts given (the others 0)."""
    given = {"tco": 0.0, "i": 0.0, "lead_pos": 1.0, "usd": 0.0, "brl": 0.0, "cloud": 0.0, "tco_lead": 0.0,
             "usd_lead": 0.0, "brl_lead": 0.0, "cloud_lead": 0.0, "min_multiple": min_multiple, "trial_cloud": 1.0,
             "trial_fx": 1.0, "spot": 1.0}
    return multiples(**(given | parts))


def fx_multiple(brl_lead: float, usd_lead: float, brl_j: float, usd_j: float, min_multiple: float) -> float | None:
    """``FX_MULTIPLE`` of option j against the leader (None where blank)."""
    return _pair(min_multiple, brl_lead=brl_lead, usd_lead=usd_lead, brl=brl_j, usd=usd_j)["fx_k"]


def tie_multiple(tco_lead: float, part_lead: float, tco_j: float, part_j: float, min_multiple: float) -> float | None:
    """``CLOUD_MULTIPLE`` of option j against the leader, the parts those a price drives (None where blank)."""
    return _pair(min_multiple, tco_lead=tco_lead, cloud_lead=part_lead, tco=tco_j, cloud=part_j)["cloud_m"]
