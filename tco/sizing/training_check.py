"""Training GPU-hours against public measurements (tco/catalog/data/calibration_training.csv): the check behind
docs/calibration_training.md and ``benchmarks/mfu_training_check.py``.

Each row is a published pre-training run: parameters N, layers L, hidden size d, sequence length, GPU peak BF16,
tokens D and the GPU-hours its authors report. The tool prices GPU-hours = 6·N·D / (peak × MFU × scaling × 3600)
(tco/sizing/training_rules.py, billed hours); ``implied_mfu`` inverts that for a row, ``attention_share`` is the attention-
score work 6·N·D leaves out (12·L·d·seq per token, Chowdhery et al. 2022, "PaLM", Appendix B), and ``models``
compares candidate MFU models by their in-sample and leave-one-out errors on the rows.
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


@dataclass(frozen=True)
class Run:
    """One published pre-training run."""
    id: str
    params: float
    layers: int
    hidden: int
    seq: int
    gpu: str
    peak_tflops: float
    tokens: float
    gpu_hours: float


def read(path: Path = DATA) -> list[Run]:
    """The rows of calibration_training.csv."""
    with path.open(encoding="utf-8", newline="") as f:
        return [Run(r["id"], float(r["params_b"]) * 1e9, int(r["layers"]), int(r["hidden_size"]), int(r["seq_len"]),
                    r["gpu"], float(r["peak_bf16_tflops"]), float(r["tokens"]), float(r["reported_gpu_hours"]))
                for r in csv.DictReader(f)]


def attention_share(run: Run) -> float:
    """Attention-score FLOPs per token over the 6·N FLOPs per token [-]: 12·L·d·seq / (6·N).

    >>> round(attention_share(Run("x", 8.03e9, 32, 4096, 8192, "H100", 989.5, 1e12, 1.0)), 3)
    0.267
    """
    return 12 * run.layers * run.hidden * run.seq / (_SIX * run.params)


def implied_mfu(run: Run, scaling: float, *, attention: bool = False) -> float:
    """The MFU [-] at which the tool's billed hours equal the reported ones:
    FLOPs / (reported GPU-hours × 3600 × peak × 10¹² × scaling), FLOPs = 6·N·D (× (1 + attention share))."""
    flops = _SIX * run.params * run.tokens * (1 + (attention_share(run) if attention else 0.0))
    return flops / (run.gpu_hours * _S_PER_H * run.peak_tflops * _TERA * scaling)


def power_law(runs: Sequence[Run], scaling: float) -> tuple[float, float]:
    """Least-squares fit of ln(implied MFU) = ln(a) + k·ln(N): returns (a, k). One run gives k = 0."""
    xs = [math.log(r.params) for r in runs]
    ys = [math.log(implied_mfu(r, scaling)) for r in runs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return math.exp(my - k * mx), k


Predict = Callable[[Sequence[Run], Run], float]
"""A candidate MFU model: (rows it is fitted on, row) → the MFU it gives that row."""


def errors(runs: Sequence[Run], predict: Predict, scaling: float, group: Callable[[Run], str] = lambda r: r.id
           ) -> list[tuple[str, float, float]]:
    """Per row (id, in-sample error, leave-one-out error) of the predicted GPU-hours over the reported ones − 1 [-]:
    predicted / reported = implied MFU / predicted MFU. Leave-one-out refits without the row's ``group`` (rows of
    the same model family and size are correlated, so they leave together)."""
    out = []
    for r in runs:
        rest = [x for x in runs if group(x) != group(r)]
        out.append((r.id, implied_mfu(r, scaling) / predict(runs, r) - 1,
                    implied_mfu(r, scaling) / predict(rest, r) - 1 if rest else math.nan))
    return out


def summary(errs: Sequence[tuple[str, float, float]]) -> dict[str, float]:
    """Mean absolute and worst (largest absolute, with its sign) in-sample and leave-one-out errors [-]."""
    out: dict[str, float] = {}
    for name, column in (("in_sample", [e[1] for e in errs]), ("loo", [e[2] for e in errs])):
        v = [x for x in column if not math.isnan(x)]
        out[f"{name}_mean_abs"] = sum(abs(x) for x in v) / len(v)
        out[f"{name}_worst"] = max(v, key=abs)
    return out
