"""`python -m tco calibrate`: the readers, the fit (it recovers known parameters), the fit on the shipped
public set, and bad input (exit 2, file and row named, nothing written)."""

from __future__ import annotations

import csv
import math
from dataclasses import replace
from pathlib import Path

import pytest

from tco.sizing import benchmarks
from tco.sizing.calibrate import (
    PARAMS,
    BenchRow,
    check_rows,
    errors,
    fit,
    from_dict,
    median,
    nelder_mead,
    predict,
    to_toml,
)
from tco.catalog import DATA_DIR, load_catalog
from tco.cli import main
from tco.errors import InputError
from tco.sizing.replica import Calibration

DATA = Path(__file__).parents[1] / "data" / "benchmarks"


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def test_reads_vllm_benchmark_serving_json():
    (r,) = benchmarks.read(DATA / "vllm_benchmark_serving.json")
    # 1,000,000 input and 250,000 output tokens over 1,000 completed requests
    assert (r.input_tokens, r.output_tokens) == (1_000_000 / 1000, 250_000 / 1000)
    assert r.output_tokens_per_second == 2074.7 and r.concurrency == 64 and r.itl_ms == 29.6 and r.ttft_ms == 310.2
    assert (r.model, r.gpu, r.gpu_count, r.tp, r.precision) == ("llama-3.1-70b", "H100-SXM-80GB", 8, 8, "fp8")


def test_reads_genai_perf_csv_with_hardware_from_options():
    meta = {"model": "llama-3.1-70b", "gpu": "H200-SXM-141GB", "gpu_count": 1, "tp": 1, "precision": "fp8",
            "concurrency": 32}
    (r,) = benchmarks.read(DATA / "genai_perf_profile_export.csv", meta)
    assert (r.input_tokens, r.output_tokens, r.output_tokens_per_second) == (1000.0, 250.0, 1320.55)
    assert (r.itl_ms, r.ttft_ms, r.concurrency) == (24.10, 240.51, 32)


