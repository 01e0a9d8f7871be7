"""`python -m tco calibrate … --frameworks FILE`: each serving framework's own shares and overheads.

The same GPU and model run at different speeds under TensorRT-LLM, vLLM and SGLang (their kernels, schedulers and
CPU overheads differ), so each framework with at least MIN_FRAMEWORK_ROWS rows in FILE gets its own fit of
FRAMEWORK_FREE, starting from the main fit (whose other parameters it keeps: the interconnect and collective terms
are the hardware's, not the framework's), with leave-one-out per framework. The result is written as
``[framework.<name>]`` tables of the calibration file and as a section per framework of the report.
"""

from __future__ import annotations

from pathlib import Path

from tco.errors import InputError, Problem

FRAMEWORK_FREE = ("bandwidth_share",)
"""What a framework's fit moves: the share of the memory bandwidth its attention and GEMM kernels reach in decode. The
costs per sequence and per layer stay the main fit's, as the FLOPS share does. Freed (2026-12-02, 9 vLLM and 13 SGLang
rows), they traded against η_bw and each other: SGLang's t_seq went to 49 µs, 4 × TensorRT-LLM's, which at the offline
ShareGPT batch of ~1,300 sequences (SGL01, 8B on an A100) is 63 ms of CPU per step and made that row 25 % too slow,
while the rows that pulled it up are bursts at ~45 requests; leave-one-out with η_bw alone: vLLM 12.5 → 6.1 %, SGLang
16.6 → 11.8 %. Freeing the FLOPS share made vLLM 44 % *faster* than TensorRT-LLM on the compute-bound seed
(docs/calibration.md, Frameworks). With the main fit's other terms and a lower η_bw a framework is never faster than
TensorRT-LLM."""
MIN_FRAMEWORK_ROWS = 6
"""Fewest fitted rows of a framework for its own calibration: leave-one-out needs several rows per free parameter to
mean anything (six, from when three were free); a framework with fewer is listed as not fitted and a scenario naming it stops with
exit 2."""
FRAMEWORKS = ("trtllm", "vllm", "sglang")


def md_cell(x) -> str:
    """Text from a benchmark file (an id, a model, an `exclude` reason, a file name) as a Markdown table cell: <, > and
    & written as entities (never HTML where the report is rendered), a pipe escaped (never a new cell), a line break
    a space, as tco.diff's Markdown does; another control character as \\xNN (tco.errors.printable), so a terminal
    showing the file never runs an escape sequence from it."""
    from tco.errors import printable

    text = str(x).replace("\r", " ").replace("\n", " ").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return printable(text.replace("|", "\\|").replace("`", "'"))


