"""Sizing GPU fleets from first principles.

Training is compute-bound: FLOPs = (6·N + 6·L·s·w)·D (Kaplan et al. 2020, "Scaling Laws for Neural Language
Models", §2.1, and the causal attention over s tokens), GPU-hours = FLOPs / (peak dense FLOPS × MFU × 3600), both at
the training precision; the cluster's rules are declared in tco/sizing/training_rules.py and ``size_training`` evaluates them, with the MFU
the catalog gives the GPU's generation and the precision (``training_mfu_base``, fitted in
docs/calibration_training.md).
Inference replicas (memory, bandwidth, compute, tensor-parallel all-reduce, MoE expert touch, chunked
prefill, pipeline or expert parallel across servers, latency targets) are in tco/sizing/replica.py; this
module picks the calibration and hands the catalog rows to it.

Glossary (units in brackets): N parameters [-], D tokens [-], B bytes, bandwidth [TB/s = 1e12 B/s],
FLOPS [TFLOPS = 1e12 FLOP/s], time [s], throughput [tokens/s].
"""

from __future__ import annotations

from dataclasses import field, fields, replace

from tco.domain import Precision, TrainingMethod, record
from tco.sizing.replica import (  # noqa: F401
    BYTES_PER_PARAM,
    KV_RESERVE_SHARE,
    Calibration,
    Hardware,
    Load,
    ModelSpec,
    kv_bytes_per_token,
    replica_tables,
)
from tco.sizing.layout import ReplicaSize, candidates, choose, layouts
from tco.sizing.precision_rules import attention_format
from tco.sizing.prefill_rules import PREFILL_MIX_SHARE
from tco.sizing.training_rules import SCOPE_DERIVED, SCOPE_GIVEN, evaluate_cluster, multi_gpu_scaling, rules

# ---------------------------------------------------------------------------------------------
# Training


@record
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
    """MFU against the dense peak at ``precision`` [-] (the catalog's for the GPU generation × the MoE factor, or
    the scenario's)."""
    rows: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    """Every rule of ``tco.sizing.training_rules`` as the engine evaluated it (key → value), for the workbook's cache."""
    hours_given: bool = False
    """The scenario gave the GPU-hours ([training] gpu_hours) rather than tokens to derive them from."""
    precision: str = Precision.BF16
    """Number format of the training matmuls ([training] precision)."""
    peak_tflops: float = 0.0
    """Dense peak of the GPU at ``precision`` [TFLOPS]."""
    sequence_length: int = 0
    """Training sequence length [tokens] ([training] sequence_length, else defaults.toml's)."""
    flops_per_token: float = 0.0
    """Training FLOPs per token, 6·N_active + 6·layers·sequence length·query width [FLOP] (0 when the GPU-hours are
    given or there is no training)."""
    attention_share: float = 0.0
    """The causal attention's part of ``flops_per_token`` over 6·N_active [-]."""
    attention_width: float = 0.0
    """The attention's query width, query heads × head size [-] (``attention_width``)."""

    def as_dict(self) -> dict:
        """The figures the JSON reports (every field but the rows) and ``scope``: what the GPU-hours count and
        leave out (``tco.sizing.training_rules.SCOPE_DERIVED`` / ``SCOPE_GIVEN``; none without training)."""
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("rows", "hours_given")}
        if self.method != TrainingMethod.NONE:
            d["scope"] = dict(SCOPE_GIVEN if self.hours_given else SCOPE_DERIVED)
        return d


