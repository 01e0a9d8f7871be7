"""Fit the serving efficiencies to benchmark results: `python -m tco calibrate FILE`.

Least squares on the log error of every row, log(predicted / measured) output tokens/s (and inter-token
latency where the row has it), over the five parameters of tco.sizing.replica.Calibration; a
Nelder–Mead search (Nelder & Mead 1965, Computer Journal 7(4)) on transformed parameters keeps the
efficiencies in (0, 1) and the times positive. Leave-one-out refits without each row in turn.
Readers for the formats people already produce are in tco/sizing/benchmarks.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from tco.errors import InputError, Problem
from tco.sizing.precision_rules import attention_format, kept_wide
from tco.sizing.vocab_rules import vocab_format, vocab_params
from tco.sizing.prefill_rules import prefill_mix_share
from tco.sizing.replica import (
    KV_RESERVE_SHARE,
    LINK_LATENCY_SECONDS,
    LINK_SHARE,
    NETWORK_LATENCY_SECONDS,
    Calibration,
    Hardware,
    Layout,
    Load,
    ModelSpec,
    evaluate_layouts,
    inputs_of,
)

PARAMS = ("bandwidth_share", "flops_share", "interconnect_share", "step_overhead_seconds", "collective_latency_seconds",
          "sequence_overhead_seconds", "layer_overhead_seconds")
SHARES = PARAMS[:3]
START = (0.7, 0.5, 0.7, 2e-3, 0.0, 1e-5, 3e-5)
FREE = PARAMS[:4] + PARAMS[5:]
OPTIONAL = {"sequence_overhead_seconds": 0.0, "layer_overhead_seconds": 0.0}
"""Parameters a calibration file may leave out (files written before they existed), with the value they take."""
"""The parameters a fit moves: the collective latency is the interconnect's (replica.LINK_LATENCY_SECONDS); the
calibration's ``collective_latency_seconds`` is an extra per collective that stays at its start (0) unless asked."""
RUN_NETWORK_GBPS = 400.0
"""Network per server assumed for a multi-server benchmark row that does not state its own (`network_gbps` column)
[Gb/s]: one 400 Gb/s NIC (ConnectX-7, InfiniBand NDR). A DGX/HGX H100 or H200 server has eight (3,200 Gb/s,
interconnect.csv): give the column, since a pipeline hop's or an all-to-all's bandwidth term scales with it."""
PCIE4_X16_GBS = 31.5
"""PCIe 4.0 ×16, one direction [GB/s] (PCI-SIG: 16 GT/s × 16 lanes × 128/130 / 8), for GPUs without a figure."""


@dataclass(frozen=True)
class BenchRow:
    id: str
    model: str
    gpu: str
    gpu_count: int
    tp: int
    nodes: int
    precision: str
    kv_precision: str
    input_tokens: float
    output_tokens: float
    output_tokens_per_second: float
    """Measured output tokens/s of all GPUs together [tokens/s]."""
    concurrency: float | None = None
    """Requests in flight over all replicas; None: all queued (maximum load)."""
    max_batch: int = 2048
    itl_ms: float | None = None
    ttft_ms: float | None = None
    exclude: str = ""
    source: str = ""
    file: str = ""
    line: int | None = None
    mode: str = ""
    """'ep' when the run split the experts over its GPUs with attention data-parallel; else tensor (and pipeline
    over nodes) parallel."""
    framework: str = ""
    """Serving framework of the run ('trtllm', 'vllm', 'sglang'; '' unknown)."""
    draft_tokens: int = 0
    """MTP speculative decoding: draft tokens per step of the run (0: none)."""
    acceptance_share: float = 0.0
    """MTP: acceptance per draft token the run measured (TensorRT-LLM and SGLang log it)."""
    network_gbps: float | None = None
    """Scale-out network of each server of a run whose replica spans servers [Gb/s]; None: RUN_NETWORK_GBPS."""
    framework_version: str = ""
    """Version era of the framework ('vllm-0.6', 'sglang-0.4', …; '' the framework's current): what it mixes into a
    decode step (tco.sizing.prefill_rules.PREFILL_MIX_SHARE)."""


