"""`python -m tco calibrate FILE`: read, fit, print every row's error, write a calibration file (and a
report). Nothing is written when the input is bad or the fit fails (exit 2)."""

from __future__ import annotations

from pathlib import Path

from tco.errors import InputError, Problem

# The fit (tco.sizing.calibrate, numpy) is imported by the functions that run it: the CLI builds this command's
# parser for every command, and `--help` or `validate` must not pay for the calibration's imports.

UNITS = {"bandwidth_share": "-", "flops_share": "-", "interconnect_share": "-", "step_overhead_seconds": "s",
         "collective_latency_seconds": "s", "sequence_overhead_seconds": "s",
         "layer_overhead_seconds": "s"}


def add_parser(sub) -> None:
    c = sub.add_parser("calibrate", help="fit the serving efficiencies to benchmark results and write a calibration "
                       "file for [inference] calibration")
    c.add_argument("file", help="plain CSV, vLLM benchmark_serving JSON, GenAI-Perf/AIPerf CSV or trtllm-bench report")
    c.add_argument("-o", "--output", metavar="FILE",
                   help="calibration file to write (default: <file stem>.calibration.toml)")
    c.add_argument("--report", metavar="FILE", help="also write the fit report (Markdown)")
    c.add_argument("--no-loo", action="store_true", help="skip leave-one-out (faster)")
    for k in ("model", "gpu", "precision"):
        c.add_argument(f"--{k}", help=f"{k} of the run, for formats that do not record it")
    for k in ("gpu-count", "tp", "nodes", "concurrency"):
        c.add_argument(f"--{k}", type=int, help=f"{k.replace('-', ' ')} of the run, for formats that do not record it")
    c.add_argument("--catalog-dir", help="overlay catalog folder")


def run(args, out=print) -> int:
    import hashlib

    from tco.sizing import benchmarks
    from tco.sizing.calibrate import check_rows, errors, fit, median, to_toml, validate
    from tco.catalog import load_catalog

    cat = load_catalog(args.catalog_dir)
    meta = {"model": args.model, "gpu": args.gpu, "precision": args.precision, "gpu_count": args.gpu_count,
            "tp": args.tp, "nodes": args.nodes, "concurrency": args.concurrency}
    rows = benchmarks.read(args.file, meta)
    check_rows(rows, cat)
    used = [r for r in rows if not r.exclude]
    if not used:
        raise InputError([Problem(args.file, "exclude", "every row is excluded: nothing to fit", None)])
    name = Path(args.file).stem
    sha = hashlib.sha256(Path(args.file).read_bytes()).hexdigest()
    eff, ok = fit(rows, cat, name=name, source=f"{Path(args.file).name} sha256 {sha[:12]}")
    if not ok:
        raise InputError([Problem(args.file, "", "the fit did not converge: check the rows (GPU, precision, tp) or "
                                  "add rows that vary batch and context", None)])
    validate(eff, args.file)
    ins = errors(rows, cat, eff)
    loo = {} if args.no_loo or len(used) < 3 else errors(rows, cat, eff, loo=True)
    stats = {"rows_fitted": len(used), "rows_excluded": len(rows) - len(used), "file": Path(args.file).name,
             "sha256": sha, "median_abs_error_in_sample": median([abs(ins[r.id]) for r in used]),
             "frameworks": ",".join(sorted({r.framework for r in used if r.framework}))}
    if loo:
        stats["median_abs_error_leave_one_out"] = median([abs(loo[r.id]) for r in used])
    text = report(rows, cat, eff, ins, loo, stats)
    out(text)
    target = Path(args.output) if args.output else Path(args.file).with_suffix(".calibration.toml")
    target.write_text(to_toml(eff, stats), encoding="utf-8")
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
    out(f"wrote {target}")
    return 0


def report(rows, cat, eff, ins: dict, loo: dict, stats: dict) -> str:
    """The fit report: parameters, then every row with measured, predicted, errors and what bounds it."""
    from tco.sizing.calibrate import PARAMS, predict

    lines = [f"# Serving calibration: {stats['file']}", "",
             (f"Fitted on {stats['rows_fitted']} rows ({stats['rows_excluded']} excluded), least squares on "
              "log(predicted / measured) output tokens/s; leave-one-out refits without each row."), "",
             "| parameter | value | unit |", "|---|---|---|"]
    lines += [f"| {k} | {getattr(eff, k):.6g} | {UNITS[k]} |" for k in PARAMS]
    lines += ["", f"Median |error|: in-sample {stats['median_abs_error_in_sample']:.1%}"
              + (f", leave-one-out {stats['median_abs_error_leave_one_out']:.1%}" if loo else ""), "",
              "| id | model | GPU × n | TP | ISL/OSL | measured tok/s | predicted | error | LOO error | batch | bound "
              "| excluded because |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.id not in ins:
            lines.append(f"| {r.id} | {r.model} | {r.gpu} × {r.gpu_count} | {r.tp or ''} | not stated | "
                         f"{r.output_tokens_per_second:,.0f} | — | — | — | — | — | {r.exclude} |")
            continue
        p = predict(r, cat, eff)
        lo = f"{loo[r.id]:+.1%}" if r.id in loo and not r.exclude else ""
        lines.append(f"| {r.id} | {r.model} | {r.gpu} × {r.gpu_count} | {r.tp} | "
                     f"{r.input_tokens:g}/{r.output_tokens:g} | {r.output_tokens_per_second:,.0f} | {p['tps']:,.0f} | "
                     f"{ins[r.id]:+.1%} | {lo} | {p['batch']:g} | "
                     f"{p['bound']} | {r.exclude} |")
    return "\n".join(lines) + "\n"
