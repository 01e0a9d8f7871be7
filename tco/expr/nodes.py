"""Nodes that read a row over the months: a job filled month by month, a list input picked by index, a
ratchet that never falls, a count of positive months, a running sum, a row's total and the sum of two rows'
products."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.expr.base import Env, Expr, XlContext, along_months, month_before


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
        return fill(self.total.np(env), self.cap.np(env), self.active.np(env), env.horizon)

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
        return ratchet(self.x.np(env), env.horizon)

    def xl(self, ctx: XlContext) -> str:
        prev = ctx.cell(self.key, ctx.prev) if ctx.prev else "0"
        return f"MAX({prev},{self.x.xl(ctx)})"


@dataclass(frozen=True, eq=False)
class CountPositive(Expr):
    """How many months of a row are above zero (a scalar: ``COUNTIF(row, ">0")``)."""

    key: str

    def np(self, env: Env) -> float | np.ndarray:
        return count_positive(env.rows[self.key])

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "CountPositive needs a context with whole-row ranges"
        return f'COUNTIF({ctx.row_range(self.key)},">0")'


@dataclass(frozen=True, eq=False)
class RunningSum(Expr):
    """The running sum of ``x`` over the months: r_t = r_{t−1} + x_t, r_0 = 0. Only valid as the whole expression of
    its rule ``key``. Workbook: ``<own cell one month back>+x``; numpy: ``cumsum`` (the same additions in the same
    order)."""

    key: str
    x: Expr

    def np(self, env: Env) -> np.ndarray:
        return np.cumsum(along_months(self.x.np(env), env.horizon), axis=-1)

    def xl(self, ctx: XlContext) -> str:
        prev = ctx.cell(self.key, ctx.prev) if ctx.prev else "0"
        return f"{prev}+{self.x.xl(ctx)}"


@dataclass(frozen=True, eq=False)
class Total(Expr):
    """A row summed over the whole horizon (a scalar: ``SUM(row)``; (…, 1) under leading axes)."""

    key: str

    def np(self, env: Env) -> float | np.ndarray:
        return total(env.rows[self.key])

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "Total needs a context with whole-row ranges"
        return f"SUM({ctx.row_range(self.key)})"


@dataclass(frozen=True, eq=False)
class SumProduct(Expr):
    """Σ_t a_t·b_t of two rows over the whole horizon (a scalar: ``SUMPRODUCT(a, b)``; (…, 1) under leading axes)."""

    a: str
    b: str

    def np(self, env: Env) -> float | np.ndarray:
        return sum_product(env.rows[self.a], env.rows[self.b])

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "SumProduct needs a context with whole-row ranges"
        return f"SUMPRODUCT({ctx.row_range(self.a)},{ctx.row_range(self.b)})"


@dataclass(frozen=True, eq=False)
class SumWhere(Expr):
    """Σ of the month expression ``x`` over the months where ``where`` holds (a scalar; (…, 1) under leading axes).
    Workbook: ``SUMPRODUCT((where)*(x))`` with each row as its whole-row range (an array formula); numpy: the
    months selected, then summed (as ``x[mask].sum()``)."""

    x: Expr
    where: Expr | None = None
    """None: every month (``SUMPRODUCT(x)``; numpy: ``x.sum()``)."""

    def np(self, env: Env) -> float | np.ndarray:
        x = along_months(self.x.np(env), env.horizon)
        return total(x) if self.where is None else sum_where(x, along_months(self.where.np(env), env.horizon))

    def xl(self, ctx: XlContext) -> str:
        arrays = RangeContext(ctx.col, ctx.prev, ctx.row_of, ctx.name_of, ctx.first, ctx.row_range)
        if self.where is None:
            return f"SUMPRODUCT({self.x.xl(arrays)})"
        return f"SUMPRODUCT(({self.where.xl(arrays)})*({self.x.xl(arrays)}))"


@dataclass(frozen=True, eq=False)
class RangeContext(XlContext):
    """A context in which a row is its whole-row range (``SumWhere``'s array expressions)."""

    def cell(self, key: str, col: str | None = None) -> str:
        assert self.row_range is not None and col is None, "an array expression reads whole rows, same month only"
        return self.row_range(key)


# ---------------------------------------------------------------------------------------------
# the numpy meaning of the nodes above, along the month axis (the tree walk and the compiled form both call these)


def fill(total: object, cap: object, active: object, horizon: int) -> np.ndarray:
    """``Fill``: clip(total − Σ_{n<m} active·cap, 0, cap) in the active months, else 0."""
    cap_m = along_months(cap, horizon)
    on = along_months(active, horizon) != 0
    before = month_before(np.cumsum(np.where(on, cap_m, 0.0), axis=-1))
    return np.where(on, np.clip(np.asarray(total, dtype=float) - before, 0.0, cap_m), 0.0)


def ratchet(x: object, horizon: int) -> np.ndarray:
    """``Ratchet``: the running maximum over the months."""
    return np.maximum.accumulate(along_months(x, horizon), axis=-1)


def count_positive(x: np.ndarray) -> float | np.ndarray:
    """``CountPositive``: months above 0 (a float; (…, 1) under leading axes)."""
    n = np.count_nonzero(np.asarray(x) > 0, axis=-1)
    return float(n) if np.ndim(n) == 0 else np.asarray(n, dtype=float)[..., None]


def total(x: np.ndarray) -> float | np.ndarray:
    """``Total``: the sum over the months (numpy's pairwise sum, as ``x.sum()``; (…, 1) under leading axes)."""
    a = np.asarray(x, dtype=float)
    return float(a.sum()) if a.ndim <= 1 else a.sum(axis=-1)[..., None]


def sum_product(a: np.ndarray, b: np.ndarray) -> float | np.ndarray:
    """``SumProduct``: Σ_t a_t·b_t, the dot product ``a @ b`` of two month rows ((…, 1) under leading axes)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim <= 1 and y.ndim <= 1:
        return float(x @ y)
    x, y = np.broadcast_arrays(x, y)
    return np.einsum("...t,...t->...", x, y)[..., None]


def sum_where(x: np.ndarray, where: np.ndarray) -> float | np.ndarray:
    """``SumWhere``: the months of `x` where `where` is not 0, summed (each case's, (…, 1), under leading axes)."""
    if x.ndim <= 1 and where.ndim <= 1:
        return float(x[where != 0].sum())
    x, where = np.broadcast_arrays(x, where)
    flat = [float(a[w != 0].sum()) for a, w in zip(x.reshape(-1, x.shape[-1]), where.reshape(-1, x.shape[-1]))]
    return np.asarray(flat).reshape(x.shape[:-1] + (1,))
