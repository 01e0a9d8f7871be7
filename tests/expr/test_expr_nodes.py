"""tco.expr.nodes: a job filled month by month, a list picked by index, a ratchet, a count of positive months;
numpy by hand and each node's formula text."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tco.expr import In, Row, Rule, XlContext, evaluate
from tco.expr.nodes import CountPositive, Fill, Pick, Ratchet

CTX = XlContext(col="G", prev="F", row_of={"job": 12, "lvl": 13, "x": 8, "t": 3}.__getitem__,
                name_of=lambda n: f"in_{n}", first="$D", row_range=lambda k: f"$E${k}:$P${k}")


def test_fill_by_hand():
    # 100 units at 30 a month, active in months 2..5: 30, 30, 30, 10 and nothing after
    rules = [Rule("job", Fill("job", In("total"), In("cap"), In("on")), "units", "")]
    out = evaluate(rules, {"total": 100.0, "cap": 30.0, "on": np.array([0, 1, 1, 1, 1, 1.0])}, 6)["job"]
    np.testing.assert_array_equal(out, [0, 30, 30, 30, 10, 0])


@given(st.floats(0, 1e4), st.lists(st.floats(0, 500), min_size=1, max_size=24), st.lists(st.booleans(), min_size=24,
                                                                                          max_size=24))
def test_fill_never_exceeds_the_cap_or_the_total(total, caps, active):
    h = len(caps)
    on = np.array(active[:h], dtype=float)
    cap = np.array(caps)
    out = evaluate([Rule("job", Fill("job", In("total"), In("cap"), In("on")), "", "")],
                   {"total": total, "cap": cap, "on": on}, h)["job"]
    assert np.all(out >= 0) and np.all(out <= cap + 1e-9) and np.all(out[on == 0] == 0)
    assert out.sum() <= total * (1 + 1e-12) + 1e-9
    assert out.sum() == np.float64(min(total, (cap * on).sum())) or abs(out.sum() - min(total, (cap * on).sum())) < 1e-6


def test_fill_formula():
    node = Fill("job", In("total"), In("cap"), Row("x") > 0)
    assert node.xl(CTX) == "IF(G8>0,MAX(0,MIN(in_cap,in_total-SUM($D12:F12))),0)"
    first = XlContext("E", None, CTX.row_of, CTX.name_of)
    assert node.xl(first) == "IF(E8>0,MAX(0,MIN(in_cap,in_total-0)),0)"


def test_pick_by_hand_last_value_holds():
    rules = [Rule("p", Pick("levels", In("k")), "", "")]
    out = evaluate(rules, {"levels": [4.0, 6.0, 9.0], "k": np.array([0, 1, 2, 3, 4, 10.0])}, 6)["p"]
    np.testing.assert_array_equal(out, [4, 4, 6, 9, 9, 9])     # k < 1 reads the first, past the end the last
    assert Pick("levels", In("k")).xl(CTX) == "INDEX(in_levels,MIN(in_k,ROWS(in_levels)))"


def test_ratchet_by_hand():
    out = evaluate([Rule("lvl", Ratchet("lvl", In("x")), "", "")], {"x": np.array([2, 5, 3, 5, 7, 1.0])}, 6)["lvl"]
    np.testing.assert_array_equal(out, [2, 5, 5, 5, 7, 7])
    assert Ratchet("lvl", Row("x")).xl(CTX) == "MAX(F13,G8)"
    assert Ratchet("lvl", Row("x")).xl(XlContext("E", None, CTX.row_of, CTX.name_of)) == "MAX(0,E8)"


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40))
def test_ratchet_never_falls_and_bounds_its_input(xs):
    out = evaluate([Rule("lvl", Ratchet("lvl", In("x")), "", "")], {"x": np.array(xs)}, len(xs))["lvl"]
    assert np.all(np.diff(out) >= 0) and np.all(out >= np.array(xs)) and out[-1] == max(xs)


def test_count_positive():
    rows = evaluate([Rule("x", In("x"), "", "")], {"x": np.array([0, 1, -2, 3, 0.5])}, 5)
    rows = evaluate([Rule("n", CountPositive("x"), "", "")], {}, 5, rows=rows)
    np.testing.assert_array_equal(rows["n"], [3.0] * 5)   # 1, 3, 0.5
    assert CountPositive("x").xl(CTX) == 'COUNTIF($E$x:$P$x,">0")'
