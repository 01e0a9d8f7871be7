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

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

# ---------------------------------------------------------------------------------------------
# Evaluation and rendering contexts


@dataclass
class Env:
    """What numpy evaluation reads: scalar or per-month inputs, the rows computed so far, and H."""

    inputs: dict[str, object]
    horizon: int
    rows: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def t(self) -> np.ndarray:
        return np.arange(1, self.horizon + 1, dtype=float)


@dataclass(frozen=True)
class XlContext:
    """Where one month's cell sits: its column, the previous month's column (``None`` in month 1,
    or a blank spacer column that reads as 0), how to address a row by key and an input by name."""

    col: str
    prev: str | None
    row_of: Callable[[str], object]
    """Row key → its 1-based row number, or (sheet prefix, row number) for a row of another sheet."""
    name_of: Callable[[str], str]
    """Input name → the workbook's defined name (``in_<name>``) or an absolute cell."""
    first: str = "$D"
    """The (blank) column before month 1, where running sums start."""
    row_range: Callable[[str], str] | None = None
    """Row key → the absolute range of the row over all months (for whole-row aggregates)."""

    def cell(self, key: str, col: str | None = None) -> str:
        where = self.row_of(key)
        prefix, row = where if isinstance(where, tuple) else ("", where)
        return f"{prefix}{col or self.col}{row}"


# ---------------------------------------------------------------------------------------------
# Nodes


class Expr:
    """An expression node. Arithmetic operators build trees; ``np`` evaluates, ``xl`` renders."""

    precedence = 9  # atoms bind tightest

    def np(self, env: Env) -> np.ndarray | float:
        raise NotImplementedError

    def xl(self, ctx: XlContext) -> str:
        raise NotImplementedError

    def __add__(self, o: object) -> Expr:
        return BinOp("+", self, wrap(o))

    def __radd__(self, o: object) -> Expr:
        return BinOp("+", wrap(o), self)

    def __sub__(self, o: object) -> Expr:
        return BinOp("-", self, wrap(o))

    def __rsub__(self, o: object) -> Expr:
        return BinOp("-", wrap(o), self)

    def __mul__(self, o: object) -> Expr:
        return BinOp("*", self, wrap(o))

    def __rmul__(self, o: object) -> Expr:
        return BinOp("*", wrap(o), self)

    def __truediv__(self, o: object) -> Expr:
        return BinOp("/", self, wrap(o))

    def __rtruediv__(self, o: object) -> Expr:
        return BinOp("/", wrap(o), self)

    def __pow__(self, o: object) -> Expr:
        return BinOp("^", self, wrap(o))

    def __rpow__(self, o: object) -> Expr:
        return BinOp("^", wrap(o), self)

    def __neg__(self) -> Expr:
        return Neg(self)

    def __gt__(self, o: object) -> Expr:
        return BinOp(">", self, wrap(o))

    def __ge__(self, o: object) -> Expr:
        return BinOp(">=", self, wrap(o))

    def __lt__(self, o: object) -> Expr:
        return BinOp("<", self, wrap(o))

    def __le__(self, o: object) -> Expr:
        return BinOp("<=", self, wrap(o))

    def eq(self, o: object) -> Expr:
        """Equality as an expression (``==`` keeps its Python meaning on nodes)."""
        return BinOp("=", self, wrap(o))


def wrap(x: object) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float, np.floating, np.integer)):
        return Const(float(x))
    raise TypeError(f"cannot make an expression of {x!r}")


def _number(v: float) -> str:
    """A number as Excel reads it: integers without a decimal point, others in full precision."""
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v)).replace("e-0", "E-").replace("e+0", "E+").replace("e-", "E-").replace("e+", "E+")


@dataclass(frozen=True, eq=False)
class Const(Expr):
    value: float

    def np(self, env: Env) -> float:
        return self.value

    def xl(self, ctx: XlContext) -> str:
        text = _number(self.value)
        return f"({text})" if self.value < 0 else text


@dataclass(frozen=True, eq=False)
class In(Expr):
    """A named input: a scalar (or a per-month array) the user can edit (workbook: a defined name)."""

    name: str

    def np(self, env: Env) -> np.ndarray | float:
        return env.inputs[self.name]  # type: ignore[return-value]

    def xl(self, ctx: XlContext) -> str:
        return ctx.name_of(self.name)


@dataclass(frozen=True, eq=False)
class Row(Expr):
    """Another row, same month."""

    key: str

    def np(self, env: Env) -> np.ndarray:
        return env.rows[self.key]

    def xl(self, ctx: XlContext) -> str:
        return ctx.cell(self.key)


@dataclass(frozen=True, eq=False)
class Prev(Expr):
    """A row in the month before; 0 before month 1 (the workbook's blank spacer column)."""

    key: str

    def np(self, env: Env) -> np.ndarray:
        x = env.rows[self.key]
        return np.concatenate([[0.0], x[:-1]])

    def xl(self, ctx: XlContext) -> str:
        return ctx.cell(self.key, ctx.prev) if ctx.prev else "0"


