"""tco.expr.rules: Rule and Scalar formulas, and ``evaluate`` in order (rows see the rows before them,
scalars become constants, inputs are not mutated)."""

from __future__ import annotations

import numpy as np
import pytest

from tco.expr import CountPositive, Fill, In, Month, Prev, Ratchet, Row, XlContext
from tco.expr.rules import Rule, Scalar, evaluate

CTX = XlContext(col="F", prev="E", row_of={"t": 3, "a": 10, "b": 11}.__getitem__, name_of=lambda n: f"in_{n}")


def test_formula_text_starts_with_equals():
    assert Rule("b", Row("a") * 2, "USD", "twice a").formula(CTX) == "=F10*2"
    assert Scalar("s", In("x") + 1, "-", "x plus one").formula(CTX) == "=in_x+1"


def test_evaluate_by_hand():
    # a_t = 10·t; b_t = a_t + a_{t−1}; s = 7 (a scalar); c_t = b_t − s
    rules = [Rule("a", 10 * Month(), "", ""), Rule("b", Row("a") + Prev("a"), "", ""),
             Scalar("s", In("seven"), "", ""), Rule("c", Row("b") - In("c.s"), "", "")]
    inputs = {"seven": 7.0}
    rows = evaluate(rules, inputs, 3)
    np.testing.assert_array_equal(rows["t"], [1, 2, 3])
    np.testing.assert_array_equal(rows["a"], [10, 20, 30])
    np.testing.assert_array_equal(rows["b"], [10 + 0, 20 + 10, 30 + 20])
    np.testing.assert_array_equal(rows["c"], [10 - 7, 30 - 7, 50 - 7])
    np.testing.assert_array_equal(rows["s"], [7.0, 7.0, 7.0])
    assert inputs == {"seven": 7.0}                       # the caller's inputs are not mutated


def test_a_row_cannot_read_itself_with_prev():
    """A recursive row needs a node that knows its recursion (Ratchet, Fill, Renewals), not Prev of itself."""
    with pytest.raises(KeyError, match="b"):
        evaluate([Rule("b", 1 + Prev("b"), "", "")], {}, 3)


def test_prev_of_an_earlier_row():
    rows = evaluate([Rule("a", 10 * Month(), "", ""), Rule("b", Prev("a"), "", "")], {}, 4)
    np.testing.assert_array_equal(rows["b"], [0, 10, 20, 30])


def test_given_rows_are_read_and_not_mutated():
    given = {"a": np.array([1.0, 2.0])}
    rows = evaluate([Rule("b", Row("a") * 3, "", "")], {}, 2, rows=given)
    np.testing.assert_array_equal(rows["b"], [3.0, 6.0])
    assert set(given) == {"a"}


def test_scalars_broadcast_and_rows_are_writable_copies():
    rows = evaluate([Rule("k", In("x"), "", "")], {"x": 2.5}, 3)
    rows["k"][0] = 0.0                                    # a copy, not a read-only broadcast view
    np.testing.assert_array_equal(rows["k"], [0.0, 2.5, 2.5])


def test_division_by_zero_gives_inf_without_warnings():
    with np.errstate(all="raise"):
        rows = evaluate([Rule("r", 1 / In("z"), "", "")], {"z": 0.0}, 2)
    assert np.all(np.isinf(rows["r"]))


def test_missing_input_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match="nope"):
        evaluate([Rule("r", In("nope"), "", "")], {}, 2)


# --- a batch of cases in one evaluation (an input with a leading axis) ---------------------------------------------

BATCH = (
    Rule("need", In("k") * Month(), "-", "k × t"),                           # (n, H) once k is (n, 1)
    Rule("prev", Prev("need"), "-", "the month before"),
    Rule("down", In("k") * (5 - Month()), "-", "k × (5 − t)"),
    Rule("fleet", Ratchet("fleet", Row("down")), "-", "never falls"),
    Rule("job", Fill("job", In("total"), In("k"), Month() >= 2), "-", "total filled at k a month from month 2"),
    Scalar("busy", CountPositive("job"), "months", "months the job runs"),
    Rule("flat", In("c.busy") + 0 * Month(), "-", "the scalar as a row"),
    Rule("same", Month() * 2, "-", "depends on no case"),
)


def test_a_batch_of_cases_is_each_case_evaluated_alone():
    # the rows that read k carry its leading axis; each case's rows are that case evaluated alone, to the bit
    k = np.array([[1.0], [2.0], [4.0]])
    rules = BATCH
    out = evaluate(rules, {"k": k, "total": 5.0}, 4)
    assert out["need"].shape == (3, 4) and out["same"].shape == (4,)
    for n in range(3):
        alone = evaluate(rules, {"k": float(k[n, 0]), "total": 5.0}, 4)
        for key in ("need", "prev", "down", "fleet", "job", "flat"):
            np.testing.assert_array_equal(out[key][n], alone[key])
    # by hand, k = 2: need 2, 4, 6, 8; prev 0, 2, 4, 6; down 8, 6, 4, 2, its ratchet 8, 8, 8, 8;
    # job: 5 filled at 2 a month from month 2 → 0, 2, 2, 1; busy 3 months
    np.testing.assert_array_equal(out["need"][1], [2, 4, 6, 8])
    np.testing.assert_array_equal(out["prev"][1], [0, 2, 4, 6])
    np.testing.assert_array_equal(out["fleet"][1], [8, 8, 8, 8])
    np.testing.assert_array_equal(out["job"][1], [0, 2, 2, 1])
    np.testing.assert_array_equal(out["flat"][:, 0], [3, 3, 2])  # k = 1: 1, 1, 1, (2 left) → 3; k = 4: 4, 1 → 2
