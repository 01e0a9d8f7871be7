"""Demand per month: users, requests, tokens, the hourly load profile and egress volume.

Months are numbered 1..H from the scenario start. Users grow from the first inference month
(k = 1, 2, …); before it they are zero.
"""

from __future__ import annotations

import calendar
import math

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


def users_curve(growth, n: int) -> np.ndarray:
    """Users in inference months k = 1..n [users].

    linear:   u_k = u_1 + (u_end − u_1)·(k − 1)/(n − 1)
    compound: u_k = u_1·(1 + g)^(k − 1), capped at max_users
    logistic: u_k = C / (1 + (C/u_1 − 1)·e^(−s·(k − 1)))   (u_1 at k = 1, C the ceiling)
    list:     the given values; the last one holds
    """
    k = np.arange(1, n + 1, dtype=float)
    if growth.model == "linear":
        if n == 1:
            return np.array([growth.start_users], dtype=float)
        return growth.start_users + (growth.end_users - growth.start_users) * (k - 1) / (n - 1)
    if growth.model == "compound":
        u = growth.start_users * (1.0 + growth.monthly_growth_rate) ** (k - 1)
        return np.minimum(u, growth.max_users) if growth.max_users is not None else u
    if growth.model == "logistic":
        c, u1 = growth.ceiling_users, growth.start_users
        return c / (1.0 + (c / u1 - 1.0) * np.exp(-growth.steepness_per_month * (k - 1)))
    vals = list(growth.users)
    vals += [vals[-1]] * max(0, n - len(vals))
    return np.asarray(vals[:n], dtype=float)


def users_timeline(growth, start_month: int, horizon: int) -> np.ndarray:
    """Users per timeline month 1..H [users]; zero before inference starts."""
    out = np.zeros(horizon)
    n = horizon - start_month + 1
    if n > 0:
        out[start_month - 1:] = users_curve(growth, n)
    return out


def requests_per_month(users: np.ndarray, requests_per_user_per_day: float, days: np.ndarray,
                       active_days_per_week: float = 7.0) -> np.ndarray:
    """Requests [req/month] = users × requests/user/day × days in month × active days per week / 7."""
    return users * requests_per_user_per_day * days * (active_days_per_week / 7.0)


def hourly_rps(users: np.ndarray, requests_per_user_per_day: float, shares: np.ndarray) -> np.ndarray:
    """Requests per second in each hour of a typical day [req/s], shape (months, 24).

    rps[m, h] = users[m] × requests/user/day × share[h] / 3600.
    """
    return np.outer(users * requests_per_user_per_day, shares) / 3600.0


def egress_gb(requests: np.ndarray, kb_per_request: float) -> np.ndarray:
    """Internet egress [GB/month] = requests × kB per request × 1000 / 1e9."""
    return requests * kb_per_request * 1e3 / 1e9


def ceil_div(a: float, b: float) -> int:
    return math.ceil(a / b - 1e-12)