def size_training(*, method: str, params: float, active_params: float, tokens: float, epochs: float,
                  gpu_hours: float | None, mfu: float | None, peak_tflops: float, gpu_memory_gb: float,
                  memory_usable_share: float, gpus_per_server: int, interconnect: str, target_days: float,
                  servers: int | None, activation_share: float, lora_share: float, defaults: dict,
                  mfu_base: float = 0.0, layers: int = 1, experts: int = 0,
                  precision: str = Precision.BF16, hidden: float = 0.0, sequence_length: int = 0,
                  attention_width: float = 0.0) -> TrainingSize:
    """Size the training cluster by evaluating the rules of ``tco.sizing.training_rules``: memory gives the minimum, the
    target duration (or the servers given) the rest. ``mfu`` is the scenario's MFU (None: ``mfu_base``, the catalog's
    for the GPU and precision, × the width factor of ``hidden`` (0: the reference width, factor 1) and the MoE factor
    of ``layers`` and ``experts``, whose coefficients are ``defaults['training_mfu']``); ``peak_tflops`` is the GPU's
    dense peak at ``precision``; ``defaults['scaling_efficiency']`` is the catalog's table of multi-GPU scaling by interconnect.
    ``sequence_length`` (0: ``defaults['training_mfu']['sequence_length']``, else none) and ``attention_width`` (0:
    ``hidden``) set the causal attention's FLOPs per token."""
    if method == TrainingMethod.NONE:
        return TrainingSize(method, 0.0, 0.0, 0.0, 0, 0, 0, 1.0, 0.0, 0.0, mfu or 0.0, precision=precision)
    moe = defaults.get("training_mfu", {})
    inputs = {"params": params, "active_params": active_params, "tokens": tokens, "epochs": epochs,
              "mfu": mfu if mfu is not None else 0.0, "mfu_base": mfu_base, "layers": layers, "experts": experts,
              "moe_a": moe.get("moe_a", 1.0), "moe_k": moe.get("moe_k", 0.0),
              "moe_lowp": moe.get("moe_lowp", 1.0) if precision != Precision.BF16 else 1.0,
              "width_k": moe.get("width_k", 0.0),
              "hidden_ref": moe.get("hidden_ref", 8192.0), "hidden": hidden or moe.get("hidden_ref", 8192.0),
              "gpu_hours": gpu_hours if gpu_hours is not None else 0.0, "peak_tflops": peak_tflops,
              "gpu_memory_gb": gpu_memory_gb, "memory_usable_share": memory_usable_share,
              "gpus_per_server": gpus_per_server, "target_days": target_days,
              "servers": servers if servers is not None else 0, "activation_share": activation_share,
              "lora_share": lora_share,
              "seq_len": float(sequence_length or moe.get("sequence_length", 0.0)),
              "attn_width": float(attention_width or hidden or moe.get("hidden_ref", 8192.0)),
              "multi_gpu_scaling": multi_gpu_scaling(interconnect, defaults.get("scaling_efficiency", {}))}
    v = evaluate_cluster(rules(method, hours_given=gpu_hours is not None, servers_given=servers is not None,
                               mfu_given=mfu is not None), inputs)
    used = v.get("tr_mfu", mfu if mfu is not None else mfu_base)
    per_token = 0.0 if gpu_hours is not None else v["tr_flops_per_token"]
    six_n = 6.0 * active_params
    return TrainingSize(method, v["tr_flops"], v["gpu_hours"], v["tr_mem_b"] / 1e9, int(v["tr_min_gpus"]),
                        int(v["tr_servers"]), int(v["tr_gpus"]), v["scaling_eff"], v["wall_hours"],
                        v["tr_billed_gpu_hours"], used, v, gpu_hours is not None, precision, peak_tflops,
                        int(inputs["seq_len"]), per_token, per_token / six_n - 1 if per_token and six_n else 0.0,
                        inputs["attn_width"])


def attention_width(model) -> float:
    """The attention's query width in training, query heads × head size [-] (Megatron-Bridge's
    ``query_projection_size``): models.csv ``attention_heads × head_dim``; the hidden size where the row gives no
    query heads, or where it is an MLA model (``attention_head_dim`` set), whose ``head_dim`` encodes the latent cache,
    not the training heads (an undercount: DeepSeek-V3's 128 × (192 + 128) / 2 = 20,480 against 7,168;
    docs/calibration_training.md "Sequence length")."""
    hidden = model.hidden_size or model.kv_heads * model.head_dim
    if model.attention_heads and not model.attention_head_dim:
        return float(model.attention_heads * model.head_dim)
    return float(hidden)


