"""What an expression reads, and the rules a set of rows depends on (to evaluate only those).

A rule reads the rows its ``Row``, ``Prev``, ``Fill``, ``Ratchet`` and ``CountPositive`` nodes name (``Month`` reads
``t``), and the inputs its ``In`` and ``Pick`` nodes name; a ``Scalar`` ``k`` is read as the input ``c.k``.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

from tco.expr.base import Expr, In, Month
from tco.expr.nodes import Pick


_FIELDS: dict[type, tuple[str, ...]] = {}
"""The fields of each expression class met so far."""


def _fields(kind: type) -> tuple[str, ...]:
    if kind not in _FIELDS:
        _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else ()
    return _FIELDS[kind]


def reads(expr: Expr) -> tuple[frozenset[str], frozenset[str]]:
    """(row keys, input names) `expr` reads, every node of its tree walked (tuples of nodes included)."""
    rows: set[str] = set()
    names: set[str] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (In, Pick)):
            names.add(e.name)
        elif isinstance(e, Month):
            rows.add("t")
        elif isinstance(getattr(e, "key", None), str):
            rows.add(e.key)  # type: ignore[attr-defined]
        for name in _fields(type(e)):
            v = getattr(e, name)
            stack += [x for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, Expr)]
    return frozenset(rows), frozenset(names)


def needed(rules: Sequence, roots: Iterable[str], given: Iterable[str] = ()) -> tuple:
    """The rules of `rules` the rows `roots` depend on, in their order (a rule reads only rows before it); rows in
    `given` are known already (their rules, and what only they read, are left out)."""
    known = set(given)
    by_key = {r.key: r for r in rules if r.key not in known}
    keep: set[str] = set()
    todo = [k for k in roots if k in by_key]
    while todo:
        k = todo.pop()
        if k in keep:
            continue
        keep.add(k)
        rows, names = reads(by_key[k].expr)
        todo += [x for x in rows if x in by_key]
        todo += [n[2:] for n in names if n.startswith("c.") and n[2:] in by_key]
    return tuple(r for r in rules if r.key in keep)
