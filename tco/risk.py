"""Monte Carlo of USD/BRL on top of the deterministic cash flows.

Each option's monthly cost splits into a BRL part b_m and a USD part u_m (the USD lines of the
ledger, taxes included). On a rate path S_p,m the option costs b_m + u_m·S_p,m in month m, so

    TCO_p = Σ_m b_m + Σ_m u_m·S_p,m          NPV_p = Σ_m d_m·b_m + Σ_m d_m·u_m·S_p,m

which is one matrix product per chunk of paths: no Python loop over paths. Paths are drawn in
chunks of CHUNK (fixed, so results do not depend on the machine) from one seeded generator.

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

CHUNK = 50_000
FAN_MAX_PATHS = 50_000
"""The monthly fan (P5/P50/P95 per month) is taken from at most this many paths."""


def drift(fx) -> float:
    from tco.fx import parity_drift

    return fx.drift if fx.drift is not None else parity_drift(fx.brl_rate, fx.usd_rate)


def gbm_paths(rng: np.random.Generator, n: int, horizon: int, s0: float, mu: float, sigma: float,
              antithetic: bool = True, buffers: tuple[np.ndarray, np.ndarray] | None = None,
              log_base: np.ndarray | None = None) -> np.ndarray:
    """n GBM paths of monthly USD/BRL, shape (n, H).

    With antithetic pairs the second half of the paths mirrors the first: ln S = drift ∓ σ√Δt·ΣZ,
    so only ⌈n/2⌉·H normal variates are drawn and one cumulative sum serves both halves.
    `buffers` = (paths, variates) arrays of at least (n, H) and (⌈n/2⌉, H) to fill instead of allocating
    (the numbers are the same; a fresh 50,000 × 120 array costs its page faults on every chunk).
    """
    dt = 1.0 / 12.0
    m = np.arange(1, horizon + 1)
    drift_path = ((np.log(s0) + mu * dt * m) if log_base is None else log_base[:horizon]) - 0.5 * sigma * sigma * dt * m
    half = (n + 1) // 2 if antithetic else n
    if buffers is None:
        w = rng.standard_normal((half, horizon))
        out = np.empty((n, horizon))
    else:
        w = rng.standard_normal(out=buffers[1][:half, :horizon])
        out = buffers[0][:n, :horizon]
    np.cumsum(w, axis=1, out=w)
    w *= sigma * np.sqrt(dt)
    np.add(drift_path, w, out=out[:half])
    if antithetic:
        np.subtract(drift_path, w[: n - half], out=out[half:])
    return np.exp(out, out=out)


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
            # percentiles along contiguous rows (month-major) are several times faster than down columns
            q_rates = np.percentile(np.ascontiguousarray(np.concatenate(fan).T), [5, 50, 95], axis=1)  # (3, H)
        ranked = tco if feasible[group].all() else np.where(feasible[group], tco, np.inf)
        if len(groups) == 1:
            cheapest = np.bincount(np.argmin(ranked, axis=1), minlength=len(parts)) / paths
        else:  # running minimum; ties go to the earlier option, as argmin over all options would
            local = np.argmin(ranked, axis=1)
            val = ranked[np.arange(paths), local]
            if best_val is None:
                best_val, best_idx = val, local + group.start
            else:
                better = val < best_val
                best_val = np.where(better, val, best_val)
                best_idx = np.where(better, local + group.start, best_idx)
        for c, j in enumerate(group):
            stats[j] = (float(tco[:, c].mean()), np.percentile(tco[:, c], [5, 50, 95]),
                        float(npv[:, c].mean()), np.percentile(npv[:, c], [5, 50, 95]), tco[:, c].copy())
        del tco, npv, ranked
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


def _simulate_group(res, parts: list, disc: np.ndarray, paths: int, seed: int, progress, keep_fan: bool):
    """TCO and NPV (paths × options of the group) on the scenario's rate paths, and the first
    FAN_MAX_PATHS rate paths when `keep_fan`."""
    brl_tco = np.array([b.sum() for b, _ in parts])
    brl_npv = np.array([b @ disc for b, _ in parts])
    usd = np.stack([u for _, u in parts], axis=1)  # (H, O)
    usd_disc = usd * disc[:, None]
    usd_both = np.ascontiguousarray(np.concatenate([usd, usd_disc], axis=1))
    k = usd.shape[1]
    tco = np.empty((paths, len(parts)))
    npv = np.empty((paths, len(parts)))
    fan_rates = []
    kept = 0
    at = 0
    for chunk in rate_paths(res, paths, seed, progress, reuse=True):
        m = len(chunk)
        both = chunk @ usd_both  # one product gives TCO and NPV
        tco[at:at + m] = brl_tco + both[:, :k]
        npv[at:at + m] = brl_npv + both[:, k:]
        if keep_fan and kept < FAN_MAX_PATHS:
            take = chunk[: FAN_MAX_PATHS - kept].copy()  # the buffer is refilled by the next chunk
            fan_rates.append(take)
            kept += len(take)
        at += m
    return tco, npv, fan_rates


def fx_fan(res, paths: int, seed: int) -> dict[str, np.ndarray]:
    """P5/P50/P95 of the USD/BRL rate per month (for charts)."""
    rates = np.concatenate(list(rate_paths(res, min(paths, FAN_MAX_PATHS), seed)))
    q = np.percentile(np.ascontiguousarray(rates.T), [5, 50, 95], axis=1)
    return {"p5": q[0], "p50": q[1], "p95": q[2]}