def hardware_for(gpu, gpus_per_server: int, network_gbps: float | None = None) -> Hardware:
    """Hardware terms of a catalog GPU: the NVLink/PCIe figure of gpus.csv is both directions, halved; the latency
    of a collective is the interconnect's (replica.LINK_LATENCY_SECONDS, PCIe for a kind it does not list)."""
    link = gpu.interconnect_gbs / 2.0 if gpu.interconnect_gbs else PCIE4_X16_GBS
    lat = LINK_LATENCY_SECONDS.get(gpu.interconnect, LINK_LATENCY_SECONDS["pcie"])
    return Hardware(gpu.memory_gb, gpu.bandwidth_tbs, 0.0, gpus_per_server, link, network_gbps, lat,
                    NETWORK_LATENCY_SECONDS, LINK_SHARE.get(gpu.interconnect, 0.0) if gpu.interconnect_gbs else 0.0)


def model_spec(m, precision: str, kv_precision: str) -> ModelSpec:
    hidden = m.hidden_size or m.kv_heads * m.head_dim
    wide, wide_fmt = kept_wide(getattr(m, "family", ""), precision, float(getattr(m, "attention_params_b", 0.0) or 0.0))
    embed, head = vocab_params(int(getattr(m, "vocab_size", 0) or 0), hidden, bool(getattr(m, "tied_embeddings", False)))
    return ModelSpec(m.params_b * 1e9, m.active_params_b * 1e9, m.layers, hidden, m.kv_heads, m.head_dim,
                     m.experts, m.experts_per_token, precision, kv_precision, getattr(m, "attention_heads", 0),
                     float(getattr(m, "attention_head_dim", 0.0) or 0.0), int(getattr(m, "moe_layers", 0) or 0),
                     wide, wide_fmt, float(getattr(m, "prompt_attention_head_dim", 0.0) or 0.0), embed, head,
                     vocab_format(precision) if head else "")


def check_rows(rows: list[BenchRow], cat) -> None:
    """Every problem at once: models and GPUs the catalog lacks, impossible layouts."""
    problems = []
    for r in rows:
        if r.exclude and not r.input_tokens:
            continue  # an excluded row without its conditions is only listed
        if r.model not in cat.models:
            problems.append(Problem(r.file, "model", f"row {r.id}: model {r.model!r} is not in the catalog; choose one "
                                    f"of {', '.join(sorted(cat.models))} or add it to models.csv", r.line))
        if r.gpu not in cat.gpus:
            problems.append(Problem(r.file, "gpu", f"row {r.id}: GPU {r.gpu!r} is not in the catalog; choose one of "
                                    f"{', '.join(sorted(cat.gpus))}", r.line))
        if r.mode == "ep" and r.model in cat.models and not cat.models[r.model].experts:  # read as copies of the whole model, one per GPU
            problems.append(Problem(r.file, "mode", f"row {r.id}: mode 'ep' splits a mixture of experts' experts over "
                                    f"the GPUs; {r.model!r} has none (models.csv experts): leave mode empty or 'tp'",
                                    r.line))
        most = max([8] + [o.gpu_count for o in (*cat.cloud_offers.values(), *cat.dedicated_offers.values())
                          if o.gpu == r.gpu])
        if r.tp > most:  # tp 16 in one server was fitted as one NVLink domain of 16 GPUs: a forgotten nodes = 2?
            problems.append(Problem(r.file, "tp", f"row {r.id}: tp {r.tp} in one server, but no {r.gpu} server holds "
                                    f"more than {most} GPUs; for a replica over several servers give tp per server and "
                                    f"nodes (e.g. tp {most}, nodes {-(-r.tp // most)})", r.line))
        elif r.tp < 1 or r.gpu_count % (r.tp * r.nodes):
            problems.append(Problem(r.file, "tp", f"row {r.id}: {r.gpu_count} GPUs do not split into replicas of "
                                    f"tp {r.tp} × nodes {r.nodes}", r.line))
        if r.output_tokens_per_second <= 0 or r.input_tokens <= 0 or r.output_tokens <= 0:
            problems.append(Problem(r.file, "output_tokens_per_second", f"row {r.id}: tokens and tokens/s must be "
                                    "positive", r.line))
    if problems:
        raise InputError(problems)


