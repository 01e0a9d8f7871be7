"""Finance figures of tco.finance, worked by hand, and the reconciliation with numpy-financial."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
import pytest

from tco.finance import (cost_per_million_tokens, crossover_month, discount_factors, monthly_rate, npv,
                         payback_month)


def test_monthly_rate_compounds_to_the_annual_rate():
    r = 0.14
    m = monthly_rate(r)
    assert m == pytest.approx(1.14 ** (1 / 12) - 1)  # ≈ 1.0979 %/month
    assert (1 + m) ** 12 == pytest.approx(1.14)


def test_monthly_rate_one_percent():
    assert monthly_rate(1.01 ** 12 - 1) == pytest.approx(0.01)


def test_monthly_rate_zero():
    assert monthly_rate(0.0) == 0.0


def test_discount_factors_month_end():
    # month t is discounted by (1 + r)^(−t/12), t = 1..H: month 12 by exactly one year
    f = discount_factors(12, 0.21)
    np.testing.assert_allclose(f, [1.21 ** (-t / 12) for t in range(1, 13)])
    assert f[11] == pytest.approx(1 / 1.21)
    assert f[5] == pytest.approx(1 / 1.1)  # month 6: (1.21)^(−1/2) = 1/1.1


def test_npv_hand_case():
    # 100 in month 6 and 121 in month 12 at 21 %/yr: 100/1.1 + 121/1.21 = 90.909… + 100
    costs = np.zeros(12)
    costs[5] = 100.0
    costs[11] = 121.0
    expected = 100 / 1.21 ** (6 / 12) + 121 / 1.21 ** (12 / 12)
    assert npv(costs, 0.21) == pytest.approx(expected)
    assert expected == pytest.approx(100 / 1.1 + 100)


def test_npv_constant_stream():
    costs = np.full(3, 1000.0)
    r = 0.14
    expected = 1000 * (1.14 ** (-1 / 12) + 1.14 ** (-2 / 12) + 1.14 ** (-3 / 12))
    assert npv(costs, r) == pytest.approx(expected)


def test_npv_zero_rate_is_plain_sum():
    costs = np.array([3.0, 5.0, 7.0])
    assert npv(costs, 0.0) == pytest.approx(3 + 5 + 7)


def test_npv_works_on_rows():
    costs = np.array([[1.0, 1.0], [2.0, 0.0]])
    got = npv(costs, 0.1)
    np.testing.assert_allclose(got, [1.1 ** (-1 / 12) + 1.1 ** (-2 / 12), 2 * 1.1 ** (-1 / 12)])


@pytest.mark.parametrize("annual", [0.0, 0.05, 0.14, 0.3])
def test_npv_reconciles_with_numpy_financial(annual):
    """Timing convention: our month t (1..H) is numpy-financial's period t with a zero flow at t = 0.

    npf.npv(rate, values) discounts values[i] by (1 + rate)^(−i) from i = 0 (Excel's NPV shifted one
    period); with the monthly rate (1 + r)^(1/12) − 1 and values = [0, c_1, …, c_H] it equals
    Σ_t c_t·(1 + r)^(−t/12), our month-end convention.
    """
    costs = np.array([1000.0, 0.0, 2500.0, 400.0, 10.0, 7777.0, 1.0] * 6)  # 42 months
    ours = npv(costs, annual)
    theirs = npf.npv(monthly_rate(annual), np.concatenate([[0.0], costs]))
    assert ours == pytest.approx(theirs, rel=1e-12)
    # without the leading zero numpy-financial treats the first month as time 0: larger by one month of discount
    if annual > 0:
        shifted = npf.npv(monthly_rate(annual), costs)
        assert shifted == pytest.approx(ours * (1 + annual) ** (1 / 12), rel=1e-12)


def test_crossover_month():
    inference = np.array([10.0, 20.0, 30.0, 40.0])
    # cumulative 10, 30, 60, 100: reaches 60 in month 3 (≥ counts)
    assert crossover_month(inference, 60.0) == 3
    assert crossover_month(inference, 59.0) == 3
    assert crossover_month(inference, 61.0) == 4
    assert crossover_month(inference, 5.0) == 1


def test_crossover_month_none():
    inference = np.array([10.0, 20.0])
    assert crossover_month(inference, 31.0) is None  # never catches up
    assert crossover_month(inference, 0.0) is None    # no training
    assert crossover_month(np.array([]), 10.0) is None


def test_cost_per_million_tokens():
    # R$ 1,200,000 for 3e9 tokens: 1.2e6 / (3e9 / 1e6) = R$ 400 per million tokens
    assert cost_per_million_tokens(1.2e6, 3e9) == pytest.approx(1.2e6 / (3e9 / 1e6))
    assert cost_per_million_tokens(1.2e6, 3e9) == pytest.approx(400.0)
    assert cost_per_million_tokens(1.0, 0.0) is None


def test_payback_month():
    # saving −10, +5, +5 → cumulative −10, −5, 0: non-negative from month 3
    assert payback_month(np.array([-10.0, 5.0, 5.0])) == 3
    # positive from the start
    assert payback_month(np.array([1.0, 2.0])) == 1
    # dips below zero in month 2 and recovers in month 3: it must stay non-negative, so month 3
    assert payback_month(np.array([5.0, -10.0, 20.0])) == 3
    # never pays back
    assert payback_month(np.array([-10.0, 5.0, 4.0])) is None
    assert payback_month(np.array([])) is None
