"""tco.catalog.specs: gpus.csv, models.csv and interconnect.csv read into rows, every bad cell reported with
file, line and column, and a user's file overriding a shipped row."""

from __future__ import annotations

from tco.catalog.specs import load_gpus, load_interconnect, load_models
from tco.catalog.types import DATA_DIR

GPU_HEAD = "gpu,memory_gb,bandwidth_tbs,bf16_dense_tflops,fp8_dense_tflops,tdp_w,interconnect,interconnect_gbs,source,as_of\n"
MODEL_HEAD = ("model,family,params_b,active_params_b,layers,hidden_size,attention_heads,kv_heads,head_dim,experts,"
              "experts_per_token,max_context_tokens,source,as_of\n")


def test_shipped_gpus_and_models():
    problems = []
    gpus = load_gpus([DATA_DIR / "gpus.csv"], problems)
    models = load_models([DATA_DIR / "models.csv"], problems)
    assert problems == []
    h200 = gpus["H200-SXM-141GB"]
    assert (h200.memory_gb, h200.bandwidth_tbs, h200.bf16_tflops) == (141, 4.8, 989.5)   # NVIDIA's dense figures
    assert h200.interconnect == "nvlink"
    m = models["llama-3.1-70b"]
    assert (m.params_b, m.layers, m.kv_heads, m.head_dim) == (70.55, 80, 8, 128)
    # FP4 tensor cores only on Blackwell; every shipped GPU names its generation (the training MFU's key)
    assert {g.gpu: g.fp4_tflops for g in gpus.values() if g.fp4_tflops} == {"B200-SXM-180GB": 9000.0}
    assert {g.generation for g in gpus.values()} == {"ampere", "ada", "hopper", "blackwell"}
    assert h200.generation == "hopper" and h200.fp4_tflops is None


def test_a_file_without_the_fp4_and_generation_columns_still_reads(tmp_path):
    p = tmp_path / "gpus.csv"
    p.write_text(GPU_HEAD + "X9,80,2.0,500,1000,,nvlink,,src,2026-01-01\n", encoding="utf-8")
    problems = []
    g = load_gpus([p], problems)["X9"]
    assert problems == [] and (g.fp8_tflops, g.fp4_tflops, g.generation) == (1000.0, None, "")


def test_bad_cells_are_reported_with_file_line_and_column(tmp_path):
    p = tmp_path / "gpus.csv"
    p.write_text(GPU_HEAD + "X1,0,3.0,500,,,,,src,2026-01-01\n"          # line 2: memory must be > 0
                 + "X2,80,abc,500,,,,,src,2026-01-01\n"                   # line 3: not a number
                 + "X3,80,2.0,500,,,nvlink,,src,2026-01-01\n", encoding="utf-8")
    problems = []
    gpus = load_gpus([p], problems)
    assert list(gpus) == ["X3"] and gpus["X3"].interconnect == "nvlink"
    got = sorted((q.line, q.key, q.message) for q in problems)
    assert got == [(2, "memory_gb", "must be a finite number > 0 and ≤ 100000, got '0'"),
                   (3, "bandwidth_tbs", "not a number: 'abc'")]
    assert all(q.file == str(p) for q in problems)


def test_a_later_file_replaces_the_same_gpu(tmp_path):
    p = tmp_path / "gpus.csv"
    p.write_text(GPU_HEAD + "H200-SXM-141GB,140,4.0,900,,,nvlink,,my quote,2026-11-01\n", encoding="utf-8")
    problems = []
    gpus = load_gpus([DATA_DIR / "gpus.csv", p], problems)
    assert gpus["H200-SXM-141GB"].memory_gb == 140 and gpus["H200-SXM-141GB"].source == "my quote"
    assert "H100-SXM-80GB" in gpus and problems == []


def test_models_active_above_total_and_missing_columns(tmp_path):
    p = tmp_path / "models.csv"
    p.write_text(MODEL_HEAD + "m,f,7,8,32,4096,32,8,128,,,8192,src,2026\n", encoding="utf-8")
    problems = []
    assert load_models([p], problems) == {}
    assert [(q.line, q.key) for q in problems] == [(2, "active_params_b")]
    assert problems[0].message == "active parameters (8 B) exceed the total (7 B)"
    q = tmp_path / "bad.csv"
    q.write_text("model,params_b\nm,7\n", encoding="utf-8")
    problems = []
    load_models([q], problems)
    assert problems[0].line == 1 and problems[0].message == "missing column(s)"
    assert "active_params_b" in problems[0].key and "layers" in problems[0].key


def test_interconnect_optional_file(tmp_path):
    problems = []
    assert load_interconnect([tmp_path / "absent.csv"], problems) == {} and problems == []
    p = tmp_path / "interconnect.csv"
    p.write_text("key,scale_out_gbps,status,source,as_of\naws/*/p5.48xlarge,3200,listed,AWS,2026-01-01\n"
                 "x/y/z,,unverified,none,\n", encoding="utf-8")
    rows = load_interconnect([p], problems)
    assert rows["aws/*/p5.48xlarge"].scale_out_gbps == 3200 and rows["x/y/z"].scale_out_gbps is None


def test_moe_layers_shipped_and_bounded_by_the_layers(tmp_path):
    """models.csv moe_layers: Llama 4 Maverick has experts on every other of its 48 layers (interleave_moe_layer_step 2),
    DeepSeek-R1 on 61 − 3 dense = 58; blank means every layer; more than the layers is refused with file, line, key."""
    problems = []
    models = load_models([DATA_DIR / "models.csv"], problems)
    assert problems == []
    assert (models["llama-4-maverick"].moe_layers, models["llama-4-maverick"].layers) == (24, 48)
    assert models["deepseek-r1"].moe_layers == 61 - 3 and models["llama-3.1-8b"].moe_layers == 0
    p = tmp_path / "models.csv"
    p.write_text(MODEL_HEAD.replace("experts_per_token,", "experts_per_token,moe_layers,")
                 + "m,f,400,17,48,5120,40,8,128,128,1,50,8192,src,2026\n", encoding="utf-8")
    problems = []
    load_models([p], problems)
    assert [(q.line, q.key) for q in problems] == [(2, "moe_layers")]
    assert problems[0].message == "must be a whole number ≥ 0 and ≤ 48, got '50'"