def test_reads_trtllm_bench_report():
    meta = {"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "gpu_count": 1, "precision": "fp8"}
    (r,) = benchmarks.read(DATA / "trtllm_bench_report.txt", meta)
    assert (r.tp, r.input_tokens, r.output_tokens, r.max_batch) == (1, 128.0, 2048.0, 2048)
    assert r.output_tokens_per_second == pytest.approx(20500.1234) and r.concurrency is None


def test_reads_plain_csv():
    rows = benchmarks.read(DATA / "plain.csv")
    assert [r.id for r in rows] == ["run1", "run2", "run3", "run4"]
    assert rows[2].tp == 4 and rows[2].concurrency == 64 and rows[2].itl_ms == 29.0


def test_formats_without_hardware_ask_for_it():
    with pytest.raises(InputError) as e:
        benchmarks.read(DATA / "genai_perf_profile_export.csv")
    assert "--model" in str(e.value) and "--gpu" in str(e.value)


def test_unknown_format_and_missing_columns_name_the_file(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        benchmarks.read(f)
    assert "x.csv" in str(e.value) and "unknown benchmark format" in str(e.value)
    g = tmp_path / "y.csv"
    g.write_text("model,gpu,gpu_count,input_tokens,output_tokens,output_tokens_per_second\n"
                 "llama-3.1-8b,H100-SXM-80GB,1,128,,100\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        benchmarks.read(g)
    assert "output_tokens" in str(e.value) and e.value.problems[0].line == 2


def test_unknown_gpu_and_model_are_named_with_the_row(cat, tmp_path):
    rows = [BenchRow("r1", "llama-9b", "H100-SXM-80GB", 1, 1, 1, "fp8", "fp8", 100, 100, 1000, file="f.csv", line=2),
            BenchRow("r2", "llama-3.1-8b", "H999", 1, 1, 1, "fp8", "fp8", 100, 100, 1000, file="f.csv", line=3)]
    with pytest.raises(InputError) as e:
        check_rows(rows, cat)
    text = str(e.value)
    assert "llama-9b" in text and "H999" in text and "row r1" in text and "row r2" in text


def test_calibration_outside_zero_one_is_refused():
    d = {"bandwidth_share": 1.3, "flops_share": 0.5, "interconnect_share": 0.5, "step_overhead_seconds": 0.001,
         "collective_latency_seconds": 1e-5}
    with pytest.raises(InputError) as e:
        from_dict(d, "cal.toml")
    assert "bandwidth_share" in str(e.value) and "(0, 1]" in str(e.value)


def test_nelder_mead_minimises_a_quadratic_and_reports_no_convergence():
    x, _, ok = nelder_mead(lambda p: (p[0] - 3) ** 2 + 2 * (p[1] + 1) ** 2, [0.0, 0.0])
    assert ok and x[0] == pytest.approx(3, abs=1e-3) and x[1] == pytest.approx(-1, abs=1e-3)
    _, _, ok = nelder_mead(lambda p: (p[0] - 3) ** 2 + 2 * (p[1] + 1) ** 2, [0.0, 0.0], max_iter=3)
    assert not ok


KNOWN = Calibration(0.72, 0.55, 0.6, 0.004, 0.0, 5e-6, 2e-5, name="known")
"""The collective latency is the interconnect's, not fitted: the known extra per collective is 0."""


def _synthetic_rows(cat) -> list[BenchRow]:
    """Benchmark rows whose tokens/s and inter-token latency the model computes from KNOWN parameters:
    several GPUs, tensor-parallel degrees, context lengths and loads, so every parameter matters (the PCIe L40S
    at TP4 for the fitted interconnect share: NVLink's is measured, replica.LINK_SHARE)."""
    out = []
    grid = [("llama-3.1-8b", "H100-SXM-80GB", 1), ("llama-3.1-70b", "L40S", 4), ("llama-3.1-70b", "H100-SXM-80GB", 4),
            ("llama-3.1-70b", "H200-SXM-141GB", 8), ("llama-3.1-70b", "A100-SXM-80GB", 8), ("mixtral-8x7b", "H100-SXM-80GB", 2)]
    for i, (model, gpu, tp) in enumerate(grid):
        for isl, osl, conc in ((128, 1024, 4), (2048, 256, 64), (1000, 250, None)):
            prec = "bf16" if gpu.startswith("A100") else "fp8"
            r = BenchRow(f"s{i}-{isl}-{conc}", model, gpu, tp, tp, 1, prec, prec, isl, osl, 1.0, conc)
            p = predict(r, cat, KNOWN)
            out.append(replace(r, output_tokens_per_second=p["tps"], itl_ms=p["itl_ms"]))
    return out


@pytest.mark.slow
def test_fit_recovers_known_parameters(cat, tmp_path):
    rows = _synthetic_rows(cat)
    # written to a plain CSV and read back, as a user's file would be
    f = tmp_path / "synthetic.csv"
    cols = ["id", "model", "gpu", "gpu_count", "tp", "precision", "input_tokens", "output_tokens", "concurrency",
            "output_tokens_per_second", "itl_ms", "source"]
    with f.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rows:
            w.writerow([r.id, r.model, r.gpu, r.gpu_count, r.tp, r.precision, r.input_tokens, r.output_tokens,
                        r.concurrency or "", repr(r.output_tokens_per_second), repr(r.itl_ms), "synthetic"])
    back = benchmarks.read(f)
    eff, ok = fit(back, cat)
    assert ok
    for k in PARAMS:
        assert getattr(eff, k) == pytest.approx(getattr(KNOWN, k), rel=0.02), k
    assert max(abs(e) for e in errors(back, cat, eff).values()) < 0.005


def test_shipped_public_set_meets_the_error_targets(cat):
    """The catalog default was fitted on tco/catalog/data/calibration_public.csv (docs/calibration.md):
    median |error| ≤ 10 % in-sample and ≤ 12 % leave-one-out (issue 21's target), every fitted row within ±25 %
    (measured 5.9 % and 9.3 % on 33 rows, 2026-12-02)."""
    rows = benchmarks.read(DATA_DIR / "calibration_public.csv")
    eff = from_dict(cat.calibration, "calibration_default.toml")
    used = [r for r in rows if not r.exclude]
    assert len(used) >= 20
    assert all(r.exclude for r in rows if not r.input_tokens)  # rows without their conditions say why
    ins = errors(rows, cat, eff)
    assert median([abs(ins[r.id]) for r in used]) <= 0.10
    assert all(abs(ins[r.id]) <= 0.25 for r in used), {r.id: ins[r.id] for r in used if abs(ins[r.id]) > 0.25}
    # the shipped default is what fitting the set gives (the file records the fit)
    assert cat.calibration["fit"]["median_abs_error_leave_one_out"] <= 0.12
    refit, ok = fit(rows, cat, start=tuple(getattr(eff, k) for k in PARAMS), restarts=1)
    # a time at its lower bound (t0 → 0 once the per-layer cost carries the fixed step cost) may move by
    # nanoseconds: the same step
    assert ok and all(getattr(refit, k) == pytest.approx(getattr(eff, k), rel=0.05, abs=1e-6) for k in PARAMS)


@pytest.mark.slow
def test_cli_writes_a_calibration_a_scenario_can_use(tmp_path, capsys):
    out = tmp_path / "mine.toml"
    assert main(["calibrate", str(DATA / "plain.csv"), "-o", str(out), "--report", str(tmp_path / "r.md")]) == 0
    text = capsys.readouterr().out
    assert "run1" in text and "run4" in text and "leave-one-out" in text
    assert out.exists() and (tmp_path / "r.md").exists()
    eff = from_dict(__import__("tomllib").loads(out.read_text()), str(out))
    assert all(0 < getattr(eff, k) <= 1 for k in PARAMS[:3])
    seed = (Path(__file__).parents[2] / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
    scen = tmp_path / "s.toml"
    scen.write_text(seed.replace("[inference]\n", '[inference]\ncalibration = "mine.toml"\n'), encoding="utf-8")
    assert main(["run", str(scen), "-o", str(tmp_path / "o"), "--formats", "json", "--quiet"]) == 0
    import json
    doc = json.loads((tmp_path / "o" / "s.json").read_text())
    assert all("mine.toml" in o["sizing"]["replica"]["calibration"] for o in doc["options"])
    assert "mine.toml" in doc["assumptions"]["defaults_used"]["serving_calibration"]["name"]


def test_cli_bad_input_exit_2_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "cal.toml"
    bad = tmp_path / "bad.csv"
    bad.write_text("model,gpu,gpu_count,input_tokens,output_tokens,output_tokens_per_second\n"
                   "llama-3.1-8b,H999,1,128,128,100\n", encoding="utf-8")
    assert main(["calibrate", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv:2" in err and "H999" in err
    assert not out.exists()
    assert main(["calibrate", str(DATA / "genai_perf_profile_export.csv"), "-o", str(out)]) == 2
    assert "--gpu" in capsys.readouterr().err and not out.exists()


def test_cli_non_converging_fit_exit_2(tmp_path, capsys, monkeypatch):
    import tco.sizing.calibrate as calibrate  # calibrate_report imports the fit when it runs

    monkeypatch.setattr(calibrate, "fit", lambda rows, cat, **kw: (Calibration(0.5, 0.5, 0.5, 0.0, 0.0), False))
    out = tmp_path / "cal.toml"
    assert main(["calibrate", str(DATA / "plain.csv"), "-o", str(out)]) == 2
    assert "did not converge" in capsys.readouterr().err and not out.exists()


def test_calibration_file_round_trips():
    text = to_toml(KNOWN, {"file": "x.csv", "rows_fitted": 3})
    eff = from_dict(__import__("tomllib").loads(text), "x.toml")
    assert all(math.isclose(getattr(eff, k), getattr(KNOWN, k)) for k in PARAMS)


def test_scenario_naming_a_missing_calibration_exit_2(tmp_path, capsys):
    seed = (Path(__file__).parents[2] / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
    scen = tmp_path / "s.toml"
    scen.write_text(seed.replace("[inference]\n", '[inference]\ncalibration = "nowhere.toml"\n'), encoding="utf-8")
    assert main(["run", str(scen), "-o", str(tmp_path / "o"), "--formats", "json", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "inference.calibration" in err and "nowhere.toml" in err and "tco calibrate" in err
    assert not (tmp_path / "o" / "s.json").exists()


def test_hardware_takes_the_interconnects_measured_latency_and_share(cat):
    from tco.sizing.calibrate import hardware_for

    h100 = hardware_for(cat.gpus["H100-SXM-80GB"], 8)
    assert h100.link_gbs == 450.0 and h100.link_latency_s == 5.7e-6 and h100.link_share == 370.0 / 450.0
    l40s = hardware_for(cat.gpus["L40S"], 8)              # PCIe: 64 GB/s both ways, NCCL's 42 µs, the fitted share
    assert l40s.link_gbs == 32.0 and l40s.link_latency_s == 42e-6 and l40s.link_share == 0.0
    assert h100.network_latency_s == 20e-6


def test_a_multi_server_row_is_predicted_with_its_own_network(cat):
    """Llama 3.1 405B BF16 over 2 servers of 8 × H100 (TP8 × PP2), 1,000/1,000 tokens, 16 requests in flight (one
    replica, batch 16: 810 GB of weights in 1,152 GB leave room for 331 sequences). The pipeline hops carry every
    token of the cycle once, b·(1 + r) = 16 × 2 = 32 tokens of 16,384 × 2 B activations = 1,048,576 B, over the network
    at η_link of its line rate. A row stating 3,200 Gb/s (8 × 400 per server) instead of the 400 Gb/s assumed without
    the column saves 1,048,576 B × (1/(50e9 B/s) − 1/(400e9 B/s)) / η_link of each cycle, and nothing else moves."""
    from tco.sizing.calibrate import RUN_NETWORK_GBPS

    eff = from_dict(cat.calibration, "default")
    row = BenchRow("pp2", "llama-3.1-405b", "H100-SXM-80GB", 16, 8, 2, "bf16", "bf16", 1000.0, 1000.0, 900.0,
                   concurrency=16)
    slow, fast = predict(row, cat, eff), predict(replace(row, network_gbps=3200.0), cat, eff)
    assert RUN_NETWORK_GBPS == 400.0 and slow["batch"] == fast["batch"] == 16
    line_s = 1_048_576 * (1 / 50e9 - 1 / 400e9)  # 1,048,576 B × 1.75e-11 s/B = 18.35 µs at the line rate
    assert line_s == pytest.approx(18.35e-6, rel=1e-3)
    saved_s = line_s / eff.interconnect_share  # ÷ η_link of the shipped calibration (41 µs at η_link ≈ 0.44)
    assert (slow["itl_ms"] - fast["itl_ms"]) / 1e3 == pytest.approx(saved_s, rel=1e-9)
