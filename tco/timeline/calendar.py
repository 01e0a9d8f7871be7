"""The calendar of the horizon and the daily load profile.

Months are numbered 1..H from the scenario start. The demand rules themselves (users, requests,
tokens, hourly load, egress) are declared once in ``tco.timeline``.
"""

from __future__ import annotations

import calendar

import numpy as np

BUSINESS_HOURS = (
    # Brazilian office-hours assistant: quiet night, 09–18 h plateau, lunch dip (planning assumption).
    0.005, 0.003, 0.002, 0.002, 0.002, 0.004, 0.010, 0.025, 0.060, 0.085, 0.090, 0.085,
    0.060, 0.080, 0.090, 0.088, 0.080, 0.065, 0.045, 0.035, 0.030, 0.025, 0.020, 0.009,
)
FLAT = tuple([1.0 / 24.0] * 24)


def profile(spec) -> np.ndarray:
    """Hourly shares of a day's requests [-], 24 values summing to 1."""
    if isinstance(spec, str):
        shares = {"business_hours": BUSINESS_HOURS, "flat": FLAT}[spec]
    else:
        shares = spec
    arr = np.asarray(shares, dtype=float)
    return arr / arr.sum()


def month_labels(start: str, horizon: int) -> list[str]:
    """['2027-01', '2027-02', …] for months 1..H."""
    y, m = (int(x) for x in start.split("-"))
    out = []
    for i in range(horizon):
        yy, mm = divmod(m - 1 + i, 12)
        out.append(f"{y + yy:04d}-{mm + 1:02d}")
    return out


def days_in_months(start: str, horizon: int) -> np.ndarray:
    """Calendar days of each month [days]."""
    return np.array([calendar.monthrange(int(p[:4]), int(p[5:]))[1] for p in month_labels(start, horizon)],
                    dtype=float)