def fit_frameworks(file: str, cat, base, loo: bool = True, check_fits=None) -> tuple[str, str, list[str]]:
    """Fit every framework of `file` with enough rows: (report section, TOML tables, frameworks covered);
    `check_fits` (tco.cli.calibrate.check_fits, passed in: that module calls this one) refuses rows the model cannot
    describe."""
    from tco.sizing import benchmarks
    from tco.sizing.calibrate import PARAMS, check_rows, errors, fit, median, validate

    rows = benchmarks.read(file, {})
    check_rows(rows, cat)
    unnamed = [r for r in rows if r.framework not in FRAMEWORKS]  # the reader refuses any other name: these are ''
    if unnamed:  # "unknown framework(s) ''", with no line, was all it said
        raise InputError([Problem(file, "framework", f"row {md_cell(r.id)}: no framework named; --frameworks fits each "
                                  f"framework on its own rows: give one of {', '.join(FRAMEWORKS)}", r.line)
                          for r in unnamed])
    if check_fits is not None:
        check_fits([r for r in rows if not r.exclude], cat)
    era = _versions(file)
    start = tuple(getattr(base, k) for k in PARAMS)
    lines = ["", f"## Frameworks: {md_cell(Path(file).name)}", "",
             (f"Each framework's {', '.join(FRAMEWORK_FREE)} fitted on its own rows (at least {MIN_FRAMEWORK_ROWS}), "
              "the other parameters as above; leave-one-out refits without each row of the framework."), ""]
    tables: list[str] = []
    covered: list[str] = []
    for fw in sorted({r.framework for r in rows}):
        mine = [r for r in rows if r.framework == fw]
        used = [r for r in mine if not r.exclude]
        if len(used) < MIN_FRAMEWORK_ROWS:
            lines += [f"### {fw}: not fitted ({len(used)} rows; at least {MIN_FRAMEWORK_ROWS} needed)", ""]
            continue
        eff, ok = fit(mine, cat, name=f"{base.name} [{fw}]", source=base.source, start=start, free=FRAMEWORK_FREE)
        if not ok:
            raise InputError([Problem(file, "framework", f"the fit of framework {fw!r} did not converge", None)])
        validate(eff, file)
        ins = errors(mine, cat, eff)
        out = errors(mine, cat, eff, loo=True, free=FRAMEWORK_FREE) if loo else {}
        m_in = median([abs(ins[r.id]) for r in used])
        m_loo = median([abs(out[r.id]) for r in used]) if out else float("nan")
        within = sum(abs(out.get(r.id, ins[r.id])) <= 0.25 for r in used)
        base_err = errors(mine, cat, base)
        versions = sorted({era.get(r.id, "") for r in used} - {""})
        lines += [f"### {fw}", "", "| parameter | value |", "|---|---|"]
        lines += [f"| {k} | {getattr(eff, k):.6g} |" for k in FRAMEWORK_FREE]
        lines += ["", (f"{len(used)} rows: median |error| in-sample {m_in:.1%}"
                       + (f", leave-one-out {m_loo:.1%}" if out else "") + f", {within} of {len(used)} within ±25 %; "
                       f"with the main calibration instead: median {median([abs(base_err[r.id]) for r in used]):.1%}"),
                  "", "| id | model | GPU × n | TP | ISL/OSL | concurrency | measured tok/s | error | LOO error "
                  "| main calibration | excluded because |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in mine:
            lo = f"{out[r.id]:+.1%}" if r.id in out and not r.exclude else ""
            conc = f"{r.concurrency:g}" if r.concurrency else "max"
            lines.append(f"| {md_cell(r.id)} | {md_cell(r.model)} | {md_cell(r.gpu)} × {r.gpu_count} | {r.tp} | "
                         f"{r.input_tokens:g}/{r.output_tokens:g} | {conc} | {r.output_tokens_per_second:,.0f} | "
                         f"{ins[r.id]:+.1%} | {lo} | {base_err[r.id]:+.1%} | {md_cell(r.exclude)} |")
        lines.append("")
        tables.append(framework_table(fw, eff, len(used), m_in, m_loo if out else None, versions))
        covered.append(fw)
    return "\n".join(lines) + "\n", "".join(tables), covered


def file_problem(file: str) -> Problem | None:
    """Why `file` cannot be a --frameworks file, else None: it must be a plain CSV with a `framework` column. A vLLM
    JSON was refused as "row v: no framework named", a trtllm-bench report with "give --model …" (options that
    describe the main file), after the main fit (red team 2026-12d C24)."""
    import csv

    from tco.scenario import read_limited
    from tco.sizing.benchmarks import MAX_BENCHMARK_BYTES, PLAIN_REQUIRED

    try:
        text = read_limited(Path(file), MAX_BENCHMARK_BYTES, "benchmark file").decode("utf-8-sig", errors="replace")
    except InputError as exc:
        return exc.problems[0]
    first = text.splitlines()[0] if text.strip() else ""
    header = [c.strip() for c in next(csv.reader([first]), [])]
    if all(c in header for c in (*PLAIN_REQUIRED, "framework")):
        return None
    return Problem(file, "--frameworks", "reads a plain CSV whose header has the columns "
                   f"{', '.join(PLAIN_REQUIRED)} and framework (docs/calibration.md); this file's first line has "
                   "not: give the other formats' runs as the main benchmark file, one framework's runs as plain CSV "
                   "rows here", 1)


def _versions(file: str) -> dict[str, str]:
    """id → the `framework_version` column (the version era of the run), where the file has one."""
    import csv

    from tco.scenario import read_limited
    from tco.sizing.benchmarks import MAX_BENCHMARK_BYTES

    # read as benchmarks.read does (a byte that is not UTF-8 replaced): strict UTF-8 was a UnicodeDecodeError traceback
    text = read_limited(Path(file), MAX_BENCHMARK_BYTES, "benchmark file").decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(text.splitlines())  # a row without an id is the reader's f"row{line}"
    return {r.get("id") or f"row{reader.line_num}": (r.get("framework_version") or "").strip() for r in reader}


def framework_table(fw: str, eff, rows: int, m_in: float, m_loo: float | None, versions: list[str]) -> str:
    """The ``[framework.<fw>]`` table of a calibration file: the fitted parameters and the fit's figures."""
    from tco.sizing.calibrate import _toml_string

    out = ["", f"[framework.{fw}]"] + [f"{k} = {getattr(eff, k)!r}" for k in FRAMEWORK_FREE]
    out += [f"rows_fitted = {rows}", f"median_abs_error_in_sample = {m_in!r}"]
    if m_loo is not None:
        out.append(f"median_abs_error_leave_one_out = {m_loo!r}")
    out.append(f"versions = {_toml_string(','.join(versions))}")
    return "\n".join(out) + "\n"
