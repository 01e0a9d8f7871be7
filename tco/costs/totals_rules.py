"""The layer above the cost lines, declared once: each line in BRL, the month's total, its running sum and its
discounted value, the TCO and the NPV over the horizon, and the tax uplift (the taxes line's share of what it
taxes). The engine evaluates these rules for its numbers (``totals``; ``tco.costs.option_taxes`` for the uplift),
the workbook's calc sheet writes the same rules as the formulas of its BRL block, its TCO and NPV cells and its
uplift constant (``tco.report.workbook.calc``), so the number and the formula cannot drift apart.

Conventions: a USD line is converted at the month's rate on the FX base path (``fx``), a BRL line is taken as it is;
cash flows at month end, discounted by the timeline's ``df`` row ((1 + r)^(−t/12)).
"""

from __future__ import annotations

import functools
from typing import Mapping

import numpy as np

from tco.domain import LINES, Currency
from tco.expr import IF, Expr, Row, Rule, RunningSum, Scalar, SumProduct, Total, evaluate


def _added(keys: list[str]) -> Expr:
    out: Expr = Row(keys[0])
    for k in keys[1:]:
        out = out + Row(k)
    return out


TOTAL = Rule("total", _added(["b_" + k for k in LINES]), "BRL",
             "the month's total = the six lines in BRL added one after the other in their order (training "
             "compute, inference compute, setup, storage, egress, taxes)")
CUM = Rule("cum", RunningSum("cum", Row("total")), "BRL", "cumulative cost = the month before's cumulative + total")
DISC = Rule("disc", Row("total") * Row("df"), "BRL", "discounted cost = total × discount factor df")
TCO = Scalar("tco", Total("total"), "BRL", "TCO = Σ_t total_t over the horizon")
NPV = Scalar("npv", SumProduct("total", "df"), "BRL", "NPV = Σ_t total_t × df_t (cash flows at month end)")
UPLIFT = Scalar("uplift", IF(Total("tax_base") > 0, Total("l_taxes") / Total("tax_base"), 0), "",
                "tax uplift = Σ taxes ÷ Σ taxed amount over the horizon (0 when nothing is taxed): the share the "
                "taxes add to a price")


@functools.lru_cache(maxsize=64)
def brl_rule(line: str, currency: str) -> Rule:
    """Line `line` in BRL: a USD line × the month's rate, a BRL line as it is."""
    if currency == Currency.USD:
        return Rule("b_" + line, Row("l_" + line) * Row("fx"), "BRL", "line in BRL = line [USD] × fx [BRL/USD]")
    return Rule("b_" + line, Row("l_" + line), "BRL", "line in BRL = line [BRL]")


@functools.lru_cache(maxsize=64)
def rules(currencies: tuple[str, ...]) -> tuple[Rule | Scalar, ...]:
    """The rules of an option whose lines (``LINES`` order) are in `currencies`: BRL lines, total, cumulative,
    discounted, TCO and NPV (the same tuple back for the same currencies, so its compiled form is kept)."""
    return tuple(brl_rule(k, c) for k, c in zip(LINES, currencies)) + (TOTAL, CUM, DISC, TCO, NPV)


def totals(lines: Mapping[str, np.ndarray], currency: Mapping[str, str], fx: np.ndarray,
           df: np.ndarray) -> dict[str, np.ndarray]:
    """The rows of ``rules`` for an option's lines: ``b_<line>``, ``total``, ``cum``, ``disc`` and the constant rows
    ``tco`` and ``npv`` [BRL]."""
    given = {"l_" + k: lines[k] for k in LINES} | {"fx": fx, "df": df}
    return evaluate(rules(tuple(str(currency[k]) for k in LINES)), {}, len(df), rows=given)


def uplift(tax_base: np.ndarray, taxes: np.ndarray) -> float:
    """``UPLIFT`` of a taxed amount and its taxes line (month rows)."""
    return float(evaluate((UPLIFT,), {}, len(taxes), rows={"tax_base": tax_base, "l_taxes": taxes})["uplift"][0])
