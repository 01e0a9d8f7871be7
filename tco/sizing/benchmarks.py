"""Readers for the benchmark files people already produce, renamed at the edge into calibrate.BenchRow.

plain CSV (our columns, one row per run), vLLM `benchmark_serving.py --save-result` JSON, GenAI-Perf /
AIPerf `profile_export_*.csv`, and the `trtllm-bench throughput` text report. Formats without the
hardware (vLLM, GenAI-Perf, trtllm-bench) take it from `meta` (command-line options), or from vLLM's
`--metadata key=value` entries saved in the JSON.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

from tco.sizing.calibrate import BenchRow
from tco.errors import InputError, Problem

FRAMEWORKS = ("trtllm", "vllm", "sglang")
"""The serving frameworks a benchmark row may name (the `[inference] framework` values other than 'generic')."""

PLAIN_REQUIRED = ("model", "gpu", "gpu_count", "input_tokens", "output_tokens", "output_tokens_per_second")
META_KEYS = ("model", "gpu", "gpu_count", "tp", "precision")

MAX_BENCHMARK_BYTES = 16_000_000
"""Largest benchmark file read [bytes]: the public set is 6 kB, a vLLM result with every request's latencies a few MB;
a larger file is refused before it is read (a 100 MB CSV took 7.6 GB and minutes, review M3)."""
MAX_BENCHMARK_ROWS = 1_000
"""Most rows of a plain CSV (the public set has 32): the fit costs every row at each step and leave-one-out refits
once per row, so its time grows with the square of the rows."""
MAX_JSON_DEPTH = 32
"""Deepest nesting of a benchmark JSON (a vLLM result is 2 deep), as for scenario files."""

BOUNDS: dict[str, tuple[float, float, bool]] = {
    "gpu_count": (1, 65_536, True), "tp": (1, 1_024, True), "nodes": (1, 1_024, True),
    "input_tokens": (1e-9, 1e7, False), "output_tokens": (1e-9, 1e7, False),
    "output_tokens_per_second": (1e-9, 1e9, False), "concurrency": (1e-9, 1e7, False),
    "max_batch": (1, 65_536, True), "itl_ms": (1e-9, 3.6e6, False), "ttft_ms": (1e-9, 3.6e6, False),
    "completed": (1, 1e12, True), "total_tokens": (1e-9, 1e19, False),
    "draft_tokens": (0, 4, True), "acceptance_share": (0, 1, False),
    "network_gbps": (1, 100_000, False),
}
"""(least, most, whole number) of each number of a benchmark row, read at the edge so the fit never sees an absurd one
(reviews M1, M2, L7): counts are whole and at least 1, tokens, rates and times finite and positive; the most GPUs
and the longest request as a scenario allows (65,536 GPUs, 10 million tokens, an hour's latency)."""


def read(path: str | Path, meta: dict | None = None) -> list[BenchRow]:
    """Rows of a benchmark file in any supported format; InputError (file, row, what to fix) otherwise."""
    from tco.scenario import read_limited

    p = Path(path)
    if not p.exists():
        raise InputError([Problem(str(p), "", "benchmark file not found", None)])
    # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte-order mark, which named the first column '\ufeffid'
    text = read_limited(p, MAX_BENCHMARK_BYTES, "benchmark file").decode("utf-8-sig", errors="replace")
    meta = {k: v for k, v in (meta or {}).items() if v is not None}
    if p.suffix == ".json":
        return [_vllm(p, text, meta)]
    first = text.splitlines()[0] if text.strip() else ""
    cols: list[str] = next(_csv_rows(p, [first]), [])
    if all(c in cols for c in PLAIN_REQUIRED):  # first: a plain CSV whose notes quote "PERFORMANCE OVERVIEW" is ours
        return _plain(p, text)
    if "PERFORMANCE OVERVIEW" in text or "Request Throughput (req/sec)" in text:
        return [_trtllm(p, text, meta)]
    if first.startswith("Metric,"):
        return [_genai_perf(p, text, meta)]
    raise InputError([Problem(str(p), "", "unknown benchmark format: expected a plain CSV with columns "
                              f"{', '.join(PLAIN_REQUIRED)}, a vLLM benchmark_serving JSON, a GenAI-Perf/AIPerf "
                              "profile_export CSV or a trtllm-bench throughput report", 1)])


def _csv_rows(p: Path, lines: list[str]):
    """csv.reader over `lines`, its errors (a field over csv's limit, a NUL byte) located at their line (the reader
    counts the lines it has finished: the bad one is the next)."""
    reader = csv.reader(lines)
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError([Problem(str(p), "", f"not a readable CSV: {exc}", reader.line_num + 1)]) from None


def _located(p: Path, reader: csv.DictReader):
    """The rows of `reader`, a csv error (a field over csv's limit, a NUL byte) located at its line."""
    it = iter(reader)
    while True:
        try:
            yield next(it)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError([Problem(str(p), "", f"not a readable CSV: {exc}", reader.line_num + 1)]) from None


MAX_ID_CHARACTERS = 200
"""Longest row id (or model or GPU name) of a plain CSV: it is echoed in messages and the report."""


def _show(v) -> str:
    """A value as echoed in a message: its repr, cut to 40 characters."""
    r = repr(v)
    return r if len(r) <= 40 else f"{r[:40]}… ({len(r):,} characters)"


def _num(p: Path, line: int | None, key: str, v, required: bool = True, bound: str | None = None) -> float | None:
    """A number of a benchmark row within BOUNDS[bound or key] (any finite number for keys without bounds);
    InputError naming the file, the line and the key otherwise."""
    if v in (None, ""):
        if required:
            raise InputError([Problem(str(p), key, "value is required", line)])
        return None
    if isinstance(v, str) and ("_" in v or not v.isascii()):  # float() reads '1_28' and '１２８' as 128 (2026-12d C25)
        raise InputError([Problem(str(p), key, f"not a number: {_show(v)}; write plain digits 0-9 (no _ between them, "
                                  "no full-width or other scripts' digits)", line)])
    try:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise TypeError
        x = float(v.replace(",", "")) if isinstance(v, str) else float(v)
    except (ValueError, TypeError, OverflowError):
        raise InputError([Problem(str(p), key, f"not a number: {_show(v)}", line)]) from None
    lo, hi, whole = BOUNDS.get(bound or key, (-math.inf, math.inf, False))
    if not math.isfinite(x):
        msg = f"must be a finite number, got {_show(v)}: inf and nan are not measurements"
    elif whole and x != int(x):
        msg = f"must be a whole number, got {_show(v)}"
    elif not lo <= x <= hi:
        msg = (f"must be {'at least 1' if whole else 'positive'} and at most {hi:,.0f}, got {x:.6g}"
               if not whole or x < lo else f"must be at most {hi:,.0f}, got {x:.6g}")
    else:
        return x
    raise InputError([Problem(str(p), key, msg, line)])


def _plain(p: Path, text: str) -> list[BenchRow]:
    rows: list[BenchRow] = []
    problems: list[Problem] = []
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:  # csv.DictReader keeps the last column of a name: the first one's values were dropped in silence
        raise InputError([Problem(str(p), c, "this column appears more than once in the header; keep one", 1)
                          for c in twice])
    seen: dict[str, int] = {}
    for r in _located(p, reader):
        line = reader.line_num
        if not (r.get("model") or "").strip() or (r.get("model") or "").startswith("#"):
            continue
        if None in r:  # more cells than the header: a comma in an unquoted value ("2,048") shifted the row's values
            problems.append(Problem(str(p), "", f"{len(header) + len(r[None])} cells where the header has "
                                    f"{len(header)}: a comma inside a value shifts every later column; quote the "
                                    'value ("2,048") or remove the comma', line))
            continue
        rid = r.get("id") or f"row{line}"
        if rid in seen:  # the report and its errors are keyed by id: a second row of one id showed the other's error
            problems.append(Problem(str(p), "id", f"{_show(rid)} is the id of line {seen[rid]} too: give each row its "
                                    "own id", line))
        seen.setdefault(rid, line)
        if len(rows) >= MAX_BENCHMARK_ROWS:
            raise InputError([Problem(str(p), "", f"more than {MAX_BENCHMARK_ROWS:,} benchmark rows: the fit's time "
                                      "grows with the square of the rows; keep the runs that differ", line)])
        try:
            rows.append(_plain_row(p, r, line))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    if not rows:
        raise InputError([Problem(str(p), "", "no benchmark rows", None)])
    return rows


MODES = ("", "tp", "ep")
"""Values of a plain CSV's `mode` column: 'ep' (experts split over the GPUs, attention data-parallel) or tensor
parallel ('tp' or empty; pipeline parallel over nodes)."""
FP4_NAMES = ("fp4", "nvfp4", "mxfp4", "fp4_e2m1", "nvfp4_e2m1")
"""Names of the 4-bit formats (NVFP4, MXFP4) a benchmark may give: all costed as fp4 (0.5625 B per value,
tco.constants.BYTES_PER_PARAM)."""


def number_format(name: str) -> str:
    """The tool's precision for a benchmark's name of it: fp16/bf16 → bf16, NVFP4/MXFP4 → fp4, else as given.

    >>> number_format("bfloat16"), number_format("NVFP4".lower()), number_format("fp8")
    ('bf16', 'fp4', 'fp8')
    """
    if name in ("fp16", "bf16", "float16", "bfloat16"):
        return "bf16"
    return "fp4" if name in FP4_NAMES else name


def _plain_row(p: Path, r: dict, line: int) -> BenchRow:
    """One row of a plain CSV; every bad number of it at once."""
    excl = (r.get("exclude") or "").strip()
    n: dict = {}
    problems = []
    for k, required in (("gpu_count", not excl), ("input_tokens", not excl), ("output_tokens", not excl),
                        ("output_tokens_per_second", not excl), ("tp", False), ("nodes", False),
                        ("concurrency", False), ("max_batch", False), ("itl_ms", False), ("ttft_ms", False),
                        ("draft_tokens", False), ("acceptance_share", False), ("network_gbps", False)):
        try:
            n[k] = _num(p, line, k, r.get(k), required)
        except InputError as exc:
            problems += exc.problems
    if n.get("network_gbps") is not None and (n.get("nodes") or 1) <= 1:  # dropped in silence: nodes forgotten?
        problems.append(Problem(str(p), "network_gbps", "is read only for a replica over several servers (nodes of 2 or "
                                "more); this row has nodes = 1: give its nodes, or leave network_gbps empty", line))
    for k, other in (("draft_tokens", "acceptance_share"), ("acceptance_share", "draft_tokens")):
        # 3 draft tokens at acceptance 0 was a run paying drafts for nothing; a cell given but refused is said once
        if n.get(k) and n.get(other) is None and not (r.get(other) or "").strip():
            problems.append(Problem(str(p), other, f"an MTP run needs both draft_tokens and acceptance_share; {k} is "
                                    f"given, {other} is not", line))
    prec = number_format((r.get("precision") or "bf16").strip().lower())
    if prec not in ("bf16", "fp8", "fp4"):
        problems.append(Problem(str(p), "precision", f"{_show(prec)}: use bf16 (also for fp16), fp8 or fp4 "
                                "(also for nvfp4 and mxfp4)", line))
    kv = number_format((r.get("kv_precision") or "").strip().lower()) or prec
    if kv not in ("bf16", "fp8", "fp4") and kv != prec:  # a KeyError traceback in the fit; a bad `precision` said once
        problems.append(Problem(str(p), "kv_precision", f"{_show(kv)}: use bf16 (also for fp16), fp8 or fp4 (also "
                                "for nvfp4 and mxfp4), or leave it empty for the weights' precision", line))
    mode = (r.get("mode") or "").strip().lower()
    if mode not in MODES:  # anything but 'ep' was read as tensor parallel in silence
        problems.append(Problem(str(p), "mode", f"{_show(mode)}: use 'ep' (experts split over the GPUs, attention "
                                "data-parallel), 'tp' or leave it empty (tensor parallel, pipeline over nodes)", line))
    fw = (r.get("framework") or "").strip().lower()
    if fw and fw not in FRAMEWORKS:  # "vllm,sglang" would list both in [fit] frameworks: a calibration they never ran
        problems.append(Problem(str(p), "framework", f"{_show(fw)}: use one of {', '.join(FRAMEWORKS)} (or leave "
                                "it empty)", line))
    problems += _era_problems(p, line, fw, (r.get("framework_version") or "").strip().lower())
    for k in ("id", "model", "gpu", "source", "framework_version"):  # a version goes into the calibration file
        if len(r.get(k) or "") > MAX_ID_CHARACTERS * (10 if k == "source" else 1):
            problems.append(Problem(str(p), k, f"{len(r[k]):,} characters: at most "
                                    f"{MAX_ID_CHARACTERS * (10 if k == 'source' else 1):,}", line))
    if problems:
        raise InputError(problems)
    count = int(n["gpu_count"] or 0)
    return BenchRow(r.get("id") or f"row{line}", r["model"].strip(), (r.get("gpu") or "").strip(), count,
                    int(n["tp"] or count or 1), int(n["nodes"] or 1), prec, kv, n["input_tokens"] or 0.0,
                    n["output_tokens"] or 0.0, n["output_tokens_per_second"] or 0.0, n["concurrency"],
                    int(n["max_batch"] or 2048), n["itl_ms"], n["ttft_ms"], excl, r.get("source") or "", str(p), line,
                    mode, fw,
                    int(n["draft_tokens"] or 0), float(n["acceptance_share"] or 0.0), n["network_gbps"],
                    (r.get("framework_version") or "").strip().lower())


def _era_problems(p: Path, line: int, fw: str, era: str) -> list[Problem]:
    """A `framework_version` must be an era of the row's own framework, `<framework>-<version>` (red team 2026-12d
    C18): an era the table lacks takes the framework's current value, so `vllm-0.6.0` (the version as vLLM prints it)
    was costed as vLLM V1 and `sglang-0.3` on a TensorRT-LLM row as SGLang's prefill steps, in silence."""
    from tco.sizing.prefill_rules import PREFILL_MIX_SHARE

    if not era or len(era) > MAX_ID_CHARACTERS:  # too long: said once, by the length check
        return []
    if not fw or not era.startswith(f"{fw}-"):
        return [Problem(str(p), "framework_version", f"{_show(era)} is not an era of this row's framework "
                        f"({_show(fw or '')}): write it as <framework>-<version>, e.g. vllm-0.6, with the framework in "
                        "the `framework` column", line)]
    listed = [e for e in PREFILL_MIX_SHARE if "-" in e and era.startswith(e + ".")]
    if listed:
        return [Problem(str(p), "framework_version", f"{_show(era)}: the eras are named by major.minor version; use "
                        f"{max(listed, key=len)!r} (an era the table lacks would take {fw}'s current engine)", line)]
    return []


def _need_meta(p: Path, meta: dict) -> None:
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        raise InputError([Problem(str(p), ",".join(missing), "this format does not say the hardware: give "
                                  + " ".join(f"--{k.replace('_', '-')} …" for k in missing), None)])


def _row(p: Path, meta: dict, isl, osl, tps, conc, itl, ttft, max_batch=2048) -> BenchRow:
    """A row of a format without the hardware; each number is (the key as the file names it, its value), checked
    against BOUNDS with every problem at once."""
    _need_meta(p, meta)
    prec = _format_of(p, "precision", meta["precision"])
    kv_fmt = _format_of(p, "kv_precision", meta.get("kv_precision")) or prec
    given = {"input_tokens": isl, "output_tokens": osl, "output_tokens_per_second": tps, "concurrency": conc,
             "itl_ms": itl, "ttft_ms": ttft, "max_batch": max_batch}
    given |= {k: (k, meta.get(k, 1 if k == "nodes" else None)) for k in ("gpu_count", "tp", "nodes")}
    n: dict = {}
    problems = []
    for field, kv in given.items():
        key, v = kv if isinstance(kv, tuple) else (field, kv)
        try:
            n[field] = _num(p, None, key, v, field in PLAIN_REQUIRED + ("tp", "nodes"), bound=field)
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    return BenchRow(p.stem, str(meta["model"]), str(meta["gpu"]), int(n["gpu_count"]), int(n["tp"]),
                    int(n["nodes"]), prec, kv_fmt, n["input_tokens"], n["output_tokens"],
                    n["output_tokens_per_second"], n["concurrency"], int(n["max_batch"] or 2048), n["itl_ms"],
                    n["ttft_ms"], "", str(meta.get("source", p.name)), str(p), None)


def _format_of(p: Path, key: str, given) -> str:
    """The number format (bf16, fp8, fp4; '' when not given) of a run's --precision or a JSON's precision and
    kv_precision: fp16/bf16 names, fp8 variants (fp8_e4m3) and the 4-bit names; anything else was bf16 in silence
    (precision) or a KeyError traceback in the fit (kv_precision)."""
    if given is None:
        return ""
    name = str(given).strip().lower() if isinstance(given, str) else ""
    fmt = "fp8" if name.startswith("fp8") else number_format(name)
    if fmt not in ("bf16", "fp8", "fp4"):
        raise InputError([Problem(str(p), key, f"{_show(given)}: use bf16 (also fp16, bfloat16), fp8 (fp8_e4m3, …) "
                                  "or fp4 (nvfp4, mxfp4)", None)])
    return fmt


def _vllm(p: Path, text: str, meta: dict) -> BenchRow:
    try:  # integers read as floats: a 5,000-digit count is inf (refused below), not int()'s 4,300-digit ValueError
        d = json.loads(text, parse_int=float)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(str(p), "", f"not valid JSON: {exc.msg}", exc.lineno)]) from None
    except (RecursionError, ValueError) as exc:
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise InputError([Problem(str(p), "", f"not valid JSON: {why}", None)]) from None
    if not isinstance(d, dict):
        raise InputError([Problem(str(p), "", f"not a vLLM benchmark_serving result: a JSON {type(d).__name__}, "
                                  "not an object", None)])
    for k in ("completed", "total_input_tokens", "total_output_tokens", "output_throughput"):
        if k not in d:
            raise InputError([Problem(str(p), k, "missing: not a vLLM benchmark_serving result (--save-result)", None)])
    meta = {k: d[k] for k in META_KEYS + ("nodes", "kv_precision") if k in d} | meta
    done = _num(p, None, "completed", d["completed"], bound="completed") or 1.0
    tot = {k: _num(p, None, k, d[k], bound="total_tokens") for k in ("total_input_tokens", "total_output_tokens")}
    itl = "mean_itl_ms" if d.get("mean_itl_ms") is not None else "mean_tpot_ms"
    return _row(p, meta, ("total_input_tokens", (tot["total_input_tokens"] or 0.0) / done),
                ("total_output_tokens", (tot["total_output_tokens"] or 0.0) / done),
                ("output_throughput", d["output_throughput"]), ("max_concurrency", d.get("max_concurrency")),
                (itl, d.get(itl)), ("mean_ttft_ms", d.get("mean_ttft_ms")))


