"""Commitments paid partly or wholly upfront, as rules: the upfront per instance in the month each term starts
(an instance added later starts its own term, renewed while the fleet keeps it), the hourly part every hour.
``tco.costs.fleet_rules`` adds them to a committed serving fleet; the workbook's calc sheets render them; the plan
search's committed ladder evaluates them for every committed level at once (``costs.committed_levels``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tco.constants import HOURS_PER_MONTH
from tco.expr import AND, IF, INT, MAX, Env, Expr, In, Month, Prev, Row, Rule, Scalar, XlContext
from tco.expr.base import TextContext, along_months


class Terms(Protocol):
    """What the upfront rules read of an option's shape (``fleet_rules.Shape``)."""

    @property
    def upfront_term(self) -> int: ...

    @property
    def commit_terms(self) -> int: ...


@dataclass(frozen=True, eq=False)
class Renewals(Expr):
    """Instances whose commitment term starts this month: those added this month (``x``) plus those whose term
    started ``n`` months before (each renews for another term while the fleet keeps it): r_t = x_t + r_{t−n}.
    Only valid as the whole expression of its rule ``key``. Workbook: ``x + <own cell n months back>`` (x alone
    in the first n months); numpy: Σ_{j≥0} x_{t−j·n}."""

    key: str
    x: Expr
    n: int

    def np(self, env: Env) -> np.ndarray:
        out = along_months(self.x.np(env), env.horizon).copy()
        for t in range(self.n, env.horizon):
            out[..., t] += out[..., t - self.n]
        return out

    def xl(self, ctx: XlContext) -> str:
        from xlsxwriter.utility import xl_cell_to_rowcol, xl_col_to_name

        if isinstance(ctx, TextContext):  # the documentation's text: months by index
            return f"{self.x.xl(ctx)}+{ctx.cell(self.key, f't-{self.n}')}"

        here = xl_cell_to_rowcol(ctx.col.replace("$", "") + "1")[1]
        first = xl_cell_to_rowcol(ctx.first.replace("$", "") + "1")[1] + 1
        x = self.x.xl(ctx)
        if here - self.n < first:
            return x
        return f"{x}+{ctx.cell(self.key, xl_col_to_name(here - self.n))}"


def upfront_rules(shape: Terms, paid: str) -> list[Rule | Scalar]:
    """A commitment paid partly or wholly upfront: the upfront per instance in the month each term starts,
    the hourly part left every hour. ``paid`` is the row of instances paid (a fleet that never shrinks)."""
    if not shape.upfront_term:
        return []
    out: list[Rule | Scalar] = [
        Scalar("hourly_part", MAX(In("o.inf_price") - In("o.upfront") / (In("o.up_term") * HOURS_PER_MONTH), 0), "USD/h",
               "hourly part of the commitment: effective price − upfront / (term × 730 h)")]
    if shape.commit_terms:
        t, start = Month(), In("inf_start")
        k = (t - start) / In("o.up_term")
        out.append(Rule("upfronts", IF(AND(t >= start, k.eq(INT(k))), Row("commit"), 0), "instances",
                        "instances whose term starts this month: the term's committed level, in the first month of "
                        "each term"))
    else:
        out += [Rule("new_inst", MAX(Row(paid) - Prev(paid), 0), "instances", "instances added this month"),
                Rule("upfronts", Renewals("upfronts", Row("new_inst"), shape.upfront_term), "instances",
                     f"instances whose term starts this month: those added, and those that started a term "
                     f"{shape.upfront_term} months before (renewed)")]
    return out


def hourly_price(shape: Terms) -> Expr:
    """The hourly price of the serving commitment: its hourly part when an upfront is paid apart."""
    return In("c.hourly_part") if shape.upfront_term else In("o.inf_price")


def upfront_cost(shape: Terms) -> Expr:
    """The upfronts paid this month [USD]: instances starting a term × upfront per instance."""
    return Row("upfronts") * In("o.upfront")
