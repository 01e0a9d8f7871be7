"""Rules as data: one expression, evaluated by the engine with numpy and written by the workbook as an
Excel formula.

A rule says how one monthly row is computed (``Rule(key, expr, unit, doc)``). Its expression is a small
tree of nodes: inputs (``In``), other rows of the same month (``Row``) or of the month before
(``Prev``), the month index (``Month``), constants, arithmetic and the functions of ``FUNCS``, the one
table that pairs each Excel function with its numpy meaning. ``evaluate`` runs a list of rules over
months 1..H with numpy; ``Expr.xl`` renders the same tree as the formula text of one month's cell.
The workbook writes that text and caches the value ``evaluate`` gave, so the two cannot drift apart
(calliope's "math as data" rendered to several backends; pycel's one table of Excel semantics).

>>> users = Rule("users", In("start_users") * (1 + In("growth_rate")) ** (Month() - 1), "users", "compound growth")
>>> evaluate([users], {"start_users": 100.0, "growth_rate": 0.1}, 3)["users"]
array([100., 110., 121.])
>>> users.expr.xl(XlContext(col="F", prev="E", row_of={"t": 3}.__getitem__, name_of=lambda n: f"in_{n}"))
'in_start_users*(1+in_growth_rate)^(F3-1)'
"""

from __future__ import annotations

from tco.expr.base import (  # noqa: F401  (the public names of tco.expr)
    BinOp, Const, Env, Expr, In, Month, Neg, Prev, Row, XlContext, wrap,
)
from tco.expr.funcs import (  # noqa: F401
    AND, CHOOSE, EXP, FUNCS, IF, INT, ISNUMBER, LN, MAX, MIN, NOT, OR, ROUNDUP, SUM, YEAR, Blank, Fn,
)
from tco.expr.nodes import (  # noqa: F401
    CountPositive, Fill, Pick, Ratchet, RunningSum, SumProduct, SumWhere, Total,
)
from tco.expr.rules import Rule, Scalar, evaluate, evaluate_tree  # noqa: F401
