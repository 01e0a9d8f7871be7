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
the latency α of one collective fitted to public benchmarks (tco/calibrate.py, docs/calibration.md).

Glossary (units in brackets): b batch [sequences], ISL/OSL input/output tokens per request [-],
L̄ = ISL + OSL/2 mean resident context [tokens], d hidden size [-], N, N_a total/active parameters [-],
E, k experts per layer and per token [-], BW [B/s], peak [FLOP/s], link and network [B/s], time [s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

BYTES_PER_PARAM = {"bf16": 2.0, "fp8": 1.0}
ACTIVATION_BYTES = 2.0
"""Activations travel between GPUs in 16-bit [B per element]."""


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
    precision: str = "bf16"
    kv_precision: str = "bf16"


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
    mode: str = "tp"
    """'tp' (one server or less), 'pp' (pipeline over `nodes` servers), 'ep' (experts over `nodes` servers)."""

    @property
    def gpus(self) -> int:
        return self.tp * self.nodes

    @property
    def label(self) -> str:
        return f"TP{self.tp}" if self.nodes == 1 else f"TP{self.tp}×{self.mode.upper()}{self.nodes}"


# ---------------------------------------------------------------------------------------------
# Terms (pure functions)


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_precision: str) -> float:
    """KV cache per token [B] = 2 (K and V) × layers × KV heads × head dim × bytes per element.

    Llama 3.1 70B in bf16: 2 × 80 × 8 × 128 × 2 = 327,680 B ≈ 0.33 MB per token.
    """
    return 2.0 * layers * kv_heads * head_dim * BYTES_PER_PARAM[kv_precision]


def allreduce_seconds(message_bytes: float, gpus: int, link_bs: float, latency_s: float) -> float:
    """Ring all-reduce time [s] = α + 2·(p − 1)/p · n / B, 0 on one GPU.

    n message [B], p GPUs, B link bandwidth one direction [B/s], α fixed latency [s]. Each GPU sends and
    receives 2(p − 1)/p of the message (Patarasuk & Yuan 2009, J. Parallel Distrib. Comput. 69(2), §3;
    Thakur et al. 2005, IJHPCA 19(1), the α–β model).

    >>> round(allreduce_seconds(1_048_576, 8, 360e9, 5e-6) * 1e6, 3)   # 5 µs + 2·7/8·1 MiB / 360 GB/s
    10.097
    """
    if gpus <= 1:
        return 0.0
    return latency_s + 2.0 * (gpus - 1) / gpus * message_bytes / link_bs


def alltoall_seconds(message_bytes: float, parts: int, link_bs: float, latency_s: float) -> float:
    """Expert-parallel dispatch + combine [s] = 2 · (α + (p − 1)/p · n / B), 0 on one part.

    n bytes each part sends for its tokens' experts, p parts; (p − 1)/p of it leaves the part, once to the
    experts and once back (DeepSeek-AI 2024, DeepSeek-V3 technical report arXiv:2412.19437 §3.2.2).
    """
    if parts <= 1:
        return 0.0
    return 2.0 * (latency_s + (parts - 1) / parts * message_bytes / link_bs)


def expert_touch_share(tokens: float, experts: int, experts_per_token: int) -> float:
    """Share of a layer's experts that a step touches [-] = 1 − (1 − k/E)^b, for b tokens routed
    independently and uniformly to k of E experts (1 for a dense model).

    Mixtral 8x7B (E = 8, k = 2), 4 tokens: 1 − 0.75⁴ = 0.68359375.
    """
    if experts <= 0 or experts_per_token <= 0:
        return 1.0
    return 1.0 - (1.0 - experts_per_token / experts) ** max(tokens, 0.0)


def expert_params(params: float, active_params: float, experts: int, experts_per_token: int) -> float:
    """Parameters in routed experts [-] = (N − N_a) / (1 − k/E): the inactive share of the experts is
    everything that is not active (0 for a dense model). Mixtral 8x7B: (46.7 − 12.9)e9 / 0.75 = 45.07e9."""
    if experts <= 0 or experts_per_token <= 0 or experts_per_token >= experts:
        return 0.0
    return (params - active_params) / (1.0 - experts_per_token / experts)