# ---------------------------------------------------------------------------------------------
# Precision: which GPU can run which number format, at what peak and training MFU


def dense_peak(gpu, precision: str) -> float | None:
    """The GPU's dense tensor TFLOPS at ``precision`` exactly (None: the GPU has no such tensor cores)."""
    return {Precision.BF16: gpu.bf16_tflops, Precision.FP8: gpu.fp8_tflops,
            Precision.FP4: gpu.fp4_tflops}[Precision(precision)]


def _with(gpus, precision: str) -> str:
    """The catalog GPUs that have ``precision`` tensor cores, named for an error message."""
    names = sorted(g.gpu for g in gpus if dense_peak(g, precision))
    return ", ".join(names) if names else "none in the catalog"


def serving_precision_problem(gpu, precision: str, kv_precision: str, gpus) -> str | None:
    """Why ``gpu`` cannot serve at these number formats, or None. fp4 weights or KV cache need FP4 tensor cores
    (gpus.csv ``fp4_dense_tflops``; Blackwell and later); fp8 runs everywhere (weight-only on a GPU without FP8, at its
    BF16 peak), as before."""
    for what, p in (("model.precision", precision), ("model.kv_precision", kv_precision)):
        if p == Precision.FP4 and not gpu.fp4_tflops:
            return (f"{what} = 'fp4' needs FP4 tensor cores, which {gpu.gpu} does not have (gpus.csv gives it no "
                    f"fp4_dense_tflops); GPUs with FP4: {_with(gpus, Precision.FP4)}; or use 'fp8'")
    return None


def fp4_base(fp8_base: float, share: float, fp4_tflops: float, fp8_tflops: float) -> float:
    """The base training MFU in fp4 against the FP4 peak [-]: NVFP4 training runs ``share`` of the fp8 step's time at
    the FP4 rate and the rest (attention, the layers kept wide, quantisation) as in fp8, so the step takes (share /
    r + 1 − share) of the fp8 step, r = FP4 peak / FP8 peak, and MFU_fp4 = MFU_fp8 / (share + r × (1 − share)).

    >>> round(fp4_base(0.4, 0.5, 9000, 4500), 4)  # B200: r = 2, 0.4 / (0.5 + 2 × 0.5) = 0.2667
    0.2667
    """
    return fp8_base / (share + fp4_tflops / fp8_tflops * (1 - share))


def training_mfu_base(gpu, precision: str, table: dict, gpus=()) -> float:
    """The catalog's training MFU for ``gpu`` at ``precision`` [-]: base[precision] × factor[generation]
    (defaults.toml ``[training.mfu_by_precision]`` and ``[training.generation_factor]``); fp4's base, unless the table
    gives one, from the fp8 base and ``[training.fp4] share`` (``fp4_base``). Raises ValueError, naming what is
    missing and what would cover it, when the GPU lacks the precision's tensor cores or the table a cell."""
    if not dense_peak(gpu, precision):
        raise ValueError(f"training at precision = {precision!r} needs {precision.upper()} tensor cores, which {gpu.gpu} "
                       f"does not have (gpus.csv gives it no {precision}_dense_tflops); GPUs with them: "
                       f"{_with(gpus, precision)}; or set [training] precision = 'bf16'")
    base, gen = dict(table.get("base", {})), table.get("generation", {})
    if precision == Precision.FP4 and precision not in base and "fp8" in base and "fp4_share" in table \
            and gpu.fp8_tflops:
        base[precision] = fp4_base(float(base["fp8"]), float(table["fp4_share"]), gpu.fp4_tflops, gpu.fp8_tflops)
    if precision not in base:
        raise ValueError(f"no training MFU for precision {precision!r} in the catalog (defaults.toml "
                       f"[training.mfu_by_precision] has {sorted(base)}); add it, or give [training] mfu")
    if gpu.generation not in gen:
        raise ValueError(f"no training MFU for {gpu.gpu}: its generation {gpu.generation or '(blank)'!r} (gpus.csv "
                       f"generation) has no factor in defaults.toml [training.generation_factor] ({sorted(gen)}); "
                       "set the GPU's generation, add the factor, or give [training] mfu")
    mfu = float(base[precision]) * float(gen[gpu.generation])
    if not mfu <= 1.0:  # an overlay's factor of 3 on a 0.37 MFU gave 1.11: fewer GPU-hours than the peak allows
        raise ValueError(f"the catalog's training MFU for {gpu.gpu} at {precision} is {mfu:.3g} (defaults.toml "
                         f"[training.mfu_by_precision] × [training.generation_factor] {gpu.generation}), more than 1: "
                         "no run beats its GPUs' peak; check those tables, or give [training] mfu")
    return mfu


