"""Rounding shared by the number formatters (``tco.report.fmt``, with babel, and ``tco.report.fmt_light``, without)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal


def unsigned_zero(x: float, digits: int) -> float:
    """``x``, or 0.0 where it shows as zero at ``digits`` decimals (rounded as babel rounds: the decimal of its
    shortest repr, half to even), so a residue like −1e-9 is not shown with a minus sign.

    >>> unsigned_zero(-1e-9, 2), unsigned_zero(-0.005, 2), unsigned_zero(-0.006, 2), unsigned_zero(-0.5, 0)
    (0.0, 0.0, -0.006, 0.0)
    """
    return 0.0 if x < 0 and Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_EVEN) == 0 else x
