"""Expression nodes: the contexts (numpy environment, Excel cell), the ``Expr`` base with its operators,
inputs, rows, the month, constants, and arithmetic whose Excel and numpy meanings ``_OPS`` pairs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

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


# ---------------------------------------------------------------------------------------------
# The month axis. A row is (H,), months 1..H; it may carry leading axes (…, H) when an input does (a batch of
# cases evaluated at once, as the plan search costs every committed level in one evaluation). Nodes that read a
# row over the months (Prev, Ratchet, Fill, CountPositive) work along the last axis through these helpers.


def along_months(x: object, horizon: int) -> np.ndarray:
    """``x`` as a float array with the months on its last axis: (H,), or (…, H) when it carries leading axes."""
    a = np.asarray(x, dtype=float)
    shape = (horizon,) if a.ndim <= 1 else a.shape[:-1] + (horizon,)
    if a.shape != shape:
        return np.broadcast_to(a, shape)
    view = a.view()  # already that shape: what broadcast_to gives, a read-only view, at a tenth of its cost
    view.flags.writeable = False
    return view


def month_before(x: np.ndarray) -> np.ndarray:
    """Each month's value moved one month later along the last axis, 0 in month 1."""
    return np.concatenate([np.zeros(x.shape[:-1] + (1,)), x[..., :-1]], axis=-1)


def first_month(value: object) -> float | np.ndarray:
    """A ``Scalar``'s value: month 1 of its row (a float), or of each case's row ((…, 1)) under leading axes."""
    a = np.asarray(value)
    return float(a.ravel()[0]) if a.ndim <= 1 else np.asarray(a[..., :1], dtype=float)


@dataclass(frozen=True, eq=False)
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


@dataclass(frozen=True, eq=False)
class TextContext(XlContext):
    """The context of ``Expr.text``: a row by its key (``users``), the month before as ``users[t-1]``, a month n
    back as ``users[t-n]``, the blank column before month 1 as ``users[0]``, a whole row as ``users[1:H]``, an
    input by its name."""

    def cell(self, key: str, col: str | None = None) -> str:
        if col is None or col == self.col:
            return key
        if col == self.prev:
            return f"{key}[t-1]"
        return f"{key}[0]" if col == self.first else f"{key}[{col}]"


TEXT = TextContext("t", "t-1", lambda key: key, lambda name: name, "0", lambda key: f"{key}[1:H]")
"""The one text context (the documentation's)."""


# ---------------------------------------------------------------------------------------------
# Nodes


class Expr:
    """An expression node. Arithmetic operators build trees; ``np`` evaluates, ``xl`` renders."""

    precedence = 9  # atoms bind tightest

    def np(self, env: Env) -> np.ndarray | float:
        raise NotImplementedError

    def xl(self, ctx: XlContext) -> str:
        raise NotImplementedError

    def text(self) -> str:
        """The expression as the documentation shows it: the workbook's formula with rows, inputs and months
        by name (``TextContext``), so the page and the workbook render one tree the same way.

        >>> (Row("users") * In("rpud") + Prev("users")).text()
        'users*rpud+users[t-1]'
        """
        return self.xl(TEXT)

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
        return month_before(env.rows[self.key])

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
