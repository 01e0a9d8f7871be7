"""`python -m tco calibrate FILE`: read, fit, print every row's error, write a calibration file (and a
report). Nothing is written when the input is bad or the fit fails (exit 2)."""

from __future__ import annotations

from contextlib import contextmanager
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
    c.add_argument("--frameworks", metavar="FILE", help="plain CSV of runs of named frameworks (a `framework` column): "
                   "each framework with enough rows gets its own fit of the shares and overheads, written as "
                   "[framework.<name>] of the calibration file")
    c.add_argument("--catalog-dir", help="overlay catalog folder")


MAX_FIT_SECONDS = 300.0
"""Longest the fit and its leave-one-out refits may run [s, wall clock]: the public set's 32 rows take 2 s to fit and
10 s of CPU with leave-one-out; a fit that has not finished by then is stopped with exit 2 (review M2)."""


class FitTimeout(Exception):
    """The fit ran past MAX_FIT_SECONDS."""


def run(args, out=print) -> int:
    import hashlib

    from tco.catalog import load_catalog
    from tco.files import target_problem, write_all
    from tco.scenario import read_limited
    from tco.sizing import benchmarks
    from tco.sizing.calibrate import check_rows, errors, fit, median, to_toml, validate

    target = Path(args.output) if args.output else Path(args.file).with_suffix(".calibration.toml")
    bad = [Problem(str(f), opt, why, None) for opt, f in (("-o", args.output or target), ("--report", args.report))
           if f is not None and (why := target_problem(f)) is not None]
    bad += same_file_problems(args, target)
    if getattr(args, "frameworks", None):  # a JSON or a trtllm report there was refused after the main fit, misworded
        from tco.cli.calibrate_frameworks import file_problem

        bad += [x for x in (file_problem(args.frameworks),) if x is not None]
    if args.catalog_dir and not Path(args.catalog_dir).is_dir():  # was "[scenario.catalog_dir]", a key of no scenario
        bad.append(Problem(str(args.catalog_dir), "--catalog-dir", "not a folder" if Path(args.catalog_dir).exists()
                           else "folder not found", None))
    if bad:  # before the fit, which may take seconds
        raise InputError(bad)
    cat = load_catalog(args.catalog_dir)
    meta = {"model": args.model, "gpu": args.gpu, "precision": args.precision, "gpu_count": args.gpu_count,
            "tp": args.tp, "nodes": args.nodes, "concurrency": args.concurrency}
    raw = read_limited(Path(args.file), benchmarks.MAX_BENCHMARK_BYTES, "benchmark file")
    rows = benchmarks.read(args.file, meta)
    check_rows(rows, cat)
    check_precision(rows, cat, args.file)
    check_mtp(rows, cat, args.file)
    used = [r for r in rows if not r.exclude]
    if not used:
        raise InputError([Problem(args.file, "exclude", "every row is excluded: nothing to fit", None)])
    check_fits(used, cat)
    name = Path(args.file).stem
    sha = hashlib.sha256(raw).hexdigest()
    with time_limit(MAX_FIT_SECONDS, args.file):
        eff, ok = fit(rows, cat, name=name, source=f"{Path(args.file).name} sha256 {sha[:12]}")
        if not ok:
            raise InputError([Problem(args.file, "", "the fit did not converge: check the rows (GPU, precision, tp) "
                                      "or add rows that vary batch and context", None)])
        validate(eff, args.file)
        ins = errors(rows, cat, eff)
        loo = {} if args.no_loo or len(used) < 3 else errors(rows, cat, eff, loo=True)
    stats = {"rows_fitted": len(used), "rows_excluded": len(rows) - len(used), "file": Path(args.file).name,
             "sha256": sha, "median_abs_error_in_sample": median([abs(ins[r.id]) for r in used]),
             "frameworks": ",".join(sorted({r.framework for r in used if r.framework}))}
    if loo:
        stats["median_abs_error_leave_one_out"] = median([abs(loo[r.id]) for r in used])
    text = report(rows, cat, eff, ins, loo, stats)
    tables = ""
    if getattr(args, "frameworks", None):
        from tco.cli.calibrate_frameworks import fit_frameworks

        with time_limit(MAX_FIT_SECONDS, args.frameworks):
            def checks(rs, c) -> None:  # the --frameworks rows as the main file's
                check_mtp(rs, c, args.frameworks)
                check_fits(rs, c)

            extra, tables, covered = fit_frameworks(args.frameworks, cat, eff, loo=not args.no_loo, check_fits=checks)
        text += extra
        stats["frameworks"] = ",".join(sorted(set(filter(None, str(stats["frameworks"]).split(","))) | set(covered)))
    out(text)
    # both or neither: a report that could not be written left a new calibration behind an exit 2 (review 2026-12c C11)
    write_all([(target, to_toml(eff, stats) + tables)] + ([(args.report, text)] if args.report else []))
    out(f"wrote {target}")
    return 0


