"""tco.fx.paths: the Monte Carlo's rate paths, by hand (the theory checks are in test_risk.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tco.fx import paths as risk_paths


def test_gbm_trend_by_hand():
    # on a drift alone: S0·e^((μ − σ²/2)·m/12); on a base path B: B_m·e^(−σ²·m/24)
    s0, mu, sigma = 5.0, 0.06, 0.2
    expected = [s0 * np.exp((0.06 - 0.5 * 0.04) * m / 12) for m in (1, 2, 3)]
    np.testing.assert_allclose(risk_paths.gbm_trend(3, s0, mu, sigma), expected, rtol=1e-15)
    base = np.array([5.0, 5.5, 6.0])
    expected = [5.0 * np.exp(-0.04 / 24), 5.5 * np.exp(-0.04 * 2 / 24), 6.0 * np.exp(-0.04 * 3 / 24)]
    np.testing.assert_allclose(risk_paths.gbm_trend(3, s0, mu, sigma, np.log(base)), expected, rtol=1e-15)


def test_antithetic_paths_mirror_the_first_half():
    # 5 paths: 3 drawn (⌈5/2⌉), the last 2 mirror the first 2: S·S' = trend² month by month
    p = risk_paths.gbm_paths(np.random.default_rng(1), 5, 4, 5.0, 0.0, 0.15)
    trend = risk_paths.gbm_trend(4, 5.0, 0.0, 0.15)
    np.testing.assert_allclose(p[0] * p[3], trend ** 2, rtol=1e-14)
    np.testing.assert_allclose(p[1] * p[4], trend ** 2, rtol=1e-14)


def test_bootstrap_chains_the_drawn_returns_by_hand():
    # one return only (0.1): every path is s0·e^(0.1·m)
    got = risk_paths.bootstrap_paths(np.random.default_rng(0), 2, 3, 2.0, np.array([0.1, 0.1]), 1)
    expected = [2.0 * np.exp(0.1), 2.0 * np.exp(0.2), 2.0 * np.exp(0.30000000000000004)]
    np.testing.assert_allclose(got, [expected, expected], rtol=1e-15)


@pytest.mark.parametrize("n", [1, risk_paths.CHUNK, risk_paths.CHUNK + 3])
def test_rate_paths_come_in_chunks_and_report_progress(seed_results, n):
    import dataclasses

    fx = seed_results.scenario.fx
    res = dataclasses.replace(seed_results, scenario=seed_results.scenario.model_copy(
        update={"fx": fx.model_copy(update={"model": "gbm", "volatility": 0.1})}))
    seen = []
    sizes = [len(c) for c in risk_paths.rate_paths(res, n, 1, lambda done, total: seen.append((done, total)))]
    expected = [n] if n <= risk_paths.CHUNK else [risk_paths.CHUNK, 3]
    assert sizes == expected and seen[-1] == (n, n) and len(seen) == len(expected)