def training_problem(gpu, precision: str, table: dict, gpus, mfu_given: bool) -> str | None:
    """Why a training cluster of ``gpu`` cannot be sized at ``precision``, or None (``training_mfu_base``'s message;
    a given MFU still needs the precision's tensor cores for the peak)."""
    if mfu_given and dense_peak(gpu, precision):
        return None
    try:
        training_mfu_base(gpu, precision, table, gpus)
    except ValueError as exc:
        return str(exc)
    return None



# ---------------------------------------------------------------------------------------------
# Inference


def peak_tflops(gpu, precision: str) -> float:
    """Peak dense TFLOPS of a GPU at the serving precision: FP4 or FP8 where the GPU has those tensor cores, else
    the next wider format it has (BF16 for FP8 weights on an A100, which it serves weight-only)."""
    if precision == Precision.FP4 and gpu.fp4_tflops:
        return gpu.fp4_tflops
    if precision in (Precision.FP4, Precision.FP8) and gpu.fp8_tflops:
        return gpu.fp8_tflops
    return gpu.bf16_tflops


def network_gbps(row) -> float | None:
    """Scale-out network of a server [Gb/s] from an interconnect.csv row, None if unknown."""
    return row.scale_out_gbps if row is not None else None


def serving_calibration(s, cat, file: str = "<scenario>", lines: dict | None = None) -> Calibration:
    """The calibration that sizes the replicas: the scenario's file if `[inference] calibration` is set, else
    the catalog's (calibration_default.toml); `bandwidth_efficiency_share` / `flops_efficiency_share` in the
    scenario override the two shares."""
    from dataclasses import replace
    from pathlib import Path

    from tco.sizing.calibrate import from_dict, read_file

    serving = s.inference
    if serving.calibration:
        path = Path(serving.calibration)
        eff, data = read_file(path, file, "inference.calibration", (lines or {}).get(("inference", "calibration")))
        data = dict(data) | {"file": str(path)}
        eff = replace(eff, name=str(data.get("name", path.stem)) + f" ({path.name})")
    else:
        data = cat.calibration
        eff = from_dict(data, data.get("file", "calibration_default.toml"))
        eff = replace(eff, name=f"catalog default: {eff.name}")
    _check_framework(serving, data, file, lines)
    _check_speculative(s, cat, file, lines)
    eff = _framework_eff(eff, data, getattr(serving, "framework", "generic"))
    if serving.bandwidth_efficiency_share is not None:
        eff = replace(eff, bandwidth_share=serving.bandwidth_efficiency_share,
                      name=eff.name + ", bandwidth share from the scenario")
    if serving.flops_efficiency_share is not None:
        eff = replace(eff, flops_share=serving.flops_efficiency_share,
                      name=eff.name + ", FLOPS share from the scenario")
    return eff


