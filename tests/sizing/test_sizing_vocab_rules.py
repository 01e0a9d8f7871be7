"""The embedding and the output head apart from the body (tco.sizing.vocab_rules): held, read, multiplied."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.catalog.specs import load_models
from tco.expr import Env
from tco.sizing.calibrate import model_spec
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, inputs_of, replica_table
from tco.sizing.vocab_rules import VOCAB_KEPT, decode_params, held_bytes, prompt_params, read_bytes, vocab_format, vocab_params

V, D8 = 128_256, 4_096
VD = V * D8  # 525,336,576 parameters in each of the Llama 3.1 8B embedding and head
N8 = 8.03e9
H100 = Hardware(80.0, 3.35, 1979.0, 8, 450.0, None, 5.7e-6, attn_tflops=1979.0, vocab_tflops=989.5)
EFF = Calibration(0.9, 0.6, 0.8, 2e-3, 0.0)
M8 = ModelSpec(N8, N8, 32, D8, 8, 128, precision="fp8", kv_precision="fp8", embed_params=float(VD),
               head_params=float(VD), vocab_precision="bf16")


def _env(**kw: float) -> Env:
    base = {"params": N8, "active_params": N8, "weight_bytes": 1.0, "wide_params": 0.0, "wide_bytes": 1.0,
            "wide_tflops": 1979.0, "peak_tflops": 1979.0, "embed_params": float(VD), "head_params": float(VD),
            "vocab_bytes": 2.0, "vocab_tflops": 989.5, "fp4_gemm": 0.0}
    return Env(base | kw, 1)


def _v(expr, env: Env) -> float:
    return float(expr.np(env))


def test_llama_8b_fp8_weights_read_memory_and_head_flops_by_hand():
    """Llama 3.1 8B, FP8 body, BF16 embedding and head (VOCAB_KEPT), V·d = 128,256 × 4,096 = 525,336,576:

    memory = body 8.03e9 − 2 × 525,336,576 = 6.979e9 at 1 B + 2 × 525,336,576 at 2 B = 9.0807e9 B (the 9.08 GB of
    neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8's safetensors); read per step = body 6.979e9 × 1 + head 525,336,576 × 2
    = 8.0297e9 B (the embedding's 1.05 GB stays put: the FP8 saving on the head is undone by its BF16 format);
    head GEMM = 2 × 525,336,576 = 1.0507e9 FLOPs per decode token at the BF16 peak (989.5 of H100's 1,979 FP8), so
    it counts as 2 × 525,336,576 parameters at the FP8 peak: decode = 8.03e9 − 525,336,576 (no embedding GEMM) +
    525,336,576 × (1,979 / 989.5 − 1) = 8.03e9; a prompt token multiplies the body alone, 8.03e9 − 2 × 525,336,576."""
    env = _env()
    body = N8 - 2 * VD
    assert round(body / 1e9, 3) == 6.979
    assert _v(held_bytes(), env) == pytest.approx(body * 1 + VD * 2 + VD * 2, rel=1e-15)
    assert round(_v(held_bytes(), env) / 1e9, 4) == 9.0807
    assert _v(read_bytes(), env) == pytest.approx(body * 1 + VD * 2, rel=1e-15)
    assert _v(decode_params(), env) == pytest.approx(N8 - VD + VD * (1979 / 989.5 - 1), rel=1e-15)
    assert _v(prompt_params(), env) == pytest.approx(N8 - 2 * VD, rel=1e-15)


def test_llama_70b_bf16_reads_all_but_its_embedding_and_multiplies_its_head_at_the_same_peak():
    """70B in BF16, V·d = 128,256 × 8,192 = 1,050,673,152: memory 70.55e9 × 2 (unchanged), read (70.55e9 −
    1,050,673,152) × 2 = 138.999e9 B, decode GEMM parameters 70.55e9 − 1,050,673,152 (the head at the weights' peak)."""
    vd = 128_256 * 8_192
    env = _env(params=70.55e9, active_params=70.55e9, weight_bytes=2.0, wide_bytes=2.0, vocab_bytes=2.0,
               peak_tflops=989.5, vocab_tflops=989.5, wide_tflops=989.5, embed_params=float(vd), head_params=float(vd))
    assert _v(held_bytes(), env) == pytest.approx(70.55e9 * 2, rel=1e-15)
    assert round(_v(read_bytes(), env) / 1e9, 3) == round((70.55e9 - vd) * 2 / 1e9, 3) == 138.999
    assert _v(decode_params(), env) == pytest.approx(70.55e9 - vd, rel=1e-15)
    assert _v(prompt_params(), env) == pytest.approx(70.55e9 - 2 * vd, rel=1e-15)


def test_a_tied_head_is_held_once_and_read_every_step():
    """Tied: the embedding is the head, N_e = 0 (vocab_params), so held = read."""
    embed, head = vocab_params(V, D8, True)
    env = _env(embed_params=embed, head_params=head)
    assert (embed, head) == (0.0, float(VD))
    assert _v(held_bytes(), env) == _v(read_bytes(), env) == pytest.approx((N8 - VD) * 1 + VD * 2, rel=1e-15)


def test_checkpoints_keep_the_vocabulary_in_bf16_and_bf16_models_are_unchanged():
    assert VOCAB_KEPT == {"fp8": "bf16", "fp4": "bf16"}
    assert [vocab_format(p) for p in ("bf16", "fp8", "fp4")] == ["bf16", "bf16", "bf16"]


def test_the_replica_holds_reads_and_multiplies_the_8b_fp8_by_hand():
    """One H100 (η_bw 0.9, η_c 0.6), batch 16, ISL/OSL 128/128 (r = 1): weights_b = 9.0807e9 B held, w_read =
    8.0297e9 B a step; the GEMMs 16 × 2 × (8.03e9 + 1 × 6.979e9) / (1,979e12 × 0.6); with the head alone removed from
    the model (and its parameters from the body) the decode GEMMs lose 2 × 525,336,576 FLOPs a token at the BF16
    peak: 16 × 2 × 525,336,576 / (989.5e12 × 0.6) = 28.32 µs."""
    load = Load(128.0, 128.0, None, None, 256)
    v = replica_table([Layout(1)], M8, H100, load, EFF, batch=16)[0]
    body = N8 - 2 * VD
    assert v["weights_b"] == pytest.approx(body + 4 * VD, rel=1e-12) and v["held_b"] == v["weights_b"]
    assert v["w_read"] == pytest.approx(body + 2 * VD, rel=1e-12)
    assert v["gemm_s"] == pytest.approx(16 * 2 * (N8 + 1 * body) / (1979e12 * 0.6), rel=1e-12)
    headless = replace(M8, params=N8 - VD, active_params=N8 - VD, head_params=0.0)
    w = replica_table([Layout(1)], headless, H100, load, EFF, batch=16)[0]
    head_s = 16 * 2 * VD / (989.5e12 * 0.6)
    assert round(head_s * 1e6, 2) == 28.32
    assert v["gemm_s"] - w["gemm_s"] == pytest.approx(head_s, rel=1e-9)
    assert v["b_mem"] < replica_table([Layout(1)], replace(M8, embed_params=0.0, head_params=0.0), H100, load,
                                      EFF)[0]["b_mem"]  # 1.05 GB more held: less room for the KV cache


def test_under_expert_parallel_every_gpu_holds_the_embedding_and_reads_the_head():
    """Mixtral 8x7B FP8 on 2 GPUs as EP2 (V·d = 32,000 × 4,096 = 131,072,000): the experts (46.7 − 12.9)e9 / 0.75 =
    45.0667e9 are split, the rest held by both GPUs, the embedding among it; a step reads every GPU's shared weights
    but the embedding: 2 × (held shared − N_e × 2 B) + the experts touched."""
    vd = 32_000 * 4_096
    m = ModelSpec(46.7e9, 12.9e9, 32, 4096, 8, 128, 8, 2, "fp8", "fp8", embed_params=float(vd), head_params=float(vd),
                  vocab_precision="bf16")
    v = replica_table([Layout(2, 1, "ep")], m, replace(H100, gpus_per_server=2), Load(128.0, 128.0, None, None, 256),
                      EFF, batch=64)[0]
    experts = (46.7e9 - 12.9e9) / (1 - 2 / 8)
    weights = 46.7e9 + 2 * vd * (2 - 1)
    shared = weights - experts
    assert v["expert_b"] == pytest.approx(experts, rel=1e-12) and v["weights_b"] == pytest.approx(weights, rel=1e-12)
    assert v["held_b"] == pytest.approx(2 * shared + experts, rel=1e-12)
    assert v["w_read"] == pytest.approx(2 * (shared - vd * 2) + experts * v["touch"], rel=1e-12)


def test_the_catalog_gives_every_shipped_model_its_vocabulary(tmp_path):
    from tco.catalog import load_catalog

    cat = load_catalog()
    want = {"llama-3.1-8b": 128_256, "llama-3.1-70b": 128_256, "llama-3.1-405b": 128_256, "llama-2-70b": 32_000,
            "mixtral-8x7b": 32_000, "mixtral-8x22b": 32_000, "deepseek-v3": 129_280, "deepseek-r1": 129_280,
            "qwen3-235b-a22b": 151_936, "llama-4-maverick": 202_048}
    assert {k: m.vocab_size for k, m in cat.models.items() if k in want} == want
    assert not any(m.tied_embeddings for m in cat.models.values())
    spec = model_spec(cat.models["llama-3.1-8b"], "fp8", "fp8")
    assert (spec.embed_params, spec.head_params, spec.vocab_precision) == (float(VD), float(VD), "bf16")
    assert inputs_of(spec, H100, Load(1.0, 1.0), EFF)["vocab_bytes"] == 2.0


HEAD = ("model,params_b,active_params_b,layers,hidden_size,kv_heads,head_dim,vocab_size,tied_embeddings,source,as_of\n")


@pytest.mark.parametrize("row, key, words", [
    ("m,8,8,32,4096,8,128,128256,maybe,s,2024", "tied_embeddings", "true or false"),
    ("m,8,8,32,,8,128,128256,false,s,2024", "hidden_size", "needs hidden_size"),
    ("m,0.5,0.5,32,4096,8,128,128256,false,s,2024", "vocab_size", "outweigh the active parameters"),
    ("m,8,8,32,4096,8,128,12.5,false,s,2024", "vocab_size", "whole number"),
])
def test_a_bad_vocabulary_is_a_problem_naming_the_file_line_and_column(tmp_path, row, key, words):
    p = tmp_path / "models.csv"
    p.write_text(HEAD + row + "\n")
    problems: list = []
    assert load_models([p], problems) == {}
    assert [(x.key, x.line) for x in problems] == [(key, 2)] and words in problems[0].message


def test_no_vocabulary_given_keeps_the_body_as_before(tmp_path):
    p = tmp_path / "models.csv"
    p.write_text(HEAD + "m,8,8,32,4096,8,128,,,s,2024\n")
    problems: list = []
    m = load_models([p], problems)["m"]
    assert problems == [] and (m.vocab_size, m.tied_embeddings) == (0, False)
    assert (model_spec(m, "fp8", "fp8").head_params, model_spec(m, "fp8", "fp8").vocab_precision) == (0.0, "")


@settings(max_examples=60, deadline=None)
@given(st.floats(1e8, 1e12), st.floats(0.0, 0.2), st.booleans(), st.sampled_from([(2.0, 989.5), (1.0, 1979.0), (0.5625, 3958.0)]))
def test_properties_of_the_parts(n, share, tied, fmt):
    """held − read = the embedding's bytes ≥ 0; decode − prompt parameters = the head at its peak's ratio ≥ the head;
    the vocabulary at the weights' own format and peak, untied, changes neither the bytes held nor a decode token's
    GEMMs (it only stops reading the embedding and multiplying it)."""
    b, peak = fmt
    vd = n * share / 2
    embed = 0.0 if tied else vd
    env = _env(params=n, active_params=n, weight_bytes=b, wide_bytes=b, peak_tflops=peak, wide_tflops=peak,
               embed_params=embed, head_params=vd, vocab_bytes=2.0, vocab_tflops=989.5, fp4_gemm=float(b < 1))
    held, read = _v(held_bytes(), env), _v(read_bytes(), env)
    assert held - read == pytest.approx(embed * 2.0, rel=1e-9, abs=1e-3) and read <= held * (1 + 1e-12)
    gemm_peak = peak * (0.78 if b < 1 else 1.0)  # NVFP4 GEMMs at r_4 = 0.78 of their peak (FP4_GEMM_SHARE)
    assert _v(decode_params(), env) - _v(prompt_params(), env) == pytest.approx(vd * gemm_peak / 989.5, rel=1e-9,
                                                                                abs=1e-3)
    same = _env(params=n, active_params=n, weight_bytes=b, wide_bytes=b, peak_tflops=peak, wide_tflops=peak,
                embed_params=0.0, head_params=vd, vocab_bytes=b, vocab_tflops=peak, fp4_gemm=float(b < 1))
    assert _v(held_bytes(), same) == pytest.approx(n * b, rel=1e-12)
    # a vocabulary in NVFP4 would be charged at the raw FP4 peak, not the GEMMs' 0.78 of it: no checkpoint does that
    # (VOCAB_KEPT keeps it BF16 beside NVFP4 weights), so the head counts 0.78, not 1, at the weights' GEMM peak
    assert _v(decode_params(), same) == pytest.approx(n - vd * (1 - gemm_peak / peak), rel=1e-12)


def test_deepseek_r1_nvfp4_holds_its_bf16_embedding_and_head_on_every_gpu_by_hand():
    """DeepSeek-R1 NVFP4 (V·d = 129,280 × 7,168 = 926,679,040) as EP8 on 8 × B200: the weights 671e9 × 0.5625 + MLA
    11.413e9 × (2 − 0.5625) + embedding and head 2 × 926,679,040 × (2 − 0.5625) = 377.44e9 + 16.41e9 + 2.66e9 =
    396.5e9 B; each GPU holds the shared 396.5e9 − 654.45e9 × 0.5625 = 28.38e9 B and 1/8 of the experts' 368.13e9:
    74.4 GB a GPU (NVIDIA: "the weights and activation occupies about 80 GB memory for each GPU", TensorRT-LLM
    blog3; 71.7 GB without the BF16 vocabulary)."""
    from tco.catalog import load_catalog

    m = model_spec(load_catalog().models["deepseek-r1"], "fp4", "fp8")
    vd = 129_280 * 7_168
    assert (m.embed_params, m.head_params, m.vocab_precision) == (float(vd), float(vd), "bf16")
    b200 = Hardware(180.0, 7.7, 9000.0, 8, 900.0, None, 5.7e-6, attn_tflops=4500.0, wide_tflops=2250.0,
                    vocab_tflops=2250.0)
    ep = replica_table([Layout(8, 1, "ep")], m, b200, Load(1024.0, 2048.0, None, None, 4096),
                       Calibration(0.9, 0.5, 0.8, 2e-3, 0.0), batch=64)[0]
    weights = 671e9 * 0.5625 + 11.413e9 * (2 - 0.5625) + 2 * vd * (2 - 0.5625)
    experts = (671e9 - 37e9) / (1 - 8 / 256) * 0.5625
    assert ep["weights_b"] == pytest.approx(weights, rel=1e-12) and round(weights / 1e9, 1) == 396.5
    assert ep["held_b"] / 8 == pytest.approx(weights - experts + experts / 8, rel=1e-12)
    assert round(ep["held_b"] / 8 / 1e9, 1) == 74.4
