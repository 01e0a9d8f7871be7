"""tco.sizing.benchmarks: the benchmark readers, renamed at the edge into calibrate.BenchRow.

tests/test_calibrate.py reads each shipped sample once; here: the plain CSV's defaults and conventions (tp = GPUs,
fp16 read as bf16, comment and blank rows skipped, an excluded row may leave numbers out, thousands separators), a
round trip of any plain CSV a user writes, the hardware given on the command line against what the file says, and
every bad input named with its file, key and line."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.sizing import benchmarks
from tco.errors import InputError

DATA = Path(__file__).parents[1] / "data" / "benchmarks"
HEAD = "model,gpu,gpu_count,input_tokens,output_tokens,output_tokens_per_second"
META = {"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "gpu_count": 1, "tp": 1, "precision": "fp8"}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return f


def _problem(path, meta=None):
    with pytest.raises(InputError) as e:
        benchmarks.read(path, meta)
    (p,) = e.value.problems
    return p


# --- plain CSV ------------------------------------------------------------------------------------------------------

def test_plain_defaults(tmp_path):
    f = _write(tmp_path, "b.csv", HEAD + ",precision\nllama-3.1-70b,H100-SXM-80GB,4,1000,250,2050,fp16\n")
    (r,) = benchmarks.read(f)
    assert r.id == "row2"  # no id column: named by its line
    assert r.tp == 4 and r.nodes == 1  # tensor parallel defaults to the GPU count
    assert r.precision == "bf16" and r.kv_precision == "bf16"  # fp16 is costed as bf16 (2 bytes)
    assert r.max_batch == 2048 and r.concurrency is None and r.itl_ms is None
    assert (r.file, r.line) == (str(f), 2)


def test_plain_reads_the_framework_version_era_that_decides_the_prefill_steps(tmp_path):
    # the same run under vLLM 0.6 (prefill steps of their own) and vLLM 0.8 (V1: prompts in the decode steps): the
    # 0.6 row is predicted slower, its prompt GEMMs outside the weight read; an era the table lacks is the framework's
    from tco.catalog import load_catalog
    from tco.sizing.calibrate import from_dict, predict

    body = "".join(f"llama-3.1-8b,A100-SXM-80GB,1,231,194.4,778,20,vllm,{era}\n" for era in ("VLLM-0.6", "vllm-0.8", "vllm-9"))
    rows = benchmarks.read(_write(tmp_path, "b.csv", HEAD + ",concurrency,framework,framework_version\n" + body))
    assert [r.framework_version for r in rows] == ["vllm-0.6", "vllm-0.8", "vllm-9"]  # read in lower case
    cat = load_catalog()
    eff = from_dict(cat.calibration, "default")
    old, v1, unknown = (predict(r, cat, eff)["itl_ms"] for r in rows)
    assert old > v1 == unknown
    long = _write(tmp_path, "c.csv", HEAD + ",framework_version\nllama-3.1-8b,H100-SXM-80GB,1,512,256,2900," + "v" * 201 + "\n")
    assert _problem(long).key == "framework_version"


def test_plain_reads_fp4_and_its_names(tmp_path):
    """NVFP4 and MXFP4 checkpoints (B200 runs of the DeepSeek-R1 blog) are read as fp4."""
    for name in ("fp4", "NVFP4", "mxfp4"):
        f = _write(tmp_path, "b.csv", HEAD + ",precision\ndeepseek-r1,B200-SXM-180GB,8,1024,2048,36384,"
                   + name + "\n")
        (r,) = benchmarks.read(f)
        assert r.precision == "fp4" and r.kv_precision == "fp4"


def test_plain_skips_comment_and_blank_rows_and_reads_thousands(tmp_path):
    f = _write(tmp_path, "b.csv", HEAD + ",id\n# a note,,,,,,\n,,,,,,\n"
               'llama-3.1-8b,H100-SXM-80GB,1,512,256,"8,100",r9\n')
    (r,) = benchmarks.read(f)
    assert r.id == "r9" and r.output_tokens_per_second == 8100.0  # "8,100" read as 8,100


def test_an_excluded_row_may_leave_numbers_out(tmp_path):
    f = _write(tmp_path, "b.csv", HEAD + ",exclude\nllama-3.1-8b,H100-SXM-80GB,1,512,,2900,outlier\n")
    (r,) = benchmarks.read(f)
    assert r.exclude == "outlier" and r.output_tokens == 0.0


def test_plain_bad_values_name_key_and_line(tmp_path):
    f = _write(tmp_path, "b.csv", HEAD + "\nllama-3.1-8b,H100-SXM-80GB,1,512,256,2900\n"
               "llama-3.1-8b,H100-SXM-80GB,one,512,256,2900\n")
    p = _problem(f)
    assert (p.key, p.line) == ("gpu_count", 3) and "'one'" in p.message
    g = _write(tmp_path, "c.csv", HEAD + ",precision\nllama-3.1-8b,H100-SXM-80GB,1,512,256,2900,int4\n")
    p = _problem(g)
    assert (p.key, p.line) == ("precision", 2) and "bf16" in p.message and "fp8" in p.message


def test_plain_without_rows_or_file(tmp_path):
    assert "no benchmark rows" in _problem(_write(tmp_path, "b.csv", HEAD + "\n")).message
    assert "not found" in _problem(tmp_path / "missing.csv").message
    assert "unknown benchmark format" in _problem(_write(tmp_path, "e.csv", "")).message


_ROW = st.fixed_dictionaries({
    "id": st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
    "gpu_count": st.integers(1, 64), "tp": st.integers(1, 8), "input_tokens": st.integers(1, 200_000),
    "output_tokens": st.integers(1, 20_000), "output_tokens_per_second": st.floats(0.1, 1e6),
    "concurrency": st.integers(1, 4096), "itl_ms": st.floats(0.1, 1e4), "precision": st.sampled_from(["bf16", "fp8"])})


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(_ROW, min_size=1, max_size=6, unique_by=lambda r: r["id"]))
def test_any_plain_csv_reads_back_as_written(rows):
    out = io.StringIO()
    w = csv.DictWriter(out, ["model", "gpu", *rows[0]])
    w.writeheader()
    for r in rows:
        w.writerow({"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB"} | {k: repr(v) if isinstance(v, float) else v
                                                                          for k, v in r.items()})
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "b.csv"
        f.write_text(out.getvalue(), encoding="utf-8")
        got = benchmarks.read(f)
    assert [g.id for g in got] == [r["id"] for r in rows]
    for g, r in zip(got, rows, strict=True):
        assert (g.gpu_count, g.tp, g.precision, g.concurrency) == (r["gpu_count"], r["tp"], r["precision"],
                                                                   r["concurrency"])
        assert (g.input_tokens, g.output_tokens) == (r["input_tokens"], r["output_tokens"])
        assert g.output_tokens_per_second == r["output_tokens_per_second"] and g.itl_ms == r["itl_ms"]


# --- vLLM JSON ------------------------------------------------------------------------------------------------------

def _vllm(tmp_path, **changes) -> Path:
    d = json.loads((DATA / "vllm_benchmark_serving.json").read_text(encoding="utf-8"))
    d |= changes
    for k in [k for k, v in changes.items() if v is None]:
        del d[k]
    return _write(tmp_path, "v.json", json.dumps(d))


def test_vllm_command_line_hardware_wins_over_the_saved_metadata(tmp_path):
    (r,) = benchmarks.read(_vllm(tmp_path), {"gpu": "H200-SXM-141GB", "tp": 4, "gpu_count": None})
    assert (r.gpu, r.tp) == ("H200-SXM-141GB", 4)
    assert r.gpu_count == 8  # not given on the command line (None): the saved metadata's


def test_vllm_inter_token_latency_falls_back_to_tpot(tmp_path):
    (r,) = benchmarks.read(_vllm(tmp_path, mean_itl_ms=None))
    assert r.itl_ms == 29.8  # mean_tpot_ms


def test_vllm_tokens_per_request_are_totals_over_completed(tmp_path):
    (r,) = benchmarks.read(_vllm(tmp_path, completed=400, total_input_tokens=300_000, total_output_tokens=80_000))
    assert (r.input_tokens, r.output_tokens) == (300_000 / 400, 80_000 / 400)  # 750 and 200 tokens per request


def test_vllm_bad_files(tmp_path):
    p = _problem(_write(tmp_path, "v.json", '{"completed": 1,\n oops}'))
    assert "not valid JSON" in p.message and p.line == 2
    p = _problem(_vllm(tmp_path, output_throughput=None))
    assert p.key == "output_throughput" and "--save-result" in p.message


# --- GenAI-Perf and trtllm-bench ---------------------------------------------------------------------------------------

def test_genai_perf_missing_throughput_is_named(tmp_path):
    text = (DATA / "genai_perf_profile_export.csv").read_text(encoding="utf-8")
    f = _write(tmp_path, "g.csv", "\n".join(ln for ln in text.splitlines() if not ln.startswith("Output Token")))
    p = _problem(f, META)
    assert p.key == "output token throughput (per sec)"


@pytest.mark.parametrize("name", ["fp4", "NVFP4", "mxfp4"])
def test_plain_fp4_names_read_as_fp4(tmp_path, name):
    f = _write(tmp_path, "b.csv", HEAD + f",precision\nllama-3.1-70b,B200-SXM-180GB,4,1000,250,2050,{name}\n")
    (r,) = benchmarks.read(f)
    assert (r.precision, r.kv_precision) == ("fp4", "fp4")  # NVFP4 and MXFP4 both cost 0.5625 B per value
    assert benchmarks.number_format("bfloat16") == "bf16" and benchmarks.number_format("int4") == "int4"


def test_metadata_formats_take_fp4(tmp_path):
    (r,) = benchmarks.read(DATA / "trtllm_bench_report.txt", META | {"precision": "NVFP4", "gpu": "B200-SXM-180GB"})
    assert r.precision == "fp4"


def test_trtllm_precision_and_report_tp(tmp_path):
    (r,) = benchmarks.read(DATA / "trtllm_bench_report.txt", META | {"precision": "FP8_E4M3", "tp": 2})
    assert r.precision == "fp8"
    assert r.tp == 1  # the report's TP Size is what ran
    text = (DATA / "trtllm_bench_report.txt").read_text(encoding="utf-8").replace("TP Size:                1\n", "")
    (r,) = benchmarks.read(_write(tmp_path, "t.txt", text), META | {"tp": 2})
    assert r.tp == 2  # not in the report: the command line's


def test_hardware_missing_from_a_format_without_it(tmp_path):
    p = _problem(DATA / "trtllm_bench_report.txt", {"model": "llama-3.1-8b"})
    assert p.key == "gpu,gpu_count,precision" and "--gpu …" in p.message and "--gpu-count …" in p.message


def test_plain_reads_the_mtp_columns_and_bounds_them(tmp_path):
    """A user's own MTP run: draft tokens (0-4, whole) and the acceptance per draft token it logged (0-1)."""
    f = _write(tmp_path, "b.csv", HEAD + ",draft_tokens,acceptance_share\n"
               "deepseek-r1,H200-SXM-141GB,8,1024,2048,158,3,0.7\n")
    (r,) = benchmarks.read(f)
    assert (r.draft_tokens, r.acceptance_share) == (3, 0.7)
    g = _write(tmp_path, "c.csv", HEAD + ",draft_tokens,acceptance_share\n"
               "deepseek-r1,H200-SXM-141GB,8,1024,2048,158,2.5,1.5\n")
    with pytest.raises(InputError) as e:
        benchmarks.read(g)
    assert {(p.key, p.line) for p in e.value.problems} == {("draft_tokens", 2), ("acceptance_share", 2)}


def test_plain_reads_the_network_of_a_multi_server_run_and_bounds_it(tmp_path):
    """A run whose replica spans servers states each server's scale-out network (Gb/s); none: the fitter's assumption;
    zero or a petabit is refused with its key and line."""
    f = _write(tmp_path, "b.csv", HEAD + ",tp,nodes,network_gbps\n"
               "llama-3.1-405b,H100-SXM-80GB,16,1000,1000,900,8,2,3200\n"
               "llama-3.1-405b,H100-SXM-80GB,16,1000,1000,900,8,2,\n")
    a, b = benchmarks.read(f)
    assert (a.nodes, a.network_gbps, b.network_gbps) == (2, 3200.0, None)
    g = _write(tmp_path, "c.csv", HEAD + ",tp,nodes,network_gbps\n"
               "llama-3.1-405b,H100-SXM-80GB,16,1000,1000,900,8,2,0\n"
               "llama-3.1-405b,H100-SXM-80GB,16,1000,1000,900,8,2,1e6\n")
    with pytest.raises(InputError) as e:
        benchmarks.read(g)
    assert {(p.key, p.line) for p in e.value.problems} == {("network_gbps", 2), ("network_gbps", 3)}
