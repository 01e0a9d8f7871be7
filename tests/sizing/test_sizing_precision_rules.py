"""Each part of the cycle at its own format's peak (tco.sizing.precision_rules): the attention at the KV cache's."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.expr import Const, Env
from tco.sizing import peak_tflops
from tco.sizing.precision_rules import ATTENTION_FORMAT, attention_compute, attention_format, kept_wide
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, replica_table

M70 = ModelSpec(70e9, 70e9, 80, 8192, 8, 128, precision="fp8", kv_precision="bf16")
H100 = Hardware(80.0, 3.35, 1979.0, 8, 450.0, None, 5.7e-6, attn_tflops=989.5)
EFF = Calibration(0.9, 0.6, 0.8, 2e-3, 0.0)


def test_attention_format_follows_the_kv_cache_and_fp4_kv_runs_fp8():
    assert [attention_format(k) for k in ("bf16", "fp8", "fp4")] == ["bf16", "fp8", "fp8"]
    assert set(ATTENTION_FORMAT) == {"bf16", "fp8", "fp4"}


def test_attention_compute_scales_the_replica_compute_by_the_peaks_ratio():
    env = Env({"peak_tflops": 4500.0, "attn_tflops": 2250.0, "fp4_gemm": 0.0}, 1)    # B200 FP8 weights, BF16 KV
    fl = 8 * 4500e12 * 0.5
    assert float(attention_compute(Const(fl)).np(env)) == pytest.approx(8 * 2250e12 * 0.5, rel=1e-15)


def test_a_bf16_kv_cache_beside_fp8_weights_pays_its_attention_at_the_bf16_peak_by_hand():
    """The test_sizing_replica_rules 70B FP8 step at TP8 on H100 (batch 4, 2,048/128, η_c 0.6), KV cache BF16 now:

    attention 4 × 4·80·64·128·(2,112 + 16 × 1,024 / 0.89) FLOPs (the prompt's part ÷ r_a = 0.89) over 8 × 989.5e12
    × 0.6 = 4.7496e15 FLOP/s (the BF16 peak, not FP8's 1,979) = 0.0453 ms, twice the FP8 KV's 0.0227 ms. The GEMMs
    stay at FP8's peak, with the prompt's granularity (tco.sizing.prefill_rules): 1.002 ms a cycle, decode g_d =
    1.002/17 = 0.059 ms, prompt g_p = 1.002 × 16/17 = 0.943 ms, n = 4/128 steps carry a prompt; the decode-only steps
    read the weights (2.902 ms > g_d), the prompt steps are compute-bound (n·g_d + g_p = 0.945 ms > n·w = 0.091 ms),
    so the compute is attention + 0.945 ms and the memory (1 − n)·w + the KV read, which doubles with the BF16 cache
    (327,680 B a token over 8 GPUs)."""
    v = replica_table([Layout(8)], M70, H100, Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    flops = 4 * 4 * 80 * 64 * 128 * (2112 + 16 * 1024 / 0.89)
    attn_s = flops / (8 * 989.5e12 * 0.6)
    assert round(attn_s * 1e3, 4) == 0.0453
    w_s, kv_s = 70e9 / (8 * 3.35e12 * 0.9), 4 * 2112 * 327_680 / (8 * 3.35e12 * 0.9)
    gemm = 4 * 2 * 70e9 * 17 / (8 * 1979e12 * 0.6)
    g_d, g_p, n = gemm / 17, gemm * 16 / 17, 4 / 128
    assert round(gemm * 1e3, 3) == 1.002 and n * g_d + g_p > n * w_s and w_s > g_d
    assert v["cmp_s"] == pytest.approx(attn_s + n * g_d + g_p, rel=1e-12)
    assert v["mem_s"] == pytest.approx((1 - n) * w_s + kv_s, rel=1e-12)
    fp8 = replica_table([Layout(8)], M70, replace(H100, attn_tflops=1979.0), Load(2048.0, 128.0, None, None, 2048),
                        EFF, batch=4)[0]
    assert v["cmp_s"] - fp8["cmp_s"] == pytest.approx(attn_s / 2, rel=1e-9)  # the attention alone, at half the peak


def test_a_prompt_alone_pays_its_attention_at_the_kv_formats_peak_by_hand():
    """The 70B's prompt of 2,048 tokens alone at TP8: GEMMs 2 × 70e9 × 2,048 / (8 × 1,979e12 × 0.6) = 30.18 ms at the
    FP8 peak, attention 4·80·64·128·1,024 × 2,048 / 0.89 / (8 × 989.5e12 × 0.6) = 1.30 ms at the BF16 one (÷ r_a =
    0.89, its kernels' share of the GEMMs'); the weights' 2.902 ms are shorter, so the prompt's compute, 31.48 ms,
    plus 160 all-reduces of 2,048 × 16,384 B (27.01 ms) and t0 2 ms."""
    v = replica_table([Layout(8)], M70, H100, Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    gemm = 2 * 70e9 * 2048 / (8 * 1979e12 * 0.6)
    attn = 4 * 80 * 64 * 128 * 1024 * 2048 / 0.89 / (8 * 989.5e12 * 0.6)
    ar = 160 * (5.7e-6 + 2 * 7 / 8 * 2048 * 16_384 / (450e9 * 0.8))
    assert v["prefill"] == pytest.approx(gemm + attn + ar + 2e-3, rel=1e-12)
    assert round(gemm * 1e3, 2) == 30.18 and round(attn * 1e3, 2) == 1.30 and round(ar * 1e3, 2) == 27.01


def test_the_serving_peak_of_the_attention_format_is_the_gpus():
    from types import SimpleNamespace

    h100 = SimpleNamespace(bf16_tflops=989.5, fp8_tflops=1979.0, fp4_tflops=None)
    b200 = SimpleNamespace(bf16_tflops=2250.0, fp8_tflops=4500.0, fp4_tflops=9000.0)
    assert peak_tflops(h100, attention_format("bf16")) == 989.5
    assert peak_tflops(b200, attention_format("fp4")) == 4500.0      # an NVFP4 KV cache attends in FP8, not at 9,000


@settings(max_examples=40, deadline=None)
@given(attn=st.floats(100.0, 5000.0), batch=st.integers(1, 64))
def test_a_slower_attention_format_never_shortens_the_cycle(attn, batch):
    load = Load(1024.0, 256.0, None, None, 512)
    slow = replica_table([Layout(8)], M70, replace(H100, attn_tflops=attn), load, EFF, batch=batch)[0]
    fast = replica_table([Layout(8)], M70, replace(H100, attn_tflops=attn * 2), load, EFF, batch=batch)[0]
    assert slow["cycle"] >= fast["cycle"] and slow["prefill"] >= fast["prefill"]


def _r1_fp4():
    from tco.catalog import load_catalog
    from tco.sizing.calibrate import model_spec

    return model_spec(load_catalog().models["deepseek-r1"], "fp4", "fp8")


B200 = Hardware(180.0, 7.7, 9000.0, 8, 900.0, None, 5.7e-6, attn_tflops=4500.0, wide_tflops=2250.0, fp4_gemm=True)


def test_the_nvfp4_deepseek_checkpoint_keeps_its_mla_projections_in_bf16():
    m = _r1_fp4()
    assert (m.wide_params, m.wide_precision, m.prompt_attn_dim) == (11.413e9, "bf16", 160.0)
    assert kept_wide("deepseek", "fp8", 11.413) == (0.0, "")       # DeepSeek's own FP8: one precision
    assert 61 * (7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168) == 11_413_422_080


def test_wide_layers_take_their_bytes_and_their_peak_by_hand():
    """DeepSeek-R1 NVFP4 on 8 × B200, TP8, batch 64, 1,024/2,048 (r = 0.5), η_c 0.5:

    weights 671e9 × 0.5625 + 11.413e9 × (2 − 0.5625) = 377.44e9 + 16.41e9 = 393.84e9 B; under expert parallel each GPU
    holds the shared 393.84e9 − 654.45e9 × 0.5625 = 25.72e9 B and 1/8 of the experts' 368.13e9: 71.7 GB a GPU
    (NVIDIA: "the weights and activation occupies about 80 GB memory for each GPU", TensorRT-LLM blog3);
    GEMMs at the NVFP4 GEMM peak 9,000 × r_4 = 9,000 × 0.78 = 7,020 (tco.constants.FP4_GEMM_SHARE): 64 × 1.5 × 2 ×
    (37e9 + 11.413e9 × (7,020 / 2,250 − 1)) / (8 × 7,020e12 × 0.5) = 64 × 1.5 × 2 × 61.19556e9 / 2.808e16 = 0.4184 ms
    (the BF16 projections count 3.12× at the NVFP4 GEMMs' 7,020, so take 11.413e9 × 2 / (8 × 2,250e12 × 0.5) each
    token as at their own peak);
    attention FLOPs per token 4·61·128·544·2,048 (decode, absorbed, L̄ = 1,024 + 1,024) + 0.5 × 4·61·128·160·512
    (the prompt, non-absorbed) = 34,795,945,984 + 1,279,262,720 = 36,075,208,704, at the FP8 KV's 4,500 peak; as
    charged (attn_tok), the prompt's part ÷ r_a = 0.89: 34,795,945,984 + 1,437,373,843 = 36,233,319,827."""
    m = replace(_r1_fp4(), embed_params=0.0, head_params=0.0)  # the embedding and head apart: test_sizing_vocab_rules
    eff = Calibration(0.9, 0.5, 0.8, 2e-3, 0.0)
    load = Load(1024.0, 2048.0, None, None, 4096)
    v = replica_table([Layout(8)], m, B200, load, eff, batch=64)[0]
    assert v["weights_b"] == pytest.approx(671e9 * 0.5625 + 11.413e9 * (2 - 0.5625), rel=1e-12)
    experts = (671e9 - 37e9) / (1 - 8 / 256)
    assert v["expert_b"] == pytest.approx(experts * 0.5625, rel=1e-12)
    ep = replica_table([Layout(8, 1, "ep")], m, B200, load, eff, batch=64)[0]
    per_gpu = ep["held_b"] / 8
    assert per_gpu == pytest.approx((v["weights_b"] - experts * 0.5625) + experts * 0.5625 / 8, rel=1e-12)
    assert round(per_gpu / 1e9, 1) == 71.7
    gemm = 64 * 1.5 * 2 * (37e9 + 11.413e9 * (7020 / 2250 - 1)) / (8 * 7020e12 * 0.5)
    assert v["gemm_s"] == pytest.approx(gemm, rel=1e-12) and round(gemm * 1e3, 4) == 0.4184
    attn = 4 * 61 * 128 * 544 * 2048 + 0.5 * 4 * 61 * 128 * 160 * 512
    assert attn == 36_075_208_704
    assert v["attn_tok"] == pytest.approx(4 * 61 * 128 * 544 * 2048 + 0.5 * 4 * 61 * 128 * 160 * 512 / 0.89, rel=1e-12)
    assert round(v["attn_tok"]) == 36_233_319_827


def test_without_a_wider_part_the_rules_are_the_one_precision_ones():
    """N_w = 0: weights N · bytes and GEMMs at N_a, whatever the wide format's peak says."""
    m = replace(M70, wide_params=0.0)
    a = replica_table([Layout(8)], m, replace(H100, wide_tflops=1.0), Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    b = replica_table([Layout(8)], m, H100, Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    assert a["cycle"] == b["cycle"] and a["weights_b"] == 70e9 * 1.0


def test_a_prompts_attention_counts_its_flops_over_its_kernels_share_by_hand():
    """Llama 3.1 8B at a 32,000-token prompt: 4 × 32 × 32 × 128 × 16,000 = 8.388608e9 FLOPs a token count
    8.388608e9 / 0.89 = 9.4254e9 at the GEMMs' share; the constant is the median of the 18 ratios at 16,384 tokens that
    benchmarks/attention_share_check.py prints from AIConfigurator 0.12.0 (H100 then H200; SGLang, vLLM, TensorRT-LLM;
    8B, QwQ-32B TP2, 70B TP4): sorted, the 9th and 10th are 0.89 and 0.89."""
    from tco.constants import PROMPT_ATTN_SHARE
    from tco.sizing.precision_rules import prompt_attention

    flops = 4 * 32 * 32 * 128 * 16_000
    assert flops == 8_388_608_000
    assert float(prompt_attention(Const(flops)).np(Env({}, 1))) == pytest.approx(flops / 0.89, rel=1e-15)
    assert round(flops / 0.89 / 1e9, 4) == 9.4254
    ratios = [0.85, 0.99, 0.92, 0.89, 0.87, 0.96, 0.67, 0.70, 0.69,   # H100
              0.89, 0.96, 0.90, 0.90, 0.89, 0.89, 0.71, 0.68, 0.71]   # H200
    assert sorted(ratios)[8:10] == [0.89, 0.89] and PROMPT_ATTN_SHARE.value == 0.89
    assert PROMPT_ATTN_SHARE.xl(None) == "c_prompt_attn_share"


@settings(max_examples=40, deadline=None)
@given(isl=st.floats(16.0, 32_000.0), batch=st.integers(1, 64))
def test_the_prompts_attention_share_slows_it_and_leaves_the_decode_alone(isl, batch):
    """attn_tok = the decode's attention + r × the prompt's ÷ r_a: at least the raw FLOPs, and the excess is exactly
    the prompt's part × (1/r_a − 1), whatever the lengths."""
    load = Load(isl, 256.0, None, None, 512)
    v = replica_table([Layout(8)], M70, H100, load, EFF, batch=batch)[0]
    decode = 4 * 80 * 64 * 128 * (isl + 128.0)
    prompt = isl / 256.0 * 4 * 80 * 64 * 128 * isl / 2
    assert v["attn_tok"] == pytest.approx(decode + prompt / 0.89, rel=1e-12)
    assert v["attn_tok"] >= decode + prompt


def test_nvfp4_weight_gemms_run_at_r4_of_their_peak_by_hand():
    """Llama 3.1 405B dense (126 layers, hidden 16,384, 8 KV heads of 128, FP8 KV) on 8 × B200, TP8, batch 64,
    1,024/2,048 (r = 0.5), η_c 0.5, the embedding and head left in the body:

    NVFP4 GEMMs at 9,000 × r_4 = 9,000 × 0.78 = 7,020 TFLOPS (tco.constants.FP4_GEMM_SHARE, c_fp4_gemm_share):
    64 × 1.5 × 2 × 405e9 / (8 × 7,020e12 × 0.5) = 7.776e13 / 2.808e16 = 2.7692 ms; FP8 at 4,500: 7.776e13 / 1.8e16 =
    4.32 ms, so NVFP4 is 4.32 / 2.7692 = 1.56× FP8 (2 × 0.78), not the peaks' 2×. The attention (FP8 KV in both) keeps
    the FP8 peak: fl · 4,500 / 7,020 = 8 × 4,500e12 × 0.5 = 1.8e16 FLOP/s either way."""
    m = ModelSpec(405e9, 405e9, 126, 16384, 8, 128, precision="fp4", kv_precision="fp8")
    b200 = Hardware(180.0, 7.7, 9000.0, 8, 900.0, None, 5.7e-6, attn_tflops=4500.0, fp4_gemm=True)
    eff = Calibration(0.9, 0.5, 0.8, 2e-3, 0.0)
    load = Load(1024.0, 2048.0, None, None, 4096)
    fp4 = replica_table([Layout(8)], m, b200, load, eff, batch=64)[0]
    fp8 = replica_table([Layout(8)], replace(m, precision="fp8"), replace(b200, peak_tflops=4500.0, fp4_gemm=False),
                        load, eff, batch=64)[0]
    assert fp4["fl"] == pytest.approx(8 * 9000e12 * 0.78 * 0.5, rel=1e-12) and fp8["fl"] == pytest.approx(1.8e16)
    assert fp4["gemm_s"] == pytest.approx(64 * 1.5 * 2 * 405e9 / (8 * 7020e12 * 0.5), rel=1e-12)
    assert round(fp4["gemm_s"] * 1e3, 4) == 2.7692 and round(fp8["gemm_s"] * 1e3, 2) == 4.32
    assert fp8["gemm_s"] / fp4["gemm_s"] == pytest.approx(2 * 0.78, rel=1e-12)
    attention = [float(attention_compute(Const(v["fl"])).np(Env({"attn_tflops": 4500.0, "peak_tflops": p,
                                                                 "fp4_gemm": f}, 1)))
                 for v, p, f in ((fp4, 9000.0, 1.0), (fp8, 4500.0, 0.0))]
    assert attention == pytest.approx([1.8e16, 1.8e16], rel=1e-12)
    assert fp4["attn_tok"] == fp8["attn_tok"]
    # the same NVFP4 checkpoint on a GPU without FP4 tensor cores (an FP8 peak, weight-only): no r_4
    hopper = replica_table([Layout(8)], m, replace(b200, peak_tflops=4500.0, fp4_gemm=False), load, eff, batch=64)[0]
    assert hopper["gemm_s"] == pytest.approx(fp8["gemm_s"], rel=1e-12)


@given(st.floats(0.05, 1.0), st.booleans())
def test_only_gemms_on_fp4_tensor_cores_take_the_fp4_share(peak_share, fp4):
    """peak' = peak · r_4 for the GEMMs on FP4 tensor cores and = peak otherwise; never above the peak."""
    from tco.sizing.precision_rules import gemm_peak

    got = float(gemm_peak().np(Env({"peak_tflops": 1000.0 * peak_share, "fp4_gemm": float(fp4)}, 1)))
    assert got == pytest.approx(1000.0 * peak_share * (0.78 if fp4 else 1.0), rel=1e-12)
    assert got <= 1000.0 * peak_share
