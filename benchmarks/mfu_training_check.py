"""Training MFU against the public runs (tco/catalog/data/calibration_training.csv): the fit of the catalog's
``[training]`` tables, per row the implied MFU, the model's MFU and the error in sample and leave-one-out, the
per-regime table of docs/calibration_training.md (``--markdown`` prints its tables), the residual against cluster
size, and the earlier candidate models (one constant, attention FLOPs, power laws) on the dense BF16 rows.

    PYTHONPATH=$PWD python benchmarks/mfu_training_check.py [--markdown]
"""

from __future__ import annotations

import math
import sys

from tco.catalog import load_catalog
from tco.engine import defaults_for
from tco.sizing.training_check import (
    FIT,
    Run,
    attention_share,
    errors,
    fit,
    fitted,
    implied_mfu,
    power_law,
    read,
    summary,
)

REGIMES = ("BF16 dense", "FP8 dense", "Blackwell dense", "FP4 (NVFP4)", "MoE")


def family(r: Run) -> str:
    """Rows of one model family and size leave together (Llama 3 and 3.1 8B/70B are the same runs' family)."""
    return f"{'H100' if r.peak_tflops > 900 else 'A100'}-{round(r.params / 1e9, -1) if r.params > 2e10 else 8}" \
        if r.id.startswith(("TRN08", "TRN09", "L31")) else r.id


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:+.0f} %".replace("-", "−")


def _slope(points: list[tuple[float, float]]) -> float:
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def main(markdown: bool = False) -> None:
    d = defaults_for(load_catalog())
    scaling = d["scaling_efficiency"]["nvlink"]
    runs = read()
    model = fit(runs, scaling)
    assert model is not None
    used = [r for r in runs if r.use == FIT]
    errs = {e[0]: e for e in errors(used, fitted(scaling), scaling)}
    if markdown:
        print("| regime | rows | in-sample median \\|e\\| | leave-one-out median \\|e\\| | leave-one-out worst | "
              "within ±25 % (LOO) |\n|---|---|---|---|---|---|")
        for regime in REGIMES:
            rows = [errs[r.id] for r in used if r.regime == regime]
            s = summary(rows)
            inside = sum(abs(e[2]) <= 0.25 for e in rows)
            print(f"| {regime} | {len(rows)} | {100 * s['in_sample_median_abs']:.1f} % | "
                  f"{100 * s['loo_median_abs']:.1f} % | {_pct(s['loo_worst'])} | {inside} of {len(rows)} |")
        print("\n| row | regime | precision | GPU ×count | implied | model | in-sample / LOO |\n|---|---|---|---|---|---|---|")
        for r in used:
            e = errs[r.id]
            count = f" ×{r.gpus}" if r.gpus else ""
            print(f"| {r.id} | {r.regime} | {r.precision} | {r.gpu.split(' ')[0]}{count} | "
                  f"{implied_mfu(r, scaling):.3f} | {model.mfu(r):.3f} | {_pct(e[1])} / {_pct(e[2])} |")
        print("\nExcluded (the model's error shown for reference):\n")
        for r in runs:
            if r.use != FIT:
                print(f"* {r.id}: {_pct(implied_mfu(r, scaling) / model.mfu(r) - 1)}; {r.use}.")
        return
    print(f"fit: base {({k: round(v, 4) for k, v in model.base.items()})}, generation "
          f"{({k: round(v, 4) for k, v in model.generation.items()})}, width k {model.width_k:.4f}, FP4 share "
          f"{model.fp4_share:.4f}, MoE a {model.moe_a:.4f} k {model.moe_k:.4f} low precision {model.moe_lowp:.4f} "
          f"NVL72 {model.moe_nvl72:.4f}, goodput of whole runs {model.goodput:.4f}")
    print(f"shipped (defaults.toml): {d['training_mfu']}")
    print(f"\n{'row':22} {'regime':16} {'prec':5} {'gen':15} {'E [1e9]':>8} {'implied':>8} {'model':>7}  in-sample / LOO")
    for r in runs:
        e = errs.get(r.id)
        cells = f"{_pct(e[1]):>7} / {_pct(e[2]):>7}" if e else \
            f"excluded ({_pct(implied_mfu(r, scaling) / model.mfu(r) - 1)})"
        print(f"{r.id:22} {r.regime:16} {r.precision:5} {r.generation:15} {r.expert_b if r.experts else 0:8.4f} "
              f"{implied_mfu(r, scaling):8.3f} {model.mfu(r):7.3f}  {cells}")
    print("\nregime            rows  in-sample median |e|  LOO median |e|  LOO worst   within ±25 % (LOO)")
    for regime in REGIMES:
        rows = [errs[r.id] for r in used if r.regime == regime]
        s = summary(rows)
        inside = sum(abs(e[2]) <= 0.25 for e in rows if not math.isnan(e[2]))
        print(f"{regime:17} {len(rows):4}  {100 * s['in_sample_median_abs']:18.1f} % {100 * s['loo_median_abs']:12.1f} %"
              f" {_pct(s['loo_worst']):>9}   {inside} of {len(rows)}")
    sized = [r for r in used if r.gpus]
    res = {r.id: math.log(implied_mfu(r, scaling) / model.mfu(r)) for r in sized}
    slope = _slope([(math.log2(r.gpus), res[r.id]) for r in sized])
    print(f"\ncluster size: residual MFU per doubling of GPUs {100 * (math.exp(slope) - 1):+.1f} % over {len(sized)} "
          f"rows of {min(r.gpus for r in sized)}-{max(r.gpus for r in sized)} GPUs")
    for name, keep in (("dense", lambda r: not r.experts), ("MoE", lambda r: bool(r.experts)),
                       ("Megatron-Bridge only", lambda r: r.id.startswith("MB-"))):
        pts = [(math.log2(r.gpus), res[r.id]) for r in sized if keep(r)]
        print(f"  {name:22} {100 * (math.exp(_slope(pts)) - 1):+.1f} % per doubling over {len(pts)} rows")

    dense = [r for r in runs if r.regime == "BF16 dense"]
    anchor = next(r for r in dense if r.id == "L31-405B")
    att_mfu = implied_mfu(anchor, scaling, attention=False) * (1 + attention_share(anchor))
    models = {
        "constant 0.385 (the old model)": lambda rows, r: 0.385,
        "attention FLOPs, anchor 405B": lambda rows, r: att_mfu / (1 + attention_share(r)),
        "MFU = a·N^k, all rows": lambda rows, r: (lambda a, k: a * r.params ** k)(*power_law(rows, scaling)),
        "MFU = a·N^k per GPU": lambda rows, r: (lambda a, k: a * r.params ** k)(
            *power_law([x for x in rows if x.gpu == r.gpu] or [r], scaling)),
    }
    print(f"\nearlier candidates on the {len(dense)} BF16 dense rows, against 6·N alone (mean |error|, in sample / "
          "leave-one-out):")
    for k, f in models.items():
        s = summary(errors(dense, f, scaling, family, attention=False))
        print(f"  {k:30} {100 * s['in_sample_mean_abs']:5.1f} % / {100 * s['loo_mean_abs']:5.1f} %")


if __name__ == "__main__":
    main("--markdown" in sys.argv)
