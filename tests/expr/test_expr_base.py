"""tco.expr.base: the nodes' numpy meaning and their Excel text (brackets by precedence, negative constants,
numbers as Excel reads them, cells of other sheets)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.expr.base import BinOp, Const, Env, In, Month, Neg, Prev, Row, XlContext, wrap

CTX = XlContext(col="G", prev="F", row_of={"t": 3, "x": 8, "far": ("Inputs!", 5)}.__getitem__,
                name_of=lambda n: f"in_{n}")


def env(h=4, **inputs):
    e = Env(inputs, h)
    e.rows["x"] = np.array([1.0, 2.0, 3.0, 4.0])[:h]
    return e


def test_env_month_index():
    np.testing.assert_array_equal(Env({}, 3).t, [1.0, 2.0, 3.0])


def test_atoms_numpy_and_excel():
    e = env(a=2.5)
    assert In("a").np(e) == 2.5 and In("a").xl(CTX) == "in_a"
    np.testing.assert_array_equal(Row("x").np(e), [1, 2, 3, 4])
    assert Row("x").xl(CTX) == "G8"
    np.testing.assert_array_equal(Prev("x").np(e), [0, 1, 2, 3])      # 0 before month 1
    assert Prev("x").xl(CTX) == "F8"
    assert Prev("x").xl(XlContext("E", None, CTX.row_of, CTX.name_of)) == "0"
    np.testing.assert_array_equal(Month().np(e), [1, 2, 3, 4])
    assert Month().xl(CTX) == "G3"
    assert CTX.cell("far") == "Inputs!G5"


@pytest.mark.parametrize("value,text", [(3.0, "3"), (-2.0, "(-2)"), (0.5, "0.5"), (1e-9, "1E-9"),
                                        (1e20, "1E+20"), (2.5e-05, "2.5E-5"), (123456789.0, "123456789")])
def test_constants_as_excel_reads_them(value, text):
    assert Const(value).xl(CTX) == text
    assert float(text.strip("()")) == value


def test_precedence_brackets_by_hand():
    a, b, c = In("a"), In("b"), In("c")
    assert ((a + b) * c).xl(CTX) == "(in_a+in_b)*in_c"
    assert (a + b * c).xl(CTX) == "in_a+in_b*in_c"
    assert (a - (b - c)).xl(CTX) == "in_a-(in_b-in_c)"
    assert ((a - b) - c).xl(CTX) == "in_a-in_b-in_c"
    assert (a / (b * c)).xl(CTX) == "in_a/(in_b*in_c)"
    assert ((a ** b) ** c).xl(CTX) == "(in_a^in_b)^in_c"
    assert (-a).xl(CTX) == "-(in_a)"
    assert (2 - a).xl(CTX) == "2-in_a"
    assert (a > b).xl(CTX) == "in_a>in_b" and a.eq(1).xl(CTX) == "in_a=1"


def test_arithmetic_numpy_by_hand():
    e = env(a=6.0, b=4.0, c=2.0)
    a, b, c = In("a"), In("b"), In("c")
    assert ((a + b) * c).np(e) == (6 + 4) * 2
    assert (a - (b - c)).np(e) == 6 - (4 - 2)
    assert ((a - b) - c).np(e) == 6 - 4 - 2
    assert (a / (b * c)).np(e) == 6 / (4 * 2)
    assert ((c ** c) ** c).np(e) == (2 ** 2) ** 2
    assert Neg(a).np(e) == -6
    np.testing.assert_array_equal((Row("x") >= 3).np(e), [0.0, 0.0, 1.0, 1.0])  # comparisons give 0/1 floats
    assert (Row("x") >= 3).np(e).dtype == float


def test_wrap():
    assert wrap(3).value == 3.0 and isinstance(wrap(np.float64(2)), Const)
    node = In("a")
    assert wrap(node) is node
    with pytest.raises(TypeError, match="cannot make an expression of 'x'"):
        wrap("x")


small = st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: abs(v) > 1e-3)


@given(small, small, small, st.sampled_from(["+", "-", "*", "/"]), st.sampled_from(["+", "-", "*", "/"]))
def test_rendered_text_evaluates_like_numpy(x, y, z, op1, op2):
    """The Excel text, read back by Python (^ → **, the same precedence for + - * /), equals the numpy value."""
    tree = BinOp(op2, BinOp(op1, In("a"), In("b")), In("c"))
    right = BinOp(op2, In("a"), BinOp(op1, In("b"), In("c")))
    e = env(a=x, b=y, c=z)
    for t in (tree, right):
        with np.errstate(all="ignore"):
            want = t.np(e)
        if not np.isfinite(want):
            continue  # a division by an exact zero (1 - 1): Excel's #DIV/0!, not a rendering question
        text = t.xl(CTX).replace("in_a", repr(x)).replace("in_b", repr(y)).replace("in_c", repr(z))
        assert eval(text) == pytest.approx(want, rel=1e-12, abs=1e-12)
