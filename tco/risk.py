"""Monte Carlo of USD/BRL on top of the deterministic cash flows.

Each option's monthly cost splits into a BRL part b_m and a USD part u_m (the USD lines of the
ledger, taxes included). On a rate path S_p,m the option costs b_m + u_m·S_p,m in month m, so

    TCO_p = Σ_m b_m + Σ_m u_m·S_p,m          NPV_p = Σ_m d_m·b_m + Σ_m d_m·u_m·S_p,m

which is one matrix product per block of paths: no Python loop over paths. The paths are those of
tco.risk_paths (chunks of CHUNK from one seeded generator). An option without USD costs costs the same on every
path: it is not simulated (its percentiles are its value). GBM paths are never written out:
S_p,m = S_0·e^(d_m)·E_p,m with random factors E (`risk_paths.gbm_factors`), so the products run on E with
weights u_m·S_0·e^(d_m), BLOCK paths at a time (`_gbm_sums`).

Same seed, same bytes, however the work is cut: every matrix product has the same shape (BLOCK paths; a last,
shorter block is padded), and each path's sum then has the same floating-point operations whatever the number
of paths, the option groups or OpenBLAS's threads (tests/test_risk.py checks it bit for bit).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco import finance
from tco.domain import Dist, FxModel
from tco.quantiles import percentiles, row_percentiles
from tco.risk_paths import (  # noqa: F401  re-exported: the paths live in tco.risk_paths
    CHUNK, bootstrap_paths, drift, gbm_factors, gbm_paths, gbm_trend, rate_paths)

FAN_MAX_PATHS = 50_000
"""The monthly fan (P5/P50/P95 per month) is taken from at most this many paths (the first chunk's)."""
BLOCK = 2048
"""Paths computed at a time, and the width of every matrix product (a multiple of 64: OpenBLAS then runs its full
kernels on every column, so a path's sum does not depend on where it falls). A block's factors, 120 × 2048
floats, stay in the cache from the draw to the products."""
WORK_BYTES = 1 << 30
"""Budget [bytes] for the per-path arrays of one group of options (TCO and NPV, 16 B per path and option with
USD costs). When paths × options exceed it, the options are simulated in groups, each group drawing the same
paths again from the same seed: memory stays bounded (1e7 paths × 20 options in about 1.3 GiB), at the price of
drawing again. Below it (1 M paths × 64 options) there is one group."""


def describe(s) -> dict:
    fx = s.fx
    gbm = fx.model == FxModel.GBM
    out = {"volatility": fx.volatility, "drift": fx.drift if gbm else None, "centred_on": "base path",
           "antithetic": gbm, "chunk_paths": CHUNK}
    if fx.model == FxModel.BOOTSTRAP:
        from tco.fx import history_label

        out |= {"block_months": fx.block_months, "history": history_label(fx)}
    return out


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
    feasible = [o.feasible for o in res.options]  # infeasible options are never "the cheapest"
    brl = [(float(b.sum()), float(b @ disc)) for b, _ in parts]
    live = [j for j, (_, u) in enumerate(parts) if np.any(u)]
    stats = {j: _constant(t, n, paths, keep_samples) for j, (t, n) in enumerate(brl) if j not in live}
    best = _Cheapest(paths)
    q_rates = None
    groups = option_groups(len(live), paths) or [range(0)]
    for gi, group in enumerate(groups):
        cols = [live[r] for r in group]
        usd = np.array([parts[j][1] for j in cols]).reshape(len(cols), h)
        weights = np.concatenate([usd, usd * disc], axis=0)  # (2L, H): TCO rows, NPV rows
        fan = np.empty((h, min(paths, FAN_MAX_PATHS))) if q_rates is None else None
        sums = _sums(res, weights, paths, seed, progress if gi == len(groups) - 1 else None, fan)
        if fan is not None:
            q_rates = row_percentiles(fan)  # (3, H)
            del fan
        upto = cols[-1] if gi < len(groups) - 1 else len(parts) - 1
        for j in range(best.done, upto + 1):  # every option in order: ties go to the earlier one
            if j in stats:
                best.add(j, brl[j][0], feasible[j])
                continue
            r = cols.index(j)
            tco, npv = sums[r], sums[len(cols) + r]
            tco += brl[j][0]
            npv += brl[j][1]
            best.add(j, tco, feasible[j])
            stats[j] = (float(tco.mean()), percentiles(tco), float(npv.mean()), percentiles(npv),
                        tco.copy() if keep_samples else None)
        del sums
    cheapest = best.shares(len(parts))
    assert q_rates is not None  # the first group kept the fan's paths
    out = []
    for j, o in enumerate(res.options):
        b, u = parts[j]
        t_mean, tq, n_mean, nq, samples = stats[j]
        fan_brl = {"p5": b + u * q_rates[0], "p50": b + u * q_rates[1], "p95": b + u * q_rates[2]}
        out.append(replace(o, tco=Dist(o.tco.deterministic, t_mean, *map(float, tq)),
                           npv=Dist(o.npv.deterministic, n_mean, *map(float, nq)),
                           fan_brl=fan_brl, tco_samples=samples, prob_cheapest=float(cheapest[j])))
    return out


def _constant(tco: float, npv: float, paths: int, keep_samples: bool) -> tuple:
    """The statistics of an option that costs the same on every path: its percentiles are its value (what
    np.percentile gives: the interpolation between two equal values), its mean the mean of `paths` copies."""
    row = np.full(paths, tco)
    return (float(row.mean()), [tco] * 3, float(np.full(paths, npv).mean()), [npv] * 3,
            row if keep_samples else None)


class _Cheapest:
    """The cheapest feasible option of each path, the options added one at a time in order: what ``argmin``
    over all of them gives with infeasible ones at +inf (ties: the earlier option; none feasible: option 0)."""

    def __init__(self, paths: int):
        self.idx = np.zeros(paths, dtype=np.intp)
        self.val = np.full(paths, np.inf)
        self.done = 0

    def add(self, j: int, tco, feasible: bool) -> None:
        """Option j (the next one), its TCO per path (an array, or one value for every path)."""
        assert j == self.done
        self.done += 1
        if feasible:
            better = tco < self.val
            self.idx[better] = j
            np.minimum(self.val, tco, out=self.val)

    def shares(self, n_options: int) -> np.ndarray:
        return np.bincount(self.idx, minlength=n_options) / len(self.idx)


def _cheapest(tco: np.ndarray, feasible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the cheapest feasible row, its value) for each path (column) of tco (options × paths)."""
    best = _Cheapest(tco.shape[1])
    for c in range(len(tco)):
        best.add(c, tco[c], bool(feasible[c]))
    return best.idx, best.val


def _sums(res, weights: np.ndarray, paths: int, seed: int, progress, fan) -> np.ndarray:
    """weights @ S_p for every path p (weights × paths) on the scenario's rate paths, and, when `fan` is given,
    its first columns' rates month by month (H × its width). Without weights only the fan's paths are drawn."""
    if res.scenario.fx.model == FxModel.GBM:
        return _gbm_sums(res, weights, paths, seed, progress, fan)
    out = np.empty((len(weights), paths))
    rates = np.ones((len(res.months), BLOCK))  # month × path, as for GBM: the same products
    at = 0
    for chunk in rate_paths(res, paths if len(weights) else 0 if fan is None else fan.shape[1], seed, progress):
        m = len(chunk)
        for a in range(0, m, BLOCK):
            b = min(a + BLOCK, m)
            rates[:, : b - a] = chunk[a:b].T
            _product(weights, rates, b - a, out, at + a)
        if fan is not None and at < fan.shape[1]:
            take = min(m, fan.shape[1] - at)
            fan[:, at:at + take] = chunk[:take].T
        at += m
    return out


def _product(w: np.ndarray, e: np.ndarray, n: int, out: np.ndarray, at: int) -> None:
    """out[:, at:at+n] = (w @ e)[:, :n], e being BLOCK paths wide (its columns past n are padding)."""
    if not len(w):
        return
    if n == e.shape[1]:
        np.matmul(w, e, out=out[:, at:at + n])
    else:
        out[:, at:at + n] = (w @ e)[:, :n]


def _gbm_sums(res, weights, paths: int, seed: int, progress, fan) -> np.ndarray:
    """`_sums` for GBM, on the factors E instead of the rates.

    Σ_m w_m·S_m = Σ_m (w_m·S_0·e^(d_m))·E_m, and the mirrored path has 1/E in place of E. The factors of a block
    of paths are drawn, summed month by month and exponentiated as `gbm_factors` does (the same variates in the
    same order, the same operations on each), but laid out month × path, so that the running sum over months is
    a row added to the next and the product needs no transpose; the mirror is a reciprocal in place."""
    fx = res.scenario.fx
    h = len(res.months)
    trend = gbm_trend(h, fx.usdbrl, 0.0, fx.volatility, np.log(np.asarray(res.fx_path, dtype=float)))
    wt = np.ascontiguousarray(weights * trend)
    n_fan = 0 if fan is None else fan.shape[1]
    todo = paths if len(wt) else n_fan
    out = np.empty((len(wt), todo))
    z = np.empty((BLOCK, h))
    e = np.ones((h, BLOCK))  # month × path: padding columns stay finite
    scale = fx.volatility * np.sqrt(1.0 / 12.0)
    rng = np.random.default_rng(seed)
    at = 0
    while at < todo:
        m = min(CHUNK, paths - at)
        half = (m + 1) // 2
        mirror = m - half
        for i in range(0, half, BLOCK):
            j = min(i + BLOCK, half)
            _factors(rng, z[: j - i], e, scale)
            _fan_rows(fan, n_fan, trend, e[:, : j - i], at + i)
            _product(wt, e, j - i, out, at + i)
            k = max(0, min(j, mirror) - i)  # paths of this block whose mirror is a path too
            if k:
                np.reciprocal(e[:, :k], out=e[:, :k])
                _fan_rows(fan, n_fan, trend, e[:, :k], at + half + i)
                _product(wt, e, k, out, at + half + i)
        at += m
        if progress is not None:
            progress(at, paths)
    return out


def _factors(rng: np.random.Generator, z: np.ndarray, e: np.ndarray, scale: float) -> None:
    """E = exp(scale·ΣZ) of len(z) paths into e's first columns (month × path), from len(z) × H fresh variates."""
    n, h = z.shape
    rng.standard_normal(out=z)
    f = e[:, :n]
    np.copyto(f[0], z[:, 0])
    for m in range(1, h):  # the running sum, month by month: the additions np.cumsum makes, in its order
        np.add(f[m - 1], z[:, m], out=f[m])
    f *= scale
    np.exp(f, out=f)


def _fan_rows(fan, n_fan: int, trend: np.ndarray, e: np.ndarray, at: int) -> None:
    """Rates trend·e of paths at, at+1, … (e: month × path) into the fan's columns (those below n_fan)."""
    if fan is None or at >= n_fan:
        return
    take = min(e.shape[1], n_fan - at)
    np.multiply(trend[:, None], e[:, :take], out=fan[:, at:at + take])


def fx_fan(res, paths: int, seed: int) -> dict[str, np.ndarray]:
    """P5/P50/P95 of the USD/BRL rate per month (for charts): the rates of the simulation's fan."""
    fan = np.empty((len(res.months), min(paths, FAN_MAX_PATHS)))
    _sums(res, np.zeros((0, len(res.months))), paths, seed, None, fan)
    q = row_percentiles(fan)
    return {"p5": q[0], "p50": q[1], "p95": q[2]}
