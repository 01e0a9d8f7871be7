"""tco.report.workbook.deps: what a rule reads (rows and inputs), which rules and inputs an option's cost lines
depend on, and which rows read an input nothing uses (written as "n/a").

Hand-built rule sets: refs of each node kind, the transitive closure through rows and through scalars (``c.k``), and
``dead``; then the seed's options: every cost line and tax row is live, and every live rule's own references are
live too (the closure is closed)."""

from __future__ import annotations

import pytest

from tco.expr import MAX, In, Month, Prev, Row, Rule
from tco.expr.nodes import Pick
from tco.report.workbook import deps


@pytest.fixture(autouse=True)
def _fresh_memo():
    deps.forget()
    yield
    deps.forget()


def test_refs_of_each_node_kind():
    e = Row("a") * In("x") + Prev("b") - MAX(Month(), In("y")) + Pick("list", Row("k"))
    rows, names = deps.refs(e)
    assert rows == {"a", "b", "t", "k"}  # Month() reads the t row
    assert names == {"x", "y", "list"}


def test_refs_are_memoised_and_forgotten():
    e = Row("a") + In("x")
    assert deps.refs(e) == ({"a"}, {"x"})
    assert id(e) in deps._REFS
    rows, _ = deps.refs(e)
    rows.add("mutated")  # a caller's copy: the memo is not changed
    assert deps.refs(e) == ({"a"}, {"x"})
    deps.forget()
    assert deps._REFS == {}


def test_used_follows_rows_and_scalars():
    rules = [Rule("l_compute", Row("hours") * In("o.price"), "", ""),
             Rule("hours", Row("servers") * In("c.wall"), "", ""),
             Rule("servers", In("o.count"), "", ""),
             Rule("wall", In("days") * 24, "", ""),  # read as the scalar c.wall
             Rule("unused", In("o.other"), "", "")]
    keys, names = deps.used(rules, {"l_compute"})
    assert keys == {"l_compute", "hours", "servers", "wall"}
    assert names == {"o.price", "c.wall", "o.count", "days"}
    assert deps.used(rules, {"nothing"}) == (set(), set())


def test_dead_rows_read_an_input_nothing_uses():
    names = {"o.price"}
    assert deps.dead(Rule("x", In("o.other") * 2, "", ""), names)
    assert not deps.dead(Rule("x", In("o.price") * 2, "", ""), names)
    assert not deps.dead(Rule("x", In("days") * 2, "", ""), names)  # not an option input


@pytest.mark.parametrize("start", ["Dedicado BR — 8x H200", "AWS us-east-1 — p5en (H200)", "Híbrido"])
def test_an_options_cost_lines_and_tax_rows_are_live(seed_results, start):
    o = next(x for x in seed_results.options if x.name.startswith(start))
    keys, names = deps.live(o.costs)
    tax_keys = {r.key for r in o.costs.tax_rules}
    assert tax_keys <= keys
    lines = {r.key for r in o.costs.rules if r.key.startswith("l_")}
    gross = {r.key[2:] for r in o.costs.tax_rules if r.key.startswith("l_")} - {"taxes"}
    assert {("g_" + k[2:]) if k[2:] in gross else k for k in lines} <= keys
    # closed: what a live rule reads is live (rows defined in this option) or an input
    by_key = {r.key: r for r in o.costs.rules} | {r.key: r for r in o.costs.tax_rules}
    for k in keys:
        if k in by_key and not k.startswith("g_"):
            rows, ins = deps.refs(by_key[k].expr)
            assert all(r in keys or r.startswith("l_") for r in rows if r in by_key), k  # l_ lines: as g_ rows
            assert ins <= names