@dataclass(frozen=True, eq=False)
class Month(Expr):
    """The month index t = 1..H (the workbook's ``t`` row)."""

    def np(self, env: Env) -> np.ndarray:
        return env.t

    def xl(self, ctx: XlContext) -> str:
        return ctx.cell("t")


_OPS: dict[str, tuple[int, Callable[..., Any]]] = {
    "=": (1, np.equal), ">": (1, np.greater), ">=": (1, np.greater_equal), "<": (1, np.less),
    "<=": (1, np.less_equal),
    "+": (2, np.add), "-": (2, np.subtract), "*": (3, np.multiply), "/": (3, np.true_divide), "^": (5, np.power),
}
"""Operator → (Excel precedence, numpy function). Excel and numpy agree on these for finite numbers."""


@dataclass(frozen=True, eq=False)
class BinOp(Expr):
    op: str
    a: Expr
    b: Expr

    @property
    def precedence(self) -> int:  # type: ignore[override]
        return _OPS[self.op][0]

    def np(self, env: Env) -> np.ndarray | float:
        a, b = self.a.np(env), self.b.np(env)
        out = _OPS[self.op][1](a, b)
        return out.astype(float) if isinstance(out, np.ndarray) and out.dtype == bool else out

    def xl(self, ctx: XlContext) -> str:
        p = self.precedence
        left = self.a.xl(ctx)
        if self.a.precedence < p or (self.op == "^" and self.a.precedence <= p):
            left = f"({left})"
        right = self.b.xl(ctx)
        # left-associative: the right operand needs brackets at equal precedence for - / ^ (and, simply, always)
        if self.b.precedence <= p:
            right = f"({right})"
        return f"{left}{self.op}{right}"


@dataclass(frozen=True, eq=False)
class Neg(Expr):
    a: Expr

    def np(self, env: Env) -> np.ndarray | float:
        return -self.a.np(env)

    def xl(self, ctx: XlContext) -> str:
        return f"-({self.a.xl(ctx)})"


def _roundup(x: np.ndarray | float, digits: float = 0.0) -> np.ndarray | float:
    """Excel ROUNDUP: away from zero to ``digits`` decimals."""
    f = 10.0 ** digits
    return np.sign(x) * np.ceil(np.abs(x) * f) / f


def _if(cond, a, b):
    return np.where(np.asarray(cond) != 0, a, b)


FUNCS: dict[str, Callable[..., object]] = {
    "MAX": lambda *a: _reduce(np.maximum, a),
    "MIN": lambda *a: _reduce(np.minimum, a),
    "IF": _if,
    "EXP": np.exp,
    "LN": np.log,
    "INT": np.floor,
    "ROUNDUP": _roundup,
    "ABS": np.abs,
    "AND": lambda *a: _reduce(np.logical_and, a).astype(float),
    # CHOOSE: numpy evaluates both branches of an IF, so an index out of 1..n (where Excel's CHOOSE errs and the
    # guarding IF never looks) is clipped instead of raising
    "CHOOSE": lambda i, *a: np.choose(np.clip(np.asarray(i, dtype=int), 1, len(a)) - 1, np.broadcast_arrays(*a)),
    "SUM": lambda *a: _reduce(np.add, a),
}
"""Each Excel function the rules use, with its numpy meaning: the one place the two are paired."""


def _reduce(f, args):
    out = args[0]
    for a in args[1:]:
        out = f(out, a)
    return out


@dataclass(frozen=True, eq=False)
class Fn(Expr):
    name: str
    args: tuple[Expr, ...]

    def np(self, env: Env) -> np.ndarray | float:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return FUNCS[self.name](*(a.np(env) for a in self.args))  # type: ignore[return-value]

    def xl(self, ctx: XlContext) -> str:
        return f"{self.name}({','.join(a.xl(ctx) for a in self.args)})"


def MAX(*a: object) -> Expr:  # noqa: N802  (Excel's names)
    return Fn("MAX", tuple(wrap(x) for x in a))


def MIN(*a: object) -> Expr:  # noqa: N802
    return Fn("MIN", tuple(wrap(x) for x in a))


def IF(cond: Expr, a: object, b: object) -> Expr:  # noqa: N802
    return Fn("IF", (cond, wrap(a), wrap(b)))


def EXP(a: object) -> Expr:  # noqa: N802
    return Fn("EXP", (wrap(a),))


def LN(a: object) -> Expr:  # noqa: N802
    return Fn("LN", (wrap(a),))


def INT(a: object) -> Expr:  # noqa: N802
    return Fn("INT", (wrap(a),))


def ROUNDUP(a: object, digits: object = 0) -> Expr:  # noqa: N802
    return Fn("ROUNDUP", (wrap(a), wrap(digits)))


def AND(*a: object) -> Expr:  # noqa: N802
    return Fn("AND", tuple(wrap(x) for x in a))


def SUM(*a: object) -> Expr:  # noqa: N802
    return Fn("SUM", tuple(wrap(x) for x in a))


