"""The cases: ranges, inverse distribution functions (hand-worked), stratified draws, grid and Latin hypercube."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.sweep import cases
from tco.sweep.spec import Distribution, Range, SweepFile


def _sweep(axes: list[dict], **settings_) -> SweepFile:
    return SweepFile.model_validate({"sweep": {"base": "x.toml", **settings_}, "axes": axes})


def test_range_includes_its_stop_and_shows_12_digits():
    assert cases.range_values(Range(start=0.1, stop=0.3, step=0.1)) == [0.1, 0.2, 0.3]  # 0.1 + 2·0.1 = 0.30000000000000004
    assert cases.range_values(Range(start=1, stop=2.9, step=1)) == [1.0, 2.0]


def test_inverse_uniform_and_loguniform_by_hand():
    u = np.array([0.25, 0.5])
    assert cases.inverse(Distribution(kind="uniform", low=4.0, high=6.0), u).tolist() == [4.0 + 0.25 * 2, 5.0]
    lg = cases.inverse(Distribution(kind="loguniform", low=1.0, high=100.0), np.array([0.5]))
    assert math.isclose(lg[0], 10.0)  # exp(ln 1 + 0.5·(ln 100 − ln 1)) = 10


def test_inverse_triangular_by_hand():
    d = Distribution(kind="triangular", low=0.0, mode=1.0, high=4.0)  # F(mode) = 1/4
    x = cases.inverse(d, np.array([0.125, 0.5]))
    assert math.isclose(x[0], math.sqrt(0.125 * 4 * 1))          # a + √(u (b − a)(c − a))
    assert math.isclose(x[1], 4 - math.sqrt(0.5 * 4 * 3))        # b − √((1 − u)(b − a)(b − c))


def test_inverse_normal_median_is_the_mean():
    assert math.isclose(cases.inverse(Distribution(kind="normal", mean=5.4, sd=0.5), np.array([0.5]))[0], 5.4)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 200), st.integers(0, 2**32))
def test_stratified_has_one_draw_in_each_slice(n, seed):
    u = cases.stratified(n, np.random.default_rng(seed))
    assert sorted(np.floor(u * n).astype(int).tolist()) == list(range(n))


def test_grid_is_every_combination_in_order_and_counts_first():
    s = _sweep([{"key": "a", "values": [1, 2]}, {"key": "b", "range": {"start": 0, "stop": 1, "step": 0.5}}])
    assert cases.count(s) == 2 * 3
    assert cases.generate(s, {}) == [(1, 0.0), (1, 0.5), (1, 1.0), (2, 0.0), (2, 0.5), (2, 1.0)]


def test_an_integer_key_gets_whole_numbers():
    s = _sweep([{"key": "a", "distribution": {"kind": "uniform", "low": 1, "high": 9}}], samples=5)
    got = cases.generate(s, {"a": True})
    assert all(type(v) is int for (v,) in got) and len(got) == 5


def test_lhs_is_seeded_and_covers_each_axis_evenly():
    axes = [{"key": "a", "distribution": {"kind": "uniform", "low": 0, "high": 10}}, {"key": "b", "values": ["x", "y"]}]
    s = _sweep(axes, design="lhs", samples=10, seed=7)
    first, again = cases.generate(s, {}), cases.generate(s, {})
    assert first == again and cases.count(s) == 10
    assert sorted(int(a) for a, _ in first) == list(range(10))  # one draw in each tenth of [0, 10)
    assert sorted(b for _, b in first) == ["x"] * 5 + ["y"] * 5
    assert cases.generate(_sweep(axes, design="lhs", samples=10, seed=8), {}) != first
