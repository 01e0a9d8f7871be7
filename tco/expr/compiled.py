"""Rules compiled once into numpy closures: what ``evaluate`` runs.

``Expr.np`` walks the tree node by node on every call; the engine evaluates the same few rule sets
hundreds of times (every option, every plan component, every re-run of the analysis). ``program``
turns a rule list into one Python closure per node, once, and keeps it (keyed by the rules themselves:
the rule builders are cached, so an option of the same shape gets the very same rules back). A run of
consecutive rules that differ only in the rows they read (the 24 ``srv_<h>`` rules of the hours of the
day) is evaluated once on the stacked rows, an (n, H) array, then split back into its rows.

Exactness: a closure calls the same numpy function on the same operands as the node's ``np``, so the
value is the same to the last bit (``tests/test_expr_compiled.py`` holds every rule set of the examples
to it). Stacked runs are limited to element-wise nodes whose numpy functions are exact in IEEE arithmetic
(+ − × ÷, comparisons, max, min, ceil, floor, abs, sign, where), so their value does not depend on the
array's shape either.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from tco.expr.base import _OPS, BinOp, Const, Env, Expr, In, Month, Neg, Prev, Row
from tco.expr.funcs import FUNCS, Fn
from tco.expr.nodes import CountPositive, Fill, Pick, Ratchet

Closure = Callable[[dict, dict, np.ndarray], Any]
"""A compiled node: (inputs, rows, months t = 1..H) → its value."""

_COMPARE = {"=", ">", ">=", "<", "<="}


def _binop(node: BinOp, sub) -> Closure:
    op, fa, fb = _OPS[node.op][1], sub(node.a), sub(node.b)
    if node.op in _COMPARE:
        def cmp(i, r, t):
            out = op(fa(i, r, t), fb(i, r, t))
            return out.astype(float) if isinstance(out, np.ndarray) and out.dtype == bool else out
        return cmp
    if isinstance(node.b, Const):
        vb = node.b.value
        return lambda i, r, t: op(fa(i, r, t), vb)
    if isinstance(node.a, Const):
        va = node.a.value
        return lambda i, r, t: op(va, fb(i, r, t))
    return lambda i, r, t: op(fa(i, r, t), fb(i, r, t))


def _fn(node: Fn, sub) -> Closure:
    f = FUNCS[node.name]
    args = [sub(a) for a in node.args]
    if len(args) == 1:
        a0 = args[0]
        return lambda i, r, t: f(a0(i, r, t))
    if len(args) == 2:
        a0, a1 = args
        return lambda i, r, t: f(a0(i, r, t), a1(i, r, t))
    if len(args) == 3:
        a0, a1, a2 = args
        return lambda i, r, t: f(a0(i, r, t), a1(i, r, t), a2(i, r, t))
    return lambda i, r, t: f(*[a(i, r, t) for a in args])


def _prev(node: Prev, sub) -> Closure:
    key = node.key

    def prev(i, r, t):
        x = r[key]
        return np.concatenate([[0.0], x[:-1]])
    return prev


def _fill(node: Fill, sub) -> Closure:
    total, cap_f, active = sub(node.total), sub(node.cap), sub(node.active)

    def fill(i, r, t):
        h = len(t)
        cap = np.broadcast_to(np.asarray(cap_f(i, r, t), dtype=float), (h,))
        on = np.broadcast_to(np.asarray(active(i, r, t), dtype=float), (h,)) != 0
        usable = np.where(on, cap, 0.0)
        before = np.concatenate([[0.0], np.cumsum(usable)[:-1]])
        return np.where(on, np.clip(total(i, r, t) - before, 0.0, cap), 0.0)
    return fill


def _pick(node: Pick, sub) -> Closure:
    name, k_f = node.name, sub(node.k)

    def pick(i, r, t):
        values = np.asarray(i[name], dtype=float)
        k = np.asarray(k_f(i, r, t), dtype=float)
        return values[np.clip(k, 1, len(values)).astype(int) - 1]
    return pick


def _ratchet(node: Ratchet, sub) -> Closure:
    x_f = sub(node.x)
    return lambda i, r, t: np.maximum.accumulate(np.broadcast_to(np.asarray(x_f(i, r, t), dtype=float), (len(t),)))


def _count(node: CountPositive, sub) -> Closure:
    key = node.key
    return lambda i, r, t: float(np.count_nonzero(r[key] > 0))


def _const(node: Const, sub) -> Closure:
    v = node.value
    return lambda i, r, t: v


def _in(node: In, sub) -> Closure:
    name = node.name
    return lambda i, r, t: i[name]


def _row(node: Row, sub) -> Closure:
    key = node.key
    return lambda i, r, t: r[key]


def _neg(node: Neg, sub) -> Closure:
    fa = sub(node.a)
    return lambda i, r, t: -fa(i, r, t)


_COMPILERS: dict[type, Callable[[Any, Callable[[Expr], Closure]], Closure]] = {
    Const: _const, In: _in, Row: _row, Prev: _prev, Month: lambda node, sub: (lambda i, r, t: t), BinOp: _binop,
    Neg: _neg, Fn: _fn, Fill: _fill, Pick: _pick, Ratchet: _ratchet, CountPositive: _count,
}


def closure(expr: Expr, rows: Mapping[str, Closure] | None = None) -> Closure:
    """The numpy closure of one expression. ``rows`` replaces the reading of some rows (a stacked run's own
    row arguments). A node type the compiler does not know evaluates through its own ``np`` (a tree walk)."""
    def sub(node: Expr) -> Closure:
        if rows is not None and isinstance(node, Row) and node.key in rows:
            return rows[node.key]
        make = _COMPILERS.get(type(node))
        if make is not None:
            return make(node, sub)
        own = getattr(node, "np_closure", None)
        if own is not None:
            return own(sub)
        return lambda i, r, t: node.np(Env(i, len(t), r))
    return sub(expr)


# ---------------------------------------------------------------------------------------------
# stacked runs of rules that differ only in the rows they read

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


def _is_scalar(rule) -> bool:
    """A ``tco.expr.rules.Scalar`` (one value for the horizon), told by its flag (rules imports this module)."""
    return getattr(rule, "whole_horizon", False)


def _runs(rules: Sequence) -> list[tuple[int, int, list[int]]]:
    """(start, end, positions of the row keys that vary) of each run of ≥ 2 consecutive rules with the same
    template, whose varying rows are not rules of the run itself."""
    shapes = []
    for rule in rules:
        keys: list[str] = []
        tpl = None if _is_scalar(rule) else _template(rule.expr, keys)
        shapes.append((tpl, keys))
    out = []
    a = 0
    while a < len(rules):
        b = a + 1
        while b < len(rules) and shapes[b][0] is not None and shapes[b][0] == shapes[a][0]:
            b += 1
        if shapes[a][0] is not None and b - a >= 2:
            varying = [j for j in range(len(shapes[a][1])) if len({shapes[k][1][j] for k in range(a, b)}) > 1]
            if varying and _stackable(rules, shapes, a, b, varying):
                out.append((a, b, varying))
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


def _stacked_step(rules: Sequence, a: int, b: int, varying: list[int], horizon_check: Callable) -> Callable:
    """One step that evaluates rules a..b−1 at once on their varying rows stacked (n, H), with a fallback to one
    rule at a time where a row is not a float array of H months."""
    keys_by_rule = []
    for rule in rules[a:b]:
        keys: list[str] = []
        _template(rule.expr, keys)
        keys_by_rule.append(keys)
    # the first rule's tree, with each varying Row read from its stacked array
    first_keys = keys_by_rule[0]
    stacked_keys = [[keys_by_rule[k][j] for k in range(b - a)] for j in varying]
    slot = {first_keys[j]: n for n, j in enumerate(varying)}
    holder: list = [None] * len(varying)
    def read(n: int) -> Closure:
        return lambda i, r, t: holder[n]

    f = closure(rules[a].expr, {k: read(n) for k, n in slot.items()})
    singles = [(rule.key, closure(rule.expr)) for rule in rules[a:b]]
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
            for key, g in singles:
                r[key] = horizon_check(g(i, r, t), h)
    return step


# ---------------------------------------------------------------------------------------------
# programs


def _as_row(value, h: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=float), (h,)).copy()


def compile_rules(rules: Sequence) -> Callable[[dict, dict, np.ndarray], None]:
    """A rule list as one function (inputs, rows, t) that adds every rule's row to `rows` (and each ``Scalar``'s
    constant ``c.<key>`` to `inputs`), in order, as ``evaluate_tree`` does."""
    steps: list[Callable] = []
    runs = {a: (b, varying) for a, b, varying in _runs(rules)}
    k = 0
    while k < len(rules):
        if k in runs:
            b, varying = runs[k]
            steps.append(_stacked_step(rules, k, b, varying, _as_row))
            k = b
            continue
        rule = rules[k]
        f, key = closure(rule.expr), rule.key
        if _is_scalar(rule):
            def step(i, r, t, f=f, key=key):
                value = f(i, r, t)
                i["c." + key] = float(np.asarray(value).ravel()[0])
                r[key] = _as_row(value, len(t))
        else:
            def step(i, r, t, f=f, key=key):
                r[key] = _as_row(f(i, r, t), len(t))
        steps.append(step)
        k += 1

    def run(i: dict, r: dict, t: np.ndarray) -> None:
        for s in steps:
            s(i, r, t)
    return run


_PROGRAMS: OrderedDict = OrderedDict()
_MAX_PROGRAMS = 256


def program(rules: Sequence) -> Callable[[dict, dict, np.ndarray], None]:
    """The compiled form of `rules`, kept for the next call with the same rules (least recently used dropped)."""
    key = tuple(rules)
    prog = _PROGRAMS.get(key)
    if prog is None:
        prog = _PROGRAMS[key] = compile_rules(key)
        if len(_PROGRAMS) > _MAX_PROGRAMS:
            _PROGRAMS.popitem(last=False)
    else:
        _PROGRAMS.move_to_end(key)
    return prog
