"""tco.fx.quantiles: percentiles streamed chunk by chunk, the same floats as np.percentile."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CHUNK = 1 << 14
"""A chunk of paths as the Monte Carlo hands them (a few thousand to tens of thousands)."""


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
@given(seed=st.integers(0, 2 ** 32 - 1), chunk=st.integers(CHUNK // 4, CHUNK * 2),
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
