"""The Monte Carlo's inner loop: Σ_m w_m·S_p,m for every path p and weight row w, a chunk of paths at a time.

The paths are those of tco.fx.paths (chunks of CHUNK from one seeded generator). GBM paths are never written
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
from tco.fx.paths import CHUNK, DRAW, gbm_trend, rate_paths

BLOCK = 2048
"""The width of every matrix product, in paths (a multiple of 64: OpenBLAS then runs its full kernels on every
column, so a path's sum does not depend on where it falls). A group of risk_paths.DRAW drawn paths, 120 × 2048
floats, is drawn into the buffer the products read (DRAW rounded up to a multiple of BLOCK) and stays in the
cache from the draw to the products."""


ROWS = 16
"""Every matrix product has a multiple of ROWS weight rows (zero rows added): OpenBLAS's kernels unroll 4, 8 or 16
rows by processor, so every row then runs in a full kernel and its sum does not depend on how many rows its group
has (a seed with 9 options, 7 of them in USD, gave 14 rows: its 13th and 14th rows ran in an edge kernel alone in
one group and a full one in another, and the percentiles differed in the last bit)."""


def chunk_sums(res, weights: np.ndarray, paths: int, seed: int, progress=None,
               fan: np.ndarray | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first path, weights @ S_p of the chunk's paths: weights × m), chunk after chunk; the array is reused
    for the next chunk. When `fan` is given (bootstrap: the GBM's fan is exact, tco.fx.risk.gbm_fan), its columns get
    the first paths' rates month by month (H × width). Without weights only the fan's paths are drawn."""
    n = len(weights)
    pad = -n % ROWS
    padded = np.concatenate([weights, np.zeros((pad, weights.shape[1]))]) if n and pad else weights
    for at, sums in _chunk_sums(res, padded, paths, seed, progress, fan):
        yield at, sums[:n]


def _chunk_sums(res, weights: np.ndarray, paths: int, seed: int, progress,
                fan: np.ndarray | None) -> Iterator[tuple[int, np.ndarray]]:
    """`chunk_sums` on weights whose rows are already a multiple of ROWS."""
    if res.scenario.fx.model == FxModel.GBM:
        assert fan is None, "the GBM fan is computed, not drawn (tco.fx.risk.gbm_fan)"
        yield from _gbm_chunks(res, weights, paths, seed, progress)
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


def _gbm_chunks(res, weights, paths: int, seed: int, progress):
    """`chunk_sums` for GBM, on the factors E instead of the rates.

    Each group of DRAW drawn paths (risk_paths: its variates month by month) is drawn into a month × path buffer,
    summed month by month and exponentiated in place, as `gbm_factors` does (the same variates, the same
    operations on each); the products run on BLOCK-wide windows of it; the mirror is a reciprocal in place. A
    group narrower than the buffer (a chunk's last) is computed on its own and copied in."""
    fx = res.scenario.fx
    h = len(res.months)
    trend = gbm_trend(h, fx.usdbrl, 0.0, fx.volatility, np.log(np.asarray(res.fx_path, dtype=float)))
    wt = np.ascontiguousarray(weights * trend)
    todo = paths if len(wt) else 0
    out = np.empty((len(wt), min(CHUNK, todo)))
    e = np.ones((h, -(-DRAW // BLOCK) * BLOCK))  # month × path, BLOCK-wide windows; padding columns stay finite
    pairs = _row_pairs(e) if e.shape[1] == DRAW else None
    scale = fx.volatility * np.sqrt(1.0 / 12.0)
    rng = np.random.default_rng(seed)
    at = 0
    while at < todo:
        m = min(CHUNK, paths - at)
        half = (m + 1) // 2
        mirror = m - half
        for i in range(0, half, DRAW):
            w = min(DRAW, half - i)
            if pairs is not None and w == DRAW:
                _factors(rng, e, scale, pairs)
            else:
                e[:, :w] = _factors(rng, np.empty((h, w)), scale)
            _products(wt, e, w, out, i)
            k = max(0, min(w, mirror - i))  # paths of this group whose mirror is a path too
            if k:
                np.reciprocal(e[:, :k], out=e[:, :k])
                _products(wt, e, k, out, half + i)
        yield at, out[:, :m]
        at += m
        if progress is not None:
            progress(at, paths)


def _products(w: np.ndarray, e: np.ndarray, n: int, out: np.ndarray, at: int) -> None:
    """out[:, at:at+n] = w @ e[:, :n], BLOCK columns at a time (e: a multiple of BLOCK wide)."""
    for a in range(0, n, BLOCK):
        _product(w, e[:, a:a + BLOCK], min(BLOCK, n - a), out, at + a)


def _factors(rng: np.random.Generator, z: np.ndarray, scale: float, pairs=None) -> np.ndarray:
    """z (month × path, contiguous) filled with fresh variates and turned in place into E = exp(scale·ΣZ), the
    running sum over months; `pairs` = `_row_pairs(z)`, made once by the caller for a buffer used again."""
    rng.standard_normal(out=z)
    add = np.add
    for prev, row in _row_pairs(z) if pairs is None else pairs:  # the running sum: np.cumsum's additions, in order
        add(prev, row, row)
    z *= scale
    return np.exp(z, out=z)


def _row_pairs(z: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(row m − 1, row m) of z for m = 1…H − 1: ~30,000 additions per million paths, their views made once."""
    rows = list(z)
    return list(zip(rows, rows[1:], strict=False))
