"""Demand rules (tco.timeline) and the calendar (tco.timeline.calendar), worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tco import timeline
from tco.timeline import calendar as demand
from tco.scenario import CompoundGrowth, LinearGrowth, ListGrowth, LogisticGrowth


def test_users_curve_linear_runs_from_start_to_end():
    g = LinearGrowth(model="linear", start_users=100, end_users=400)
    # u_k = 100 + (400 − 100)·(k − 1)/(4 − 1): 100, 200, 300, 400
    expected = [100 + 300 * (k - 1) / 3 for k in (1, 2, 3, 4)]
    np.testing.assert_allclose(timeline.users_curve(g, 4), expected)
    assert expected == [100, 200, 300, 400]


def test_users_curve_linear_single_month_is_start():
    g = LinearGrowth(model="linear", start_users=100, end_users=400)
    np.testing.assert_allclose(timeline.users_curve(g, 1), [100])


def test_users_curve_compound_with_cap():
    g = CompoundGrowth(model="compound", start_users=1000, monthly_growth_rate=0.5, max_users=3000)
    # 1000, 1000·1.5 = 1500, 1000·1.5² = 2250, 1000·1.5³ = 3375 → capped at 3000, then 3000
    expected = [1000, 1000 * 1.5, 1000 * 1.5 ** 2, 3000, 3000]
    np.testing.assert_allclose(timeline.users_curve(g, 5), expected)


def test_users_curve_compound_without_cap():
    g = CompoundGrowth(model="compound", start_users=500, monthly_growth_rate=0.06)
    np.testing.assert_allclose(timeline.users_curve(g, 3), [500, 500 * 1.06, 500 * 1.06 ** 2])


def test_users_curve_compound_decline():
    g = CompoundGrowth(model="compound", start_users=800, monthly_growth_rate=-0.5)
    np.testing.assert_allclose(timeline.users_curve(g, 3), [800, 400, 200])


def test_users_curve_logistic():
    g = LogisticGrowth(model="logistic", start_users=200, ceiling_users=8000, steepness_per_month=0.25)
    n = 4
    # u_k = 8000 / (1 + (8000/200 − 1)·e^(−0.25·(k − 1))) = 8000 / (1 + 39·e^(−0.25(k−1)))
    expected = [8000 / (1 + 39 * np.exp(-0.25 * (k - 1))) for k in range(1, n + 1)]
    got = timeline.users_curve(g, n)
    np.testing.assert_allclose(got, expected)
    assert got[0] == pytest.approx(200)  # u_1 = C / (1 + C/u_1 − 1) = u_1
    # it approaches the ceiling and never passes it
    far = timeline.users_curve(g, 200)
    assert far[-1] == pytest.approx(8000, rel=1e-9) and np.all(far <= 8000)


def test_users_curve_list_last_value_holds():
    g = ListGrowth(model="list", users=[10, 20, 30])
    np.testing.assert_allclose(timeline.users_curve(g, 5), [10, 20, 30, 30, 30])


def test_users_curve_list_longer_than_horizon_is_cut():
    g = ListGrowth(model="list", users=[10, 20, 30])
    np.testing.assert_allclose(timeline.users_curve(g, 2), [10, 20])


def test_users_timeline_zeros_before_start():
    g = ListGrowth(model="list", users=[10, 20])
    # inference from month 3 of a 5-month horizon: 0, 0, then k = 1, 2, 3
    np.testing.assert_allclose(timeline.users_timeline(g, 3, 5), [0, 0, 10, 20, 20])


def test_users_timeline_linear_ends_at_end_users_in_last_month():
    g = LinearGrowth(model="linear", start_users=300, end_users=1500)
    u = timeline.users_timeline(g, 2, 5)  # 4 inference months: 300, 700, 1100, 1500
    np.testing.assert_allclose(u, [0, 300, 300 + 1200 / 3, 300 + 2 * 1200 / 3, 1500])


def test_requests_per_month():
    users = np.array([0.0, 100.0, 200.0])
    days = np.array([31.0, 28.0, 31.0])
    expected = [0, 100 * 30 * 28, 200 * 30 * 31]
    np.testing.assert_allclose(timeline.requests_per_month(users, 30, days), expected)


def test_hourly_rps():
    users = np.array([3600.0, 7200.0])
    shares = np.array([0.5, 0.25, 0.25] + [0.0] * 21)
    rps = timeline.hourly_rps(users, 10, shares)
    assert rps.shape == (2, 24)
    # rps[m, h] = users × requests/user/day × share[h] / 3600
    assert rps[0, 0] == pytest.approx(3600 * 10 * 0.5 / 3600)   # 5 req/s
    assert rps[1, 1] == pytest.approx(7200 * 10 * 0.25 / 3600)  # 5 req/s
    assert rps[1, 5] == 0.0
    # a day's requests add back up: Σ_h rps·3600 = users × requests/user/day
    np.testing.assert_allclose(rps.sum(axis=1) * 3600, users * 10)


def test_profiles_sum_to_one():
    for name in ("business_hours", "flat"):
        p = demand.profile(name)
        assert p.shape == (24,) and p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(demand.profile("flat"), [1 / 24] * 24)
    custom = [2.0] + [0.0] * 23
    np.testing.assert_allclose(demand.profile(custom), [1.0] + [0.0] * 23)


def test_egress_gb():
    requests = np.array([1e6, 0.0])
    # 1e6 requests × 20 kB × 1000 B/kB / 1e9 B/GB = 20 GB
    expected = [1e6 * 20 * 1000 / 1e9, 0.0]
    np.testing.assert_allclose(timeline.egress_gb(requests, 20), expected)
    assert expected[0] == 20


def test_days_in_months_leap_february():
    # Jan … Apr 2028: 2028 is a leap year, February has 29 days
    np.testing.assert_array_equal(demand.days_in_months("2028-01", 4), [31, 29, 31, 30])
    np.testing.assert_array_equal(demand.days_in_months("2027-02", 1), [28])
    np.testing.assert_array_equal(demand.days_in_months("2100-02", 1), [28])  # century, not leap


def test_days_in_months_full_year_adds_to_365_or_366():
    assert demand.days_in_months("2027-01", 12).sum() == 365
    assert demand.days_in_months("2028-01", 12).sum() == 366
    assert demand.days_in_months("2027-07", 12).sum() == 366  # Jul 2027 – Jun 2028 contains Feb 2028


def test_month_labels_across_year_end():
    assert demand.month_labels("2027-11", 4) == ["2027-11", "2027-12", "2028-01", "2028-02"]


def test_month_labels_many_years():
    labels = demand.month_labels("2027-01", 36)
    assert len(labels) == 36 and labels[0] == "2027-01" and labels[12] == "2028-01" and labels[-1] == "2029-12"


def test_requests_per_month_on_weekdays_only():
    # 100 users × 10 requests/day × 31 days × 5/7 active days = 22,142.857… requests
    users = np.array([100.0])
    expected = 100 * 10 * 31 * 5 / 7
    np.testing.assert_allclose(timeline.requests_per_month(users, 10, np.array([31.0]), 5), [expected])
