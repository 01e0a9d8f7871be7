"""Sizing GPU fleets from first principles.

Training is compute-bound: FLOPs = 6·N·D (Kaplan et al. 2020, "Scaling Laws for Neural Language
Models", §2.1), GPU-hours = FLOPs / (peak dense FLOPS × MFU × 3600).
Inference replicas (memory, bandwidth, compute, tensor-parallel all-reduce, MoE expert touch, chunked
prefill, pipeline or expert parallel across servers, latency targets) are in tco/sizing_inference.py; this
module picks the calibration and hands the catalog rows to it.

Glossary (units in brackets): N parameters [-], D tokens [-], B bytes, bandwidth [TB/s = 1e12 B/s],
FLOPS [TFLOPS = 1e12 FLOP/s], time [s], throughput [tokens/s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tco.sizing_inference import BYTES_PER_PARAM, Calibration, Load, kv_bytes_per_token  # noqa: F401
from tco.sizing_layout import ReplicaSize, candidates, choose

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


def network_gbps(row) -> float | None:
    """Scale-out network of a server [Gb/s] from an interconnect.csv row, None if unknown."""
    return row.scale_out_gbps if row is not None else None


def serving_calibration(s, cat, file: str = "<scenario>", lines: dict | None = None) -> Calibration:
    """The calibration that sizes the replicas: the scenario's file if `[inference] calibration` is set, else
    the catalog's (calibration_default.toml); `bandwidth_efficiency_share` / `flops_efficiency_share` in the
    scenario override the two shares."""
    import tomllib
    from dataclasses import replace
    from pathlib import Path

    from tco.calibrate import from_dict
    from tco.errors import InputError, Problem

    serving = s.inference
    if serving.calibration:
        path = Path(serving.calibration)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise InputError([Problem(file, "inference.calibration", f"cannot read calibration file {str(path)!r}: "
                                      f"{getattr(exc, 'strerror', None) or exc}; write one with `python -m tco "
                                      "calibrate BENCHMARK`",
                                      (lines or {}).get(("inference", "calibration")))]) from None
        eff = from_dict(data, str(path))
        eff = replace(eff, name=str(data.get("name", path.stem)) + f" ({path.name})")
    else:
        eff = from_dict(cat.calibration, cat.calibration.get("file", "calibration_default.toml"))
        eff = replace(eff, name=f"catalog default: {eff.name}")
    if serving.bandwidth_efficiency_share is not None:
        eff = replace(eff, bandwidth_share=serving.bandwidth_efficiency_share,
                      name=eff.name + ", bandwidth share from the scenario")
    if serving.flops_efficiency_share is not None:
        eff = replace(eff, flops_share=serving.flops_efficiency_share,
                      name=eff.name + ", FLOPS share from the scenario")
    return eff


def calibration_dict(eff: Calibration) -> dict:
    """The calibration as plain values, for JSON and the workbook."""
    return {"name": eff.name, "source": eff.source, "bandwidth_share": eff.bandwidth_share,
            "flops_share": eff.flops_share, "interconnect_share": eff.interconnect_share,
            "step_overhead_seconds": eff.step_overhead_seconds,
            "collective_latency_seconds": eff.collective_latency_seconds}


def size_inference(model, fleet, s, eff: Calibration, network) -> tuple[list[dict], ReplicaSize | None]:
    """Every replica layout of a fleet's server with its terms, and the chosen one (None: nothing fits)."""
    from tco.calibrate import hardware_for, model_spec

    serving = s.inference
    hw = replace(hardware_for(fleet.gpu, fleet.gpus_per_server, network_gbps(network)),
                 peak_tflops=peak_tflops(fleet.gpu, s.model.precision))
    load = Load(serving.input_tokens_per_request, serving.output_tokens_per_request, serving.tokens_per_second_per_user,
                serving.time_to_first_token_seconds, serving.max_batch_sequences, serving.memory_usable_share)
    cands = candidates(model_spec(model, s.model.precision, s.model.kv_precision), hw, load, eff)
    return cands, choose(cands, fleet.gpus_per_server, eff.name)


def replicas_needed(requests_per_second: float, replica_rps: float, utilization: float, redundancy: str) -> int:
    """Replicas [-] = ceil(load / (capacity × utilisation)), plus one spare for N+1 when any is needed."""
    if requests_per_second <= 0:
        return 0
    n = max(1, math.ceil(requests_per_second / (replica_rps * utilization) - 1e-9))
    return n + 1 if redundancy == "n+1" else n


def servers_for(replicas: int, replicas_per_server: int) -> int:
    """Servers (or instances) [-] = ceil(replicas / replicas per server)."""
    return math.ceil(replicas / replicas_per_server) if replicas > 0 else 0
