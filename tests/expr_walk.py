"""Test helper shared by the rule-set tests: the inputs an expression tree reads."""

from __future__ import annotations

from tco.expr import Expr, In


def inputs_used(expr: Expr, out: set[str]) -> set[str]:
    """Add to `out` the name of every ``In`` node under `expr` (every field of every node, tuples included)."""
    if isinstance(expr, In):
        out.add(expr.name)
    for value in vars(expr).values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Expr):
                inputs_used(item, out)
    return out
