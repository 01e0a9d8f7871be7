"""Stacked runs (tco.expr.stacked): which consecutive rules are evaluated at once on their rows stacked, and
that their values are each rule's own, by hand."""

from __future__ import annotations

import numpy as np

from tco.expr import EXP, IF, MAX, ROUNDUP, In, Row, Rule, evaluate, evaluate_tree
from tco.expr.stacked import runs


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def test_stacked_hours_by_hand():
    # servers at each hour = ⌈max(⌈rps/(cap·u) − 1e-9⌉, 1)/2⌉ under load, 0 without: cap·u = 10 × 0.5 = 5 req/s
    rules = tuple(Rule(f"s_{h}", IF(Row(f"rps_{h}") > 0, ROUNDUP(MAX(ROUNDUP(Row(f"rps_{h}") / (In("cap") * In("u"))
                                                                          - 1e-9, 0), 1) / 2, 0), 0), "-", "")
                  for h in range(3))
    assert [(a, b) for a, b, _, _ in runs(rules)] == [(0, 3)]
    rps = {"rps_0": np.array([0.0, 4.0]), "rps_1": np.array([5.0, 5.1]), "rps_2": np.array([21.0, 50.0])}
    out = evaluate(rules, {"cap": 10.0, "u": 0.5}, 2, rows=dict(rps))
    # month 1: 0 → 0; 5/5 = 1 replica → ⌈1/2⌉ = 1; 21/5 = 4.2 → 5 replicas → ⌈5/2⌉ = 3
    # month 2: 4/5 → 1 replica → 1; 5.1/5 → 2 replicas → 1; 50/5 = 10 replicas → 5
    assert out["s_0"].tolist() == [0.0, 1.0]
    assert out["s_1"].tolist() == [1.0, 1.0]
    assert out["s_2"].tolist() == [3.0, 5.0]


def test_a_run_that_reads_its_own_rows_or_an_inexact_function_is_not_stacked():
    chain = (Rule("a", Row("x") + 1, "-", ""), Rule("b", Row("a") + 1, "-", ""))
    assert runs(chain) == []
    exp = (Rule("a", EXP(Row("x")), "-", ""), Rule("b", EXP(Row("y")), "-", ""))
    assert runs(exp) == []
    # the same key at a varying and a fixed place in the first rule: stacking would read the wrong row
    mixed = (Rule("a", Row("x") + Row("x"), "-", ""), Rule("b", Row("y") + Row("x"), "-", ""))
    assert runs(mixed) == []
    out = evaluate(mixed, {}, 2, rows={"x": np.array([1.0, 2.0]), "y": np.array([10.0, 20.0])})
    assert out["a"].tolist() == [1.0 + 1.0, 2.0 + 2.0] and out["b"].tolist() == [10.0 + 1.0, 20.0 + 2.0]


def test_a_stacked_run_on_rows_that_are_not_float_months_falls_back_rule_by_rule():
    rules = (Rule("a", Row("x") * 2, "-", ""), Rule("b", Row("y") * 2, "-", ""))
    rows = {"x": np.array([1, 2]), "y": 3.0}  # integers, and a scalar row
    out = evaluate(rules, {}, 2, rows=rows)
    ref = evaluate_tree(rules, {}, 2, rows=rows)
    assert out["a"].tolist() == [2.0, 4.0] and out["b"].tolist() == [6.0, 6.0]
    assert all(_same(out[k], ref[k]) for k in ("a", "b"))