def attention_flops_per_token(layers: int, hidden: int, context: float) -> float:
    """Attention score and value FLOPs of one token at a context [FLOP] = 4 · layers · d · context
    (2 FLOPs per multiply-add for QKᵀ and for A·V; Hoffmann et al. 2022, Chinchilla, Appendix F)."""
    return 4.0 * layers * hidden * context


def flops_per_output_token(m: ModelSpec, input_tokens: float, output_tokens: float) -> float:
    """FLOPs per generated token with its share of the prompt [FLOP] =
    (1 + r)·2·N_a + 4·layers·d·L̄ + r·2·layers·d·ISL, r = ISL/OSL, L̄ = ISL + OSL/2
    (a prompt token attends to ISL/2 tokens on average: 4·layers·d·ISL/2)."""
    r = input_tokens / output_tokens
    ctx = input_tokens + output_tokens / 2.0
    return ((1.0 + r) * 2.0 * m.active_params + attention_flops_per_token(m.layers, m.hidden, ctx)
            + r * 2.0 * m.layers * m.hidden * input_tokens)


# ---------------------------------------------------------------------------------------------
# A replica


def replica_terms(lay: Layout, m: ModelSpec, hw: Hardware, load: Load, eff: Calibration,
                  batch: int | None = None) -> dict:
    """Every term of a replica in layout `lay` [B, B/s, FLOP/s, s]; the batch is the largest that meets
    the targets (or `batch` if given). Keys as in the workbook's replica block."""
    bpp = BYTES_PER_PARAM[m.precision]
    g, n, tp = lay.gpus, lay.nodes, lay.tp
    w_exp = expert_params(m.params, m.active_params, m.experts, m.experts_per_token) * bpp
    w = m.params * bpp
    kv_tok = kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, m.kv_precision)
    ctx = load.input_tokens + load.output_tokens / 2.0
    dense_copies = n if lay.mode == "ep" else 1  # expert parallel keeps the shared weights on every server
    mem = g * hw.memory_gb * 1e9 * load.memory_usable_share
    weights_held = w + (dense_copies - 1) * (w - w_exp)
    v: dict[str, Any] = {"tp": tp, "nodes": n, "mode": lay.mode, "gpus": g, "weights_b": w, "expert_b": w_exp, "kv_tok": kv_tok,
         "mem_b": mem, "bw": tp * hw.bandwidth_tbs * 1e12 * eff.bandwidth_share,
         "fl": g * hw.peak_tflops * 1e12 * eff.flops_share, "link": hw.link_gbs * 1e9 * eff.interconnect_share,
         "net": (hw.network_gbps or 0.0) / 8.0 * 1e9 * eff.interconnect_share, "ratio": load.input_tokens / load.output_tokens,
         "flops_tok": flops_per_output_token(m, load.input_tokens, load.output_tokens),
         "link_gbs": hw.link_gbs, "network_gbps": hw.network_gbps or 0.0}
    v["fits"] = weights_held + kv_tok * (load.input_tokens + load.output_tokens) <= mem
    v["b_mem"] = float(max(0, math.floor((mem - weights_held) / (kv_tok * ctx))))
    prefill = _prefill_seconds(lay, m, v, load, eff)
    v["prefill"] = prefill
    v["b_max"] = float(min(v["b_mem"], load.max_batch))
    v["held_b"] = weights_held
    zero, one = cycle_terms(0.0, lay, m, v, ctx, eff, 1.0), cycle_terms(1.0, lay, m, v, ctx, eff, 1.0)
    v["c_const"], v["c_seq"], v["slope"], v["a1"] = zero["coll_s"], one["coll_s"] - zero["coll_s"], \
        one["cycle"] - zero["cycle"], zero["cycle"]
    # pass 1: every expert read (an upper bound on the step), pass 2: the experts pass 1's batch touches
    v["b1"] = _batch_limits(v, 1.0, lay, m, ctx, eff, load, prefill)
    v["touch1"] = expert_touch_share(_touch_tokens(v["b1"], v, lay), m.experts, m.experts_per_token)
    v["b2"] = _batch_limits(v, v["touch1"], lay, m, ctx, eff, load, prefill)
    v["touch2"] = expert_touch_share(_touch_tokens(v["b2"], v, lay), m.experts, m.experts_per_token)
    v["a2"] = cycle_terms(0.0, lay, m, v, ctx, eff, v["touch1"])["cycle"]
    v["cycle2"] = cycle_terms(v["b2"], lay, m, v, ctx, eff)["cycle"]

    def ok(b: float) -> bool:
        c = cycle_terms(b, lay, m, v, ctx, eff)["cycle"]
        return ((load.target_tps is None or 1.0 / c >= load.target_tps * (1 - 1e-9))
                and (load.ttft_seconds is None or prefill + c <= load.ttft_seconds * (1 + 1e-9)))
    v["ok2"] = ok(v["b2"])
    if batch is None:
        batch = int(v["b2"] if v["ok2"] else v["b1"])
    v["batch"] = float(batch)
    v["touch"] = expert_touch_share(_touch_tokens(batch, v, lay), m.experts, m.experts_per_token)
    v.update(cycle_terms(batch, lay, m, v, ctx, eff))
    v["step"] = v["cycle"]
    v["decode_tps"] = batch / v["cycle"]
    v["ttft"] = prefill + v["cycle"]
    v["per_request"] = load.output_tokens * v["cycle"] / batch
    v["cap"] = 1.0 / v["per_request"]
    v["tps_met"] = load.target_tps is None or 1.0 / v["cycle"] >= load.target_tps * (1 - 1e-9)
    v["ttft_met"] = load.ttft_seconds is None or v["ttft"] <= load.ttft_seconds * (1 + 1e-9)
    v["met"] = v["tps_met"] and v["ttft_met"]
    v["bound"] = _bound(batch, v, load, ok)
    v["score"] = ((1e9 if v["met"] else 0.0) + v["cap"] / g) if v["fits"] else -1.0
    return v


