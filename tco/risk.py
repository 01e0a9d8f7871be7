"""Monte Carlo of USD/BRL on top of the deterministic cash flows.

Each option's monthly cost splits into a BRL part b_m and a USD part u_m (the USD lines of the
ledger, taxes included). On a rate path S_p,m the option costs b_m + u_m·S_p,m in month m, so

    TCO_p = Σ_m b_m + Σ_m u_m·S_p,m          NPV_p = Σ_m d_m·b_m + Σ_m d_m·u_m·S_p,m

which is one matrix product per chunk of paths: no Python loop over paths. Paths are drawn in
chunks of CHUNK (fixed, so results do not depend on the machine) from one seeded generator.
GBM paths are never written out: S_p,m = S_0·e^(d_m)·E_p,m with random factors E (`gbm_factors`), so the
products run on E with weights u_m·S_0·e^(d_m), a block of factors at a time (see `_gbm_group`).

Both centre on the base path B_m (tco.fx; its gbm drift included).
GBM: ln S_m = ln B_m − (σ²/2)·m/12 + σ·√(1/12)·Σ_{k≤m} Z_k, so E[S_m] = B_m, the deterministic path
(B_m = S_0·e^(μ·m/12) for a drift alone). Antithetic pairs (Z, −Z) halve the draws.
Bootstrap: blocks of `block_months` consecutive monthly log returns of a USD/BRL history, demeaned (the base
path carries the trend), drawn with replacement and chained onto B_m (moving-block bootstrap, Künsch 1989).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco import finance
from tco.domain import Dist
from tco.quantiles import percentiles, row_percentiles

CHUNK = 50_000
FAN_MAX_PATHS = 50_000
"""The monthly fan (P5/P50/P95 per month) is taken from at most this many paths."""


def drift(fx) -> float:
    from tco.fx import parity_drift

    return fx.drift if fx.drift is not None else parity_drift(fx.brl_rate, fx.usd_rate)


def gbm_factors(rng: np.random.Generator, n: int, horizon: int, sigma: float,
                buffer: np.ndarray | None = None) -> np.ndarray:
    """The random factors of n antithetic GBM paths: E = exp(σ√Δt·ΣZ), shape (⌈n/2⌉, H).

    Path p < ⌈n/2⌉ is S_0·e^(d_m)·E_p,m and its mirror (path ⌈n/2⌉ + p, for p < ⌊n/2⌋) is S_0·e^(d_m)/E_p,m,
    with d_m = (μ − σ²/2)·m/12: only ⌈n/2⌉·H variates are drawn and exponentiated (the mirror is a
    reciprocal). `buffer` = an array of at least (⌈n/2⌉, H) to fill instead of allocating."""
    half = (n + 1) // 2
    w = rng.standard_normal((half, horizon)) if buffer is None else rng.standard_normal(out=buffer[:half, :horizon])
    np.cumsum(w, axis=1, out=w)
    w *= sigma * np.sqrt(1.0 / 12.0)
    return np.exp(w, out=w)


def gbm_trend(horizon: int, s0: float, mu: float, sigma: float, log_base: np.ndarray | None = None) -> np.ndarray:
    """The part of every GBM path that is not random: B_m·e^(−σ²·m/24), m = 1…H, on the base path B (its log
    given), or S_0·e^((μ − σ²/2)·m/12) on a drift alone."""
    m = np.arange(1, horizon + 1)
    if log_base is not None:
        return np.exp(log_base[:horizon] - 0.5 * sigma * sigma / 12.0 * m)
    return s0 * np.exp((mu - 0.5 * sigma * sigma) / 12.0 * m)


def gbm_paths(rng: np.random.Generator, n: int, horizon: int, s0: float, mu: float, sigma: float,
              antithetic: bool = True, buffers: tuple[np.ndarray, np.ndarray] | None = None,
              log_base: np.ndarray | None = None) -> np.ndarray:
    """n GBM paths of monthly USD/BRL, shape (n, H).

    With antithetic pairs the second half of the paths mirrors the first: S = S_0·e^d·E and S_0·e^d/E
    (`gbm_factors`). `buffers` = (paths, variates) arrays of at least (n, H) and (⌈n/2⌉, H) to fill instead
    of allocating (the numbers are the same; a fresh 50,000 × 120 array costs its page faults on every chunk).
    """
    trend = gbm_trend(horizon, s0, mu, sigma, log_base)
    out = np.empty((n, horizon)) if buffers is None else buffers[0][:n, :horizon]
    if not antithetic:
        w = rng.standard_normal((n, horizon))
        np.cumsum(w, axis=1, out=w)
        w *= sigma * np.sqrt(1.0 / 12.0)
        return np.multiply(trend, np.exp(w, out=w), out=out)
    e = gbm_factors(rng, n, horizon, sigma, None if buffers is None else buffers[1])  # reciprocal, not a
    # division, for the mirror: the same rates as the simulation's fan
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


def describe(s) -> dict:
    fx = s.fx
    out = {"volatility": fx.volatility, "drift": fx.drift if fx.model == "gbm" else None, "centred_on": "base path",
           "antithetic": fx.model == "gbm", "chunk_paths": CHUNK}
    if fx.model == "bootstrap":
        from tco.fx import history_label

        out |= {"block_months": fx.block_months, "history": history_label(fx)}
    return out


def rate_paths(res, n: int, seed: int, progress=None, reuse: bool = False):
    """Yield chunks of rate paths (each (≤CHUNK, H)) for the scenario's model. With `reuse`, every GBM chunk
    is written into the same two buffers: a chunk is valid until the next one is asked for."""
    s = res.scenario
    fx = s.fx
    h = len(res.months)
    rng = np.random.default_rng(seed)
    returns = None
    if fx.model == "bootstrap":
        from tco.fx import load_history

        _, rates = load_history(fx, h)
        returns = np.diff(np.log(rates))
        returns = returns - returns.mean()  # the base path carries the trend
    base = np.asarray(res.fx_path, dtype=float)
    log_base = np.log(base)
    buffers = None
    if reuse and fx.model == "gbm":
        size = min(CHUNK, n)
        buffers = (np.empty((size, h)), np.empty(((size + 1) // 2, h)))
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        if fx.model == "gbm":
            yield gbm_paths(rng, m, h, fx.usdbrl, 0.0, fx.volatility, buffers=buffers, log_base=log_base)
        else:
            assert returns is not None  # bootstrap: the history was read above
            yield bootstrap_paths(rng, m, h, base, returns, fx.block_months)
        done += m
        if progress is not None:
            progress(done, n)


WORK_BYTES = 1 << 30
"""Budget [bytes] for the per-path arrays of one group of options (TCO and NPV, 16 B per path and option).
When paths × options exceed it, the options are simulated in groups, each group drawing the same paths
again from the same seed: memory stays bounded (1e7 paths × 20 options in about 3 GiB, the TCO samples
kept included), at the price of drawing again. Below it (1 M paths × 64 options) there is one group."""


def option_groups(n_options: int, paths: int, budget: int | None = None) -> list[range]:
    """Consecutive groups of option indices whose (paths × group) TCO and NPV arrays fit in `budget`
    [bytes, default WORK_BYTES]; at least one option per group."""
    budget = WORK_BYTES if budget is None else budget
    size = max(1, min(n_options, budget // max(1, 16 * paths)))
    return [range(a, min(a + size, n_options)) for a in range(0, n_options, size)]


def simulate(res, *, paths: int, seed: int, progress=None) -> list:
    """Options with their TCO/NPV distributions, monthly fan and probability of being cheapest."""
    h = len(res.months)
    disc = finance.discount_factors(h, res.scenario.scenario.discount_rate)
    parts = [res.ledger.by_currency(o.name) for o in res.options]
    feasible = np.array([o.feasible for o in res.options])  # infeasible options are never "the cheapest"
    groups = option_groups(len(parts), paths)
    best_val: np.ndarray | None = None
    best_idx = np.zeros(0, dtype=np.intp)
    q_rates: np.ndarray | None = None
    stats: dict[int, tuple] = {}
    for gi, group in enumerate(groups):
        report = progress if gi == len(groups) - 1 else None  # one bar: the last pass
        tco, npv, fan = _simulate_group(res, [parts[j] for j in group], disc, paths, seed, report,
                                        keep_fan=q_rates is None)
        if q_rates is None:
            q_rates = row_percentiles(fan)  # (3, H)
            del fan
        local, val = _cheapest(tco, feasible[group])
        if len(groups) == 1:
            cheapest = np.bincount(local, minlength=len(parts)) / paths
        elif best_val is None:  # running minimum; ties go to the earlier option, as argmin over all options would
            best_val, best_idx = val, local + group.start
        else:
            better = val < best_val
            best_val = np.where(better, val, best_val)
            best_idx = np.where(better, local + group.start, best_idx)
        for c, j in enumerate(group):  # a row per option: contiguous, kept as the option's samples
            stats[j] = (float(tco[c].mean()), percentiles(tco[c]), float(npv[c].mean()), percentiles(npv[c]), tco[c])
        del tco, npv
    if len(groups) > 1:
        cheapest = np.bincount(best_idx, minlength=len(parts)) / paths
    assert q_rates is not None  # the first group kept the fan's paths
    out = []
    for j, o in enumerate(res.options):
        b, u = parts[j]
        t_mean, tq, n_mean, nq, samples = stats[j]
        fan = {"p5": b + u * q_rates[0], "p50": b + u * q_rates[1], "p95": b + u * q_rates[2]}
        out.append(replace(o, tco=Dist(o.tco.deterministic, t_mean, *map(float, tq)),
                           npv=Dist(o.npv.deterministic, n_mean, *map(float, nq)),
                           fan_brl=fan, tco_samples=samples, prob_cheapest=float(cheapest[j])))
    return out


def _cheapest(tco: np.ndarray, feasible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the cheapest feasible row, its value) for each path (column) of tco (options × paths): what
    ``argmin`` over the rows gives with infeasible rows set to +inf (ties: the earlier row; none feasible: row 0,
    value inf), found a row at a time along contiguous memory."""
    idx = np.zeros(tco.shape[1], dtype=np.intp)
    best = np.full(tco.shape[1], np.inf)
    for c in np.flatnonzero(feasible):
        better = tco[c] < best
        idx[better] = c
        np.minimum(best, tco[c], out=best)
    return idx, best


