"""Time to first token with queueing, at the planned load of a replica.

A replica with continuous batching serves ``c`` = its batch of requests at once; each holds a slot for its decode,
``OSL × cycle`` seconds, so the replica completes at most ``cap = c / (OSL × cycle)`` requests per second (the
replica rules' ``cap``). Requests arrive as a Poisson stream of ``λ`` per replica (the fleet's peak-hour rate over
its replicas). A request that finds every slot busy waits; the replica is then an M/M/c queue with c servers and
service rate μ = cap / c (Erlang C; Kleinrock, *Queueing Systems* vol. 1, 1975, §3.5; exponential service is the
standard, conservative stand-in for the spread of real output lengths):

    a = λ / μ = c·ρ,  ρ = λ / cap                         (offered load [Erlang], utilisation [-])
    C(c, a) = B / (1 − ρ·(1 − B)),  B = Erlang B by B₀ = 1, B_k = a·B_{k−1} / (k + a·B_{k−1})
    P(W > t) = C · exp(−(cap − λ)·t)                      (waiting time for a slot)
    E[W] = C / (cap − λ),  W_p = max(0, ln(C / (1 − p)) / (cap − λ))

and the time to first token is the wait plus the bare TTFT (the prompt alone plus one cycle, replica rules'
``ttft``). It equals the bare TTFT at zero load, grows with λ and without bound as ρ → 1; at ρ ≥ 1 the queue has no
steady state and the TTFT is infinite.

Glossary: λ [req/s], cap [req/s], c [slots], ρ [-], a [Erlang], W [s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

P95 = 0.95


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival waits in an M/M/c queue [-] (Erlang C), from the Erlang B recursion (stable for
    thousands of servers); 1 when the offered load reaches the servers (no steady state)."""
    c = max(1, int(servers))
    if offered <= 0.0:
        return 0.0
    if offered >= c:
        return 1.0
    b = 1.0
    for k in range(1, c + 1):
        b = offered * b / (k + offered * b)
    rho = offered / c
    return b / (1.0 - rho * (1.0 - b))


@dataclass(frozen=True)
class QueuedTTFT:
    rate_per_replica: float
    """λ: requests per second arriving at one replica at the planned (peak-hour) load [req/s]."""
    utilisation: float
    """ρ = λ / cap [-]."""
    wait_probability: float
    """C(c, a): share of requests that wait for a slot [-]."""
    mean_seconds: float
    """Expected time to first token: bare TTFT + E[W] [s] (inf at ρ ≥ 1)."""
    p95_seconds: float
    """95th percentile: bare TTFT + W_0.95 [s] (inf at ρ ≥ 1)."""


def queued_ttft(bare_ttft: float, batch: int, cap: float, rate: float, p: float = P95) -> QueuedTTFT:
    """Time to first token at `rate` requests/s on a replica of `batch` slots completing `cap` requests/s, whose
    time to first token alone is `bare_ttft` [s]."""
    rate = max(0.0, float(rate))
    if rate == 0.0 or cap <= 0.0:
        return QueuedTTFT(rate, 0.0, 0.0, bare_ttft, bare_ttft)
    rho = rate / cap
    if rho >= 1.0:
        return QueuedTTFT(rate, rho, 1.0, math.inf, math.inf)
    c = max(1, int(batch))
    wait = erlang_c(c, c * rho)
    drain = cap - rate
    tail = max(0.0, math.log(wait / (1.0 - p)) / drain) if wait > 0.0 else 0.0
    return QueuedTTFT(rate, rho, wait, bare_ttft + wait / drain, bare_ttft + tail)


def planned_rate(peak_rps: float, cap: float, utilisation: float, spare: int = 0) -> float:
    """Requests per second per replica at the peak hour [req/s] = peak / replicas, replicas = ⌈peak / (cap × u)⌉
    (at least 1) + `spare` (N+1): the fleet rule of tco/costs/fleet_rules.replicas; 0 without load."""
    if peak_rps <= 0.0 or cap <= 0.0:
        return 0.0
    need = max(math.ceil(peak_rps / (cap * utilisation) - 1e-9), 1) + spare
    return peak_rps / need


@dataclass(frozen=True)
class PlannedLoad:
    """A replica's time to first token at the planned peak load (``at_planned_load``), computed once by the engine
    (``OptionResult.planned_load``) and read by the notices, the JSON, the workbook and the proposal."""
    queued: QueuedTTFT
    target_met: bool | None
    """Whether the p95 meets ``time_to_first_token_seconds`` (None without a target)."""

    @property
    def mean_seconds(self) -> float | None:
        """Mean time to first token [s], None where the replica would be saturated."""
        return _finite(self.queued.mean_seconds)

    @property
    def p95_seconds(self) -> float | None:
        """95th-percentile time to first token [s], None where the replica would be saturated."""
        return _finite(self.queued.p95_seconds)

    def as_dict(self) -> dict:
        """The JSON's keys (``sizing.inference`` of each option)."""
        q = self.queued
        return {"arrival_rate_per_replica": q.rate_per_replica, "utilisation_at_peak": q.utilisation,
                "ttft_wait_probability": q.wait_probability, "ttft_mean_seconds": self.mean_seconds,
                "ttft_p95_seconds": self.p95_seconds, "queueing_model": "Erlang C (M/M/c) on the batch slots",
                "ttft_p95_target_met": self.target_met}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def at_planned_load(rep, inference, peak_rps) -> PlannedLoad:
    """The queued time to first token of a replica (tco.sizing.layout.ReplicaSize) at the peak hour of a scenario's
    ``[inference]`` (its utilisation target and redundancy) and peak requests/s (by month; the largest counts): mean
    and 95th percentile, and whether the p95 meets ``time_to_first_token_seconds``."""
    peak = max((float(x) for x in _flat(peak_rps)), default=0.0)
    rate = planned_rate(peak, rep.requests_per_second, inference.utilization_target_share,
                        1 if inference.redundancy == "n+1" else 0)
    q = queued_ttft(rep.ttft_seconds, rep.batch, rep.requests_per_second, rate)
    target = inference.time_to_first_token_seconds
    return PlannedLoad(q, None if target is None else bool(q.p95_seconds <= target * (1 + 1e-9)))


def _flat(x) -> list:
    """The numbers of a scalar, a list or an array (of any shape)."""
    import numpy as np

    return list(np.ravel(np.asarray(x, dtype=float)))
