"""Rules (one monthly row each) and scalars, and ``evaluate``, which runs a list of them with numpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from tco.expr.base import Env, Expr, XlContext, along_months, first_month


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

    whole_horizon = True  # a class flag, not a field: how tco.expr.compiled tells a Scalar from a Rule

    key: str
    expr: Expr
    unit: str
    doc: str

    def formula(self, ctx: XlContext) -> str:
        return "=" + self.expr.xl(ctx)


def evaluate(rules: list[Rule | Scalar] | tuple[Rule | Scalar, ...], inputs: Mapping[str, object], horizon: int,
             rows: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Evaluate rules in order over months 1..H; each sees the rows before it (and ``rows`` given). A
    ``Scalar`` is stored both as the constant ``c.<key>`` for the rules after it and as a constant row.

    An input (or a given row) may carry leading axes, ``(n, 1)`` or ``(n, H)``: the rows that depend on it are then
    (n, H), n cases evaluated at once (months on the last axis), the others stay (H,).

    Runs the rules' compiled form (``tco.expr.compiled.program``, built once per rule list); the value is the
    tree walk's (``evaluate_tree``) to the last bit, which runs instead with ``TCO_PLAIN`` (``tco.plain``)."""
    from tco.expr.compiled import program
    from tco.plain import plain

    if plain("compiled"):
        return evaluate_tree(rules, inputs, horizon, rows)

    t = np.arange(1, horizon + 1, dtype=float)
    out = dict(rows or {})
    out.setdefault("t", t)
    run = program(rules)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        run(dict(inputs), out, t)
    return out


def evaluate_tree(rules: list[Rule | Scalar] | tuple[Rule | Scalar, ...], inputs: Mapping[str, object], horizon: int,
                  rows: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """``evaluate`` by walking each rule's tree (``Expr.np``): the reference the compiled form is held to."""
    env = Env(dict(inputs), horizon, dict(rows or {}))
    env.rows.setdefault("t", env.t)
    for rule in rules:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            value = rule.expr.np(env)
        if isinstance(rule, Scalar):
            env.inputs["c." + rule.key] = first_month(value)
        env.rows[rule.key] = along_months(value, horizon).copy()
    return env.rows
