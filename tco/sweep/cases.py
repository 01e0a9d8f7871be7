"""The cases of a sweep: each axis's values (a list, a range, draws from a distribution) and their design
(every combination, or a Latin hypercube), seeded so the same sweep file always gives the same cases in the
same order (``--resume`` relies on it).

Draws are stratified: n draws of a distribution take one uniform number in each of n equal slices of [0, 1)
(u_i = (π_i + r_i) / n, π a random permutation, r uniform on [0, 1)) and map it through the inverse
distribution function. A Latin hypercube does that for every axis at once with independent permutations, so
each axis's marginal is covered evenly with n cases whatever the number of axes [McKay, Beckman & Conover,
Technometrics 21(2), 1979]. A list or a range in a Latin hypercube is picked by ⌊u · count⌋.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from tco.sweep.spec import Axis, Distribution, Range, SweepFile


def range_values(r: Range) -> list[float]:
    """start, start + step, … up to stop (included within 1e-9 of a step), each shown to 12 digits.

    >>> range_values(Range(start=4.5, stop=5.0, step=0.25))
    [4.5, 4.75, 5.0]
    """
    count = math.floor((r.stop - r.start) / r.step + 1e-9) + 1
    return [float(f"{r.start + i * r.step:.12g}") for i in range(count)]


def inverse(d: Distribution, u: np.ndarray) -> np.ndarray:
    """The distribution's inverse CDF at u ∈ (0, 1).

    Triangular [low a, mode c, high b], F(c) = (c − a)/(b − a): x = a + √(u (b − a)(c − a)) below it,
    b − √((1 − u)(b − a)(b − c)) above it."""
    u = np.clip(np.asarray(u, dtype=float), 1e-12, 1 - 1e-12)
    if d.kind == "uniform":
        assert d.low is not None and d.high is not None
        return d.low + u * (d.high - d.low)
    if d.kind == "loguniform":
        assert d.low is not None and d.high is not None
        return np.exp(math.log(d.low) + u * (math.log(d.high) - math.log(d.low)))
    if d.kind == "triangular":
        a, c, b = d.low, d.mode, d.high
        assert a is not None and b is not None and c is not None
        left = u < (c - a) / (b - a)
        with np.errstate(over="ignore", invalid="ignore"):  # a span past the float range: ±inf, refused per axis
            return np.where(left, a + np.sqrt(u * (b - a) * (c - a)), b - np.sqrt((1 - u) * (b - a) * (b - c)))
    assert d.mean is not None and d.sd is not None
    nd = NormalDist(d.mean, d.sd)
    return np.array([nd.inv_cdf(float(x)) for x in u])


def stratified(n: int, rng: np.random.Generator) -> np.ndarray:
    """n uniform numbers, one in each slice [i/n, (i+1)/n), in random order."""
    return (rng.permutation(n) + rng.random(n)) / n


def _shaped(values, integer: bool) -> list:
    """Python values (never numpy scalars, which TOML and pydantic treat differently); rounded for an integer key."""
    if integer:  # a draw that overflowed (±inf) stays a float: the axis check reports it, never int() (OverflowError)
        return [int(round(float(v))) if math.isfinite(float(v)) else float(v) for v in values]
    return [v if isinstance(v, (str, bool)) else float(v) if isinstance(v, (float, np.floating)) else v
            for v in values]


def discrete(axis: Axis) -> list | None:
    """The axis's listed values (a list or a range), None for a distribution."""
    if axis.values is not None:
        return list(axis.values)
    if axis.range is not None:
        return range_values(axis.range)
    return None


def count(sweep: SweepFile) -> int:
    """How many cases the sweep makes (computed before any is built)."""
    if sweep.sweep.design == "lhs":
        return sweep.sweep.samples
    n = 1
    for a in sweep.axes:
        vals = discrete(a)
        n *= len(vals) if vals is not None else (a.samples or sweep.sweep.samples)
    return n


def axis_levels(sweep: SweepFile, integer: dict[str, bool]) -> list[list]:
    """Grid design: each axis's values (a distribution's draws stratified and sorted), in axis order."""
    rng = np.random.default_rng(sweep.sweep.seed)
    out = []
    for a in sweep.axes:
        vals = discrete(a)
        if vals is None:
            assert a.distribution is not None
            vals = sorted(inverse(a.distribution, stratified(a.samples or sweep.sweep.samples, rng)).tolist())
        out.append(_shaped(vals, integer.get(a.column, False)))
    return out


def generate(sweep: SweepFile, integer: dict[str, bool]) -> list[tuple]:
    """Every case as a tuple of axis values (in axis order), case i at position i."""
    if sweep.sweep.design == "grid":
        import itertools

        return list(itertools.product(*axis_levels(sweep, integer)))
    rng = np.random.default_rng(sweep.sweep.seed)
    n = sweep.sweep.samples
    columns = []
    for a in sweep.axes:
        u = stratified(n, rng)
        vals = discrete(a)
        if vals is None:
            assert a.distribution is not None
            col = inverse(a.distribution, u).tolist()
        else:
            col = [vals[min(int(x * len(vals)), len(vals) - 1)] for x in u]
        columns.append(_shaped(col, integer.get(a.column, False)))
    return list(zip(*columns))