def CHOOSE(index: object, *a: object) -> Expr:  # noqa: N802
    """The index-th of the values (1-based), as Excel's CHOOSE."""
    return Fn("CHOOSE", (wrap(index), *(wrap(x) for x in a)))


@dataclass(frozen=True, eq=False)
class Fill(Expr):
    """A job of ``total`` units done as fast as each month's ``cap`` allows, in the months where ``active``
    is true: x_m = min(cap_m, max(0, total − Σ_{n<m} x_n)). Only valid as the whole expression of its rule
    ``key`` (the sum runs over its own earlier months). Workbook: ``MAX(0, MIN(cap, total − SUM(row before)))``
    inside ``IF(active, …, 0)``; numpy: the closed form clip(total − Σ_{n<m} active·cap, 0, cap)."""

    key: str
    total: Expr
    cap: Expr
    active: Expr

    def np(self, env: Env) -> np.ndarray:
        cap = np.broadcast_to(np.asarray(self.cap.np(env), dtype=float), (env.horizon,))
        on = np.broadcast_to(np.asarray(self.active.np(env), dtype=float), (env.horizon,)) != 0
        usable = np.where(on, cap, 0.0)
        before = np.concatenate([[0.0], np.cumsum(usable)[:-1]])
        return np.where(on, np.clip(self.total.np(env) - before, 0.0, cap), 0.0)

    def xl(self, ctx: XlContext) -> str:
        done = f"SUM({ctx.cell(self.key, ctx.first)}:{ctx.cell(self.key, ctx.prev)})" if ctx.prev else "0"
        return (f"IF({self.active.xl(ctx)},MAX(0,MIN({self.cap.xl(ctx)},{self.total.xl(ctx)}-{done})),0)")


@dataclass(frozen=True, eq=False)
class Pick(Expr):
    """The k-th value of a list input, the last one holding past its end (``INDEX(list, MIN(k, ROWS(list)))``);
    k < 1 reads the first value (rules guard it with IF)."""

    name: str
    k: Expr

    def np(self, env: Env) -> np.ndarray:
        values = np.asarray(env.inputs[self.name], dtype=float)
        k = np.asarray(self.k.np(env), dtype=float)
        idx = np.clip(k, 1, len(values)).astype(int) - 1
        return values[idx]

    def xl(self, ctx: XlContext) -> str:
        ref = ctx.name_of(self.name)
        return f"INDEX({ref},MIN({self.k.xl(ctx)},ROWS({ref})))"


@dataclass(frozen=True, eq=False)
class Ratchet(Expr):
    """A level that never falls: max of its own previous month and ``x`` (``MAX(prev cell, x)``);
    numpy: the running maximum. Only valid as the whole expression of its rule."""

    key: str
    x: Expr

    def np(self, env: Env) -> np.ndarray:
        x = np.broadcast_to(np.asarray(self.x.np(env), dtype=float), (env.horizon,))
        return np.maximum.accumulate(x)

    def xl(self, ctx: XlContext) -> str:
        prev = ctx.cell(self.key, ctx.prev) if ctx.prev else "0"
        return f"MAX({prev},{self.x.xl(ctx)})"


@dataclass(frozen=True, eq=False)
class CountPositive(Expr):
    """How many months of a row are above zero (a scalar: ``COUNTIF(row, ">0")``)."""

    key: str

    def np(self, env: Env) -> float:
        return float(np.count_nonzero(env.rows[self.key] > 0))

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "CountPositive needs a context with whole-row ranges"
        return f'COUNTIF({ctx.row_range(self.key)},">0")'


# ---------------------------------------------------------------------------------------------
# Rules


@dataclass(frozen=True)
class Rule:
    """One monthly row: its key (= engine row = workbook row = label key), expression, unit and a sentence."""

    key: str
    expr: Expr
    unit: str
    doc: str

    def formula(self, ctx: XlContext) -> str:
        return "=" + self.expr.xl(ctx)


@dataclass(frozen=True)
class Scalar:
    """A value for the whole horizon, computed from inputs and whole rows (the workbook writes it once,
    in the constants block); later rules read it as the constant ``In("c.<key>")``."""

    key: str
    expr: Expr
    unit: str
    doc: str

    def formula(self, ctx: XlContext) -> str:
        return "=" + self.expr.xl(ctx)


def evaluate(rules: list[Rule | Scalar] | tuple[Rule | Scalar, ...], inputs: Mapping[str, object], horizon: int,
             rows: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Evaluate rules in order over months 1..H; each sees the rows before it (and ``rows`` given). A
    ``Scalar`` is stored both as the constant ``c.<key>`` for the rules after it and as a constant row."""
    env = Env(dict(inputs), horizon, dict(rows or {}))
    env.rows.setdefault("t", env.t)
    for rule in rules:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            value = rule.expr.np(env)
        if isinstance(rule, Scalar):
            env.inputs["c." + rule.key] = float(np.asarray(value).ravel()[0])
        env.rows[rule.key] = np.broadcast_to(np.asarray(value, dtype=float), (horizon,)).copy()
    return env.rows
