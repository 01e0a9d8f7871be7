"""Training MFU against public measurements (tco/catalog/data/calibration_training.csv): the fit behind the catalog's
``[training]`` tables (defaults.toml) and the check in docs/calibration_training.md and
``benchmarks/mfu_training_check.py``.

Each row is a published pre-training run: the GPU-hours of a whole run (model cards, the DeepSeek-V3 report) or the
tokens per second per GPU of a benchmark (NVIDIA's NeMo / Megatron-Bridge performance tables), with the model's
parameters (total and active), layers, routed experts, the GPU's generation, the training precision, and that
precision's dense peak. The tool prices GPU-hours = 6·N·D / (peak × MFU × scaling × 3600) (tco/sizing/training_rules.py,
billed hours); ``implied_mfu`` inverts that for a row. The MFU model is

    MFU = base[precision] × generation factor × min(1, a × expert size [10⁹]^k)   (the last factor 1 when dense),

fitted by least squares on ln(implied MFU) over the rows marked ``fit``, with the BF16 base held at the Llama 3.1
405B anchor (the row marked ``anchor``) and the Hopper factor at 1; ``errors`` gives each row's in-sample and
leave-one-out error. ``attention_share`` and ``power_law`` are the earlier candidate models the document compares.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tco.constants import FLOPS_PER_TFLOPS, S_PER_H, TRAIN_FLOPS

_SIX, _S_PER_H, _TERA = TRAIN_FLOPS.value, S_PER_H.value, FLOPS_PER_TFLOPS.value

DATA = Path(__file__).parents[1] / "catalog" / "data" / "calibration_training.csv"

FIT, ANCHOR = "fit", "anchor"
"""Values of the ``use`` column the fit reads; any other value ("excluded: <reason>") leaves the row out."""


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

    @property
    def active_params(self) -> float:
        return self.active or self.params

    @property
    def rate(self) -> float:
        """Tokens per second per GPU [tokens/s]: measured, or tokens / (GPU-hours × 3600)."""
        return self.tokens_per_s or self.tokens / (self.gpu_hours * _S_PER_H)

    @property
    def expert_b(self) -> float:
        """Parameters of one expert [10⁹] ≈ total / (layers × routed experts), as tco.sizing.training_rules.EXPERT_B."""
        return self.params / (self.layers * max(1, self.experts)) / 1e9


def _num(x: str) -> float:
    return float(x) if x.strip() else 0.0


def read(path: Path = DATA) -> list[Run]:
    """The rows of calibration_training.csv."""
    with path.open(encoding="utf-8", newline="") as f:
        return [Run(r["id"], float(r["params_b"]) * 1e9, int(r["layers"]), int(r["hidden_size"]), int(r["seq_len"]),
                    r["gpu"], float(r["peak_tflops"]), _num(r["tokens"]), _num(r["reported_gpu_hours"]),
                    float(r["active_params_b"]) * 1e9, int(r["experts"] or 0), r["generation"], r["precision"],
                    _num(r["tokens_per_s_per_gpu"]), r["regime"], r["use"], int(_num(r["gpus"])))
                for r in csv.DictReader(f)]


def attention_share(run: Run) -> float:
    """Attention-score FLOPs per token over the 6·N FLOPs per token [-]: 12·L·d·seq / (6·N) (Chowdhery et al. 2022,
    "PaLM", Appendix B).

    >>> round(attention_share(Run("x", 8.03e9, 32, 4096, 8192, "H100", 989.5, 1e12, 1.0)), 3)
    0.267
    """
    return 12 * run.layers * run.hidden * run.seq / (_SIX * run.active_params)


def implied_mfu(run: Run, scaling: float, *, attention: bool = False) -> float:
    """The MFU [-] at which the tool's billed hours equal the reported ones: 6·N_active·rate / (peak × 10¹² ×
    scaling), rate in tokens/s per GPU (× (1 + attention share) with ``attention``)."""
    flops = _SIX * run.active_params * run.rate * (1 + (attention_share(run) if attention else 0.0))
    return flops / (run.peak_tflops * _TERA * scaling)


def power_law(runs: Sequence[Run], scaling: float) -> tuple[float, float]:
    """Least-squares fit of ln(implied MFU) = ln(a) + k·ln(N): returns (a, k). One run gives k = 0."""
    xs = [math.log(r.params) for r in runs]
    ys = [math.log(implied_mfu(r, scaling)) for r in runs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return math.exp(my - k * mx), k


@dataclass(frozen=True)
class MfuModel:
    """The fitted MFU model: base MFU by precision (Hopper, dense), factor by generation, MoE coefficient and
    exponent (on the expert size in 10⁹ parameters)."""
    base: dict[str, float]
    generation: dict[str, float]
    moe_a: float
    moe_k: float

    def mfu(self, run: Run) -> float:
        """The MFU this model gives ``run`` (nan when the fit has no value for its precision or generation)."""
        base = self.base.get(run.precision, math.nan) * self.generation.get(run.generation, math.nan)
        return base * (min(1.0, self.moe_a * run.expert_b ** self.moe_k) if run.experts else 1.0)


PRECISIONS, GENERATIONS = ("fp8", "fp4"), ("ampere", "blackwell")
"""The fit's free bases (bf16 is the anchor's) and free generation factors (Hopper's is 1)."""


def _features(r: Run) -> list[float]:
    moe = 1.0 if r.experts else 0.0
    return ([1.0 if r.precision == p else 0.0 for p in PRECISIONS] + [1.0 if r.generation == g else 0.0
                                                                      for g in GENERATIONS]
            + [moe, moe * math.log(r.expert_b)])


def fit(runs: Sequence[Run], scaling: float) -> MfuModel | None:
    """Least squares on ln(implied MFU) − ln(bf16 anchor) over the ``fit`` rows, with the anchor row's implied MFU as
    the BF16 base: returns the model, or None when the rows leave a parameter without data (or there is no anchor)."""
    import numpy as np

    anchor = [r for r in runs if r.use == ANCHOR]
    rows = [r for r in runs if r.use == FIT]
    if not anchor or not rows:
        return None
    bf16 = implied_mfu(anchor[0], scaling)
    x = np.array([_features(r) for r in rows])
    y = np.array([math.log(implied_mfu(r, scaling)) - (math.log(bf16) if r.precision == "bf16" else 0.0)
                  for r in rows])
    if np.linalg.matrix_rank(x) < x.shape[1]:
        return None
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    b = dict(zip(PRECISIONS + GENERATIONS + ("moe_ln_a", "moe_k"), (float(v) for v in beta), strict=True))
    return MfuModel({"bf16": bf16} | {p: math.exp(b[p]) for p in PRECISIONS},
                    {"hopper": 1.0} | {g: math.exp(b[g]) for g in GENERATIONS}, math.exp(b["moe_ln_a"]), b["moe_k"])


Predict = Callable[[Sequence[Run], Run], float]
"""A candidate MFU model: (rows it is fitted on, row) → the MFU it gives that row."""


def fitted(scaling: float) -> Predict:
    """The MFU model as a candidate: fitted on the rows given (nan when they cannot fix it)."""
    def predict(rows: Sequence[Run], r: Run) -> float:
        m = fit(rows, scaling)
        return m.mfu(r) if m is not None else math.nan
    return predict


def errors(runs: Sequence[Run], predict: Predict, scaling: float, group: Callable[[Run], str] = lambda r: r.id
           ) -> list[tuple[str, float, float]]:
    """Per row (id, in-sample error, leave-one-out error) of the predicted GPU-hours over the reported ones − 1 [-]:
    predicted / reported = implied MFU / predicted MFU. Leave-one-out refits without the row's ``group`` (rows of
    the same model family and size are correlated, so they leave together); nan where the rest cannot fix it."""
    out = []
    for r in runs:
        rest = [x for x in runs if group(x) != group(r)]
        out.append((r.id, implied_mfu(r, scaling) / predict(runs, r) - 1,
                    implied_mfu(r, scaling) / predict(rest, r) - 1 if rest else math.nan))
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
