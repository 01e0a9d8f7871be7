"""Training MFU against the public runs (tco/catalog/data/calibration_training.csv): the fit of the catalog's
``[training]`` tables, per row the implied MFU, the model's MFU and the error in sample and leave-one-out, the
per-regime table of docs/calibration_training.md, the residual against cluster size, and the earlier candidate
models (one constant, attention FLOPs, power laws) on the dense BF16 rows.

    PYTHONPATH=$PWD python benchmarks/mfu_training_check.py
"""

from __future__ import annotations

import math

from tco.catalog import load_catalog
from tco.engine import defaults_for
from tco.sizing.training_check import (
    ANCHOR,
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


def family(r: Run) -> str:
    """Rows of one model family and size leave together (Llama 3 and 3.1 8B/70B are the same runs' family)."""
    return f"{'H100' if r.peak_tflops > 900 else 'A100'}-{round(r.params / 1e9, -1) if r.params > 2e10 else 8}" \
        if r.id.startswith(("TRN08", "TRN09", "L31")) else r.id


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:+.0f} %"


def main() -> None:
    d = defaults_for(load_catalog())
    mfu, scaling = d["mfu"], d["scaling_efficiency"]["nvlink"]
    runs = read()
    model = fit(runs, scaling)
    assert model is not None
    print(f"fit: base {({k: round(v, 4) for k, v in model.base.items()})}, generation "
          f"{({k: round(v, 4) for k, v in model.generation.items()})}, MoE a {model.moe_a:.4f} k {model.moe_k:.4f}")
    print(f"shipped (defaults.toml): {d['training_mfu']}")
    used = [r for r in runs if r.use in (FIT, ANCHOR)]
    errs = {e[0]: e for e in errors(used, fitted(scaling), scaling)}
    print(f"\n{'row':22} {'regime':16} {'prec':5} {'gen':9} {'E [1e9]':>8} {'implied':>8} {'model':>7}  in-sample / LOO")
    for r in runs:
        e = errs.get(r.id)
        cells = f"{_pct(e[1]):>7} / {_pct(e[2]):>7}" if e else f"excluded ({_pct(implied_mfu(r, scaling) / model.mfu(r) - 1)})"
        print(f"{r.id:22} {r.regime:16} {r.precision:5} {r.generation:9} {r.expert_b if r.experts else 0:8.4f} "
              f"{implied_mfu(r, scaling):8.3f} {model.mfu(r):7.3f}  {cells}")
    print("\nregime            rows  in-sample median |e|  LOO median |e|  LOO worst   within ±25 % (LOO)")
    for regime in dict.fromkeys(r.regime for r in used):
        rows = [errs[r.id] for r in used if r.regime == regime and r.use == FIT]
        s = summary(rows)
        inside = sum(abs(e[2]) <= 0.25 for e in rows if not math.isnan(e[2]))
        print(f"{regime:17} {len(rows):4}  {100 * s['in_sample_median_abs']:18.1f} % {100 * s['loo_median_abs']:12.1f} %"
              f" {_pct(s['loo_worst']):>9}   {inside} of {len(rows)}")
    sized = [r for r in runs if r.use == FIT and r.gpus]
    xs = [math.log2(r.gpus) for r in sized]
    ys = [math.log(implied_mfu(r, scaling) / model.mfu(r)) for r in sized]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    print(f"\ncluster size: residual MFU per doubling of GPUs {100 * (math.exp(slope) - 1):+.1f} % over {len(sized)} "
          f"rows of {min(r.gpus for r in sized)}-{max(r.gpus for r in sized)} GPUs (no loss beyond the interconnect's)")

    dense = [r for r in runs if r.regime == "BF16 dense"]
    anchor = next(r for r in dense if r.id == "L31-405B")
    att_mfu = implied_mfu(anchor, scaling, attention=True)
    models = {
        "constant (shipped)": lambda rows, r: mfu,
        "attention FLOPs, anchor 405B": lambda rows, r: att_mfu / (1 + attention_share(r)),
        "MFU = a·N^k, all rows": lambda rows, r: (lambda a, k: a * r.params ** k)(*power_law(rows, scaling)),
        "MFU = a·N^k per GPU": lambda rows, r: (lambda a, k: a * r.params ** k)(
            *power_law([x for x in rows if x.gpu == r.gpu] or [r], scaling)),
    }
    print("\nearlier candidates on the 12 BF16 dense rows (mean |error|, in sample / leave-one-out):")
    for k, f in models.items():
        s = summary(errors(dense, f, scaling, family))
        print(f"  {k:30} {100 * s['in_sample_mean_abs']:5.1f} % / {100 * s['loo_mean_abs']:5.1f} %")


if __name__ == "__main__":
    main()
