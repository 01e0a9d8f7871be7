"""Sizing GPU fleets from first principles.

Training is compute-bound: FLOPs = 6·N·D (Kaplan et al. 2020, "Scaling Laws for Neural Language
Models", §2.1), GPU-hours = FLOPs / (peak dense FLOPS × MFU × 3600).
Inference decode is memory-bandwidth-bound: one step of a replica reads all weights plus the KV
cache of the batch; step time ≈ bytes / (bandwidth × efficiency), never below the compute time
2·N·batch / (FLOPS × efficiency). Prefill is compute-bound: 2·N·input tokens.

Glossary (units in brackets): N parameters [-], D tokens [-], B bytes, bandwidth [TB/s = 1e12 B/s],
FLOPS [TFLOPS = 1e12 FLOP/s], time [s], throughput [tokens/s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BYTES_PER_PARAM = {"bf16": 2.0, "fp8": 1.0}
OPTIMIZER_BYTES_PER_PARAM = 16.0
"""Mixed-precision Adam: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + Adam m, v 4+4 = 16 B/param
(Rajbhandari et al. 2020, ZeRO, §3.1 counts 2Ψ + 2Ψ + 12Ψ = 16Ψ)."""


# ---------------------------------------------------------------------------------------------
# Training


def training_flops(active_params: float, tokens: float, epochs: float = 1.0) -> float:
    """Training compute [FLOP] = 6 · N · D · epochs.

    >>> training_flops(70e9, 1e9)
    4.2e+20
    """
    return 6.0 * active_params * tokens * epochs


def training_gpu_hours(flops: float, peak_tflops: float, mfu: float) -> float:
    """GPU-hours [GPU·h] = FLOPs / (peak [TFLOPS] × 1e12 × MFU × 3600).

    >>> round(training_gpu_hours(4.2e20, 989.5, 0.4), 2)
    294.76
    """
    return flops / (peak_tflops * 1e12 * mfu * 3600.0)


def training_memory_bytes(params: float, method: str, activation_share: float, lora_share: float) -> float:
    """Memory to train [B].

    full/pretrain: 16 B/param (weights, grads, fp32 master, Adam moments) × (1 + activation share).
    lora: frozen bf16 weights 2 B/param + 16 B per trainable adapter parameter, × (1 + activation share).
    """
    if method in ("full", "pretrain"):
        states = OPTIMIZER_BYTES_PER_PARAM * params
    elif method == "lora":
        states = BYTES_PER_PARAM["bf16"] * params + OPTIMIZER_BYTES_PER_PARAM * lora_share * params
    else:
        return 0.0
    return states * (1.0 + activation_share)


def scaling_efficiency(total_gpus: int, interconnect: str, defaults: dict) -> float:
    """Share of linear speed-up kept when a job spans several GPUs.

    1 GPU: 1.0; NVLink/NVSwitch: ~0.9 (seed article: 90–95 %); PCIe: ~0.5 (seed article).
    """
    if total_gpus <= 1:
        return 1.0
    table = defaults.get("scaling_efficiency", {})
    return float(table.get(interconnect, table.get("pcie", 0.5)))


@dataclass(frozen=True)
class TrainingSize:
    method: str
    flops: float
    gpu_hours: float
    """Useful GPU-hours of work (before scaling losses) [GPU·h]."""
    memory_gb: float
    min_gpus: int
    servers: int
    gpus: int
    scaling_efficiency: float
    wall_hours: float
    billed_gpu_hours: float
    """GPUs × wall-clock hours [GPU·h], what a cluster rented by the hour is billed for."""
    mfu: float


def size_training(*, method: str, params: float, active_params: float, tokens: float, epochs: float,
                  gpu_hours: float | None, mfu: float, peak_tflops: float, gpu_memory_gb: float,
                  memory_usable_share: float, gpus_per_server: int, interconnect: str, target_days: float,
                  servers: int | None, activation_share: float, lora_share: float, defaults: dict) -> TrainingSize:
    """Size the training cluster: memory gives the minimum, the target duration the rest."""
    if method == "none":
        return TrainingSize(method, 0.0, 0.0, 0.0, 0, 0, 0, 1.0, 0.0, 0.0, mfu)
    flops = training_flops(active_params, tokens, epochs)
    hours = gpu_hours if gpu_hours is not None else training_gpu_hours(flops, peak_tflops, mfu)
    mem = training_memory_bytes(params, method, activation_share, lora_share)
    min_gpus = max(1, math.ceil(mem / (gpu_memory_gb * 1e9 * memory_usable_share)))
    min_servers = math.ceil(min_gpus / gpus_per_server)
    if servers is None:
        eff = scaling_efficiency(gpus_per_server * 2, interconnect, defaults)  # assume multi-GPU for sizing
        wanted = math.ceil(hours / (eff * gpus_per_server * target_days * 24.0)) if hours > 0 else 1
        servers = max(min_servers, wanted, 1)
    servers = max(servers, min_servers)  # a cluster that cannot hold the job is never costed
    gpus = servers * gpus_per_server
    eff = scaling_efficiency(gpus, interconnect, defaults)
    wall = hours / (gpus * eff) if hours > 0 else 0.0
    return TrainingSize(method, flops, hours, mem / 1e9, min_gpus, servers, gpus, eff, wall, wall * gpus, mfu)


# ---------------------------------------------------------------------------------------------
# Inference


def peak_tflops(gpu, precision: str) -> float:
    """Peak dense TFLOPS of a GPU at the serving precision (FP8 where the GPU has it, else BF16)."""
    return gpu.fp8_tflops if precision == "fp8" and gpu.fp8_tflops else gpu.bf16_tflops


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_precision: str) -> float:
    """KV cache per token [B] = 2 (K and V) × layers × KV heads × head dim × bytes per element.

    Llama 3.1 70B in bf16: 2 × 80 × 8 × 128 × 2 = 327,680 B ≈ 0.33 MB per token.
    """
    return 2.0 * layers * kv_heads * head_dim * BYTES_PER_PARAM[kv_precision]


@dataclass(frozen=True)
class ReplicaSize:
    tensor_parallel: int
    replicas_per_server: int
    weights_gb: float
    kv_mb_per_token: float
    batch: int
    batch_memory_limit: int
    step_seconds: float
    tokens_per_second_per_user: float
    target_met: bool
    decode_tokens_per_second: float
    """Decode throughput of one replica [tokens/s]."""
    prefill_seconds_per_request: float
    replica_seconds_per_request: float
    requests_per_second: float
    """Requests one replica completes per second at full load [req/s]."""
    bound: str
    """What limits the batch: 'latency-bandwidth', 'latency-compute', 'memory' or 'max-batch'."""


def step_seconds(batch: float, weights_b: float, kv_read_b: float, bw_bs: float, flops: float,
                 active_params: float) -> float:
    """Decode step time [s] = max((weights + batch·KV per sequence) / bandwidth, 2·N·batch / FLOPS)."""
    return max((weights_b + batch * kv_read_b) / bw_bs, 2.0 * active_params * batch / flops)


def replica_candidates(*, params: float, active_params: float, layers: int, kv_heads: int, head_dim: int,
                       precision: str, kv_precision: str, gpu_memory_gb: float, bandwidth_tbs: float,
                       peak_tflops: float, gpus_per_server: int, input_tokens: float, output_tokens: float,
                       target_tps: float, bw_eff: float, flops_eff: float, memory_usable_share: float,
                       max_batch: int = 256, tp_efficiency: dict | None = None) -> list[dict]:
    """Every tensor-parallel degree (1, 2, 4, … dividing the server's GPUs) with all the terms of
    `replica_terms`, fitting or not: what `size_replica` chooses among (and the workbook shows)."""
    out = []
    tp = 1
    while tp <= gpus_per_server:
        if gpus_per_server % tp == 0:
            out.append(replica_terms(tp, params=params, active_params=active_params, layers=layers,
                                     kv_heads=kv_heads, head_dim=head_dim, precision=precision,
                                     kv_precision=kv_precision, gpu_memory_gb=gpu_memory_gb,
                                     bandwidth_tbs=bandwidth_tbs, peak_tflops=peak_tflops,
                                     input_tokens=input_tokens, output_tokens=output_tokens, target_tps=target_tps,
                                     bw_eff=bw_eff, flops_eff=flops_eff, memory_usable_share=memory_usable_share,
                                     max_batch=max_batch, tp_eff=(tp_efficiency or {}).get(tp, 1.0)))
        tp *= 2
    return out


def size_replica(*, gpus_per_server: int, **kw) -> ReplicaSize | None:
    """The replica layout that serves the most requests per GPU: among the candidates that fit, the
    highest score (target met first, then requests/s per GPU; the smaller degree on a tie).
    None if the model fits on no GPU count of the server. Arguments as `replica_candidates`."""
    return choose_replica(replica_candidates(gpus_per_server=gpus_per_server, **kw), gpus_per_server)


def choose_replica(candidates: list[dict], gpus_per_server: int) -> ReplicaSize | None:
    """The fitting candidate with the highest score (the first, smallest degree, on a tie)."""
    fitting = [c for c in candidates if c["fits"]]
    if not fitting:
        return None
    return _replica_size(max(fitting, key=lambda c: c["score"]), gpus_per_server)


def replica_terms(tp: int, *, params: float, active_params: float, layers: int, kv_heads: int, head_dim: int,
                  precision: str, kv_precision: str, gpu_memory_gb: float, bandwidth_tbs: float, peak_tflops: float,
                  input_tokens: float, output_tokens: float, target_tps: float, bw_eff: float, flops_eff: float,
                  memory_usable_share: float, max_batch: int = 256, tp_eff: float = 1.0) -> dict:
    """Every term of a replica on `tp` GPUs (tensor parallel), whether or not it fits [B, B/s, FLOP/s, s].

    memory batch  b_mem = floor((tp·mem·usable − weights) / (KV per token × (input + output)))
    latency batch b_bw  = (tp·BW·eff / target − weights) / (KV per token × (input + output/2))
    compute batch b_cmp = tp·FLOPS·eff / (2·N_active·target)
    batch = floor(min(b_mem, b_bw, b_cmp, max_batch)), at least 1
    (max_batch: the server's cap on concurrent sequences, vLLM's max_num_seqs defaults to 256)
    score = 1e9 if the target is met, plus requests/s per GPU; −1 if weights plus one sequence do not fit
    """
    w = params * BYTES_PER_PARAM[precision]
    kv_tok = kv_bytes_per_token(layers, kv_heads, head_dim, kv_precision)
    ctx_max = input_tokens + output_tokens
    kv_read = kv_tok * (input_tokens + output_tokens / 2.0)
    bw = tp * bandwidth_tbs * 1e12 * (bw_eff * tp_eff)
    fl = tp * peak_tflops * 1e12 * (flops_eff * tp_eff)
    mem = tp * gpu_memory_gb * 1e9 * memory_usable_share
    v = {"tp": tp, "tp_eff": tp_eff, "weights_b": w, "kv_tok": kv_tok, "kv_read": kv_read, "bw": bw, "fl": fl,
         "mem_b": mem, "fits": w + kv_tok * ctx_max <= mem, "b_mem": float(math.floor((mem - w) / (kv_tok * ctx_max))),
         "b_bw": (bw / target_tps - w) / kv_read, "b_cmp": fl / (2.0 * active_params * target_tps),
         "max_batch": max_batch}
    limits = {"memory": v["b_mem"], "latency-bandwidth": v["b_bw"], "latency-compute": v["b_cmp"],
              "max-batch": max_batch}
    v["bound"] = min(limits, key=limits.get)
    v["batch"] = float(max(1, math.floor(min(limits.values()) + 1e-9)))
    v["step"] = step_seconds(v["batch"], w, kv_read, bw, fl, active_params)
    v["decode_tps"] = v["batch"] / v["step"]
    v["prefill"] = 2.0 * active_params * input_tokens / fl
    v["per_request"] = v["prefill"] + output_tokens / v["decode_tps"]
    v["cap"] = 1.0 / v["per_request"]
    v["met"] = 1.0 / v["step"] >= target_tps * (1 - 1e-9)
    v["score"] = ((1e9 if v["met"] else 0.0) + v["cap"] / tp) if v["fits"] else -1.0
    return v


def _replica_size(v: dict, gpus_per_server: int) -> ReplicaSize:
    return ReplicaSize(v["tp"], gpus_per_server // v["tp"], v["weights_b"] / 1e9, v["kv_tok"] / 1e6, int(v["batch"]),
                       int(v["b_mem"]), v["step"], 1.0 / v["step"], v["met"], v["decode_tps"], v["prefill"],
                       v["per_request"], v["cap"], v["bound"])


def replica_at(tp: int, *, gpus_per_server: int, **kw) -> ReplicaSize | None:
    """A replica on `tp` GPUs (efficiencies as given), or None if weights plus one sequence do not fit."""
    v = replica_terms(tp, **kw)
    return _replica_size(v, gpus_per_server) if v["fits"] else None


def replicas_needed(requests_per_second: float, replica_rps: float, utilization: float, redundancy: str) -> int:
    """Replicas [-] = ceil(load / (capacity × utilisation)), plus one spare for N+1 when any is needed."""
    if requests_per_second <= 0:
        return 0
    n = max(1, math.ceil(requests_per_second / (replica_rps * utilization) - 1e-9))
    return n + 1 if redundancy == "n+1" else n


def servers_for(replicas: int, replicas_per_server: int) -> int:
    """Servers (or instances) [-] = ceil(replicas / replicas per server)."""
    return math.ceil(replicas / replicas_per_server) if replicas > 0 else 0
