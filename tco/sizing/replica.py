"""Inference replicas: what one decode step of a real server pays for.

A replica is `tp` GPUs of one server (tensor parallel), or a whole server repeated over `nodes` servers
by pipeline parallel ('pp') or, for mixture-of-experts models, expert parallel ('ep'). One decode *cycle*
gives every sequence of the batch b one token. With chunked prefill (vLLM, TensorRT-LLM in-flight
batching) the prompts of new requests ride in the same steps: in steady state each cycle also carries
r = ISL/OSL prompt tokens per sequence. The cycle costs

    cycle = bytes read / (BW · η_bw) + FLOPs / (peak · η_c) + collectives + t0

(the two roofline terms of Williams et al. 2009, CACM 52(4), added rather than overlapped: on the public
set the sum fits with a median error of 8 % and an 8 ms overhead, the max only by assuming a 29 ms
overhead per step, which contradicts single-stream latencies), with η_bw, η_c, η_link, the per-step overhead t0 and
the latency α of one collective fitted to public benchmarks (tco/sizing/calibrate.py, docs/calibration.md).

Glossary (units in brackets): b batch [sequences], ISL/OSL input/output tokens per request [-],
L̄ = ISL + OSL/2 mean resident context [tokens], d hidden size [-], N, N_a total/active parameters [-],
E, k experts per layer and per token [-], BW [B/s], peak [FLOP/s], link and network [B/s], time [s].
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tco.sizing import replica_rules as rules
from tco.constants import BYTES_PER_PARAM  # bytes per value by precision (fp4 included): one table
from tco.domain import ParallelMode, Precision
from tco.expr import Env, In



@dataclass(frozen=True)
class Calibration:
    """Efficiency parameters of the serving model (what `python -m tco calibrate` fits)."""
    bandwidth_share: float
    """η_bw: share of the memory bandwidth a decode step achieves [-], in (0, 1]."""
    flops_share: float
    """η_c: share of peak dense FLOPS matrix work achieves [-], in (0, 1]."""
    interconnect_share: float
    """η_link: share of NVLink/PCIe/network bandwidth a collective achieves [-], in (0, 1]."""
    step_overhead_seconds: float
    """t0: fixed cost of a decode step (scheduling, kernel launches, sampling) [s]."""
    collective_latency_seconds: float
    """α: fixed latency of one all-reduce, all-to-all or pipeline hop [s]."""
    name: str = "catalog default"
    source: str = ""


@dataclass(frozen=True)
class ModelSpec:
    params: float
    active_params: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    experts: int = 0
    experts_per_token: int = 0
    precision: str = Precision.BF16
    kv_precision: str = Precision.BF16


@dataclass(frozen=True)
class Hardware:
    memory_gb: float
    bandwidth_tbs: float
    peak_tflops: float
    gpus_per_server: int
    link_gbs: float
    """GPU-to-GPU bandwidth inside a server, one direction [GB/s]."""
    network_gbps: float | None = None
    """Scale-out network per server [Gb/s]; None: replicas cannot span servers."""


@dataclass(frozen=True)
class Load:
    input_tokens: float
    output_tokens: float
    target_tps: float | None = None
    """Tokens/s each user must see; None: no latency target (maximum throughput)."""
    ttft_seconds: float | None = None
    """Time-to-first-token target [s]; None: no target."""
    max_batch: int = 256
    memory_usable_share: float = 0.9


@dataclass(frozen=True)
class Layout:
    tp: int
    nodes: int = 1
    mode: str = ParallelMode.TP
    """'tp' (one server or less), 'pp' (pipeline over `nodes` servers), 'ep' (experts over `nodes` servers)."""

    @property
    def gpus(self) -> int:
        return self.tp * self.nodes

    @property
    def label(self) -> str:
        return f"TP{self.tp}" if self.nodes == 1 else f"TP{self.tp}×{self.mode.upper()}{self.nodes}"


# ---------------------------------------------------------------------------------------------
# Terms: each a rule of tco.sizing.replica_rules, evaluated here for one set of scalars


def _scalar(expr: rules.Expr, **inputs: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(np.asarray(expr.np(Env(dict(inputs), 1))).ravel()[0])


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_precision: str) -> float:
    """KV cache per token [B] (sizing_rules.kv_bytes).

    Llama 3.1 70B in bf16: 2 × 80 × 8 × 128 × 2 = 327,680 B ≈ 0.33 MB per token.

    >>> kv_bytes_per_token(80, 8, 128, "bf16")
    327680.0
    """
    return _scalar(rules.kv_bytes(), layers=layers, kv_heads=kv_heads, head_dim=head_dim,
                   kv_bytes=BYTES_PER_PARAM[kv_precision])


def allreduce_seconds(message_bytes: float, gpus: int, link_bs: float, latency_s: float) -> float:
    """Ring all-reduce time [s] = α + 2·(p − 1)/p · n / B, 0 on one GPU (sizing_rules.allreduce).

    n message [B], p GPUs, B link bandwidth one direction [B/s], α fixed latency [s]. Each GPU sends and
    receives 2(p − 1)/p of the message (Patarasuk & Yuan 2009, J. Parallel Distrib. Comput. 69(2), §3;
    Thakur et al. 2005, IJHPCA 19(1), the α–β model).

    >>> round(allreduce_seconds(1_048_576, 8, 360e9, 5e-6) * 1e6, 3)   # 5 µs + 2·7/8·1 MiB / 360 GB/s
    10.097
    """
    return _scalar(rules.allreduce(In("n"), In("p"), In("b")), n=message_bytes, p=gpus, b=link_bs, coll_lat=latency_s)


def alltoall_seconds(message_bytes: float, parts: int, link_bs: float, latency_s: float) -> float:
    """Expert-parallel dispatch + combine [s] = 2 · (α + (p − 1)/p · n / B), 0 on one part.

    n bytes each part sends for its tokens' experts, p parts; (p − 1)/p of it leaves the part, once to the
    experts and once back (DeepSeek-AI 2024, DeepSeek-V3 technical report arXiv:2412.19437 §3.2.2).
    """
    return _scalar(rules.alltoall(In("n"), In("p"), In("b")), n=message_bytes, p=parts, b=link_bs, coll_lat=latency_s)


def expert_touch_share(tokens: float, experts: int, experts_per_token: int) -> float:
    """Share of a layer's experts that a step touches [-] = 1 − (1 − k/E)^b, for b tokens routed
    independently and uniformly to k of E experts (1 for a dense model).

    Mixtral 8x7B (E = 8, k = 2), 4 tokens: 1 − 0.75⁴ = 0.68359375.
    """
    return _scalar(rules.touched(In("tokens")), tokens=max(tokens, 0.0), experts=experts, experts_k=experts_per_token)


def expert_params(params: float, active_params: float, experts: int, experts_per_token: int) -> float:
    """Parameters in routed experts [-] (sizing_rules.expert_params). Mixtral 8x7B: (46.7 − 12.9)e9 / 0.75."""
    return _scalar(rules.expert_params(), params=params, active_params=active_params, experts=experts,
                   experts_k=experts_per_token)


# ---------------------------------------------------------------------------------------------
# Replicas


def inputs_of(m: ModelSpec, hw: Hardware, load: Load, eff: Calibration) -> dict[str, float]:
    """The named inputs of sizing_rules.RULES (the workbook's defined names, sizing_rules.INPUTS)."""
    return {
        "params": m.params, "active_params": m.active_params, "weight_bytes": BYTES_PER_PARAM[m.precision],
        "kv_bytes": BYTES_PER_PARAM[m.kv_precision], "layers": m.layers, "hidden": m.hidden,
        "kv_heads": m.kv_heads, "head_dim": m.head_dim, "experts": m.experts, "experts_k": m.experts_per_token,
        "in_tokens": load.input_tokens, "out_tokens": load.output_tokens,
        "target_tps": load.target_tps or 0.0, "ttft": load.ttft_seconds or 0.0, "max_batch": load.max_batch,
        "mem_usable": load.memory_usable_share, "bw_eff": eff.bandwidth_share, "fl_eff": eff.flops_share,
        "link_eff": eff.interconnect_share, "overhead": eff.step_overhead_seconds,
        "coll_lat": eff.collective_latency_seconds,
        "memory_gb": hw.memory_gb, "bandwidth_tbs": hw.bandwidth_tbs, "peak_tflops": hw.peak_tflops,
        "link_gbs": hw.link_gbs, "network_gbps": hw.network_gbps or 0.0,
    }


def replica_table(lays: list[Layout], m: ModelSpec, hw: Hardware, load: Load, eff: Calibration,
                  batch: int | None = None) -> list[dict]:
    """Every term of a replica in each layout [B, B/s, FLOP/s, s], evaluated once over all of them; the
    batch is the largest that meets the targets (or `batch` if given). Keys as sizing_rules.RULES, plus
    the layout (tp, nodes, mode, gpus), the link and network figures and `bound` as a word. Cached: the
    analysis re-runs size the same fleets many times (copies are returned)."""
    return [dict(v) for v in replica_tables([(tuple(lays), m, hw, load, eff, batch)])[0]]


TableKey = tuple[tuple[Layout, ...], ModelSpec, Hardware, Load, Calibration, int | None]
"""What a replica table depends on: (layouts, model, hardware, load, calibration, batch given or None)."""

_TABLES: OrderedDict[TableKey, tuple[dict, ...]] = OrderedDict()
_MAX_TABLES = 512


def replica_tables(keys: Sequence[TableKey]) -> list[tuple[dict, ...]]:
    """The tables of `keys` (``replica_table``'s arguments each), from the cache where it has them; the others are
    evaluated together, one pass of the rules over all their layouts (the plan search sizes some twenty offers:
    one pass instead of twenty). Exact: the rules are element-wise (sizing_rules: arithmetic, comparisons, MAX,
    MIN, INT, IF, and one power whose base is the model's), and an input the tables share stays one scalar, so
    each value is the one its table gives alone, to the last bit (tests/test_sizing_rules.py)."""
    todo = [k for k in dict.fromkeys(keys) if k not in _TABLES]
    for batch in dict.fromkeys(k[5] for k in todo):
        group = [k for k in todo if k[5] == batch]
        for k, table in zip(group, _evaluate_together(group, batch)):
            _TABLES[k] = table
    out = []
    for k in keys:
        _TABLES.move_to_end(k)
        out.append(_TABLES[k])
    while len(_TABLES) > _MAX_TABLES:
        _TABLES.popitem(last=False)
    return out


def _evaluate_together(keys: list[TableKey], batch: int | None) -> list[tuple[dict, ...]]:
    """The tables of `keys` (one batch) from one ``evaluate_layouts`` over their layouts end to end: an input
    whose value differs between tables is one value per layout, the others one scalar."""
    lays = [lay for k in keys for lay in k[0]]
    each = [inputs_of(m, hw, load, eff) for _, m, hw, load, eff, _ in keys]
    inputs: dict[str, Any] = {}
    for name, first in each[0].items():
        values = [e[name] for e in each]
        alike = all(type(v) is type(first) and repr(v) == repr(first) for v in values)  # −0.0 ≠ 0.0 here
        inputs[name] = first if alike else np.repeat(np.asarray(values, dtype=float), [len(k[0]) for k in keys])
    table = evaluate_layouts(lays, inputs, batch)
    out, at = [], 0
    for k in keys:
        out.append(tuple(table[at:at + len(k[0])]))
        at += len(k[0])
    return out


def evaluate_layouts(lays: list[Layout], inputs: dict[str, Any], batch: int | None = None) -> list[dict]:
    """The rules over layouts whose inputs are scalars or one value per layout (tco.sizing.calibrate: one
    benchmark row per position)."""
    table = rules.run(rules.RULES if batch is None else rules.with_batch(batch), inputs,
                      [lay.tp for lay in lays], [lay.nodes for lay in lays], [int(lay.mode == ParallelMode.EP) for lay in lays])
    link, net = (np.broadcast_to(np.asarray(inputs[k], dtype=float), (len(lays),))
                 for k in ("link_gbs", "network_gbps"))
    out = []
    for j, lay in enumerate(lays):
        v: dict[str, Any] = {key: float(row[j]) for key, row in table.items() if key != "t"}
        v.update({key: bool(v[key]) for key in rules.FLAGS})
        v.update(tp=lay.tp, nodes=lay.nodes, mode=lay.mode, gpus=lay.gpus, link_gbs=float(link[j]),
                 network_gbps=float(net[j]), bound=rules.BOUND_TERMS[int(v["bound"]) - 1])
        out.append(v)
    return out


def replica_terms(lay: Layout, m: ModelSpec, hw: Hardware, load: Load, eff: Calibration,
                  batch: int | None = None) -> dict:
    """Every term of a replica in layout `lay` (replica_table for one layout)."""
    return replica_table([lay], m, hw, load, eff, batch)[0]