def _touch_tokens(b: float, v: dict, lay: Layout) -> float:
    """Tokens whose experts one weight read serves: the cycle's b·(1 + r), per micro-batch for 'pp'."""
    t = b * (1.0 + v["ratio"])
    return t / lay.nodes if lay.mode == "pp" else t


def _batch_limits(v: dict, touch: float, lay: Layout, m: ModelSpec, ctx: float, eff: Calibration, load: Load,
                  prefill: float) -> float:
    """Largest whole batch [sequences] with the expert-touch share held at `touch`: the cycle is then
    a + s·b, so b_tps = (1/target − a)/s and b_ttft = (TTFT − prefill − a)/s;
    batch = max(1, floor(min(b_mem, max_batch, b_tps, b_ttft)))."""
    a = cycle_terms(0.0, lay, m, v, ctx, eff, touch)["cycle"]
    slope = cycle_terms(1.0, lay, m, v, ctx, eff, touch)["cycle"] - a
    lim = [v["b_max"]]
    if load.target_tps is not None:
        lim.append((1.0 / load.target_tps - a) / slope)
    if load.ttft_seconds is not None:
        lim.append((load.ttft_seconds - prefill - a) / slope)
    v.setdefault("limits", {})[touch] = lim
    return float(max(1, math.floor(min(lim) + 1e-9)))