def same_file_problems(args, target: Path) -> list[Problem]:
    """`-o` or `--report` naming a file this command reads (the benchmark file, `--frameworks`), through a link too,
    or both naming one file: the benchmark was replaced by the calibration, or the calibration by the report."""
    import os

    def ident(name) -> object:
        try:
            st = os.stat(name)
            return (st.st_dev, st.st_ino)  # a hard link or a symlink to it is the same file
        except OSError:
            return os.path.realpath(name)

    given = [("the benchmark file", args.file), ("--frameworks", getattr(args, "frameworks", None))]
    folder = getattr(args, "catalog_dir", None)  # -o cat/models.csv replaced the overlay calibrate reads (2026-12d C21)
    if folder and Path(folder).is_dir():  # the files the loader reads there, not an earlier calibration beside them
        from tco.catalog import CATALOG_FILES

        given += [("the catalog file", str(Path(folder) / n)) for n in CATALOG_FILES if (Path(folder) / n).is_file()]
    reads = {ident(f): (opt, f) for opt, f in given if f}
    writes = [(opt, f) for opt, f in (("-o", args.output or target), ("--report", args.report)) if f is not None]
    bad = []
    for opt, f in writes:
        if (hit := reads.get(ident(f))) is not None:
            bad.append(Problem(str(f), opt, f"names {hit[0]} {str(hit[1])!r}, which calibrate reads: writing there "
                               "would replace it; give another file name", None))
    if len(writes) == 2 and ident(writes[0][1]) == ident(writes[1][1]):
        bad.append(Problem(str(args.report), "--report", f"names the same file as -o ({target}): the report would "
                           "replace the calibration; give the report its own name (e.g. calibration.md)", None))
    return bad


def check_precision(rows, cat, file: str) -> None:
    """Rows in fp4 (weights or KV cache) on a GPU without FP4 tensor cores (gpus.csv fp4_dense_tflops), every one at
    once: the fit would cost them at another peak."""
    have = sorted(g.gpu for g in cat.gpus.values() if g.fp4_tflops)
    problems = [Problem(file, "precision", f"row {r.id!r}: fp4 on {r.gpu}, which has no FP4 tensor cores (gpus.csv "
                        f"gives it no fp4_dense_tflops); GPUs with FP4: {', '.join(have) or 'none'}", r.line)
                for r in rows if "fp4" in (r.precision, r.kv_precision) and r.gpu in cat.gpus
                and not cat.gpus[r.gpu].fp4_tflops]
    if problems:
        raise InputError(problems)


def check_mtp(rows, cat, file: str) -> None:
    """Rows with MTP draft tokens on a model without a multi-token-prediction module (models.csv mtp_modules), every one
    at once: the fit costed a draft layer the model does not have and credited its accepted tokens (a scenario with
    speculative = "mtp" on such a model stops with exit 2 too). Other speculative methods (EAGLE, a draft model) are
    not modelled."""
    have = sorted(k for k, m in cat.models.items() if m.mtp_modules > 0)
    problems = [Problem(file, "draft_tokens", f"row {r.id!r}: MTP draft tokens on {r.model!r}, which has no "
                        f"multi-token-prediction module (models.csv mtp_modules); models that have one: "
                        f"{', '.join(have) or 'none'}; another speculative method (EAGLE, a draft model) is not "
                        "modelled: leave the row out or give its `exclude` reason", r.line)
                for r in rows if r.draft_tokens and not r.exclude and r.model in cat.models
                and not cat.models[r.model].mtp_modules]
    if problems:
        raise InputError(problems)


