"""tco.expr.deps: what an expression reads, and the rules a set of rows depends on, by hand."""

from __future__ import annotations

import numpy as np

from tco.expr import MAX, CountPositive, Fill, In, Month, Pick, Prev, Ratchet, Row, Rule, Scalar, evaluate
from tco.expr.deps import needed, reads


def test_reads_every_kind_of_reference():
    expr = MAX(Row("a") + Prev("b"), In("x") * Month(), Pick("list", Row("k")))
    assert reads(expr) == (frozenset({"a", "b", "t", "k"}), frozenset({"x", "list"}))
    # nodes that read a row over the months name it by key (their own row for Fill and Ratchet)
    assert reads(Ratchet("r", Row("need")))[0] == {"r", "need"}
    assert reads(Fill("f", In("total"), Row("cap"), Month() >= 2)) == (frozenset({"f", "cap", "t"}),
                                                                       frozenset({"total"}))
    assert reads(CountPositive("h")) == (frozenset({"h"}), frozenset())


RULES = (
    Rule("a", In("x") * 2, "-", ""),
    Rule("b", Row("a") + 1, "-", ""),          # reads a
    Rule("c", In("y"), "-", ""),               # nothing reads c
    Scalar("n", CountPositive("b"), "-", ""),  # reads b; later rules read it as c.n
    Rule("d", In("c.n") * Row("a"), "-", ""),  # reads the scalar n and a
)


def test_needed_keeps_what_the_roots_depend_on_in_order():
    assert [r.key for r in needed(RULES, ["d"])] == ["a", "b", "n", "d"]
    assert [r.key for r in needed(RULES, ["b", "c"])] == ["a", "b", "c"]
    assert needed(RULES, ["nothing"]) == ()


def test_needed_stops_at_given_rows_and_gives_the_same_values():
    # with b given, its rule and a (read only by b and d) — a is still read by d, so it stays
    assert [r.key for r in needed(RULES, ["d"], given=["b"])] == ["a", "n", "d"]
    assert [r.key for r in needed(RULES, ["n"], given=["b"])] == ["n"]
    full = evaluate(RULES, {"x": 3.0, "y": 0.0}, 3)
    part = evaluate(needed(RULES, ["d"], given=["b"]), {"x": 3.0}, 3, rows={"b": full["b"]})
    # a = 6, b = 7 every month, n = 3 months above 0, d = 3 × 6 = 18
    np.testing.assert_array_equal(part["d"], [3 * 6.0] * 3)
    np.testing.assert_array_equal(part["d"], full["d"])
