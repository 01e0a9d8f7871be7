"""Stacked runs: consecutive rules that differ only in the rows they read (the 24 ``srv_<h>`` rules of the hours
of the day) evaluated once on their rows stacked, an (n, H) array, then split back into their rows.

Only element-wise nodes whose numpy functions are exact in IEEE arithmetic (+ − × ÷, comparisons, max, min, ceil,
floor, abs, sign, where) are stacked, so a value does not depend on the array's shape: it is the value of each
rule evaluated alone, to the last bit (``tests/test_compiled.py``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from tco.expr.base import BinOp, Const, Expr, In, Month, Neg, Row
from tco.expr.funcs import Fn

Closure = Callable[[dict, dict, np.ndarray], Any]
"""A compiled node: (inputs, rows, months t = 1..H) → its value."""
Compile = Callable[[Expr, "Mapping[str, Closure] | None"], Closure]
"""How an expression becomes a closure (``tco.expr.compiled.closure``), with some rows read from elsewhere."""

_EXACT_FUNCS = {"MAX", "MIN", "IF", "INT", "ROUNDUP", "ABS", "AND", "SUM"}
_EXACT_OPS = {"+", "-", "*", "/", "=", ">", ">=", "<", "<="}


def _template(expr: Expr, keys: list[str]) -> str | None:
    """The expression's structure with its row keys left out (appended to `keys`), or None if it holds a node
    that is not element-wise and exact (then it is never stacked)."""
    if isinstance(expr, Row):
        keys.append(expr.key)
        return "R"
    if isinstance(expr, Const):
        return repr(expr.value)
    if isinstance(expr, In):
        return f"I({expr.name})"
    if isinstance(expr, Month):
        return "M"
    if isinstance(expr, Neg):
        a = _template(expr.a, keys)
        return None if a is None else f"-({a})"
    if isinstance(expr, BinOp) and expr.op in _EXACT_OPS:
        a = _template(expr.a, keys)
        b = _template(expr.b, keys) if a is not None else None
        return None if b is None else f"({a}{expr.op}{b})"
    if isinstance(expr, Fn) and expr.name in _EXACT_FUNCS:
        parts = []
        for x in expr.args:
            p = _template(x, keys)
            if p is None:
                return None
            parts.append(p)
        return f"{expr.name}({','.join(parts)})"
    return None


def is_scalar(rule) -> bool:
    """A ``tco.expr.rules.Scalar`` (one value for the horizon), told by its flag (rules imports this module)."""
    return getattr(rule, "whole_horizon", False)


def _head(rule) -> tuple | None:
    """What the root of a rule's template is (its node type and operator or function), cheaply: two rules whose heads
    differ cannot share a template, so a rule whose head is unlike both neighbours' is never templated (about half
    the rules of a cost program)."""
    if is_scalar(rule):
        return None
    e = rule.expr
    return type(e), getattr(e, "op", None), getattr(e, "name", None)


def runs(rules: Sequence) -> list[tuple[int, int, list[int], list[list[str]]]]:
    """(start, end, positions of the row keys that vary, each rule's row keys) of each run of ≥ 2 consecutive rules
    with the same template, whose varying rows are not rules of the run itself."""
    heads = [_head(rule) for rule in rules]
    shapes: list[tuple[str | None, list[str]]] = []
    for k, rule in enumerate(rules):
        keys: list[str] = []
        alike = heads[k] is not None and ((k > 0 and heads[k - 1] == heads[k])
                                          or (k + 1 < len(rules) and heads[k + 1] == heads[k]))
        shapes.append((_template(rule.expr, keys) if alike else None, keys))
    out = []
    a = 0
    while a < len(rules):
        b = a + 1
        while b < len(rules) and shapes[b][0] is not None and shapes[b][0] == shapes[a][0]:
            b += 1
        if shapes[a][0] is not None and b - a >= 2:
            varying = [j for j in range(len(shapes[a][1])) if len({shapes[k][1][j] for k in range(a, b)}) > 1]
            if varying and _stackable(rules, shapes, a, b, varying):
                out.append((a, b, varying, [shapes[k][1] for k in range(a, b)]))
        a = b
    return out


def _stackable(rules: Sequence, shapes: list, a: int, b: int, varying: list[int]) -> bool:
    """The varying rows are not rules of the run, and the first rule's key at a varying position names that
    position's column alone (not also a fixed row, nor another column)."""
    own = {rules[k].key for k in range(a, b)}
    if any(shapes[k][1][j] in own for k in range(a, b) for j in varying):
        return False
    first = shapes[a][1]
    fixed = {first[j] for j in range(len(first)) if j not in varying}
    column: dict[str, tuple] = {}
    for j in varying:
        col = tuple(shapes[k][1][j] for k in range(a, b))
        if first[j] in fixed or column.setdefault(first[j], col) != col:
            return False
    return True


def stacked_step(rules: Sequence, a: int, b: int, varying: list[int], keys_by_rule: list[list[str]],
                 horizon_check: Callable, closure: Compile) -> Callable:
    """One step that evaluates rules a..b−1 at once on their varying rows stacked (n, H), with a fallback to one
    rule at a time where a row is not a float array of H months; `keys_by_rule` as ``runs`` gives them."""
    # the first rule's tree, with each varying Row read from its stacked array
    first_keys = keys_by_rule[0]
    stacked_keys = [[keys_by_rule[k][j] for k in range(b - a)] for j in varying]
    slot = {first_keys[j]: n for n, j in enumerate(varying)}
    holder: list = [None] * len(varying)
    def read(n: int) -> Closure:
        return lambda i, r, t: holder[n]

    f = closure(rules[a].expr, {k: read(n) for k, n in slot.items()})
    singles: list = []  # each rule's own closure, built the first time a step falls back to them
    out_keys = [rule.key for rule in rules[a:b]]
    n_rules = b - a

    def step(i, r, t):
        h = len(t)
        cols = [[r[k] for k in ks] for ks in stacked_keys]
        if all(isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == (h,) for c in cols for x in c):
            for n, c in enumerate(cols):
                holder[n] = np.stack(c)
            value = np.broadcast_to(np.asarray(f(i, r, t), dtype=float), (n_rules, h))
            for n in range(len(holder)):
                holder[n] = None
            for k, key in enumerate(out_keys):
                r[key] = value[k].copy()
        else:
            if not singles:
                singles.extend((rule.key, closure(rule.expr, None)) for rule in rules[a:b])
            for key, g in singles:
                r[key] = horizon_check(g(i, r, t), h)
    return step
