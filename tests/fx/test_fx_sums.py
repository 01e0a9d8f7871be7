"""tco.fx.sums: the Monte Carlo's inner loop, against the plain formulas (its bit-for-bit checks are in
test_risk.py)."""

from __future__ import annotations

import numpy as np

from tco.fx import paths as risk_paths
from tco.fx import sums as risk_sums


def test_factors_are_gbm_factors_laid_out_month_by_path_bit_for_bit():
    h, n, sigma = 24, 300, 0.13
    z = np.empty((h, n))
    got = risk_sums._factors(np.random.default_rng(4), z, sigma * np.sqrt(1.0 / 12.0))
    assert got is z  # in place
    expected = risk_paths.gbm_factors(np.random.default_rng(4), 2 * n, h, sigma)  # ⌈2n/2⌉ = n rows
    np.testing.assert_array_equal(z, expected.T)
    # the variates of a group month by month: path p's month-k variate is the group's (k·n + p)-th draw
    draws = np.random.default_rng(4).standard_normal(h * n)
    np.testing.assert_allclose(np.log(z[:, 7]) / (sigma * np.sqrt(1.0 / 12.0)), np.cumsum(draws[7::n]), rtol=1e-12)


def test_gbm_factors_come_in_groups_of_draw_paths():
    # 2·DRAW + 5 drawn paths: groups of DRAW, DRAW and 5, each drawn month by month from the one generator
    h, sigma, d = 3, 0.2, risk_paths.DRAW
    got = risk_paths.gbm_factors(np.random.default_rng(9), 2 * (2 * d + 5), h, sigma)
    rng = np.random.default_rng(9)
    groups = [risk_sums._factors(rng, np.empty((h, w)), sigma * np.sqrt(1.0 / 12.0)) for w in (d, d, 5)]
    np.testing.assert_array_equal(got, np.concatenate(groups, axis=1).T)


def test_product_of_a_short_block_is_the_first_columns_of_a_full_one():
    # w = [[1, 2], [3, 4]], e's first column (1, 1) → 1 + 2 = 3 and 3 + 4 = 7; second column (2, 0) → 2, 6
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    e = np.ones((2, risk_sums.BLOCK))
    e[:, 1] = [2.0, 0.0]
    out = np.full((2, 5), -1.0)
    risk_sums._product(w, e, 2, out, 1)
    np.testing.assert_array_equal(out, [[-1.0, 3.0, 2.0, -1.0, -1.0], [-1.0, 7.0, 6.0, -1.0, -1.0]])
    risk_sums._product(np.zeros((0, 2)), e, 2, out, 0)  # no weights: nothing to do
    assert out[0, 0] == -1.0


def test_the_benchmarks_draw_alone_draws_what_the_simulation_draws(monkeypatch, seed_results):
    """benchmarks/bench_run.py's floor: the same normals from the same generator, in the same calls, nothing else
    (here 2 chunks and a bit, an odd count: every short group and the last half chunk)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.bench_run import draw_alone

    calls: dict[str, list] = {"sim": [], "floor": []}
    real = np.random.default_rng

    def recording(who):
        def rng(seed):
            g = real(seed)

            class Rec:
                def standard_normal(self, *args, out=None, **kw):
                    got = g.standard_normal(*args, out=out, **kw)
                    calls[who].append(got.ravel().copy())
                    return got

                def __getattr__(self, name):
                    raise AssertionError(f"the draw uses only standard_normal, not {name}")
            return Rec()
        return rng

    import dataclasses

    s = seed_results.scenario
    res = dataclasses.replace(seed_results, scenario=s.model_copy(update={"fx": s.fx.model_copy(
        update={"model": "gbm", "volatility": 0.13})}))
    n, h = 2 * risk_sums.CHUNK + 4_099, len(seed_results.months)
    monkeypatch.setattr(risk_sums.np.random, "default_rng", recording("sim"))
    for _ in risk_sums.chunk_sums(res, np.ones((2, h)), n, 3):
        pass
    monkeypatch.setattr(risk_sums.np.random, "default_rng", recording("floor"))
    draw_alone(n, h, 3, np.empty(risk_paths.DRAW * h))
    assert [len(c) for c in calls["sim"]] == [len(c) for c in calls["floor"]]
    np.testing.assert_array_equal(np.concatenate(calls["sim"]), np.concatenate(calls["floor"]))
    assert sum(len(c) for c in calls["sim"]) == ((risk_sums.CHUNK + 1) // 2 * 2 + (4_099 + 1) // 2) * h
