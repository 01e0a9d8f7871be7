"""Training MFU against public measurements (tco/catalog/data/calibration_training.csv): the fit behind the catalog's
``[training]`` tables (defaults.toml) and the check in docs/calibration_training.md and
``benchmarks/mfu_training_check.py``.

Each row is a published pre-training run: the GPU-hours of a whole run (model cards, the DeepSeek-V3 report) or the
tokens per second per GPU of a benchmark (NVIDIA's NeMo / Megatron-Bridge performance tables), with the model's
parameters (total and active), layers, routed experts, the GPU's generation, the training precision, and that
precision's dense peak. The tool prices GPU-hours = 6·N·D / (peak × MFU × scaling × 3600) (tco/sizing/training_rules.py,
billed hours); ``implied_mfu`` inverts that for a row. The MFU model (``MfuModel``) is

    MFU = base[precision] × generation factor × (hidden / 8192)^w × MoE factor × goodput (whole runs only),
    MoE factor = min(1, a × expert size [10⁹]^k × q (fp8/fp4) × n (expert parallel beyond 8 GPUs inside an NVL72
                 domain) / (1 + exposure × all-to-all ratio))  (1 when dense),
    base[fp4] = base[fp8] / (f + FP4 peak / FP8 peak × (1 − f)),

fitted by least squares on ln(implied MFU) over the rows marked ``fit`` (the FP4 share f by golden-section search),
with the Hopper factor at 1; ``errors`` gives each row's in-sample and leave-one-out error. The all-to-all ratio
(``a2a_ratio``) is the physics of the MoE step's token dispatch and combine: the bytes a token's top-k copies move
over NVLink and the scale-out network per layer, over the time of its 6·N FLOPs at peak. ``exposure_fit`` fits the
share of it the runs leave exposed (the rest the framework overlaps with compute); the shipped model leaves it at 0,
which is what the runs measure (docs/calibration_training.md). The engine applies a, k and q
(tco/sizing/training_rules.py). ``attention_share`` and ``power_law`` are the
earlier candidate models the document compares.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tco.constants import FLOPS_PER_TFLOPS, S_PER_H, TRAIN_ATTN_FLOPS, TRAIN_FLOPS

_SIX, _S_PER_H, _TERA = TRAIN_FLOPS.value, S_PER_H.value, FLOPS_PER_TFLOPS.value
_ATTN = TRAIN_ATTN_FLOPS.value

DATA = Path(__file__).parents[1] / "catalog" / "data" / "calibration_training.csv"

FIT, ANCHOR = "fit", "anchor"
"""Values of the ``use`` column the fit reads (an ``anchor`` row, the former BF16 anchor's label, counts as ``fit``);
any other value ("excluded: <reason>") leaves the row out."""


@dataclass(frozen=True)
class Run:
    """One published pre-training run (or benchmark)."""
    id: str
    params: float
    layers: int
    hidden: int
    seq: int
    gpu: str
    peak_tflops: float
    """Dense peak at the row's precision [TFLOPS]."""
    tokens: float
    gpu_hours: float
    active: float = 0.0
    """Active parameters per token (0: all of ``params``)."""
    experts: int = 0
    generation: str = "hopper"
    precision: str = "bf16"
    tokens_per_s: float = 0.0
    """Measured tokens/s per GPU (a benchmark row; 0 when the row gives tokens and GPU-hours)."""
    regime: str = ""
    use: str = FIT
    gpus: int = 0
    nvlink_domain: int = 8
    """GPUs per NVLink domain of the system (8 for an HGX/DGX server, 72 for an NVL72 rack)."""
    fp8_peak: float = 0.0
    """The GPU's dense FP8 peak [TFLOPS] (an fp4 row's; 0 elsewhere)."""
    ep: int = 0
    """Expert-parallel size of the run (0: not stated)."""
    top_k: int = 0
    """Routed experts per token (0: dense or not stated)."""
    nvlink_gbs: float = 0.0
    """NVLink per GPU, both directions [GB/s] (NVIDIA's tables; one direction is half)."""
    scaleout_gbs: float = 0.0
    """Scale-out network per GPU, one direction [GB/s] (a 400 Gb/s NIC per GPU: 50)."""
    attn_width: int = 0
    """Query width of the attention, query heads × head size [-] (0: ``hidden``), as the engine counts it
    (tco.engine.attention_width)."""

    @property
    def production(self) -> bool:
        """The row gives a whole run's GPU-hours (a model card, a technical report), not a benchmark's rate."""
        return not self.tokens_per_s

    @property
    def ep_in_rack(self) -> bool:
        """The expert-parallel group spans more than an 8-GPU board but stays inside the system's NVLink domain (an
        NVL72 rack): its all-to-all runs on NVLink where an 8-GPU server's would cross the network."""
        return self.nvlink_domain > A2A_BOARD and self.ep > A2A_BOARD

    @property
    def active_params(self) -> float:
        return self.active or self.params

    @property
    def rate(self) -> float:
        """Tokens per second per GPU [tokens/s]: measured, or tokens / (GPU-hours × 3600)."""
        return self.tokens_per_s or self.tokens / (self.gpu_hours * _S_PER_H)

    @property
    def flops_per_token(self) -> float:
        """Training FLOPs per token [FLOP]: 6·N_active + 6·layers·seq·attention width (``flops_per_token``)."""
        return flops_per_token(self.active_params, self.layers, self.seq, self.attn_width or self.hidden)

    @property
    def expert_b(self) -> float:
        """Parameters of one expert [10⁹] ≈ total / (layers × routed experts), as tco.sizing.training_rules.EXPERT_B."""
        return self.params / (self.layers * max(1, self.experts)) / 1e9


def flops_per_token(active: float, layers: float, seq: float, width: float) -> float:
    """Training FLOPs per token, forward and backward [FLOP]: 6·N_active (the weight matmuls, Kaplan et al. 2020) +
    6·layers·seq·width, the causal attention's score and value products (TRAIN_ATTN_FLOPS: Narayanan et al. 2021's
    12·l·h·s halved by the mask, as Megatron-Bridge's flop_utils counts it), width = query heads × head size.

    >>> flops_per_token(70.55e9, 80, 8192, 8192)  # 6 × 70.55e9 = 423.3e9, + 6 × 80 × 8192 × 8192 = 32.21e9
    455512254720.0
    """
    return _SIX * active + _ATTN * layers * seq * width


A2A_BOARD = 8
"""GPUs on one HGX/DGX board's NVLink switch [-]."""
A2A_TRANSFERS = 4
"""Transfers of each routed token copy per MoE layer and training step [-]: dispatch and combine forward, their
gradients backward."""
A2A_BYTES = 2.0
"""Bytes per element moved [B]: BF16 (an upper bound where a framework dispatches in FP8, as DeepSeek-V3 does)."""


def a2a_ratio(run: Run) -> float:
    """Time of a token's all-to-all over the time of its 6·N_active FLOPs at the dense peak [-] (0 when dense or the
    layout is not stated). Per layer each of the top-k copies moves A2A_TRANSFERS × hidden × A2A_BYTES; with expert
    parallelism over ``ep`` GPUs, (min(ep, board) − 1) / ep of the copies go to another GPU over NVLink (one direction,
    half the bidirectional figure) and (1 − board / ep) to another board over the scale-out network, board = the
    NVLink domain (8, or 72 in an NVL72 rack). No per-node de-duplication: an upper bound on the network bytes.

    >>> r = Run("q", 30.5e9, 48, 2048, 4096, "H100", 1979.0, 0, 0, 3.3e9, 128, precision="fp8", ep=16, top_k=8,
    ...         nvlink_gbs=900, scaleout_gbs=50)
    >>> round(a2a_ratio(r), 3)  # (6.117 µs NVLink + 62.915 µs network) / 10.005 µs at peak
    6.9
    """
    if not (run.experts and run.ep and run.top_k and run.nvlink_gbs):
        return 0.0
    board = max(A2A_BOARD, run.nvlink_domain)
    per_copy = run.layers * A2A_TRANSFERS * run.hidden * A2A_BYTES
    intra = run.top_k * (min(run.ep, board) - 1) / run.ep * per_copy / (run.nvlink_gbs / 2 * 1e9)
    inter = run.top_k * max(0.0, 1 - board / run.ep) * per_copy / (run.scaleout_gbs * 1e9) if run.ep > board else 0.0
    return (intra + inter) / (_SIX * run.active_params / (run.peak_tflops * _TERA))


def _num(x: str) -> float:
    return float(x) if x.strip() else 0.0


def read(path: Path = DATA) -> list[Run]:
    """The rows of calibration_training.csv."""
    with path.open(encoding="utf-8", newline="") as f:
        return [Run(r["id"], float(r["params_b"]) * 1e9, int(r["layers"]), int(r["hidden_size"]), int(r["seq_len"]),
                    r["gpu"], float(r["peak_tflops"]), _num(r["tokens"]), _num(r["reported_gpu_hours"]),
                    float(r["active_params_b"]) * 1e9, int(r["experts"] or 0), r["generation"], r["precision"],
                    _num(r["tokens_per_s_per_gpu"]), r["regime"], r["use"], int(_num(r["gpus"])),
                    int(_num(r["nvlink_domain"]) or 8), _num(r["fp8_peak_tflops"]), int(_num(r["ep"])),
                    int(_num(r["top_k"])), _num(r["nvlink_gbs"]), _num(r["scaleout_gbs"]),
                    int(_num(r["attention_width"])))
                for r in csv.DictReader(f)]


def attention_share(run: Run) -> float:
    """PaLM's attention-score FLOPs per token over the 6·N FLOPs per token [-]: 12·L·d·seq / (6·N) (Chowdhery et al.
    2022, "PaLM", Appendix B: unmasked, on the hidden size), the earlier candidate of the benchmark's table.

    >>> round(attention_share(Run("x", 8.03e9, 32, 4096, 8192, "H100", 989.5, 1e12, 1.0)), 3)
    0.267
    """
    return 12 * run.layers * run.hidden * run.seq / (_SIX * run.active_params)


def implied_mfu(run: Run, scaling: float, *, attention: bool = True) -> float:
    """The MFU [-] at which the tool's billed hours equal the reported ones: FLOPs per token (``flops_per_token``,
    with the causal attention; 6·N_active alone without ``attention``, the count before 2026-12-02) × rate / (peak ×
    10¹² × scaling), rate in tokens/s per GPU."""
    flops = (run.flops_per_token if attention else _SIX * run.active_params) * run.rate
    return flops / (run.peak_tflops * _TERA * scaling)


def power_law(runs: Sequence[Run], scaling: float) -> tuple[float, float]:
    """Least-squares fit of ln(implied MFU, 6·N alone) = ln(a) + k·ln(N): returns (a, k). One run gives k = 0."""
    xs = [math.log(r.params) for r in runs]
    ys = [math.log(implied_mfu(r, scaling, attention=False)) for r in runs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return math.exp(my - k * mx), k


HIDDEN_REF = 8192
"""The hidden size at which the width factor is 1 (Llama 3 70B's) [-]: defaults.toml ``[training.width] reference``."""


@dataclass(frozen=True)
class MfuModel:
    """The fitted MFU model: base MFU by precision (Hopper, dense, hidden ``HIDDEN_REF``; fp4's from fp8's and the FP4
    share), factor by generation, width exponent, and the MoE factor's coefficient, exponent (on the expert size in
    10⁹ parameters) and factors for a low-precision run and for expert parallelism inside an NVL72 domain, the share
    of the all-to-all left exposed, and the goodput of a whole production run."""
    base: dict[str, float]
    generation: dict[str, float]
    moe_a: float
    moe_k: float
    width_k: float = 0.0
    fp4_share: float = 1.0
    moe_lowp: float = 1.0
    moe_nvl72: float = 1.0
    a2a_exposure: float = 0.0
    """Share of the all-to-all time (``a2a_ratio``) not hidden behind compute [-]."""
    goodput: float = 1.0
    """Share of a whole production run's GPU-hours that are training steps (restarts, checkpoints, evaluation
    take the rest): the fit's, applied to the rows that report a run's GPU-hours, not by the engine."""

    def base_mfu(self, run: Run) -> float:
        """Base × generation factor [-]: an fp4 row's base is the fp8 base / (share + (FP4 peak / FP8 peak) × (1 −
        share)), the time of the fp8 step with ``fp4_share`` of it ``r`` times faster, against the FP4 peak."""
        if run.precision == "fp4" and "fp4" not in self.base:
            ratio = run.peak_tflops / run.fp8_peak if run.fp8_peak else math.nan
            base = self.base.get("fp8", math.nan) / (self.fp4_share + ratio * (1 - self.fp4_share))
        else:
            base = self.base.get(run.precision, math.nan)
        return base * self.generation.get(run.generation, math.nan)

    def moe(self, run: Run) -> float:
        """The mixture-of-experts factor [-]: min(1, a × expert size^k × low-precision × NVL72 factors / (1 + exposure ×
        all-to-all ratio)); 1 when dense."""
        if not run.experts:
            return 1.0
        f = self.moe_a * run.expert_b ** self.moe_k * (self.moe_lowp if run.precision != "bf16" else 1.0)
        f *= (self.moe_nvl72 if run.ep_in_rack else 1.0) / (1 + self.a2a_exposure * a2a_ratio(run))
        return min(1.0, f)

    def mfu(self, run: Run) -> float:
        """The MFU this model gives ``run`` (nan when the fit has no value for its precision or generation)."""
        return (self.base_mfu(run) * (run.hidden / HIDDEN_REF) ** self.width_k * self.moe(run)
                * (self.goodput if run.production else 1.0))


GENERATIONS = ("ampere", "blackwell", "blackwell_ultra")
"""The fit's free generation factors (Hopper's is 1)."""


def _features(r: Run) -> list[float]:
    moe = 1.0 if r.experts else 0.0
    return ([1.0 if r.precision == "bf16" else 0.0, 0.0 if r.precision == "bf16" else 1.0]
            + [1.0 if r.generation == g else 0.0 for g in GENERATIONS] + [math.log(r.hidden / HIDDEN_REF)]
            + [moe, moe * math.log(r.expert_b), moe * (r.precision != "bf16"), moe * r.ep_in_rack,
               float(r.production)])


def _solve(rows: Sequence[Run], scaling: float, share: float, exposure: float = 0.0):
    """Least squares on ln(implied MFU) at a given FP4 share and all-to-all exposure: (coefficients, sum of squared
    residuals), or None when the rows leave a coefficient without data."""
    import numpy as np

    x = np.array([_features(r) for r in rows])
    y = np.array([math.log(implied_mfu(r, scaling)) + (math.log(share + r.peak_tflops / r.fp8_peak * (1 - share))
                                                        if r.precision == "fp4" else 0.0)
                  + math.log(1 + exposure * a2a_ratio(r)) for r in rows])
    if np.linalg.matrix_rank(x) < x.shape[1]:
        return None
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    return beta, float(((x @ beta - y) ** 2).sum())


def fit(runs: Sequence[Run], scaling: float, exposure: float = 0.0) -> MfuModel | None:
    """Least squares on ln(implied MFU) over the ``fit`` and ``anchor`` rows at a given all-to-all exposure; the FP4
    share (which makes it non-linear) by golden-section search on (0, 1). Returns the model, or None when the rows
    leave a parameter without data (no fp4 row: the share stays 1, fp4 at the fp8 base's share of its peak)."""
    rows = [r for r in runs if r.use in (FIT, ANCHOR)]
    if not rows:
        return None
    share = 1.0
    if any(r.precision == "fp4" for r in rows):
        lo, hi, phi = 1e-3, 1 - 1e-3, (math.sqrt(5) - 1) / 2
        for _ in range(60):
            x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
            s1, s2 = _solve(rows, scaling, x1, exposure), _solve(rows, scaling, x2, exposure)
            if s1 is None or s2 is None:
                return None
            lo, hi = (lo, x2) if s1[1] <= s2[1] else (x1, hi)
        share = (lo + hi) / 2
    solved = _solve(rows, scaling, share, exposure)
    if solved is None:
        return None
    b: dict[str, float] = dict(zip(("bf16", "fp8", *GENERATIONS, "width_k", "moe_ln_a", "moe_k", "lowp", "nvl72",
                                    "goodput"), (float(v) for v in solved[0]), strict=True))
    return MfuModel({"bf16": math.exp(b["bf16"]), "fp8": math.exp(b["fp8"])},
                    {"hopper": 1.0} | {g: math.exp(b[g]) for g in GENERATIONS}, math.exp(b["moe_ln_a"]), b["moe_k"],
                    b["width_k"], share, math.exp(b["lowp"]), math.exp(b["nvl72"]), exposure,
                    math.exp(b["goodput"]))


def _sse(runs: Sequence[Run], scaling: float, exposure: float) -> float:
    """Sum of squared ln residuals of the fit at ``exposure`` (inf when it cannot be fitted)."""
    m = fit(runs, scaling, exposure)
    rows = [r for r in runs if r.use in (FIT, ANCHOR)]
    return sum(math.log(implied_mfu(r, scaling) / m.mfu(r)) ** 2 for r in rows) if m else math.inf


def exposure_fit(runs: Sequence[Run], scaling: float, steps: int = 30) -> float:
    """The share of the all-to-all time (``a2a_ratio``) the runs leave exposed [-]: the ``exposure`` in [0, 1] whose
    fit has the least squared residual, by golden-section search (0: the frameworks hide it behind compute)."""
    lo, hi, phi = 0.0, 1.0, (math.sqrt(5) - 1) / 2
    for _ in range(steps):
        x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
        lo, hi = (lo, x2) if _sse(runs, scaling, x1) <= _sse(runs, scaling, x2) else (x1, hi)
    return (lo + hi) / 2


Predict = Callable[[Sequence[Run], Run], float]
"""A candidate MFU model: (rows it is fitted on, row) → the MFU it gives that row."""


def fitted(scaling: float) -> Predict:
    """The MFU model as a candidate: fitted on the rows given (nan when they cannot fix it)."""
    def predict(rows: Sequence[Run], r: Run) -> float:
        m = fit(rows, scaling)
        return m.mfu(r) if m is not None else math.nan
    return predict


def errors(runs: Sequence[Run], predict: Predict, scaling: float, group: Callable[[Run], str] = lambda r: r.id,
           *, attention: bool = True) -> list[tuple[str, float, float]]:
    """Per row (id, in-sample error, leave-one-out error) of the predicted GPU-hours over the reported ones − 1 [-]:
    predicted / reported = implied MFU / predicted MFU. Leave-one-out refits without the row's ``group`` (rows of
    the same model family and size are correlated, so they leave together); nan where the rest cannot fix it."""
    out = []
    for r in runs:
        rest = [x for x in runs if group(x) != group(r)]
        implied = implied_mfu(r, scaling, attention=attention)
        out.append((r.id, implied / predict(runs, r) - 1, implied / predict(rest, r) - 1 if rest else math.nan))
    return out


def summary(errs: Sequence[tuple[str, float, float]]) -> dict[str, float]:
    """Mean and median absolute and worst (largest absolute, with its sign) in-sample and leave-one-out errors [-],
    over the rows that have one."""
    out: dict[str, float] = {}
    for name, column in (("in_sample", [e[1] for e in errs]), ("loo", [e[2] for e in errs])):
        v = [x for x in column if not math.isnan(x)]
        if not v:
            out |= {f"{name}_mean_abs": math.nan, f"{name}_median_abs": math.nan, f"{name}_worst": math.nan}
            continue
        a = sorted(abs(x) for x in v)
        out[f"{name}_mean_abs"] = sum(a) / len(a)
        out[f"{name}_median_abs"] = (a[(len(a) - 1) // 2] + a[len(a) // 2]) / 2
        out[f"{name}_worst"] = max(v, key=abs)
    return out
