"""Rules compiled once into numpy closures: what ``evaluate`` runs.

``Expr.np`` walks the tree node by node on every call; the engine evaluates the same few rule sets
hundreds of times (every option, every plan component, every re-run of the analysis). ``program``
turns a rule list into one Python closure per node, once, and keeps it (keyed by the rules themselves:
the rule builders are cached, so an option of the same shape gets the very same rules back). A run of
consecutive rules that differ only in the rows they read (the 24 ``srv_<h>`` rules of the hours of the
day) is evaluated once on the stacked rows (``tco.expr.stacked``).

Exactness: a closure calls the same numpy function on the same operands as the node's ``np`` (the nodes that
read a row over the months share their numpy meaning, ``tco.expr.nodes.fill`` …), so the value is the same to
the last bit (``tests/test_compiled.py`` holds every rule set of the examples to it, the plan search's batch of
committed levels included).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from tco.expr.base import _OPS, BinOp, Const, Env, Expr, In, Month, Neg, Prev, Row, along_months, first_month, month_before
from tco.expr.funcs import FUNCS, Fn
from tco.expr.nodes import CountPositive, Fill, Pick, Ratchet, count_positive, fill, ratchet
from tco.expr.stacked import Closure, is_scalar, runs, stacked_step

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
    return lambda i, r, t: month_before(r[key])


def _fill(node: Fill, sub) -> Closure:
    total, cap, active = sub(node.total), sub(node.cap), sub(node.active)
    return lambda i, r, t: fill(total(i, r, t), cap(i, r, t), active(i, r, t), len(t))


def _pick(node: Pick, sub) -> Closure:
    name, k_f = node.name, sub(node.k)

    def pick(i, r, t):
        values = np.asarray(i[name], dtype=float)
        k = np.asarray(k_f(i, r, t), dtype=float)
        return values[np.clip(k, 1, len(values)).astype(int) - 1]
    return pick


def _ratchet(node: Ratchet, sub) -> Closure:
    x_f = sub(node.x)
    return lambda i, r, t: ratchet(x_f(i, r, t), len(t))


def _count(node: CountPositive, sub) -> Closure:
    key = node.key
    return lambda i, r, t: count_positive(r[key])


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
# programs


def _as_row(value, h: int) -> np.ndarray:
    return along_months(value, h).copy()


def compile_rules(rules: Sequence) -> Callable[[dict, dict, np.ndarray], None]:
    """A rule list as one function (inputs, rows, t) that adds every rule's row to `rows` (and each ``Scalar``'s
    constant ``c.<key>`` to `inputs`), in order, as ``evaluate_tree`` does."""
    steps: list[Callable] = []
    stacks = {a: (b, varying, keys) for a, b, varying, keys in runs(rules)}
    k = 0
    while k < len(rules):
        if k in stacks:
            b, varying, keys = stacks[k]
            steps.append(stacked_step(rules, k, b, varying, keys, _as_row, closure))
            k = b
            continue
        rule = rules[k]
        f, key = closure(rule.expr), rule.key
        if is_scalar(rule):
            def step(i, r, t, f=f, key=key):
                value = f(i, r, t)
                i["c." + key] = first_month(value)
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
