"""Training GPU-hours against the public pre-training runs (tco/catalog/data/calibration_training.csv): per row the
implied MFU and the error of each candidate MFU model, in sample and leave-one-out (docs/calibration_training.md).

    PYTHONPATH=$PWD python benchmarks/mfu_training_check.py
"""

from __future__ import annotations

import math

from tco.catalog import load_catalog
from tco.engine import defaults_for
from tco.sizing.training_check import Run, attention_share, errors, implied_mfu, power_law, read, summary


def family(r: Run) -> str:
    """Rows of one model family and size leave together (Llama 3 and 3.1 8B/70B are the same runs' family)."""
    return f"{'H100' if r.peak_tflops > 900 else 'A100'}-{round(r.params / 1e9, -1) if r.params > 2e10 else 8}" \
        if r.id.startswith(("TRN08", "TRN09", "L31")) else r.id


def main() -> None:
    d = defaults_for(load_catalog())
    mfu, scaling = d["mfu"], d["scaling_efficiency"]["nvlink"]
    runs = read()
    anchor = next(r for r in runs if r.id == "L31-405B")
    att_mfu = implied_mfu(anchor, scaling, attention=True)
    models = {
        "constant (shipped)": lambda rows, r: mfu,
        "attention FLOPs, anchor 405B": lambda rows, r: att_mfu / (1 + attention_share(r)),
        "MFU = a·N^k, all rows": lambda rows, r: (lambda a, k: a * r.params ** k)(*power_law(rows, scaling)),
        "MFU = a·N^k per GPU": lambda rows, r: (lambda a, k: a * r.params ** k)(
            *power_law([x for x in rows if x.gpu == r.gpu] or [r], scaling)),
    }
    print(f"default mfu {mfu}, scaling {scaling}; attention-aware anchor mfu {att_mfu:.4f}")
    print(f"{'row':9} {'N [B]':>7} {'att/6N':>7} {'implied':>8}  " + "  ".join(f"{k[:24]:>24}" for k in models))
    errs = {k: errors(runs, f, scaling, family) for k, f in models.items()}
    for i, r in enumerate(runs):
        cells = "  ".join(f"{100 * errs[k][i][1]:+8.0f}% / {100 * errs[k][i][2]:+7.0f}%" if not math.isnan(
            errs[k][i][2]) else f"{100 * errs[k][i][1]:+8.0f}% /     n/a" for k in models)
        print(f"{r.id:9} {r.params / 1e9:7.2f} {attention_share(r):7.3f} {implied_mfu(r, scaling):8.3f}  {cells}")
    for k in models:
        s = summary(errs[k])
        print(f"{k:30} in-sample mean |e| {100 * s['in_sample_mean_abs']:5.1f} % worst {100 * s['in_sample_worst']:+5.0f} %"
              f" | leave-one-out mean |e| {100 * s['loo_mean_abs']:5.1f} % worst {100 * s['loo_worst']:+5.0f} %")


if __name__ == "__main__":
    main()
