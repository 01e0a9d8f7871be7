"""Readers for the benchmark files people already produce, renamed at the edge into calibrate.BenchRow.

plain CSV (our columns, one row per run), vLLM `benchmark_serving.py --save-result` JSON, GenAI-Perf /
AIPerf `profile_export_*.csv`, and the `trtllm-bench throughput` text report. Formats without the
hardware (vLLM, GenAI-Perf, trtllm-bench) take it from `meta` (command-line options), or from vLLM's
`--metadata key=value` entries saved in the JSON.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from tco.sizing.calibrate import BenchRow
from tco.errors import InputError, Problem

PLAIN_REQUIRED = ("model", "gpu", "gpu_count", "input_tokens", "output_tokens", "output_tokens_per_second")
META_KEYS = ("model", "gpu", "gpu_count", "tp", "precision")


def read(path: str | Path, meta: dict | None = None) -> list[BenchRow]:
    """Rows of a benchmark file in any supported format; InputError (file, row, what to fix) otherwise."""
    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), "", "benchmark file not found", None)])
    text = p.read_text(encoding="utf-8", errors="replace")
    meta = {k: v for k, v in (meta or {}).items() if v is not None}
    if p.suffix == ".json":
        return [_vllm(p, text, meta)]
    if "PERFORMANCE OVERVIEW" in text or "Request Throughput (req/sec)" in text:
        return [_trtllm(p, text, meta)]
    first = text.splitlines()[0] if text.strip() else ""
    if first.startswith("Metric,"):
        return [_genai_perf(p, text, meta)]
    cols = next(csv.reader([first]), [])
    if all(c in cols for c in PLAIN_REQUIRED):
        return _plain(p, text)
    raise InputError([Problem(str(p), "", "unknown benchmark format: expected a plain CSV with columns "
                              f"{', '.join(PLAIN_REQUIRED)}, a vLLM benchmark_serving JSON, a GenAI-Perf/AIPerf "
                              "profile_export CSV or a trtllm-bench throughput report", 1)])


def _num(p: Path, line: int | None, key: str, v, required: bool = True) -> float | None:
    if v in (None, ""):
        if required:
            raise InputError([Problem(str(p), key, "value is required", line)])
        return None
    try:
        return float(str(v).replace(",", "")) if not isinstance(v, (int, float)) else float(v)
    except ValueError:
        raise InputError([Problem(str(p), key, f"not a number: {v!r}", line)]) from None


def _plain(p: Path, text: str) -> list[BenchRow]:
    rows = []
    reader = csv.DictReader(text.splitlines())
    for r in reader:
        line = reader.line_num
        if not (r.get("model") or "").strip() or (r.get("model") or "").startswith("#"):
            continue
        excl = (r.get("exclude") or "").strip()
        n = {k: _num(p, line, k, r.get(k), not excl) or 0.0 for k in ("gpu_count", "input_tokens", "output_tokens",
                                                                       "output_tokens_per_second")}
        opt = {k: _num(p, line, k, r.get(k), False) for k in ("tp", "nodes", "concurrency", "max_batch", "itl_ms",
                                                               "ttft_ms")}
        prec = (r.get("precision") or "bf16").strip().lower()
        prec = "bf16" if prec in ("fp16", "bf16", "float16", "bfloat16") else prec
        if prec not in ("bf16", "fp8"):
            raise InputError([Problem(str(p), "precision", f"{prec!r}: use bf16 (also for fp16) or fp8", line)])
        rows.append(BenchRow(r.get("id") or f"row{line}", r["model"].strip(), r["gpu"].strip(), int(n["gpu_count"]),
                             int(opt["tp"] or n["gpu_count"] or 1), int(opt["nodes"] or 1), prec,
                             (r.get("kv_precision") or prec).strip().lower(), n["input_tokens"], n["output_tokens"],
                             n["output_tokens_per_second"], opt["concurrency"], int(opt["max_batch"] or 2048),
                             opt["itl_ms"], opt["ttft_ms"], (r.get("exclude") or "").strip(), r.get("source", ""),
                             str(p), line, (r.get("mode") or "").strip().lower(),
                             (r.get("framework") or "").strip().lower()))
    if not rows:
        raise InputError([Problem(str(p), "", "no benchmark rows", None)])
    return rows


def _need_meta(p: Path, meta: dict) -> None:
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        raise InputError([Problem(str(p), ",".join(missing), "this format does not say the hardware: give "
                                  + " ".join(f"--{k.replace('_', '-')} …" for k in missing), None)])


def _row(p: Path, meta: dict, isl, osl, tps, conc, itl, ttft, max_batch=2048) -> BenchRow:
    _need_meta(p, meta)
    prec = "fp8" if str(meta["precision"]).lower().startswith("fp8") else "bf16"
    return BenchRow(p.stem, str(meta["model"]), str(meta["gpu"]), int(meta["gpu_count"]), int(meta["tp"]),
                    int(meta.get("nodes", 1)), prec, str(meta.get("kv_precision", prec)), isl, osl, tps, conc,
                    int(max_batch), itl, ttft, "", str(meta.get("source", p.name)), str(p), None)


def _vllm(p: Path, text: str, meta: dict) -> BenchRow:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(str(p), "", f"not valid JSON: {exc.msg}", exc.lineno)]) from None
    for k in ("completed", "total_input_tokens", "total_output_tokens", "output_throughput"):
        if k not in d:
            raise InputError([Problem(str(p), k, "missing: not a vLLM benchmark_serving result (--save-result)", None)])
    meta = {k: d[k] for k in META_KEYS + ("nodes", "kv_precision") if k in d} | meta
    done = _num(p, None, "completed", d["completed"])
    return _row(p, meta, d["total_input_tokens"] / done, d["total_output_tokens"] / done,
                _num(p, None, "output_throughput", d["output_throughput"]),
                _num(p, None, "max_concurrency", d.get("max_concurrency"), False),
                _num(p, None, "mean_itl_ms", d.get("mean_itl_ms", d.get("mean_tpot_ms")), False),
                _num(p, None, "mean_ttft_ms", d.get("mean_ttft_ms"), False))


def _genai_perf(p: Path, text: str, meta: dict) -> BenchRow:
    """GenAI-Perf/AIPerf: a table 'Metric,avg,min,max,…' then 'Metric,Value' rows; names matched loosely."""
    vals: dict[str, float] = {}
    for i, row in enumerate(csv.reader(text.splitlines()), start=1):
        if len(row) >= 2 and row[0] != "Metric":
            try:
                vals[row[0].strip().lower()] = float(row[1].replace(",", ""))
            except ValueError:
                continue

    def get(*names, required=True):
        for n in names:
            for k, v in vals.items():
                if k.startswith(n):
                    return v
        if required:
            raise InputError([Problem(str(p), names[0], "missing row in the GenAI-Perf/AIPerf CSV", None)])
        return None
    return _row(p, meta, get("input sequence length"), get("output sequence length"),
                get("output token throughput (per sec)", "output token throughput (tokens/sec)"),
                _num(p, None, "concurrency", meta.get("concurrency"), False),
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

    def get(*names, required=True):
        for n in names:
            if n in kv:
                return kv[n]
        if required:
            raise InputError([Problem(str(p), names[0], "missing line in the trtllm-bench report", None)])
        return None
    tp = int(get("tp size", required=False) or 0) or meta.get("tp")
    meta = {"tp": tp, **{k: v for k, v in meta.items() if k != "tp"}}
    meta = {k: v for k, v in meta.items() if v is not None}
    return _row(p, meta, get("average input length (tokens)"), get("average output length (tokens)"),
                get("total output throughput (tokens/sec)", "token throughput (tokens/sec)"),
                _num(p, None, "concurrency", meta.get("concurrency"), False),
                get("average time-per-output-token [tpot] (ms)", required=False),
                get("average time-to-first-token [ttft] (ms)", required=False),
                get("max runtime batch size", required=False) or 2048)
