"""The Monte Carlo's USD/BRL paths: GBM and block bootstrap, drawn in chunks from one seeded generator.

Both centre on the base path B_m (tco.fx.history; its gbm drift included).
GBM: ln S_m = ln B_m − (σ²/2)·m/12 + σ·√(1/12)·Σ_{k≤m} Z_k, so E[S_m] = B_m, the deterministic path
(B_m = S_0·e^(μ·m/12) for a drift alone). Antithetic pairs (Z, −Z) halve the draws: in each chunk of CHUNK
paths the first ⌈m/2⌉ are drawn and the rest mirror them. The drawn paths come DRAW at a time (the last group of
a chunk shorter), each group's variates month by month: Z_k of path p of a group of w paths is the group's
(k·w + p)-th draw, so that the running sum over months is one vector addition per month (tco.fx.sums).
Bootstrap: blocks of `block_months` consecutive monthly log returns of a USD/BRL history, demeaned (the base
path carries the trend), drawn with replacement and chained onto B_m (moving-block bootstrap, Künsch 1989).
tco.fx.risk prices the options on these paths; for GBM it computes the same rates in its own layout.
"""

from __future__ import annotations

import numpy as np

from tco.domain import FxModel

CHUNK = 50_000
"""Paths drawn at a time. Part of what the paths are (each chunk's second half mirrors its first), so fixed: the
same seed gives the same paths on every machine."""
DRAW = 2048
"""GBM paths whose variates are drawn together, month by month (see the module's note): part of what the paths are
too, so fixed (it is not tco.fx.sums.BLOCK, the width of the products, which changes no result)."""


def drift(fx) -> float:
    from tco.fx.history import parity_drift

    return fx.drift if fx.drift is not None else parity_drift(fx.brl_rate, fx.usd_rate)


def gbm_factors(rng: np.random.Generator, n: int, horizon: int, sigma: float) -> np.ndarray:
    """The random factors of n antithetic GBM paths: E = exp(σ√Δt·ΣZ), shape (⌈n/2⌉, H).

    Path p < ⌈n/2⌉ is S_0·e^(d_m)·E_p,m and its mirror (path ⌈n/2⌉ + p, for p < ⌊n/2⌋) is S_0·e^(d_m)/E_p,m,
    with d_m = (μ − σ²/2)·m/12: only ⌈n/2⌉·H variates are drawn and exponentiated (the mirror is a
    reciprocal), DRAW paths at a time, month by month (the module's note)."""
    half = (n + 1) // 2
    out = np.empty((half, horizon))
    for a in range(0, half, DRAW):
        w = rng.standard_normal((horizon, min(DRAW, half - a)))  # month × path
        np.cumsum(w, axis=0, out=w)
        w *= sigma * np.sqrt(1.0 / 12.0)
        out[a:a + w.shape[1]] = np.exp(w, out=w).T
    return out


def gbm_trend(horizon: int, s0: float, mu: float, sigma: float, log_base: np.ndarray | None = None) -> np.ndarray:
    """The part of every GBM path that is not random: B_m·e^(−σ²·m/24), m = 1…H, on the base path B (its log
    given), or S_0·e^((μ − σ²/2)·m/12) on a drift alone."""
    m = np.arange(1, horizon + 1)
    if log_base is not None:
        return np.exp(log_base[:horizon] - 0.5 * sigma * sigma / 12.0 * m)
    return s0 * np.exp((mu - 0.5 * sigma * sigma) / 12.0 * m)


def gbm_paths(rng: np.random.Generator, n: int, horizon: int, s0: float, mu: float, sigma: float,
              antithetic: bool = True, log_base: np.ndarray | None = None) -> np.ndarray:
    """n GBM paths of monthly USD/BRL, shape (n, H).

    With antithetic pairs the second half of the paths mirrors the first: S = S_0·e^d·E and S_0·e^d/E
    (`gbm_factors`; the mirror by a reciprocal, not a division: the rates tco.fx.risk computes)."""
    trend = gbm_trend(horizon, s0, mu, sigma, log_base)
    out = np.empty((n, horizon))
    if not antithetic:
        w = rng.standard_normal((n, horizon))
        np.cumsum(w, axis=1, out=w)
        w *= sigma * np.sqrt(1.0 / 12.0)
        return np.multiply(trend, np.exp(w, out=w), out=out)
    e = gbm_factors(rng, n, horizon, sigma)
    half = len(e)
    np.multiply(trend, e, out=out[:half])
    np.multiply(trend, np.reciprocal(e[: n - half]), out=out[half:])
    return out


def bootstrap_paths(rng: np.random.Generator, n: int, horizon: int, s0: float | np.ndarray, log_returns: np.ndarray,
                    block: int) -> np.ndarray:
    """n block-bootstrap paths, shape (n, H), chained onto s0 (a rate, or the base path month by month); every
    monthly return is one of ``log_returns``."""
    nblocks = -(-horizon // block)
    starts = rng.integers(0, len(log_returns) - block + 1, size=(n, nblocks))
    idx = (starts[:, :, None] + np.arange(block)).reshape(n, nblocks * block)[:, :horizon]
    return s0 * np.exp(np.cumsum(log_returns[idx], axis=1))


def rate_paths(res, n: int, seed: int, progress=None):
    """Yield chunks of rate paths (each (≤CHUNK, H)) for the scenario's model."""
    fx = res.scenario.fx
    h = len(res.months)
    rng = np.random.default_rng(seed)
    returns = None
    if fx.model == FxModel.BOOTSTRAP:
        from tco.fx.history import load_history

        _, rates = load_history(fx, h)
        returns = np.diff(np.log(rates))
        returns = returns - returns.mean()  # the base path carries the trend
    base = np.asarray(res.fx_path, dtype=float)
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        if fx.model == FxModel.GBM:
            yield gbm_paths(rng, m, h, fx.usdbrl, 0.0, fx.volatility, log_base=np.log(base))
        else:
            assert returns is not None  # bootstrap: the history was read above
            yield bootstrap_paths(rng, m, h, base, returns, fx.block_months)
        done += m
        if progress is not None:
            progress(done, n)