def check_fits(rows, cat) -> None:
    """Rows the model cannot describe, every one at once (review L7): a request longer than the model's context window
    (models.csv max_context_tokens), or a model that does not fit in its tensor-parallel GPUs' memory (the row would
    predict zero tokens/s whatever the efficiencies)."""
    from tco.sizing.calibrate import PARAMS, START, predict_rows
    from tco.sizing.replica import Calibration

    start = Calibration(**dict(zip(PARAMS, START, strict=True)))  # type: ignore[arg-type]  # the fit's start
    problems = []
    for r in rows:
        limit = cat.models[r.model].max_context_tokens
        if limit and r.input_tokens + r.output_tokens > limit:
            problems.append(Problem(r.file, "input_tokens", f"row {r.id}: {r.input_tokens:,.0f} + {r.output_tokens:,.0f} "
                                    f"tokens are more than the context window of {r.model!r} ({limit:,} tokens)", r.line))
    if problems:
        raise InputError(problems)
    for r, p in zip(rows, predict_rows(rows, cat, start)):
        if not p["fits"] or not p["tps"] > 0:
            problems.append(Problem(r.file, "tp", f"row {r.id}: {r.model!r} does not fit in the memory of tp {r.tp} × "
                                    f"{r.gpu} (it would predict no tokens at all); check the GPU, tp and precision",
                                    r.line))
    if problems:
        raise InputError(problems)
    ideal = Calibration(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)  # every share 1, no overhead: the hardware's roofline
    used = [r for r in rows if not r.exclude]
    for r, p in zip(used, predict_rows(used, cat, ideal)):
        if r.output_tokens_per_second > BEYOND_ROOFLINE * p["tps"]:  # 9,000,000 tokens/s on one H100 was fitted
            problems.append(Problem(r.file, "output_tokens_per_second", f"row {r.id}: {r.output_tokens_per_second:,.0f} "
                                    f"tokens/s is more than {BEYOND_ROOFLINE:g} × what {r.gpu_count} × {r.gpu} reach at "
                                    f"their full bandwidth and peak with no overhead ({p['tps']:,.0f}); check the "
                                    "number and its unit, or give the row an `exclude` reason", r.line))
    if problems:
        raise InputError(problems)


BEYOND_ROOFLINE = 2.0
"""A measured throughput more than this many times the ideal prediction (shares 1, overheads 0) is refused (red team
2026-12d C23): the fitted rows of the shipped sets reach at most 0.84 of it (MOE41); a row past it is a typo or a run
the model cannot describe (prefix caching, another speculative method), which would pull every share to its bound."""


@contextmanager
def time_limit(seconds: float, file: str):
    """Stop the block after `seconds` of wall-clock time with an exit-2 problem of `file`: a timer signal (SIGALRM)
    raises in the main thread; elsewhere, or without SIGALRM (Windows), the block runs without a limit."""
    import signal
    import threading

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum, frame):
        raise FitTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except FitTimeout:
        raise InputError([Problem(file, "", f"the fit did not finish in {seconds:g} s: fewer rows (or --no-loo) "
                                  "would finish sooner", None)]) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def report(rows, cat, eff, ins: dict, loo: dict, stats: dict) -> str:
    """The fit report: parameters, then every row with measured, predicted, errors and what bounds it."""
    from tco.cli.calibrate_frameworks import md_cell
    from tco.sizing.calibrate import PARAMS, predict

    lines = [f"# Serving calibration: {md_cell(stats['file'])}", "",
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
            lines.append(f"| {md_cell(r.id)} | {md_cell(r.model)} | {md_cell(r.gpu)} × {r.gpu_count} | {r.tp or ''} | "
                         f"not stated | {r.output_tokens_per_second:,.0f} | — | — | — | — | — | {md_cell(r.exclude)} |")
            continue
        p = predict(r, cat, eff)
        lo = f"{loo[r.id]:+.1%}" if r.id in loo and not r.exclude else ""
        lines.append(f"| {md_cell(r.id)} | {md_cell(r.model)} | {md_cell(r.gpu)} × {r.gpu_count} | {r.tp} | "
                     f"{r.input_tokens:g}/{r.output_tokens:g} | {r.output_tokens_per_second:,.0f} | {p['tps']:,.0f} | "
                     f"{ins[r.id]:+.1%} | {lo} | {p['batch']:g} | "
                     f"{p['bound']} | {md_cell(r.exclude)} |")
    return "\n".join(lines) + "\n"