def _simulate_group(res, parts: list, disc: np.ndarray, paths: int, seed: int, progress, keep_fan: bool):
    """TCO and NPV (options of the group × paths: one contiguous row per option) on the scenario's rate
    paths, and, when `keep_fan`, the first FAN_MAX_PATHS rate paths month by month (H × paths).

    An option without USD costs costs the same on every path: its rows are filled, not multiplied."""
    k = len(parts)
    brl_tco = np.array([b.sum() for b, _ in parts])
    brl_npv = np.array([b @ disc for b, _ in parts])
    live = [c for c, (_, u) in enumerate(parts) if np.any(u)]
    usd = np.stack([parts[c][1] for c in live]) if live else np.zeros((0, len(disc)))  # (L, H)
    weights = np.ascontiguousarray(np.concatenate([usd, usd * disc], axis=0))  # (2L, H): TCO rows, NPV rows
    tco = np.empty((k, paths))
    npv = np.empty((k, paths))
    for c in range(k):
        if c not in live:
            tco[c] = brl_tco[c]
            npv[c] = brl_npv[c]
    fan = np.empty((len(disc), min(paths, FAN_MAX_PATHS))) if keep_fan else None
    if res.scenario.fx.model == "gbm":
        _gbm_group(res, weights, live, brl_tco, brl_npv, tco, npv, paths, seed, progress, fan)
        return tco, npv, fan
    at = 0
    for chunk in rate_paths(res, paths, seed, progress, reuse=True):
        m = len(chunk)
        if live:
            _fill(tco, npv, brl_tco, brl_npv, live, _products(weights, chunk), at, at + m)  # TCO and NPV at once
        if fan is not None and at < fan.shape[1]:
            take = min(m, fan.shape[1] - at)
            fan[:, at:at + take] = chunk[:take].T
        at += m
    return tco, npv, fan