def predict(r: BenchRow, cat, eff: Calibration) -> dict:
    """The model's output tokens/s (all GPUs), inter-token latency and TTFT for one benchmark row."""
    return predict_rows([r], cat, eff)[0]


def _row_inputs(r: BenchRow, cat, eff: Calibration) -> tuple[Layout, dict, int]:
    """A benchmark row's layout, the replica rules' inputs and its replica count."""
    g = cat.gpus[r.gpu]
    peak = getattr(g, f"{r.precision}_tflops", None) or g.bf16_tflops  # as tco.sizing.peak_tflops
    net = (r.network_gbps or RUN_NETWORK_GBPS) if r.nodes > 1 else None
    spec = model_spec(cat.models[r.model], r.precision, r.kv_precision)
    attn = getattr(g, f"{attention_format(r.kv_precision)}_tflops", None) or g.bf16_tflops  # the KV format's peak
    wide = getattr(g, f"{spec.wide_precision or r.precision}_tflops", None) or g.bf16_tflops  # the wider layers'
    vocab = getattr(g, f"{spec.vocab_precision or r.precision}_tflops", None) or g.bf16_tflops  # the output head's
    hw = replace(hardware_for(g, r.tp, net), peak_tflops=peak, attn_tflops=attn, wide_tflops=wide, vocab_tflops=vocab,
                 fp4_gemm=r.precision == "fp4" and bool(getattr(g, "fp4_tflops", 0.0)))  # FP4 tensor cores
    replicas = r.gpu_count // (r.tp * r.nodes)
    cap = r.max_batch if r.concurrency is None else max(1, min(r.max_batch, math.ceil(r.concurrency / replicas)))
    load = Load(r.input_tokens, r.output_tokens, None, None, cap, 0.9, r.draft_tokens, r.acceptance_share,
                KV_RESERVE_SHARE.get(r.framework or "trtllm", 1.0), prefill_mix_share(r.framework, r.framework_version))
    mode = "ep" if r.mode == "ep" else "pp" if r.nodes > 1 else "tp"
    return Layout(r.tp, r.nodes, mode), inputs_of(spec, hw, load, eff), replicas


def predict_rows(rows: list[BenchRow], cat, eff: Calibration) -> list[dict]:
    """predict for many rows at once: the replica rules evaluated over the rows (one numpy pass)."""
    if not rows:
        return []
    lays, inputs, replicas = zip(*(_row_inputs(r, cat, eff) for r in rows))
    stacked = {k: np.array([d[k] for d in inputs], dtype=float) for k in inputs[0]}
    out = []
    for v, n in zip(evaluate_layouts(list(lays), stacked), replicas):
        out.append({"tps": n * v["decode_tps"], "itl_ms": v["cycle"] * 1e3, "ttft_ms": v["ttft"] * 1e3,
                    "batch": v["batch"], "bound": v["bound"], "fits": v["fits"]})
    return out


def residuals(rows: list[BenchRow], cat, eff: Calibration) -> list[float]:
    out = []
    for r, p in zip(rows, predict_rows(rows, cat, eff)):
        out.append(math.log(p["tps"] / r.output_tokens_per_second))
        if r.itl_ms:
            out.append(math.log(p["itl_ms"] / r.itl_ms))
    return out


