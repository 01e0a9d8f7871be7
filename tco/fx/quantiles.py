"""Exact percentiles of paths that arrive a chunk at a time, without keeping them: ``StreamPercentiles``.

The Monte Carlo's sums come in chunks of paths (tco.fx.sums); keeping every path of every option to call
np.percentile would cost 8 B per path and row (3.2 GB at 10⁷ paths × 20 options × TCO and NPV). Instead the first
chunk brackets each order statistic, every chunk counts the values below each bracket and keeps the few inside,
and the order statistics are found among those: exactly ``np.percentile(row, q)`` (numpy's default linear method,
the same floats; tests/fx/test_fx_quantiles.py checks it bit for bit). A bracket that misses its rank (improbable)
or a non-finite value says so (``result`` is None) and the caller computes again from all the paths, in groups of
rows that fit (``tco.fx.risk``), as it does for every row with ``TCO_PLAIN`` (``tco.plain``).

(The module also held a faster ``percentiles`` of one array and a ``row_percentiles`` by selection, twins of
np.percentile; they saved nothing on the seed run (its 10,000 paths are under their threshold and its GBM fan is
exact) and 14 ms on a bootstrap run's fan, and were removed: np.percentile is called instead.)
"""

from __future__ import annotations

import numpy as np

from tco.plain import plain

PERCENTILES = (5, 50, 95)
"""The percentiles every distribution of the outputs reports: P5, P50, P95 (the TCO's, the NPV's, the fans')."""


def _positions(n: int, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's "linear" method: the previous and next index of each virtual index (n − 1)·q, and gamma."""
    virtual = (n - 1) * qs
    prev = np.floor(virtual).astype(np.intp)
    return prev, np.minimum(prev + 1, n - 1), np.asanyarray(virtual - prev, dtype=virtual.dtype)


def _lerp(a, b, gamma) -> np.ndarray:
    """numpy 2.x's ``_lerp``: a + (b − a)·γ, or b − (b − a)·(1 − γ) where γ ≥ 0.5 (the same floats)."""
    diff_b_a = b - a
    out = np.add(a, diff_b_a * gamma)
    np.subtract(b, diff_b_a * (1 - gamma), out=out, where=gamma >= 0.5, casting="unsafe", dtype=out.dtype.type)
    return out


class StreamPercentiles:
    """``np.percentile(row, q)`` of each row of a (rows × n) float64 array that arrives in chunks of columns, the
    same floats, without keeping the array: the first chunk (a random sample of the paths) brackets each order
    statistic between two of its values (±6 standard deviations of its rank, plus a margin, as `percentiles`
    does); every chunk then adds its count of values below each bracket and keeps the few values inside. `result`
    is None if a bracket missed its rank (improbable) or a value was not finite: the caller computes again."""

    def __init__(self, rows: int, n: int, q=PERCENTILES, vouched_finite: bool = False):
        self.qs = np.true_divide(q, 100)
        self.n = n
        self.prev, self.next, self.gamma = _positions(n, self.qs)
        self.lo: np.ndarray | None = None
        self.hi = np.empty((rows, len(self.qs)))
        self.below = [[0] * len(self.qs) for _ in range(rows)]  # values below each bracket, by row
        self.inside: list[list[list[np.ndarray]]] = [[[] for _ in self.qs] for _ in range(rows)]
        self.finite = True
        self.vouched = vouched_finite
        """The caller checks the values are finite itself (a sum of each row, say): no pass here."""

    def add(self, chunk: np.ndarray) -> None:
        """The next chunk of columns (rows × m): a row at a time (its 8·m bytes stay in the cache for the 3·len(q)
        passes over it), into preallocated masks."""
        if not self.vouched and not np.isfinite(chunk.sum()):
            self.finite = False
            return
        if self.lo is None:
            self.brackets(chunk)
        assert self.lo is not None
        m = chunk.shape[1]
        lt, inside = np.empty(m, dtype=bool), np.empty(m, dtype=bool)
        for row, lo, hi, below, kept in zip(chunk, self.lo.tolist(), self.hi.tolist(), self.below, self.inside,
                                            strict=True):
            for i, (a, b) in enumerate(zip(lo, hi, strict=True)):
                np.less(row, a, out=lt)
                below[i] += int(np.count_nonzero(lt))
                np.less_equal(row, b, out=inside)
                np.greater(inside, lt, out=inside)  # ≤ hi and not < lo
                kept[i].append(row[inside])

    def brackets(self, pilot: np.ndarray) -> None:
        """Bracket each order statistic from `pilot` (rows × k): a random sample of each row's values, the first
        chunk by default (`add`), or a few columns of the rows when they come in one chunk (`row_percentiles`)."""
        self._brackets(pilot)

    def _brackets(self, pilot: np.ndarray) -> None:
        ns = pilot.shape[1]
        ends = []  # (lo position or None: unbounded, hi position or None) of each bracket in the ordered pilot
        for p in self.qs.tolist():
            centre = p * (ns - 1)
            spread = 6.0 * np.sqrt(ns * p * (1.0 - p)) + 8.0
            lo, hi = int(centre - spread), int(centre + spread) + 1  # past the first chunk's ends: unbounded
            ends.append((lo if centre - spread >= 0 else None, hi if hi <= ns - 1 else None))
        ordered = np.array(pilot, dtype=float)  # partitioned at those positions only (`_select`), not sorted
        _select(ordered, sorted({k for pair in ends for k in pair if k is not None}), 0)
        self.lo = np.empty_like(self.hi)
        for i, (a, b) in enumerate(ends):
            self.lo[:, i] = -np.inf if a is None else ordered[:, a]
            self.hi[:, i] = np.inf if b is None else ordered[:, b]

    def result(self) -> np.ndarray | None:
        """(rows × len(q)) percentiles, or None (see the class; always None with TCO_PLAIN: np.percentile then)."""
        if not self.finite or self.lo is None or plain("quantiles"):
            return None
        a = np.empty(self.hi.shape)
        b = np.empty(self.hi.shape)
        for r, per_q in enumerate(self.inside):
            for i, parts in enumerate(per_q):
                inside = np.concatenate(parts)
                lo_rank, hi_rank = self.prev[i] - self.below[r][i], self.next[i] - self.below[r][i]
                if lo_rank < 0 or hi_rank >= inside.size:
                    return None
                a[r, i], b[r, i] = _pair(inside, lo_rank, hi_rank)
        return _lerp(a, b, self.gamma)


def _pair(x: np.ndarray, k: int, k1: int) -> tuple[float, float]:
    """The k-th and k1-th smallest values of x (0-based; k1 = k or k + 1), x partitioned in place: one selection
    at k (numpy's one-position selection, faster than a partition at two), then the smallest value right of it."""
    x.partition(k)
    return x[k], x[k] if k1 == k else x[k + 1:].min()


def _select(part: np.ndarray, ks: list[int], at: int) -> None:
    """Partition each row of part[:, at:] so that the positions ks (sorted, absolute) hold their order statistics."""
    if not ks:
        return
    i = len(ks) // 2
    k = ks[i]
    part[:, at:].partition(k - at, axis=1)
    _select(part[:, :k], ks[:i], at)
    _select(part, ks[i + 1:], k + 1)
