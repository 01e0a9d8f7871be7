"""The training cluster as rules: one declaration that the engine evaluates (``tco.sizing.size_training``) and the
Sizing sheet writes as live formulas, one column per option, with that evaluation's values as cache.

Training is compute-bound: FLOPs = (6·N + 6·L·s·w)·D, the weight matmuls (Kaplan et al. 2020, "Scaling Laws for
Neural Language Models", §2.1) and the causal attention's score and value products over a sequence of s tokens, w the
query width (Narayanan et al. 2021's 12·l·h·s halved by the mask, as Megatron-Bridge counts it),
GPU-hours = FLOPs / (peak dense FLOPS × MFU × 3600), the peak and the MFU both at the training precision (bf16, fp8 or
fp4, each against its own dense peak). The MFU is the catalog's table cell for the GPU's generation and the precision
(``mfu_base``, ``tco.sizing.training_mfu_base``) times a width factor (hidden size / 8192)^k and a mixture-of-experts
factor that falls with the size of one expert (small expert matrices fill the tensor cores less, and the token
routing and token permutation weigh more against them) and lower at fp8/fp4 (that work does not speed up with the
GEMMs), unless the scenario gives the MFU; the all-to-all itself the public runs show hidden behind compute (its
physics in tco/sizing/training_check.py ``a2a_ratio``, fitted exposure 0); every
figure is fitted on public runs in docs/calibration_training.md. The memory of the method sets the fewest GPUs
that hold the job (mixed-precision Adam keeps 16 B per trained parameter, Rajbhandari et al. 2020, ZeRO, §3.1, also
in fp8 or fp4 training, which keeps master weights and optimizer states wide; LoRA keeps the frozen base in bf16),
the target duration (or the servers the scenario gives) the rest; the wall-clock time
divides the work by the GPUs and by the share of linear speed-up the interconnect keeps.

The rules read the inputs of ``INPUTS`` (named as ``size_training``'s arguments) and one scalar per option;
``rules`` picks the branches (method, GPU-hours given or derived, servers given or sized), the one place that
branches.

>>> rows = evaluate_cluster(rules(TrainingMethod.LORA, hours_given=False, servers_given=False), dict(
...     params=70e9, active_params=70e9, tokens=2e9, epochs=3.0, mfu_base=0.4, layers=80, experts=0, moe_a=0.1,
...     seq_len=4096, attn_width=8192,
...     moe_k=0.4, moe_lowp=1.0, hidden=8192, width_k=0.2, hidden_ref=8192, peak_tflops=989.5,
...     gpu_memory_gb=141.0, memory_usable_share=0.9, gpus_per_server=8, target_days=14.0, activation_share=0.25,
...     lora_share=0.01, multi_gpu_scaling=0.9))
>>> rows["tr_mfu"], rows["tr_min_gpus"], rows["tr_servers"], round(rows["wall_hours"], 1)
(0.4, 2.0, 1.0, 255.1)
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from tco.constants import (
    ADAM_BYTES,
    BYTES_PER_GB,
    FLOPS_PER_TFLOPS,
    FROZEN_BYTES,
    H_PER_DAY,
    PER_BILLION,
    S_PER_H,
    TRAIN_ATTN_FLOPS,
    TRAIN_FLOPS,
)
from tco.domain import Interconnect, TrainingMethod
from tco.expr import EXP, IF, LN, MAX, MIN, ROUNDUP, Expr, In, Row, Rule, evaluate

INPUTS: dict[str, str] = {
    "params": f"(in_params_b*{PER_BILLION.name})", "active_params": f"(in_active_params_b*{PER_BILLION.name})",
    "tokens": "in_train_tokens", "epochs": "in_epochs", "mfu": "in_mfu", "gpu_hours": "in_gpu_hours",
    "activation_share": "in_act_share", "lora_share": "in_lora_share", "memory_usable_share": "in_mem_usable",
    "target_days": "in_target_days", "servers": "in_train_servers",
    "peak_tflops": "{p}tr_tflops", "gpu_memory_gb": "{p}tr_mem", "gpus_per_server": "{p}tr_gps",
    "multi_gpu_scaling": "{p}tr_scaling", "mfu_base": "{p}tr_mfu_base", "layers": "in_layers",
    "experts": "in_experts", "moe_a": "in_moe_mfu_a", "moe_k": "in_moe_mfu_k", "hidden": "in_hidden",
    "width_k": "in_tr_width_k", "hidden_ref": "in_tr_hidden_ref", "moe_lowp": "in_moe_mfu_lowp",
    "seq_len": "in_tr_seq_len", "attn_width": "in_attn_width",
}
"""Input name → the workbook's defined name (``{p}`` is the option's prefix ``in_o<i>_``): parameters [-], tokens
[-], epochs [-], MFU given [-], GPU-hours [GPU·h], shares [-], target duration [d], servers [-], peak dense TFLOPS
at the training precision [TFLOPS], GPU memory [GB], GPUs per server [-], the multi-GPU scaling efficiency of the
interconnect [-], the catalog's MFU for the GPU generation and precision [-], layers and routed experts [-], the
mixture-of-experts factor's coefficient and exponent [-], its factor at the training precision (1 in bf16) [-],
the hidden size [-], the width factor's exponent [-] and
reference hidden size [-], the training sequence length [tokens] and the attention's query width (query heads × head
size) [-]."""

UNLISTED_INTERCONNECT_SCALING = 0.5
"""Multi-GPU scaling efficiency [-] of an interconnect the catalog's table (defaults.toml ``[scaling_efficiency]``)
lists neither by name nor as PCIe: about 50 % over PCIe (the seed article, DESIGN.md's modelling rules)."""


def multi_gpu_scaling(interconnect: str, table: Mapping[str, float]) -> float:
    """Share of linear speed-up a job keeps across several GPUs over ``interconnect`` [-]: the table's value; an
    interconnect the table does not list scales like PCIe, and as ``UNLISTED_INTERCONNECT_SCALING`` when the table
    has no PCIe entry either.

    >>> multi_gpu_scaling("nvlink", {"nvlink": 0.9, "pcie": 0.5}), multi_gpu_scaling("infiniband", {})
    (0.9, 0.5)
    """
    return float(table.get(interconnect, table.get(Interconnect.PCIE, UNLISTED_INTERCONNECT_SCALING)))


SCOPE_DERIVED = {
    "counts": "the model FLOPs of the training steps, (6·N + 6·L·s·w)·D (N active parameters, L layers, s the "
              "sequence length, w the attention's query width, D tokens × epochs: the weight matmuls and the causal "
              "attention), at the MFU, then the multi-GPU scaling loss of the cluster",
    "excludes": "restarts and failed runs, "
                "checkpoint stalls, evaluation, ablations and hyper-parameter searches, long-context, annealing and "
                "post-training stages, idle reserved capacity (docs/calibration_training.md)",
}
"""What GPU-hours derived from tokens count and leave out (the JSON's ``sizing.training.scope``): the reasons and
the measurements behind them are in docs/calibration_training.md."""
SCOPE_GIVEN = {"counts": "the GPU-hours the scenario gives ([training] gpu_hours), then the multi-GPU scaling loss "
                         "of the cluster",
               "excludes": "whatever those GPU-hours leave out"}
"""What GPU-hours the scenario gives count: the scenario's own figure."""

PARAMS, ACTIVE = In("params"), In("active_params")


def memory(method: TrainingMethod) -> Expr:
    """Memory to train [B]: full and pre-training keep Adam's 16 B per parameter; LoRA the frozen bf16 base (2 B per
    parameter) and 16 B per trainable adapter parameter; both × (1 + activation share)."""
    if method in (TrainingMethod.FULL, TrainingMethod.PRETRAIN):
        states = ADAM_BYTES * PARAMS
    elif method == TrainingMethod.LORA:
        states = FROZEN_BYTES * PARAMS + ADAM_BYTES * In("lora_share") * PARAMS
    else:
        raise ValueError(f"no training cluster for method {method!r}")
    return states * (1 + In("activation_share"))


EXPERT_B = Rule("tr_expert_b", PARAMS / (In("layers") * MAX(1, In("experts"))) / PER_BILLION, "1e9",
                "parameters of one expert [billions] ≈ total parameters / (layers × routed experts); a whole layer "
                "when dense")
WIDTH = Rule("tr_width", EXP(In("width_k") * LN(In("hidden") / In("hidden_ref"))), "-",
             "width factor = (hidden size / reference hidden size)^k: narrow matrices fill the tensor cores less "
             "(docs/calibration_training.md)")
MOE = Rule("tr_moe_factor", IF(In("experts") > 0, MIN(1, In("moe_a") * EXP(In("moe_k") * LN(Row("tr_expert_b")))
                                                   * In("moe_lowp")), 1),
           "-", "mixture-of-experts MFU factor = min(1, a × expert size [10⁹ parameters]^k × precision factor (1 in "
           "bf16: routing and token permutation do not speed up with fp8/fp4)); 1 when dense; the all-to-all is hidden "
           "behind compute in the public runs (docs/calibration_training.md)")
MFU_DERIVED = Rule("tr_mfu", In("mfu_base") * Row("tr_width") * Row("tr_moe_factor"), "-",
                   "MFU = catalog MFU of the GPU generation at the training precision × width factor × "
                   "mixture-of-experts factor")
MFU_GIVEN = Rule("tr_mfu", In("mfu"), "-", "MFU, as the scenario gives it")

FLOPS_PER_TOKEN = Rule("tr_flops_per_token", TRAIN_FLOPS * ACTIVE + TRAIN_ATTN_FLOPS * In("layers") * In("seq_len")
                       * In("attn_width"), "FLOP",
                       "training FLOPs per token = 6 · active parameters (Kaplan et al. 2020, §2.1) + 6 · layers · "
                       "sequence length · query width (causal attention, forward and backward: Narayanan et al. 2021's "
                       "12·l·h·s halved by the mask)")
FLOPS = Rule("tr_flops", Row("tr_flops_per_token") * In("tokens") * In("epochs"), "FLOP",
             "training compute = FLOPs per token · tokens · epochs")
HOURS_DERIVED = Rule("gpu_hours", Row("tr_flops") / (In("peak_tflops") * FLOPS_PER_TFLOPS * Row("tr_mfu") * S_PER_H),
                     "GPU·h", "useful GPU-hours = FLOPs / (peak TFLOPS at the training precision × 10¹² × MFU × 3600 "
                     "s/h); the training steps only, without restarts, ablations, long-context or post-training stages")
HOURS_GIVEN = Rule("gpu_hours", In("gpu_hours"), "GPU·h", "useful GPU-hours, as the scenario gives them")
MIN_GPUS = Rule("tr_min_gpus", MAX(1, ROUNDUP(Row("tr_mem_b") / (In("gpu_memory_gb") * BYTES_PER_GB
                                                                 * In("memory_usable_share")))), "GPU",
                "fewest GPUs that hold the job = ⌈memory / (GPU memory × usable share)⌉, at least 1")
MIN_SERVERS = Rule("tr_min_servers", ROUNDUP(Row("tr_min_gpus") / In("gpus_per_server")), "servers",
                   "fewest servers that hold the job = ⌈minimum GPUs / GPUs per server⌉")
WANTED_SIZED = Rule("tr_wanted", IF(Row("gpu_hours") > 0, ROUNDUP(Row("gpu_hours") / (
    In("multi_gpu_scaling") * In("gpus_per_server") * In("target_days") * H_PER_DAY)), 1), "servers",
    "servers that finish in the target duration = ⌈GPU-hours / (multi-GPU scaling × GPUs per server × days × 24)⌉"
    )
WANTED_GIVEN = Rule("tr_wanted", In("servers"), "servers", "servers, as the scenario gives them")
SERVERS = Rule("tr_servers", MAX(Row("tr_min_servers"), Row("tr_wanted")), "servers",
               "servers of the cluster: those wanted, never fewer than hold the job")
GPUS = Rule("tr_gpus", Row("tr_servers") * In("gpus_per_server"), "GPU", "GPUs of the cluster = servers × GPUs")
SCALING = Rule("scaling_eff", IF(Row("tr_gpus") <= 1, 1, In("multi_gpu_scaling")), "-",
               "share of linear speed-up kept: 1 on one GPU, else the interconnect's (multi_gpu_scaling)")
WALL = Rule("wall_hours", IF(Row("gpu_hours") > 0, Row("gpu_hours") / (Row("tr_gpus") * Row("scaling_eff")), 0), "h",
            "wall-clock time = GPU-hours / (GPUs × scaling efficiency)")
BILLED = Rule("tr_billed_gpu_hours", Row("wall_hours") * Row("tr_gpus"), "GPU·h",
              "GPU-hours billed = wall-clock hours × GPUs, what a cluster rented by the hour is paid for")


def mfu_rules(*, hours_given: bool, mfu_given: bool) -> tuple[Rule, ...]:
    """The MFU's rules: none when the GPU-hours are given, the scenario's MFU when it gives one, else expert size,
    width factor, mixture-of-experts factor and MFU."""
    if hours_given:
        return ()
    return (MFU_GIVEN,) if mfu_given else (EXPERT_B, WIDTH, MOE, MFU_DERIVED)


@cache
def rules(method: str, *, hours_given: bool, servers_given: bool, mfu_given: bool = False) -> tuple[Rule, ...]:
    """The training cluster of ``method`` in the order it is computed and shown. The FLOPs come first even when the
    GPU-hours are given (the results report them; ``sheet_rules`` leaves them out of the workbook then). Kept per
    arguments: the same objects come back, so their compiled program is found again (an expression's ``==`` builds a
    comparison node, so rules are told apart by identity)."""
    mem = Rule("tr_mem_b", memory(TrainingMethod(method)), "B",
               "memory to train = bytes of the method's states per parameter × (1 + activation share)")
    return (FLOPS_PER_TOKEN, FLOPS, mem, MIN_GPUS, MIN_SERVERS, *mfu_rules(hours_given=hours_given, mfu_given=mfu_given),
            HOURS_GIVEN if hours_given else HOURS_DERIVED, WANTED_GIVEN if servers_given else WANTED_SIZED, SERVERS,
            GPUS, SCALING, WALL, BILLED)


def sheet_rules(method: str, *, hours_given: bool, servers_given: bool, mfu_given: bool = False) -> tuple[Rule, ...]:
    """The rules the Sizing sheet writes: all, but the FLOPs when the GPU-hours are given (they drive nothing then,
    and the Inputs sheet has no tokens)."""
    return tuple(r for r in rules(method, hours_given=hours_given, servers_given=servers_given, mfu_given=mfu_given)
                 if not (hours_given and (r is FLOPS or r is FLOPS_PER_TOKEN)))


def evaluate_cluster(rule_set: tuple[Rule, ...], inputs: Mapping[str, float]) -> dict[str, float]:
    """Evaluate the rules for one cluster: rule key → value."""
    rows = evaluate(rule_set, inputs, 1)
    return {rule.key: float(rows[rule.key][0]) for rule in rule_set}