def _genai_perf(p: Path, text: str, meta: dict) -> BenchRow:
    """GenAI-Perf/AIPerf: a table 'Metric,avg,min,max,…' then 'Metric,Value' rows; names matched loosely."""
    vals: dict[str, float] = {}
    for row in _csv_rows(p, text.splitlines()):
        if len(row) >= 2 and row[0] != "Metric":
            try:
                vals[row[0].strip().lower()] = float(row[1].replace(",", ""))
            except ValueError:
                continue

    def get(*names, required=True) -> tuple[str, float | None]:
        for n in names:
            for k, v in vals.items():
                if k.startswith(n):
                    return k, v
        if required:
            raise InputError([Problem(str(p), names[0], "missing row in the GenAI-Perf/AIPerf CSV", None)])
        return names[0], None
    return _row(p, meta, get("input sequence length"), get("output sequence length"),
                get("output token throughput (per sec)", "output token throughput (tokens/sec)"),
                ("--concurrency", meta.get("concurrency")),
                get("inter token latency", required=False), get("time to first token", required=False))


def _trtllm(p: Path, text: str, meta: dict) -> BenchRow:
    """`trtllm-bench throughput` report: 'Key:   value' lines."""
    kv = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([^:=]+?):\s+([-0-9.,]+)\s*%?\s*$", line)
        if m:
            try:
                kv[m.group(1).strip().lower()] = float(m.group(2).replace(",", ""))
            except ValueError:  # a version string such as 0.17.0
                continue

    def get(*names, required=True) -> tuple[str, float | None]:
        for n in names:
            if n in kv:
                return n, kv[n]
        if required:
            raise InputError([Problem(str(p), names[0], "missing line in the trtllm-bench report", None)])
        return names[0], None
    tp = get("tp size", required=False)[1] or meta.get("tp")  # the report's TP Size is what ran
    meta = {"tp": tp, **{k: v for k, v in meta.items() if k != "tp"}}
    meta = {k: v for k, v in meta.items() if v is not None}
    batch = get("max runtime batch size", required=False)
    return _row(p, meta, get("average input length (tokens)"), get("average output length (tokens)"),
                get("total output throughput (tokens/sec)", "token throughput (tokens/sec)"),
                ("--concurrency", meta.get("concurrency")),
                get("average time-per-output-token [tpot] (ms)", required=False),
                get("average time-to-first-token [ttft] (ms)", required=False),
                batch if batch[1] is not None else ("max runtime batch size", 2048))
