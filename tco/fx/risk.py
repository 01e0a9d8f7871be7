"""Monte Carlo of USD/BRL on top of the deterministic cash flows.

Each option's monthly cost splits into a BRL part b_m and a USD part u_m (the USD lines of the
ledger, taxes included). On a rate path S_p,m the option costs b_m + u_m·S_p,m in month m, so

    TCO_p = Σ_m b_m + Σ_m u_m·S_p,m          NPV_p = Σ_m d_m·b_m + Σ_m d_m·u_m·S_p,m

which is one matrix product per block of paths (tco.fx.sums): no Python loop over paths. An option without
USD costs costs the same on every path: it is not simulated (its percentiles are its value).

The paths come a chunk at a time (CHUNK paths, tco.fx.paths) and are not kept: each chunk adds to the sums of
the means, to the count of each option being the cheapest, and to the exact percentiles (`StreamPercentiles`:
the first chunk brackets each order statistic, the others count what falls below and keep what falls inside).
Memory is a few chunks (and, for the bootstrap, the fan's 50,000 paths), whatever the number of paths. The monthly
fan of a GBM is not drawn: each month's rate is lognormal, its percentiles known exactly (`gbm_fan`). A mean is Σ over
chunks of the chunk's sum (numpy's pairwise sum), divided by the number of paths: np.mean itself up to one chunk.
Same seed, same bits, however the work is cut (block size, BLAS threads): tests/test_risk.py checks it bit for bit.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco import finance
from tco.domain import Dist, FxModel
from tco.domain.run_info import MonteCarloInfo
from tco.fx.quantiles import PERCENTILES, StreamPercentiles
from tco.fx.paths import (  # noqa: F401  re-exported: the paths live in tco.fx.paths
    CHUNK, bootstrap_paths, drift, gbm_factors, gbm_paths, gbm_trend, rate_paths)
from tco.fx.sums import chunk_sums

FAN_MAX_PATHS = 50_000
"""The bootstrap's monthly fan (P5/P50/P95 per month) is taken from at most this many paths (the first chunk's); the
GBM's is exact (`gbm_fan`)."""
WORK_BYTES = 1 << 30
"""Budget [bytes] for the per-path arrays kept when a percentile must be computed again from all the paths (a
bracket of `StreamPercentiles` missed, improbable): 8 B per path and row, in groups of rows that fit (each group
drawing the same paths again from the same seed)."""


def describe(s) -> MonteCarloInfo:
    """What the Monte Carlo model of scenario `s` reports about itself: the drift (GBM), the centring, antithetic
    pairs (GBM), the chunk size, and the bootstrap's block length and history."""
    fx = s.fx
    gbm = fx.model == FxModel.GBM
    if fx.model == FxModel.BOOTSTRAP:
        from tco.fx.history import history_label

        return MonteCarloInfo(drift=None, centred_on="base path", antithetic=False, chunk_paths=CHUNK,
                              block_months=fx.block_months, history=history_label(fx))
    return MonteCarloInfo(drift=fx.drift if gbm else None, centred_on="base path", antithetic=gbm, chunk_paths=CHUNK)


