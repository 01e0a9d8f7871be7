"""What a rule reads: the rows and inputs its expression refers to, and which rules and option inputs the cost lines
depend on (so the workbook writes a row that drives nothing as "n/a", and no input that drives nothing)."""

from __future__ import annotations

import dataclasses

from tco.expr import Expr
from tco.expr.deps import needed, reads


_REFS: dict[int, tuple[Expr, tuple[frozenset[str], frozenset[str]]]] = {}
"""refs() of each expression walked during one workbook (by identity, the expression kept alive so its id stays
its own; emptied by ``forget`` when the workbook is written)."""


def forget() -> None:
    """Empty the memo of refs() (the workbook writer calls it when it is done)."""
    _REFS.clear()


def refs(expr: Expr) -> tuple[set[str], set[str]]:
    """(row keys, input names) an expression reads (``Fill``/``Ratchet``/``CountPositive`` read their own or a named
    row; ``Month`` reads ``t``)."""
    hit = _REFS.get(id(expr))
    if hit is None:
        hit = _REFS[id(expr)] = (expr, reads(expr))
    return set(hit[1][0]), set(hit[1][1])


def used(rules, roots: set[str]) -> tuple[set[str], set[str]]:
    """(rule keys, input names) the rows `roots` depend on, through the rules given (``tco.expr.deps.needed``; a
    Scalar ``k`` is read as the input ``c.k``)."""
    reached = needed(rules, roots)
    return {r.key for r in reached}, set().union(*(refs(r.expr)[1] for r in reached))


SHOWN_ROWS = {"peak_replicas", "fleet", "need", "inf_paid", "peak", "server_hours", "stored"}
"""Rows the checks and the reader use beyond the cost lines."""


def live(oc) -> tuple[set[str], set[str]]:
    """(rule keys, input names) an option's cost lines, tax block and checks depend on; the fleet rule of a line
    whose taxes move to the tax block is its gross row ``g_<line>``."""
    gross = {r.key[2:] for r in oc.tax_rules if r.key.startswith("l_")} - {"taxes"}
    fleet = [dataclasses.replace(r, key="g_" + r.key[2:]) if r.key.startswith("l_") and r.key[2:] in gross else r
             for r in oc.rules]
    rules = fleet + list(oc.tax_rules)
    roots = {r.key for r in rules if r.key.startswith("l_")} | {r.key for r in oc.tax_rules} | SHOWN_ROWS
    return used(rules, roots)


def dead(rule, names: set[str]) -> bool:
    """A row that reads an option input nothing else uses (a price factor of the other kind of fleet)."""
    return any(n.startswith("o.") and n not in names for n in refs(rule.expr)[1])
