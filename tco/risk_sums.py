"""The Monte Carlo's inner loop: Σ_m w_m·S_p,m for every path p and weight row w, a chunk of paths at a time.

The paths are those of tco.risk_paths (chunks of CHUNK from one seeded generator). GBM paths are never written
out: S_p,m = S_0·e^(d_m)·E_p,m with random factors E (`risk_paths.gbm_factors`), so the products run on E with
weights w_m·S_0·e^(d_m), BLOCK paths at a time, and the mirrored path has 1/E in place of E.

Same seed, same bits, however the work is cut: every matrix product has the same shape (BLOCK paths; a last,
shorter block is padded), so each path's sum has the same floating-point operations whatever the number of
paths, the option groups or OpenBLAS's threads (tests/test_risk.py checks it bit for bit).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from tco.domain import FxModel
from tco.risk_paths import CHUNK, gbm_trend, rate_paths

BLOCK = 2048
"""Paths computed at a time, and the width of every matrix product (a multiple of 64: OpenBLAS then runs its full
kernels on every column, so a path's sum does not depend on where it falls). A block's factors, 120 × 2048
floats, stay in the cache from the draw to the products."""


def chunk_sums(res, weights: np.ndarray, paths: int, seed: int, progress=None,
               fan: np.ndarray | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first path, weights @ S_p of the chunk's paths: weights × m), chunk after chunk; the array is reused
    for the next chunk. When `fan` is given, its columns get the first paths' rates month by month (H × width).
    Without weights only the fan's paths are drawn."""
    if res.scenario.fx.model == FxModel.GBM:
        yield from _gbm_chunks(res, weights, paths, seed, progress, fan)
        return
    h = len(res.months)
    todo = paths if len(weights) else 0 if fan is None else fan.shape[1]
    out = np.empty((len(weights), min(CHUNK, todo)))
    rates = np.ones((h, BLOCK))  # month × path, as for GBM: the same products
    at = 0
    for chunk in rate_paths(res, todo, seed, progress):
        m = len(chunk)
        for a in range(0, m, BLOCK):
            b = min(a + BLOCK, m)
            rates[:, : b - a] = chunk[a:b].T
            _product(weights, rates, b - a, out, a)
        if fan is not None and at < fan.shape[1]:
            take = min(m, fan.shape[1] - at)
            fan[:, at:at + take] = chunk[:take].T
        yield at, out[:, :m]
        at += m


def _product(w: np.ndarray, e: np.ndarray, n: int, out: np.ndarray, at: int) -> None:
    """out[:, at:at+n] = (w @ e)[:, :n], e being BLOCK paths wide (its columns past n are padding)."""
    if not len(w):
        return
    if n == e.shape[1]:
        np.matmul(w, e, out=out[:, at:at + n])
    else:
        out[:, at:at + n] = (w @ e)[:, :n]


def _gbm_chunks(res, weights, paths: int, seed: int, progress, fan):
    """`chunk_sums` for GBM, on the factors E instead of the rates.

    The factors of a block of paths are drawn, summed month by month and exponentiated as `gbm_factors` does
    (the same variates in the same order, the same operations on each), but laid out month × path, so that the
    running sum over months is a row added to the next and the product needs no transpose; the mirror is a
    reciprocal in place."""
    fx = res.scenario.fx
    h = len(res.months)
    trend = gbm_trend(h, fx.usdbrl, 0.0, fx.volatility, np.log(np.asarray(res.fx_path, dtype=float)))
    wt = np.ascontiguousarray(weights * trend)
    n_fan = 0 if fan is None else fan.shape[1]
    todo = paths if len(wt) else n_fan
    out = np.empty((len(wt), min(CHUNK, todo)))
    z = np.empty((BLOCK, h))
    e = np.ones((h, BLOCK))  # month × path: padding columns stay finite
    scale = fx.volatility * np.sqrt(1.0 / 12.0)
    views = (list(e), list(z.T))  # ~30,000 steps per million paths: three new views each would cost as much
    rng = np.random.default_rng(seed)
    at = 0
    while at < todo:
        m = min(CHUNK, paths - at)
        half = (m + 1) // 2
        mirror = m - half
        for i in range(0, half, BLOCK):
            j = min(i + BLOCK, half)
            _factors(rng, z[: j - i], e, scale, views if j - i == BLOCK else None)
            _fan_rows(fan, n_fan, trend, e[:, : j - i], at + i)
            _product(wt, e, j - i, out, i)
            k = max(0, min(j, mirror) - i)  # paths of this block whose mirror is a path too
            if k:
                np.reciprocal(e[:, :k], out=e[:, :k])
                _fan_rows(fan, n_fan, trend, e[:, :k], at + half + i)
                _product(wt, e, k, out, half + i)
        yield at, out[:, :m]
        at += m
        if progress is not None:
            progress(at, paths)


def _factors(rng: np.random.Generator, z: np.ndarray, e: np.ndarray, scale: float, views=None) -> None:
    """E = exp(scale·ΣZ) of len(z) paths into e's first columns (month × path), from len(z) × H fresh variates.
    `views` = (e's rows, z's columns) when z is the whole buffer: made once, not at each of the H steps."""
    n, h = z.shape
    rng.standard_normal(out=z)
    f = e[:, :n]
    months, draws = views or (list(f), list(z.T))
    np.copyto(months[0], draws[0])
    for m in range(1, h):  # the running sum, month by month: the additions np.cumsum makes, in its order
        np.add(months[m - 1], draws[m], out=months[m])
    f *= scale
    np.exp(f, out=f)


def _fan_rows(fan, n_fan: int, trend: np.ndarray, e: np.ndarray, at: int) -> None:
    """Rates trend·e of paths at, at+1, … (e: month × path) into the fan's columns (those below n_fan)."""
    if fan is None or at >= n_fan:
        return
    take = min(e.shape[1], n_fan - at)
    np.multiply(trend[:, None], e[:, :take], out=fan[:, at:at + take])
