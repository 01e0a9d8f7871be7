"""The Excel functions the rules use, each paired with its numpy meaning in ``FUNCS`` (the one table), and
the constructors ``MAX``, ``IF`` … that build ``Fn`` nodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tco.expr.base import Env, Expr, XlContext, wrap


def _roundup(x: np.ndarray | float, digits: float = 0.0) -> np.ndarray | float:
    """Excel ROUNDUP: away from zero to ``digits`` decimals."""
    f = 10.0 ** digits
    return np.sign(x) * np.ceil(np.abs(x) * f) / f


def _year(serial):
    """Excel YEAR of a date serial (days since 1899-12-30): the calendar year of its day (as Excel from serial 61,
    1900-03-01, on: before it Excel counts a fictitious 1900-02-29)."""
    days = np.floor(np.asarray(serial, dtype=float)).astype("timedelta64[D]")
    return ((np.datetime64("1899-12-30") + days).astype("datetime64[Y]").astype(int) + 1970).astype(float)


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
    "YEAR": _year,
    # a blank ("") is NaN on the numpy side (``Blank``): ISNUMBER tells it from a number, as Excel tells text
    "ISNUMBER": lambda a: np.isfinite(np.asarray(a, dtype=float)).astype(float),
    "OR": lambda *a: _reduce(np.logical_or, [np.asarray(x) != 0 for x in a]).astype(float),
    "NOT": lambda a: (np.asarray(a) == 0).astype(float),
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


def YEAR(serial: object) -> Expr:  # noqa: N802
    """The calendar year of a date serial, as Excel's YEAR."""
    return Fn("YEAR", (wrap(serial),))


def ISNUMBER(a: object) -> Expr:  # noqa: N802
    """1 where `a` is a number, 0 where it is blank (numpy: NaN)."""
    return Fn("ISNUMBER", (wrap(a),))


def OR(*a: object) -> Expr:  # noqa: N802
    return Fn("OR", tuple(wrap(x) for x in a))


def NOT(a: object) -> Expr:  # noqa: N802
    return Fn("NOT", (wrap(a),))


@dataclass(frozen=True, eq=False)
class Blank(Expr):
    """An empty result: Excel's ``""`` (a cell that shows nothing, which COUNT, MIN and MAX skip), NaN in numpy."""

    def np(self, env: Env) -> float:
        return float("nan")

    def xl(self, ctx: XlContext) -> str:
        return '""'


def CHOOSE(index: object, *a: object) -> Expr:  # noqa: N802
    """The index-th of the values (1-based), as Excel's CHOOSE."""
    return Fn("CHOOSE", (wrap(index), *(wrap(x) for x in a)))
