"""The timeline rules (tco.timeline) by hand: users by growth model, requests, tokens, egress, the hourly
load, the FX base path and the discount factors."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco import timeline


def growth(model: str, **kw) -> SimpleNamespace:
    base = {"start_users": None, "end_users": None, "monthly_growth_rate": None, "max_users": None,
            "ceiling_users": None, "steepness_per_month": None, "users": []}
    return SimpleNamespace(model=model, **(base | kw))


def test_linear_users_start_in_the_inference_month():
    # horizon 5, inference from month 2: n = 4 months from 100 to 400, steps of (400 − 100)/3 = 100
    users = timeline.users_timeline(growth("linear", start_users=100.0, end_users=400.0), 2, 5)
    assert users.tolist() == [0.0, 100.0, 200.0, 300.0, 400.0]


def test_compound_users_capped():
    # 1,000 × 1.5^(k − 1): 1,000, 1,500, 2,250, 3,375 → capped at 3,000
    users = timeline.users_curve(growth("compound", start_users=1000.0, monthly_growth_rate=0.5, max_users=3000.0), 4)
    assert users.tolist() == pytest.approx([1000.0, 1000 * 1.5, 1000 * 1.5 ** 2, 3000.0], rel=1e-15)


def test_logistic_users_by_hand():
    # C / (1 + (C/u1 − 1)·e^(−s(k − 1))) with C = 10,000, u1 = 1,000, s = 0.5: month 3 = 10,000 / (1 + 9·e^(−1))
    users = timeline.users_curve(growth("logistic", start_users=1000.0, ceiling_users=10_000.0,
                                        steepness_per_month=0.5), 3)
    assert users[0] == pytest.approx(1000.0, rel=1e-15)
    assert users[2] == pytest.approx(10_000 / (1 + 9 * np.exp(-1.0)), rel=1e-15)


def test_list_users_hold_the_last_value():
    users = timeline.users_curve(growth("list", users=[10.0, 20.0]), 4)
    assert users.tolist() == [10.0, 20.0, 20.0, 20.0]


def test_requests_egress_and_hourly_load_by_hand():
    # 300 users × 10 req/day × 30 days × 5/7 active days = 64,285.71 requests; × 8 kB = 0.514 GB
    requests = timeline.requests_per_month(np.array([300.0]), 10.0, np.array([30.0]), 5.0)
    assert requests[0] == pytest.approx(300 * 10 * 30 * 5 / 7, rel=1e-15)
    assert timeline.egress_gb(requests, 8.0)[0] == pytest.approx(requests[0] * 8 * 1000 / 1e9, rel=1e-15)
    # a flat day: each hour 1/24 of 300 × 10 requests, spread over 3,600 s
    rps = timeline.hourly_rps(np.array([300.0, 600.0]), 10.0, np.full(24, 1 / 24))
    assert rps.shape == (2, 24)
    assert rps[1, 5] == pytest.approx(600 * 10 / 24 / 3600, rel=1e-15)


def test_fx_paths_by_hand():
    fixed = SimpleNamespace(model="fixed", base_path="spot", path=None, focus_edition=None, usdbrl=5.0, brl_rate=0.1,
                            usd_rate=0.04, drift=None)
    assert timeline.fx_path(fixed, 3).tolist() == [5.0, 5.0, 5.0]
    # uncovered interest parity: 5 × ((1 + 0.10)/(1 + 0.04))^(t/12); month 12 = 5 × 1.1/1.04
    parity = SimpleNamespace(model="parity", base_path=None, path=None, focus_edition=None, usdbrl=5.0, brl_rate=0.1,
                             usd_rate=0.04, drift=None)
    assert timeline.fx_path(parity, 12)[11] == pytest.approx(5.0 * 1.1 / 1.04, rel=1e-12)


def test_discount_factors_month_end():
    # (1 + 12%)^(−t/12): month 12 is 1/1.12, month 6 its square root
    df = timeline.discount_factors(12, 0.12)
    assert df[11] == pytest.approx(1 / 1.12, rel=1e-15)
    assert df[5] == pytest.approx(1 / 1.12 ** 0.5, rel=1e-15)


def test_contract_year_and_inference_month():
    rows = timeline.evaluate((timeline.YEAR, timeline.K), {"inf_start": 3.0}, 25)
    assert rows["year"][[0, 11, 12, 24]].tolist() == [0.0, 0.0, 1.0, 2.0]   # ⌊(t − 1)/12⌋
    assert rows["k"][[0, 2, 24]].tolist() == [-1.0, 1.0, 23.0]              # t − 3 + 1