def _check_framework(serving, data: dict, file: str, lines: dict | None) -> None:
    """A named serving framework needs a calibration fitted on its runs: the file's ``[fit] frameworks`` lists them
    (a user's file that does not say covers whatever its scenario names); else exit 2 naming what would cover it."""
    from pathlib import Path

    from tco.errors import InputError, Problem

    framework = getattr(serving, "framework", "generic")
    fit = data.get("fit", {}) if isinstance(data.get("fit"), dict) else {}
    if framework == "generic" or ("frameworks" not in fit and serving.calibration):
        return
    tables = data.get("framework", {}) if isinstance(data.get("framework"), dict) else {}
    covered = [f for f in str(fit.get("frameworks", "")).split(",") if f] + sorted(tables)
    if framework in covered:
        return
    where = Path(str(data.get("file", "the calibration file"))).name
    raise InputError([Problem(file, "inference.framework", (
        f"no serving calibration for framework {framework!r}: {where} was fitted on "
        f"{', '.join(covered) or 'runs of no named framework'}; fit your own {framework} benchmark with "
        f"`python -m tco calibrate BENCHMARK` (a `framework` column of {framework!r}) and set [inference] "
        "calibration to the file it writes, or use framework = \"generic\""), (lines or {}).get(("inference", "framework")))])


FRAMEWORK_FIT_KEYS = frozenset({"rows_fitted", "median_abs_error_in_sample", "median_abs_error_leave_one_out", "versions"})
"""The figures `tco calibrate --frameworks` writes in a [framework.<name>] table beside its parameters."""


def _framework_eff(eff: Calibration, data: dict, framework: str) -> Calibration:
    """The calibration of a named framework: the file's ``[framework.<name>]`` parameters (its own fit of the shares
    and overheads, tco/cli/calibrate_frameworks.py) over the main ones; unchanged for "generic" or a framework the
    file has no table for (the main fit is that framework's, ``[fit] frameworks``)."""
    from tco.sizing.calibrate import PARAMS, from_dict

    tables = data.get("framework", {}) if isinstance(data.get("framework"), dict) else {}
    own = tables.get(framework) if framework != "generic" else None
    if not isinstance(own, dict):
        return eff
    from tco.errors import InputError, Problem

    stray = sorted(set(own) - set(PARAMS) - FRAMEWORK_FIT_KEYS)
    if stray:  # a misspelt parameter was dropped in silence: the "vllm fit" was the main fit (red team 2026-12c K3)
        raise InputError([Problem(str(data.get("file", "calibration file")), f"framework.{framework}.{k}",
                                  f"unknown key; a [framework.{framework}] table holds {', '.join(PARAMS)} and the "
                                  "fit's figures (rows_fitted, median_abs_error_…, versions)", None) for k in stray])
    base = {k: getattr(eff, k) for k in PARAMS} | {k: v for k, v in own.items() if k in PARAMS}
    where = f"{data.get('file', 'calibration file')} [framework.{framework}]"
    return replace(from_dict(base, where), name=f"{eff.name}, {framework} fit", source=eff.source)


def _check_speculative(s, cat, file: str, lines: dict | None) -> None:
    """MTP speculative decoding needs a model that ships an MTP module (models.csv mtp_modules), else exit 2."""
    from tco.errors import InputError, Problem

    model = cat.models.get(s.model.id)
    if getattr(s.inference, "speculative", "none") != "mtp" or model is None or model.mtp_modules > 0:
        return
    have = sorted(k for k, m in cat.models.items() if m.mtp_modules > 0)
    raise InputError([Problem(file, "inference.speculative", (
        f"speculative = \"mtp\" needs a model with a multi-token-prediction module; {s.model.id!r} has none "
        f"(models.csv mtp_modules); models that have one: {', '.join(have) or 'none'}; use speculative = \"none\""),
        (lines or {}).get(("inference", "speculative")) or (lines or {}).get(("inference",)))])