def _fill(tco, npv, brl_tco, brl_npv, live: list[int], both: np.ndarray, a: int, b: int) -> None:
    """Paths a…b of the options with USD costs: their BRL part plus the products' TCO rows and NPV rows."""
    n_live = len(live)
    for r, c in enumerate(live):
        np.add(brl_tco[c], both[r], out=tco[c, a:b])
        np.add(brl_npv[c], both[n_live + r], out=npv[c, a:b])


BLOCK = 1024
"""Rows of factors computed at a time inside a chunk (≈1 MB at 120 months: each step stays in the cache)."""
PRODUCT_MADDS = 240_000
"""Multiply-adds per matrix product: below OpenBLAS's threading threshold (65,536 × 4), so each product stays on
one thread (threads would only spin on products this small); the numbers are those of one large product."""


def _products(w: np.ndarray, rates: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """w @ rates.T (weights × paths), a few paths at a time (PRODUCT_MADDS)."""
    n = len(rates)
    out = np.empty((len(w), n)) if out is None else out[:, :n]
    step = max(8, PRODUCT_MADDS // max(1, w.size))
    for a in range(0, n, step):
        b = min(a + step, n)
        np.matmul(w, rates[a:b].T, out=out[:, a:b])
    return out


def _gbm_group(res, weights, live, brl_tco, brl_npv, tco, npv, paths: int, seed: int, progress, fan) -> None:
    """`_simulate_group` for GBM, on the factors E (`gbm_factors`) instead of the paths.

    Σ_m w_m·S_m = Σ_m (w_m·S_0·e^(d_m))·E_m, and the mirrored path has 1/E in place of E: each block of factors
    costs one exp, one reciprocal and two small products, and no path array is written (except the fan's
    first paths into `fan`, month by month, when given). The draws are those of `rate_paths`, in the same
    order (a chunk's ⌈m/2⌉ × H variates are drawn BLOCK rows at a time, which gives the same numbers), and
    the fan's rates are those `gbm_paths` gives."""
    fx = res.scenario.fx
    h = len(res.months)
    trend = gbm_trend(h, fx.usdbrl, 0.0, fx.volatility, np.log(np.asarray(res.fx_path, dtype=float)))
    wt = np.ascontiguousarray(weights * trend)
    rng = np.random.default_rng(seed)
    buffer = np.empty((min(BLOCK, (min(CHUNK, paths) + 1) // 2), h))
    both = np.empty((len(wt), len(buffer)))
    n_fan = 0 if fan is None else fan.shape[1]
    at = 0
    while at < paths:
        m = min(CHUNK, paths - at)
        half = (m + 1) // 2
        mirror = m - half
        for i in range(0, half, BLOCK):
            j = min(i + BLOCK, half)
            e = gbm_factors(rng, 2 * (j - i), h, fx.volatility, buffer)  # j − i rows of factors
            k = max(0, min(j, mirror) - i)  # rows of this block whose mirror is a path too
            _fan_rows(fan, n_fan, trend, e, at + i)
            if live:
                _fill(tco, npv, brl_tco, brl_npv, live, _products(wt, e, both), at + i, at + j)
            if k:
                np.reciprocal(e[:k], out=e[:k])
                _fan_rows(fan, n_fan, trend, e[:k], at + half + i)
                if live:
                    _fill(tco, npv, brl_tco, brl_npv, live, _products(wt, e[:k], both),
                          at + half + i, at + half + i + k)
        at += m
        if progress is not None:
            progress(at, paths)


def _fan_rows(fan, n_fan: int, trend: np.ndarray, e: np.ndarray, at: int) -> None:
    """Rates trend·e of paths at, at+1, … into the fan's columns (those below n_fan)."""
    if fan is None or at >= n_fan:
        return
    take = min(len(e), n_fan - at)
    np.multiply(trend[:, None], e[:take].T, out=fan[:, at:at + take])


def fx_fan(res, paths: int, seed: int) -> dict[str, np.ndarray]:
    """P5/P50/P95 of the USD/BRL rate per month (for charts)."""
    rates = np.concatenate(list(rate_paths(res, min(paths, FAN_MAX_PATHS), seed)))
    q = row_percentiles(np.ascontiguousarray(rates.T))
    return {"p5": q[0], "p50": q[1], "p95": q[2]}