def cycle_terms(b: float, lay: Layout, m: ModelSpec, v: dict, ctx: float, eff: Calibration,
                touch: float | None = None) -> dict:
    """One decode cycle of batch b [s]: memory, compute, collectives and overhead.

    tokens per cycle T = b·(1 + r) (decode plus chunked prompt tokens); per-node tokens T/n for 'ep'.
    tp / pp: bytes = W_read(T/pp) + b·L̄·kv/pp, each stage rereads its weights for each of pp micro-batches
             (Narayanan et al. 2021, SC'21 §2.2); memory = bytes / (tp·BW·η_bw)
    ep:      bytes = W_shared + W_experts·touch(T)/n + (b/n)·L̄·kv per server
    compute  = b · FLOPs per output token / (GPUs · peak · η_c)
    tensor-parallel all-reduce: 2 per layer of T/pp tokens × d × 2 B, pp micro-batches per stage
    pipeline hops ('pp'): pp micro-batches × (α + T/pp·d·2 B / network);
    expert all-to-all ('ep'): per layer, T/n tokens × k × d × 2 B over the network
    """
    n, tp = lay.nodes, lay.tp
    t = b * (1.0 + v["ratio"])
    act = m.hidden * ACTIVATION_BYTES
    if touch is None:
        touch = expert_touch_share(_touch_tokens(b, v, lay), m.experts, m.experts_per_token)
    w_read = v["weights_b"] - v["expert_b"] * (1.0 - touch)
    if lay.mode == "ep":
        w_read = (v["weights_b"] - v["expert_b"]) + (w_read - (v["weights_b"] - v["expert_b"])) / n
        kv = b / n * ctx * v["kv_tok"]
        coll = m.layers * allreduce_seconds(t / n * act, tp, v["link"], eff.collective_latency_seconds)
        coll += m.layers * alltoall_seconds(t / n * m.experts_per_token * act, n, v["net"], eff.collective_latency_seconds)
    else:
        kv = b * ctx * v["kv_tok"] / n
        coll = 2 * m.layers * allreduce_seconds(t / n * act, tp, v["link"], eff.collective_latency_seconds)
        if n > 1:
            coll += n * (eff.collective_latency_seconds + t / n * act / v["net"])
    mem_s = (w_read + kv) / v["bw"]
    cmp_s = b * v["flops_tok"] / v["fl"]
    over = eff.step_overhead_seconds
    return {"w_read": w_read, "kv_read": kv, "mem_s": mem_s, "cmp_s": cmp_s, "coll_s": coll,
            "overhead_s": over, "cycle": mem_s + cmp_s + coll + over}


def _prefill_seconds(lay: Layout, m: ModelSpec, v: dict, load: Load, eff: Calibration) -> float:
    """One prompt alone [s] = W / (tp·BW·η_bw) + (2·N_a·ISL + 2·layers·d·ISL²) / (tp·peak·η_c)
    + 2·layers all-reduces of ISL·d·2 B + the pipeline hops or expert all-to-alls, + t0; stages run in turn."""
    isl = load.input_tokens
    act = isl * m.hidden * ACTIVATION_BYTES
    fl = 2.0 * m.active_params * isl + 2.0 * m.layers * m.hidden * isl * isl
    tp_peak = v["fl"] / lay.gpus * lay.tp
    s = v["weights_b"] / lay.nodes / v["bw"] * (lay.nodes if lay.mode == "pp" else 1) + fl / tp_peak
    s += 2 * m.layers * allreduce_seconds(act, lay.tp, v["link"], eff.collective_latency_seconds)
    if lay.mode == "pp":
        s += (lay.nodes - 1) * (eff.collective_latency_seconds + act / v["net"])
    elif lay.mode == "ep":
        s += m.layers * alltoall_seconds(act * m.experts_per_token, lay.nodes, v["net"], eff.collective_latency_seconds)
    return s + eff.step_overhead_seconds


def _bound(b: int, v: dict, load: Load, ok) -> str:
    """What stops the batch: the smallest of the limits of the pass that set it (memory, max-batch, the
    time-to-first-token target, or the tokens/s target and then the largest term of the cycle:
    latency-bandwidth, latency-compute, latency-interconnect, latency-overhead)."""
    lim = v["limits"][v["touch1"] if v["ok2"] else 1.0]
    names = ["cap"] + (["tps"] if load.target_tps is not None else []) + (["ttft"] if load.ttft_seconds is not None else [])
    first = min(range(len(lim)), key=lambda i: lim[i])
    if names[first] == "cap":
        return "memory" if v["b_mem"] <= load.max_batch else "max-batch"
    if names[first] == "ttft":
        return "latency-ttft"
    terms = {"latency-bandwidth": v["mem_s"], "latency-compute": v["cmp_s"], "latency-interconnect": v["coll_s"],
             "latency-overhead": v["overhead_s"]}
    return max(terms, key=lambda k: terms[k])