def speculative_dict(s) -> dict:
    """The speculative decoding of the scenario as plain values (JSON sizing.inference.speculative)."""
    inf = s.inference
    if getattr(inf, "speculative", "none") != "mtp":
        return {"method": "none", "draft_tokens": 0, "acceptance_share": None, "accepted_tokens_per_step": 1.0}
    load = Load(1.0, 1.0, draft_tokens=inf.speculative_draft_tokens, acceptance_share=inf.speculative_acceptance_share)
    return {"method": "mtp", "draft_tokens": inf.speculative_draft_tokens,
            "acceptance_share": inf.speculative_acceptance_share, "accepted_tokens_per_step": load.accepted_tokens}


def calibration_dict(eff: Calibration) -> dict:
    """The calibration as plain values, for JSON and the workbook."""
    return {"name": eff.name, "source": eff.source, "bandwidth_share": eff.bandwidth_share,
            "flops_share": eff.flops_share, "interconnect_share": eff.interconnect_share,
            "step_overhead_seconds": eff.step_overhead_seconds,
            "collective_latency_seconds": eff.collective_latency_seconds,
            "sequence_overhead_seconds": eff.sequence_overhead_seconds,
            "layer_overhead_seconds": eff.layer_overhead_seconds}


def size_inference(model, fleet, s, eff: Calibration, network) -> tuple[list[dict], ReplicaSize | None]:
    """Every replica layout of a fleet's server with its terms, and the chosen one (None: nothing fits)."""
    m, hw, load = _serving_terms(model, fleet, s, network)
    cands = candidates(m, hw, load, eff)
    return cands, choose(cands, fleet.gpus_per_server, eff.name)


def prime_inference(model, fleets_networks: list, s, eff: Calibration) -> None:
    """Size the single-server layouts of many fleets ((fleet, network) pairs) in one evaluation, into the cache
    ``size_inference`` reads (sizing_inference.replica_tables): the plan search sizes every offer of the catalog."""
    keys = []
    for fleet, network in fleets_networks:
        m, hw, load = _serving_terms(model, fleet, s, network)
        keys.append((tuple(layouts(m, hw, load)), m, hw, load, eff, None))
    replica_tables(keys)


def _serving_terms(model, fleet, s, network) -> tuple[ModelSpec, Hardware, Load]:
    """The model, the server's hardware and the load that size a replica of `fleet` (size_inference)."""
    from tco.sizing.calibrate import hardware_for, model_spec

    serving = s.inference
    spec = model_spec(model, s.model.precision, s.model.kv_precision)
    hw = replace(hardware_for(fleet.gpu, fleet.gpus_per_server, network_gbps(network)),
                 peak_tflops=peak_tflops(fleet.gpu, s.model.precision),
                 attn_tflops=peak_tflops(fleet.gpu, attention_format(s.model.kv_precision)),
                 wide_tflops=peak_tflops(fleet.gpu, spec.wide_precision or s.model.precision),
                 vocab_tflops=peak_tflops(fleet.gpu, spec.vocab_precision or s.model.precision),
                 fp4_gemm=s.model.precision == Precision.FP4 and bool(fleet.gpu.fp4_tflops))
    mtp = getattr(serving, "speculative", "none") == "mtp"
    load = Load(serving.input_tokens_per_request, serving.output_tokens_per_request, serving.tokens_per_second_per_user,
                serving.time_to_first_token_seconds, serving.max_batch_sequences, serving.memory_usable_share,
                serving.speculative_draft_tokens if mtp else 0, serving.speculative_acceptance_share if mtp else 0.0,
                KV_RESERVE_SHARE[getattr(serving, "framework", "generic")],
                PREFILL_MIX_SHARE[getattr(serving, "framework", "generic")])
    return spec, hw, load
