"""tco.expr.funcs: each Excel function's numpy meaning by hand, and the formula text each constructor writes.
(The pairing with an in-process Excel evaluator is tests/test_expr.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from tco.expr.base import Env, In, XlContext
from tco.expr.funcs import AND, CHOOSE, EXP, FUNCS, IF, INT, LN, MAX, MIN, ROUNDUP, SUM, Fn

CTX = XlContext(col="F", prev="E", row_of={"t": 3}.__getitem__, name_of=lambda n: f"in_{n}")
E = Env({"a": np.array([-2.5, 0.0, 2.0000001, 7.0]), "b": np.array([1.0, -1.0, 3.0, 7.0]), "i": np.array([1, 2, 3, 9])}, 4)


def val(expr):
    return np.asarray(expr.np(E), dtype=float)


def test_max_min_sum_elementwise():
    np.testing.assert_array_equal(val(MAX(In("a"), In("b"), 0)), [1.0, 0.0, 3.0, 7.0])
    np.testing.assert_array_equal(val(MIN(In("a"), In("b"))), [-2.5, -1.0, 2.0000001, 7.0])
    np.testing.assert_array_equal(val(SUM(In("a"), In("b"), 1)), [-2.5 + 1 + 1, 0 - 1 + 1, 2.0000001 + 3 + 1, 15])


def test_roundup_int_away_from_zero_and_floor():
    np.testing.assert_array_equal(val(ROUNDUP(In("a"))), [-3.0, 0.0, 3.0, 7.0])   # away from zero
    np.testing.assert_array_equal(val(INT(In("a"))), [-3.0, 0.0, 2.0, 7.0])      # floor, as Excel's INT
    assert FUNCS["ROUNDUP"](1.231, 2) == pytest.approx(1.24)                      # to 2 decimals, up
    assert FUNCS["ROUNDUP"](-1.231, 1) == pytest.approx(-1.3)


def test_if_and():
    np.testing.assert_array_equal(val(IF(In("a"), 10, 20)), [10, 20, 10, 10])     # any non-zero is true
    np.testing.assert_array_equal(val(AND(In("a"), In("b"))), [1.0, 0.0, 1.0, 1.0])


def test_choose_is_one_based_and_clipped():
    out = val(CHOOSE(In("i"), 10, 20, 30))
    np.testing.assert_array_equal(out, [10, 20, 30, 30])   # index 9 clipped to 3 (Excel errs; IF guards it)


def test_exp_ln_abs():
    assert EXP(1).np(E) == pytest.approx(np.e)
    assert LN(np.e ** 2).np(E) == pytest.approx(2.0)
    np.testing.assert_array_equal(Fn("ABS", (In("b"),)).np(E), [1.0, 1.0, 3.0, 7.0])
    with np.errstate(all="raise"):
        assert np.isneginf(LN(0).np(E))                    # no floating-point error escapes Fn.np


def test_formula_text():
    assert MAX(In("a"), 0).xl(CTX) == "MAX(in_a,0)"
    assert ROUNDUP(In("a")).xl(CTX) == "ROUNDUP(in_a,0)"
    assert IF(In("a") > 1, In("b"), -1).xl(CTX) == "IF(in_a>1,in_b,(-1))"
    assert CHOOSE(2, In("a"), In("b")).xl(CTX) == "CHOOSE(2,in_a,in_b)"
    assert SUM(In("a"), 1.5).xl(CTX) == "SUM(in_a,1.5)"


def test_every_constructor_builds_a_function_of_the_table():
    for build, args in ((MAX, (1, 2)), (MIN, (1, 2)), (IF, (In("a"), 1, 2)), (EXP, (1,)), (LN, (1,)), (INT, (1,)),
                        (ROUNDUP, (1,)), (AND, (1, 1)), (SUM, (1,)), (CHOOSE, (1, 2))):
        node = build(*args)
        assert node.name == build.__name__ and node.name in FUNCS
