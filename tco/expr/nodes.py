"""Nodes that read a row over the months: a job filled month by month, a list input picked by index, a
ratchet that never falls, and a count of positive months."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.expr.base import Env, Expr, XlContext


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
