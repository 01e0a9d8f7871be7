"""Choosing a replica layout: every tensor-parallel degree of a server, and whole servers by pipeline or
expert parallel when none holds the model; the one that meets the targets and serves the most per GPU."""

from __future__ import annotations

from dataclasses import field

from tco.domain import ParallelMode, record
from tco.sizing.replica import (
    Calibration,
    Hardware,
    Layout,
    Load,
    ModelSpec,
    replica_table,
)


def layouts(m: ModelSpec, hw: Hardware, load: Load) -> list[Layout]:
    """Tensor-parallel degrees 1, 2, 4, … dividing the server (a server of 8 runs 8/tp replicas side by side:
    TP2 is four data-parallel replicas); for a mixture-of-experts model also expert parallel over 2, 4, … of its
    GPUs (attention data-parallel, the experts split, an all-to-all per layer)."""
    degrees = [tp for tp in (2 ** k for k in range(8)) if tp <= hw.gpus_per_server and hw.gpus_per_server % tp == 0]
    out = [Layout(tp) for tp in degrees]
    if m.experts and m.experts_per_token:
        out += [Layout(g, 1, ParallelMode.EP) for g in degrees if g > 1]
    return out


def candidates(m: ModelSpec, hw: Hardware, load: Load, eff: Calibration) -> list[dict]:
    """Every layout with all its terms; multi-server layouts (pipeline, and expert parallel for a mixture of experts,
    over 2, 4 or 8 whole servers) only when no single-server one fits."""
    out = replica_table(layouts(m, hw, load), m, hw, load, eff)
    if not any(c["fits"] for c in out) and hw.network_gbps:
        for nodes in (2, 4, 8):
            modes = (ParallelMode.PP, ParallelMode.EP) if m.experts else (ParallelMode.PP,)
            out += replica_table([Layout(hw.gpus_per_server, nodes, mode) for mode in modes], m, hw, load, eff)
            if any(c["fits"] for c in out):
                break
    return out


@record
class ReplicaSize:
    tensor_parallel: int
    replicas_per_server: float
    """Replicas on one server; below 1 (0.5, 0.25…) when a replica spans servers."""
    weights_gb: float
    kv_mb_per_token: float
    batch: int
    batch_memory_limit: int
    step_seconds: float
    """Inter-token latency at the planned batch [s]."""
    tokens_per_second_per_user: float
    target_met: bool
    """False when the tokens/s target or the time-to-first-token target is missed."""
    decode_tokens_per_second: float
    """Output tokens/s of one replica [tokens/s]."""
    prefill_seconds_per_request: float
    replica_seconds_per_request: float
    requests_per_second: float
    """Requests one replica completes per second at full load [req/s]."""
    bound: str
    """What limits the batch: 'memory', 'max-batch', 'latency-bandwidth', 'latency-compute',
    'latency-interconnect', 'latency-overhead' or 'latency-ttft'."""
    nodes: int = 1
    parallel_mode: str = ParallelMode.TP
    gpus_per_replica: int = 0
    ttft_seconds: float = 0.0
    """Predicted time to first token at the planned batch [s] (prompt alone + one cycle)."""
    inter_token_seconds: float = 0.0
    ttft_target_met: bool = True
    terms_seconds: dict = field(default_factory=dict)
    """Memory, compute, collective and overhead time of one cycle [s]."""
    calibration: str = ""


def to_replica_size(v: dict, gpus_per_server: int, calibration: str = "") -> ReplicaSize:
    rps = gpus_per_server / v["tp"] if v["nodes"] == 1 else 1.0 / v["nodes"]
    return ReplicaSize(v["tp"], rps, v["weights_b"] / 1e9, v["kv_tok"] / 1e6, int(v["batch"]), int(v["b_mem"]),
                       v["cycle"], 1.0 / v["cycle"], v["met"], v["decode_tps"], v["prefill"], v["per_request"],
                       v["cap"], v["bound"], v["nodes"], v["mode"], v["gpus"], v["ttft"], v["cycle"], v["ttft_met"],
                       {k: v[k] for k in ("mem_s", "cmp_s", "coll_s", "overhead_s")}, calibration)


def choose(cands: list[dict], gpus_per_server: int, calibration: str = "") -> ReplicaSize | None:
    """The fitting candidate with the highest score (target met first, then requests/s per GPU; the
    first, smallest layout, on a tie); None if none fits."""
    fitting = [c for c in cands if c["fits"]]
    if not fitting:
        return None
    return to_replica_size(max(fitting, key=lambda c: c["score"]), gpus_per_server, calibration)
