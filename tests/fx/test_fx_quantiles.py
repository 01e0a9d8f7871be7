"""tco.fx.quantiles: exact percentiles, the same floats as np.percentile, on both the fast path and the fallback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.fx.quantiles import FAST_MIN, percentiles, row_percentiles


def test_small_array_by_hand():
    # 5 values, linear method: position (n-1)·q = 4·0.25 = 1 → the 2nd smallest; 4·0.5 = 2 → 3rd; 4·0.9 = 3.6
    x = np.array([40.0, 10.0, 30.0, 20.0, 50.0])
    expected = [20.0, 30.0, 40.0 + 0.6 * (50.0 - 40.0)]
    np.testing.assert_allclose(percentiles(x, (25, 50, 90)), expected, rtol=0, atol=1e-12)


def test_fast_path_by_hand_on_a_permutation():
    # x = 0, 1, …, n-1 shuffled: the q-th percentile is (n-1)·q exactly (the values equal their ranks)
    n = FAST_MIN * 4 + 1                      # n - 1 = 65536, so 5 % → 3276.8, 50 % → 32768, 95 % → 62259.2
    x = np.random.default_rng(3).permutation(n).astype(float)
    got = percentiles(x, (5, 50, 95))
    np.testing.assert_allclose(got, [0.05 * (n - 1), 0.5 * (n - 1), 0.95 * (n - 1)], rtol=0, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(FAST_MIN, FAST_MIN * 3),
       q=st.lists(st.floats(0.5, 99.5), min_size=1, max_size=4), kind=st.sampled_from(["normal", "lognormal", "ties"]))
def test_equals_numpy_bit_for_bit_on_random_arrays(seed, n, q, kind):
    rng = np.random.default_rng(seed)
    x = {"normal": lambda: rng.normal(5e6, 1e5, n), "lognormal": lambda: rng.lognormal(0, 2, n),
         "ties": lambda: rng.integers(0, 7, n).astype(float)}[kind]()
    np.testing.assert_array_equal(percentiles(x, q), np.percentile(x, q))


@pytest.mark.parametrize("q", [(0, 50), (50, 100), (5, 50, 95)])
def test_fallbacks_equal_numpy(q):
    rng = np.random.default_rng(0)
    small = rng.normal(size=100)                      # below FAST_MIN
    with_nan = rng.normal(size=FAST_MIN * 2)
    with_nan[7] = np.nan
    as_f32 = rng.normal(size=FAST_MIN * 2).astype(np.float32)
    for x in (small, with_nan, as_f32):
        np.testing.assert_array_equal(percentiles(x, q), np.percentile(x, q))


def test_row_percentiles_shape_and_values():
    rows = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [10.0, 10.0, 10.0, 10.0, 10.0]])
    got = row_percentiles(rows, (25, 50))
    assert got.shape == (2, 2)                        # (len(q), rows)
    np.testing.assert_array_equal(got, [[2.0, 10.0], [3.0, 10.0]])  # 4·0.25 = 1 → 2.0; 4·0.5 = 2 → 3.0


def test_row_percentiles_by_selection_by_hand():
    # rows of 0..10 shuffled: (n − 1)·q = 10·0.05 = 0.5 → 0 + 0.5·(1 − 0) = 0.5; 10·0.5 = 5 → 5; 10·0.95 = 9.5
    rows = np.array([np.random.default_rng(r).permutation(11) for r in range(3)], dtype=float)
    np.testing.assert_array_equal(row_percentiles(rows), [[0.5] * 3, [5.0] * 3, [9.5] * 3])
    np.testing.assert_array_equal(row_percentiles(rows, (0, 100, 50, 50)), [[0.0] * 3, [10.0] * 3, [5.0] * 3,
                                                                            [5.0] * 3])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), rows=st.integers(1, 5), n=st.integers(1, 3000),
       q=st.lists(st.floats(0, 100), min_size=1, max_size=5), kind=st.sampled_from(["normal", "ties", "sorted"]))
def test_row_percentiles_equal_numpy_bit_for_bit(seed, rows, n, q, kind):
    rng = np.random.default_rng(seed)
    x = {"normal": lambda: rng.normal(5.0, 0.5, (rows, n)), "ties": lambda: rng.integers(0, 5, (rows, n)) * 1.0,
         "sorted": lambda: np.sort(rng.normal(size=(rows, n)), axis=1)[:, ::-1] * 1.0}[kind]()
    expected = np.percentile(x, q, axis=1)
    np.testing.assert_array_equal(row_percentiles(x, q), expected)
    values = np.sort(x, axis=1)
    np.testing.assert_array_equal(row_percentiles(x, q, overwrite=True), expected)  # in place: rows partitioned,
    np.testing.assert_array_equal(np.sort(x, axis=1), values)                        # each keeps its values


@pytest.mark.parametrize("chunks", [[7], [3, 4], [2, 2, 2, 1]])
def test_stream_percentiles_by_hand(chunks):
    # one row 10, 20, …, 70 in chunks: (n − 1)·q = 6·0.25 = 1.5 → 20 + 0.5·(30 − 20) = 25; 6·0.5 = 3 → 40
    from tco.fx.quantiles import StreamPercentiles

    x = np.array([[40.0, 10.0, 70.0, 30.0, 20.0, 60.0, 50.0]])
    sp = StreamPercentiles(1, 7, (25, 50))
    at = 0
    for m in chunks:
        sp.add(x[:, at:at + m])
        at += m
    np.testing.assert_array_equal(sp.result(), [[20.0 + 0.5 * (30.0 - 20.0), 40.0]])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), chunk=st.integers(FAST_MIN // 4, FAST_MIN * 2),
       kind=st.sampled_from(["normal", "lognormal", "ties"]))
def test_stream_percentiles_equal_numpy_bit_for_bit(seed, chunk, kind):
    from tco.fx.quantiles import StreamPercentiles

    rng = np.random.default_rng(seed)
    n = 5 * chunk + 17
    x = {"normal": lambda: rng.normal(5e6, 1e5, (3, n)), "lognormal": lambda: rng.lognormal(0, 2, (3, n)),
         "ties": lambda: rng.integers(0, 7, (3, n)).astype(float)}[kind]()
    sp = StreamPercentiles(3, n)
    for a in range(0, n, chunk):
        sp.add(x[:, a:a + chunk])
    got = sp.result()
    assert got is not None
    np.testing.assert_array_equal(got, np.percentile(x, [5, 50, 95], axis=1).T)


def test_stream_percentiles_say_so_when_the_first_chunk_misleads():
    # sorted data: the first chunk holds the smallest values, its brackets miss the later ranks → None
    from tco.fx.quantiles import StreamPercentiles

    x = np.arange(100_000.0)[None, :]
    sp = StreamPercentiles(1, x.shape[1])
    for a in range(0, x.shape[1], 10_000):
        sp.add(x[:, a:a + 10_000])
    assert sp.result() is None
    bad = StreamPercentiles(1, 3)
    bad.add(np.array([[1.0, np.nan, 2.0]]))
    assert bad.result() is None
