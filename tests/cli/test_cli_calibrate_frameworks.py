"""Per-framework fits (tco/cli/calibrate_frameworks.py): the shipped rows, the minimum, the TOML table."""

import tomllib
from pathlib import Path

import pytest

from tco.catalog import load_catalog
from tco.cli.calibrate_frameworks import FRAMEWORK_FREE, MIN_FRAMEWORK_ROWS, fit_frameworks, framework_table
from tco.errors import InputError
from tco.sizing.calibrate import from_dict

SHIPPED = Path(__file__).parents[2] / "tco" / "catalog" / "data"
HEADER = ("id,model,gpu,gpu_count,tp,precision,input_tokens,output_tokens,concurrency,output_tokens_per_second,"
          "itl_ms,framework,framework_version\n")


def test_the_shipped_calibration_has_a_fit_per_framework_within_the_target():
    """calibration_default.toml is written by `tco calibrate … --frameworks calibration_frameworks.csv`: vLLM and
    SGLang each have their own bandwidth share (the other parameters the main fit's), fitted on at least
    MIN_FRAMEWORK_ROWS rows; leave-one-out median within the issue's 12 % (9 and 13 rows: 6.1 % and 11.8 % on the
    35-row main fit; with t_seq and t_layer free as well 12.5 % and 16.6 %, docs/calibration.md)."""
    data = tomllib.loads((SHIPPED / "calibration_default.toml").read_text())
    assert set(data["fit"]["frameworks"].split(",")) == {"trtllm", "vllm", "sglang"}
    for fw in ("vllm", "sglang"):
        t = data["framework"][fw]
        assert set(FRAMEWORK_FREE) <= set(t) and t["rows_fitted"] >= MIN_FRAMEWORK_ROWS
        assert t["median_abs_error_leave_one_out"] <= 0.12
        assert not {"sequence_overhead_seconds", "layer_overhead_seconds", "flops_share"} & set(t)
    # vLLM 0.6 reaches less of the memory bandwidth than the TensorRT-LLM fit (the outside check's +36–75 % on vLLM)
    assert data["framework"]["vllm"]["bandwidth_share"] < data["bandwidth_share"]


def test_no_shipped_framework_is_faster_than_the_tensorrt_llm_fit(tmp_path):
    """The framework tables keep TensorRT-LLM's FLOPS share and fit a lower bandwidth share: on compute-bound,
    memory-bound and latency-bound cases (70B FP8 on one H200 at 2,000/400 tokens and 256 requests; 8B FP8 on one H100
    at 4,000/200 and 128; 70B TP8 on H100 at one request; 70B TP2 on H200 at 2,048/128 and 64) vLLM and SGLang
    predict at most the main fit's tokens/s (freeing the FLOPS share once made vLLM 44 % faster on the seed)."""
    from tco.sizing import benchmarks
    from tco.sizing.calibrate import PARAMS, predict

    cat = load_catalog(None)
    data = tomllib.loads((SHIPPED / "calibration_default.toml").read_text())
    main = from_dict(data, "default")
    f = tmp_path / "cases.csv"
    f.write_text("id,model,gpu,gpu_count,tp,precision,input_tokens,output_tokens,concurrency,output_tokens_per_second\n"
                 "C1,llama-3.1-70b,H200-SXM-141GB,1,1,fp8,2000,400,256,1000\n"
                 "C2,llama-3.1-8b,H100-SXM-80GB,1,1,fp8,4000,200,128,1000\n"
                 "C3,llama-3.1-70b,H100-SXM-80GB,8,8,fp8,1000,1000,1,1000\n"
                 "C4,llama-3.1-70b,H200-SXM-141GB,8,2,fp8,2048,128,64,1000\n")
    rows = benchmarks.read(str(f), {})
    for fw in ("vllm", "sglang"):
        own = {k: v for k, v in data["framework"][fw].items() if k in PARAMS}
        eff = from_dict({k: getattr(main, k) for k in PARAMS} | own, fw)
        assert "flops_share" not in own
        for r in rows:
            assert predict(r, cat, eff)["tps"] <= predict(r, cat, main)["tps"], (fw, r.id)


def test_a_framework_with_too_few_rows_is_not_fitted(tmp_path):
    cat = load_catalog(None)
    base = from_dict(cat.calibration, "default")
    f = tmp_path / "few.csv"
    f.write_text(HEADER + "".join(f"R{i},llama-3.1-8b,H100-SXM-80GB,1,1,fp8,1000,1000,{c},{c * 40},20,vllm,vllm-0.9\n"
                                  for i, c in enumerate((8, 16))))
    text, tables, covered = fit_frameworks(str(f), cat, base, loo=False)
    assert covered == [] and tables == ""
    assert f"vllm: not fitted (2 rows; at least {MIN_FRAMEWORK_ROWS} needed)" in text


def test_an_unknown_framework_is_refused(tmp_path):
    cat = load_catalog(None)
    f = tmp_path / "bad.csv"
    f.write_text(HEADER + "R1,llama-3.1-8b,H100-SXM-80GB,1,1,fp8,1000,1000,8,320,20,tgi,\n")
    with pytest.raises(InputError) as e:
        fit_frameworks(str(f), cat, from_dict(cat.calibration, "default"))
    assert "'tgi'" in str(e.value.problems[0].message)


def test_framework_table_is_toml_with_the_fitted_parameters():
    cat = load_catalog(None)
    eff = from_dict(cat.calibration, "default")
    text = framework_table("sglang", eff, 7, 0.05, 0.09, ["sglang-0.3"])
    t = tomllib.loads(text)["framework"]["sglang"]
    assert t["bandwidth_share"] == eff.bandwidth_share and t["rows_fitted"] == 7
    assert t["median_abs_error_leave_one_out"] == 0.09 and t["versions"] == "sglang-0.3"


@pytest.mark.slow
def test_calibrate_with_frameworks_writes_their_tables(tmp_path):
    """`tco calibrate MAIN --frameworks FILE`: the main fit as before, then a [framework.<name>] table per framework
    with enough rows, read back by the scenario loader's TOML parser; [fit] frameworks lists them."""
    from tco.cli import main

    out, report = tmp_path / "c.toml", tmp_path / "r.md"
    assert main(["calibrate", str(SHIPPED / "calibration_public.csv"), "--frameworks",
                 str(SHIPPED / "calibration_frameworks.csv"), "--no-loo", "-o", str(out), "--report", str(report)]) == 0
    data = tomllib.loads(out.read_text())
    assert set(data["framework"]) == {"vllm", "sglang"} and "vllm" in data["fit"]["frameworks"]
    assert data["framework"]["vllm"]["versions"] == "vllm-0.6,vllm-0.8"
    assert "### vllm" in report.read_text() and "### sglang" in report.read_text()