def option_groups(n_options: int, paths: int, budget: int | None = None) -> list[range]:
    """Consecutive groups of option indices whose (paths × group) TCO and NPV arrays fit in `budget`
    [bytes, default WORK_BYTES]; at least one option per group."""
    budget = WORK_BYTES if budget is None else budget
    size = max(1, min(n_options, budget // max(1, 16 * paths)))
    return [range(a, min(a + size, n_options)) for a in range(0, n_options, size)]


def simulate(res, *, paths: int, seed: int, progress=None, keep_samples: bool = False) -> list:
    """Options with their TCO/NPV distributions, monthly fan and probability of being cheapest; with
    `keep_samples`, each option's TCO on every path too (`tco_samples`: 8 B per path and option)."""
    h = len(res.months)
    disc = finance.discount_factors(h, res.scenario.scenario.discount_rate)
    parts = [res.ledger.by_currency(o.name) for o in res.options]
    brl = [(float(b.sum()), float(b @ disc)) for b, _ in parts]
    gbm = res.scenario.fx.model == FxModel.GBM
    fan = None if gbm else np.empty((h, min(paths, FAN_MAX_PATHS)))
    stats, cheapest = _simulate(res, parts, brl, disc, paths, seed, progress, fan, keep_samples)
    q_rates = gbm_fan(res) if fan is None else np.percentile(fan, PERCENTILES, axis=1, overwrite_input=True)  # (3, H)
    del fan
    out = []
    for j, o in enumerate(res.options):
        b, u = parts[j]
        if j not in stats:  # no USD costs: the same on every path (np.percentile of equal values is the value)
            t, n = brl[j]
            stats[j] = (_mean_of_constant(t, paths), [t] * 3, _mean_of_constant(n, paths), [n] * 3,
                        np.full(paths, t) if keep_samples else None)
        t_mean, tq, n_mean, nq, samples = stats[j]
        fan_brl = {"p5": b + u * q_rates[0], "p50": b + u * q_rates[1], "p95": b + u * q_rates[2]}
        out.append(replace(o, tco=Dist(o.tco.deterministic, t_mean, *map(float, tq)),
                           npv=Dist(o.npv.deterministic, n_mean, *map(float, nq)),
                           fan_brl=fan_brl, tco_samples=samples, prob_cheapest=float(cheapest[j])))
    return out


def _simulate(res, parts, brl, disc, paths: int, seed: int, progress, fan, keep_samples: bool):
    """({option with USD costs: (TCO mean, TCO percentiles, NPV mean, NPV percentiles, TCO samples or None)},
    share of paths on which each option is the cheapest), the fan's rates written into `fan` (bootstrap; None: GBM)."""
    live = [j for j, (_, u) in enumerate(parts) if np.any(u)]
    usd = np.array([parts[j][1] for j in live]).reshape(len(live), len(disc))
    weights = np.concatenate([usd, usd * disc], axis=0)  # (2L, H): TCO rows, NPV rows
    shift = np.array([brl[j][0] for j in live] + [brl[j][1] for j in live])
    wins = np.zeros(len(parts), dtype=np.int64)  # paths on which each option is the cheapest
    pct = StreamPercentiles(len(weights), paths, vouched_finite=True)  # the sums in `totals` say
    totals = np.zeros(len(weights))
    kept = []
    for at, sums in chunk_sums(res, weights, paths, seed, progress, fan):
        if not live:
            break  # the fan's paths only
        sums += shift[:, None]
        totals += [np.add.reduce(row) for row in sums]
        wins += _wins(res.options, brl, live, sums, sums.shape[1])
        pct.add(sums)
        if keep_samples:
            kept.append(sums[: len(live)].copy())
    if not live:  # every path the same: one stands for all
        if progress is not None:
            progress(paths, paths)  # nothing else to draw
        return {}, _wins(res.options, brl, live, None, 1).astype(float)
    q = pct.result() if np.isfinite(totals).all() else None
    if q is None:
        q = _again(res, weights, shift, paths, seed)
    means = totals / paths
    samples = np.concatenate(kept, axis=1) if keep_samples else None
    n = len(live)
    stats = {j: (float(means[r]), q[r], float(means[n + r]), q[n + r], None if samples is None else samples[r])
             for r, j in enumerate(live)}
    return stats, wins / paths


def _mean_of_constant(value: float, paths: int) -> float:
    """The mean of `paths` copies of value, summed as the simulated options' are (chunk by chunk: each full
    chunk's sum is the same float, computed once)."""
    full = float(np.add.reduce(np.full(min(CHUNK, paths), value)))
    total = 0.0
    for at in range(0, paths, CHUNK):
        m = min(CHUNK, paths - at)
        total += full if m == CHUNK or m == paths else float(np.add.reduce(np.full(m, value)))
    return total / paths


def _wins(options, brl, live: list[int], sums, m: int) -> np.ndarray:
    """On how many of m paths each option is the cheapest: the simulated TCO rows of `sums` for the options in
    `live`, the BRL total for the others. The counts of `_cheapest` (argmin with infeasible options at +inf, ties
    to the earlier option, none feasible: option 0; tests check it) without its masked write per option (on
    random masks numpy's masked write costs some twenty comparisons): option j is the cheapest where it is below
    every earlier feasible option and not above any later one (prefix and suffix minima)."""
    out = np.zeros(len(options), dtype=np.int64)
    feasible = [j for j, o in enumerate(options) if o.feasible]
    if not feasible:
        out[0] = m
        return out
    rows = [sums[live.index(j)] if j in live else brl[j][0] for j in feasible]
    quick = _wins_without_ties(rows, m)
    if quick is not None:
        out[feasible] = quick
        return out
    later: list = [None] * len(rows)  # later[i]: the minimum of the rows after i
    for i in range(len(rows) - 1, 0, -1):
        later[i - 1] = rows[i] if later[i] is None else np.minimum(rows[i], later[i])
    before = np.inf  # the minimum of the rows before i
    for i, j in enumerate(feasible):
        won = np.less(rows[i], before)
        if later[i] is not None:
            won = won & np.less_equal(rows[i], later[i])
        out[j] = np.count_nonzero(won) if np.ndim(won) else m * bool(won)
        before = np.minimum(before, rows[i])
    return out


def _wins_without_ties(rows: list, m: int) -> list[int] | None:
    """How often each row (an array of m values, or one value for all) is the minimum, when no path has two rows
    at its minimum (then each path counts once: the counts add up to m; and the minimum is finite), else None.
    Half the passes of `_wins`'s prefix and suffix minima; ties (options with the same USD costs) go there."""
    arrays = [r for r in rows if np.ndim(r)]
    if not arrays:
        return None
    low = arrays[0].copy()
    for r in rows:
        if r is not arrays[0]:
            np.minimum(low, r, out=low)
    if not np.isfinite(np.add.reduce(low)):
        return None
    counts = [int(np.count_nonzero(np.equal(r, low))) for r in rows]
    return counts if sum(counts) == m else None


def _again(res, weights: np.ndarray, shift: np.ndarray, paths: int, seed: int) -> np.ndarray:
    """The percentiles of every row of weights @ S + shift from all the paths kept, in groups of rows that fit
    WORK_BYTES (a group has two rows at least: a product of one row is a different BLAS routine)."""
    out = np.empty((len(weights), 3))
    for group in option_groups(len(weights), paths, 2 * WORK_BYTES):  # 16 B per path and option: 8 per row
        rows = list(group) if len(group) > 1 else [group[0], group[0]]
        full = np.empty((len(rows), paths))
        for at, sums in chunk_sums(res, weights[rows], paths, seed):
            np.add(sums, shift[rows, None], out=full[:, at:at + sums.shape[1]])
        for r, row in zip(group, full, strict=False):
            out[r] = np.percentile(row, PERCENTILES)
    return out


class _Cheapest:
    """The cheapest feasible option of each path, the options added in order: what ``argmin`` over all of them
    gives with infeasible ones at +inf (ties: the earlier option; none feasible: option 0)."""

    def __init__(self, paths: int):
        self.idx = np.zeros(paths, dtype=np.intp)
        self.val = np.full(paths, np.inf)

    def add(self, j: int, tco, feasible: bool) -> None:
        """Option j, its TCO on each path (an array, or one value for every path)."""
        if feasible:
            self.idx[tco < self.val] = j
            np.minimum(self.val, tco, out=self.val)


def _cheapest(tco: np.ndarray, feasible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the cheapest feasible row, its value) for each path (column) of tco (options × paths)."""
    best = _Cheapest(tco.shape[1])
    for c in range(len(tco)):
        best.add(c, tco[c], bool(feasible[c]))
    return best.idx, best.val


def fx_fan(res, paths: int, seed: int) -> dict[str, np.ndarray]:
    """P5/P50/P95 of the USD/BRL rate per month (for charts): the simulation's fan (GBM: exact, `gbm_fan`;
    bootstrap: the first chunk's paths)."""
    if res.scenario.fx.model == FxModel.GBM:
        q = gbm_fan(res)
    else:
        fan = np.empty((len(res.months), min(paths, FAN_MAX_PATHS)))
        for _ in chunk_sums(res, np.zeros((0, len(res.months))), paths, seed, fan=fan):
            pass
        q = np.percentile(fan, PERCENTILES, axis=1, overwrite_input=True)
    return {"p5": q[0], "p50": q[1], "p95": q[2]}


def gbm_fan(res) -> np.ndarray:
    """P5/P50/P95 of the GBM rate in each month, (3, H), exactly rather than from paths.

    On the GBM paths (tco.fx.paths) ln S_m = ln B_m − σ²·m/24 + σ·√(1/12)·Σ_{k≤m} Z_k is normal with mean
    ln B_m − σ²·m/24 and variance σ²·m/12 in every month, so its quantile p is the trend times e^(σ·√(m/12)·z_p),
    z_p the standard normal quantile (z_0.95 = 1.6449): what the paths' own percentiles tend to, without their noise
    (from 50,000 paths, about ±0.5 % at P5 and P95 after ten years at σ = 15 %). Antithetic pairs change no month's
    distribution; σ = 0 gives the base path three times."""
    from statistics import NormalDist

    fx = res.scenario.fx
    h = len(res.months)
    trend = gbm_trend(h, fx.usdbrl, 0.0, fx.volatility, np.log(np.asarray(res.fx_path, dtype=float)))
    spread = fx.volatility * np.sqrt(np.arange(1, h + 1) / 12.0)
    return np.array([trend * np.exp(spread * NormalDist().inv_cdf(p / 100)) for p in PERCENTILES])