def _to_eff(x: list[float], name: str, source: str, start: tuple = START, free: tuple = FREE) -> Calibration:
    """The calibration at search point x (one coordinate per free parameter; the others at `start`)."""
    vals = dict(zip(PARAMS, start))
    for k, t in zip(free, x):
        vals[k] = 1.0 / (1.0 + math.exp(-t)) if k in SHARES else math.exp(t)
    return Calibration(**{k: float(vals[k]) for k in PARAMS}, name=name, source=source)


def _from_eff(p: tuple, free: tuple = FREE) -> list[float]:
    """Search coordinates of a start point; a share at 0 or 1 (a fit at its bound) starts just inside."""
    vals = dict(zip(PARAMS, p))
    share = {k: min(max(vals[k], 1e-9), 1.0 - 1e-9) for k in SHARES}
    return [math.log(share[k] / (1.0 - share[k])) if k in SHARES else math.log(max(vals[k], 1e-12)) for k in free]


def nelder_mead(f, x0: list[float], step: float = 0.5, tol: float = 1e-10, max_iter: int = 4000
                ) -> tuple[list, float, bool]:
    """Minimise f from x0 (Nelder & Mead 1965; reflection 1, expansion 2, contraction ½, shrink ½).
    Returns (x, f(x), converged)."""
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step if j == i else 0.0) for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(max_iter):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) <= tol * (abs(vals[0]) + tol):
            return pts[0], vals[0], True
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [[pts[0][j] + 0.5 * (p[j] - pts[0][j]) for j in range(n)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    best = min(range(n + 1), key=lambda i: vals[i])
    return pts[best], vals[best], False


def fit(rows: list[BenchRow], cat, *, name: str = "fitted", source: str = "", start: tuple = START,
        restarts: int = 3, free: tuple = FREE) -> tuple[Calibration, bool]:
    """Least-squares fit of the `free` parameters (the shares and t0; the others stay at `start`) on the rows not
    excluded; (calibration, converged)."""
    used = [r for r in rows if not r.exclude]

    def cost(x):
        try:
            total = sum(e * e for e in residuals(used, cat, _to_eff(x, name, source, start, free)))
        except (OverflowError, ZeroDivisionError, ValueError):
            return float("inf")
        return total if math.isfinite(total) else float("inf")
    x, fx, ok = _from_eff(start, free), math.inf, False
    for _ in range(restarts):  # restart from the best point: Nelder–Mead can stall on a ridge
        x, fx_new, ok = nelder_mead(cost, x)
        if fx - fx_new < 1e-9:
            break
        fx = fx_new
    return _to_eff(x, name, source, start, free), ok and math.isfinite(fx)


def errors(rows: list[BenchRow], cat, eff: Calibration, loo: bool = False, **kw) -> dict[str, float]:
    """Relative error of predicted vs measured tokens/s per row [-]; with loo, each fitted rows' error
    comes from a fit without that row (excluded rows are only predicted)."""
    out = {}
    for i, r in enumerate(rows):
        e = eff
        if r.exclude and not r.input_tokens:
            continue
        if loo and not r.exclude:
            e, _ = fit(rows[:i] + rows[i + 1:], cat, start=tuple(getattr(eff, k) for k in PARAMS), restarts=1, **kw)
        out[r.id] = predict(r, cat, e)["tps"] / r.output_tokens_per_second - 1.0
    return out


MAX_STEP_SECONDS = 1.0
"""Longest fixed time of a decode step or of one collective a calibration may hold [s]: the fitted ones are a few
milliseconds and tens of microseconds; a second per step would put every GPU below one token/s per user."""


def validate(eff: Calibration, file: str, lines: dict | None = None) -> None:
    """Efficiencies finite, in (0, 1] and at least MIN_EFFICIENCY, times finite in [0, MAX_STEP_SECONDS], else
    exit-2 problems (with the key's line in the file where `lines` has it)."""
    from tco.scenario.types import MIN_EFFICIENCY

    lines = lines or {}
    bad = []
    for k in PARAMS:
        v = getattr(eff, k)
        if not math.isfinite(v):
            msg = f"must be a finite number (got {v!r}); inf and nan are not measurements"
        elif k in SHARES and not 0.0 < v <= 1.0:
            msg = (f"{v:.6g} is outside (0, 1]: the benchmark rows cannot be explained by this model; check their "
                   "GPU, precision and layout")
        elif k in SHARES and v < MIN_EFFICIENCY:
            msg = (f"{v:.6g} is below the minimum share {MIN_EFFICIENCY:g}: an efficiency near zero multiplies the "
                   "fleet without limit; check the benchmark rows")
        elif k not in SHARES and not 0.0 <= v <= MAX_STEP_SECONDS:
            msg = (f"negative time ({v:.6g} s)" if v < 0 else
                   f"{v:.6g} s is more than the limit of {MAX_STEP_SECONDS:g} s for one step or collective")
        else:
            continue
        bad.append(Problem(file, k, msg, lines.get((k,))))
    if bad:
        raise InputError(bad)


def to_toml(eff: Calibration, stats: dict) -> str:
    """The calibration file a scenario points to with [inference] calibration = "…"."""
    file = _toml_string(str(stats.get("file", "")))[1:-1]  # in the comment: escaped, never a line of its own
    lines = [f"# Serving calibration written by `python -m tco calibrate` ({file})", "",
             f"name = {_toml_string(eff.name)}", f"source = {_toml_string(eff.source)}", ""]
    lines += [f"{k} = {getattr(eff, k)!r}" for k in PARAMS]
    lines += ["", "[fit]"] + [f"{k} = {v!r}" if not isinstance(v, str) else f"{k} = {_toml_string(v)}"
                              for k, v in sorted(stats.items())]
    return "\n".join(lines) + "\n"


def _toml_string(text: str) -> str:
    """A TOML basic string of `text` (review L8): backslash and quote escaped, control characters but tab written
    \\uXXXX, so a file name with a quote or a newline neither breaks the file nor adds a line to it."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(f"\\u{ord(c):04x}" if (ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F
                         else "\\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in out) + '"'


def from_dict(d: dict, file: str, lines: dict | None = None) -> Calibration:
    """A Calibration from a parsed calibration file; problems name the file, the key and (with `lines`, key path →
    line) its line."""
    lines = lines or {}
    d = OPTIONAL | dict(d)
    missing = [k for k in PARAMS if isinstance(d.get(k), bool) or not isinstance(d.get(k), (int, float))]
    if missing:
        raise InputError([Problem(file, k, "missing or not a number in the calibration file", lines.get((k,)))
                          for k in missing])
    eff = Calibration(**{k: float(d[k]) for k in PARAMS}, name=str(d.get("name", file)),
                      source=str(d.get("source", "")))
    validate(eff, file, lines)
    return eff


MAX_CALIBRATION_BYTES = 1_000_000
"""A calibration file is under 1 kB; a larger one is refused before it is read."""


def read_file(path, file: str, key: str, line: int | None) -> tuple[Calibration, dict]:
    """The calibration file at `path` that scenario `file` names at `key` (line `line`): (calibration, its parsed
    data). A file that cannot be read or parsed is a problem of the scenario's key; a value out of bounds or
    nesting too deep, one of the calibration file, with its line."""
    import tomllib

    from tco.scenario import read_limited
    from tco.scenario.messages import key_lines
    from tco.scenario.toml import loads

    path = str(path)
    try:
        text = read_limited(path, MAX_CALIBRATION_BYTES, "calibration file").decode("utf-8")
        data = loads(text, path)
    except (InputError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        if isinstance(exc, InputError) and exc.problems[0].line is not None:
            raise  # nesting too deep: located in the calibration file itself
        why = exc.problems[0].message.removeprefix("cannot read calibration file: ") if isinstance(
            exc, InputError) else str(exc)
        raise InputError([Problem(file, key, f"cannot read calibration file {path!r}: {why}; write one with "
                                  "`python -m tco calibrate BENCHMARK`", line)]) from None
    return from_dict(data, path, key_lines(text)), data


def median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0) if n else float("nan")
