"""tco.report.rounding: an amount that shows as zero is shown without a sign; rounding half to even on the decimal of
the float's shortest repr, as babel rounds."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from tco.report import rounding
from tco.report.rounding import unsigned_zero


def test_by_hand():
    assert unsigned_zero(-1e-9, 2) == 0.0          # a residue of equal totals
    assert unsigned_zero(-0.004, 2) == 0.0         # -0.004 → -0.00
    assert unsigned_zero(-0.005, 2) == 0.0         # -0.005 → -0.00: half to even, the 0 is even
    assert unsigned_zero(-0.015, 2) == -0.015      # -0.015 → -0.02: half to even, the 2 is even; keeps its sign
    assert unsigned_zero(-0.5, 0) == 0.0 and unsigned_zero(-1.5, 0) == -1.5   # -0.5 → -0, -1.5 → -2
    assert unsigned_zero(-0.4, 0) == 0.0 and unsigned_zero(0.4, 0) == 0.4    # positives untouched


@given(st.floats(min_value=-1e6, max_value=1e6), st.integers(0, 4))
def test_a_value_is_kept_unless_it_rounds_to_zero(x, digits):
    y = unsigned_zero(x, digits)
    assert y == x or (y == 0.0 and x < 0 and abs(x) <= 0.5 * 10 ** -digits)


def test_doctest():
    assert doctest.testmod(rounding).failed == 0
