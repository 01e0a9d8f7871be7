"""tco.expr.nodes: a job filled month by month, a list picked by index, a ratchet, a count of positive months, a
running sum, a row's total, a sum of products; numpy by hand and each node's formula text."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tco.expr import In, Row, Rule, XlContext, evaluate
from tco.expr import Scalar
from tco.expr import YEAR
from tco.expr.nodes import CountPositive, Fill, Pick, Ratchet, RunningSum, SumProduct, SumWhere, Total

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


def test_running_sum_by_hand():
    # 10, 20, 30 → 10, 10 + 20 = 30, 30 + 30 = 60
    out = evaluate([Rule("cum", RunningSum("cum", In("x")), "", "")], {"x": np.array([10.0, 20.0, 30.0])}, 3)
    np.testing.assert_array_equal(out["cum"], [10.0, 30.0, 60.0])
    node = RunningSum("cum", Row("x"))
    assert node.xl(XlContext("G", "F", {"cum": 12, "x": 8}.__getitem__, CTX.name_of)) == "F12+G8"
    assert node.xl(XlContext("E", None, {"cum": 12, "x": 8}.__getitem__, CTX.name_of)) == "0+E8"


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=36))
def test_running_sum_is_the_month_by_month_recursion(xs):
    x = np.array(xs)
    out = evaluate([Rule("cum", RunningSum("cum", In("x")), "", "")], {"x": x}, len(xs))["cum"]
    r, want = 0.0, []
    for v in xs:
        r = r + v
        want.append(r)
    np.testing.assert_array_equal(out, want)  # the same additions in the same order: equal to the bit


def test_total_and_sum_product_by_hand():
    # total: 1 + 2 + 3 = 6; sum of products with 0.5, 0.25, 0.125: 0.5 + 0.5 + 0.375 = 1.375
    rows = {"a": np.array([1.0, 2.0, 3.0]), "d": np.array([0.5, 0.25, 0.125])}
    out = evaluate([Scalar("s", Total("a"), "", ""), Scalar("p", SumProduct("a", "d"), "", "")], {}, 3, rows=rows)
    np.testing.assert_array_equal(out["s"], [6.0, 6.0, 6.0])
    np.testing.assert_array_equal(out["p"], [1.375, 1.375, 1.375])
    assert Total("a").xl(CTX) == "SUM($E$a:$P$a)"
    assert SumProduct("a", "d").xl(CTX) == "SUMPRODUCT($E$a:$P$a,$E$d:$P$d)"


def test_total_and_sum_product_with_cases():
    # two cases on a leading axis: totals 6 and 60, products with (1, 1, 1): the same
    a = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    out = evaluate([Scalar("s", Total("a"), "", ""), Scalar("p", SumProduct("a", "one"), "", "")], {}, 3,
                   rows={"a": a, "one": np.ones(3)})
    np.testing.assert_array_equal(out["s"][:, 0], [6.0, 60.0])
    np.testing.assert_array_equal(out["p"][:, 0], [6.0, 60.0])


def test_sum_where_and_year_by_hand():
    # serials 46722, 46753, 46784 = 2027-12-01, 2028-01-01, 2028-02-01; the months of 2028: 2 + 3 = 5
    rows = {"x": np.array([1.0, 2.0, 3.0]), "date": np.array([46722.0, 46753.0, 46784.0])}
    node = SumWhere(Row("x"), YEAR(Row("date")).eq(In("cal")))
    out = evaluate([Scalar("s", node, "", "")], {"cal": 2028.0}, 3, rows=rows)
    assert out["s"][0] == 5.0
    assert node.xl(CTX) == "SUMPRODUCT((YEAR($E$date:$P$date)=in_cal)*($E$x:$P$x))"
    # two cases on a leading axis: the years 2027 and 2028 → 1 and 5
    both = evaluate([Scalar("s", node, "", "")], {"cal": np.array([[2027.0], [2028.0]])}, 3, rows=rows)
    np.testing.assert_array_equal(both["s"][:, 0], [1.0, 5.0])
