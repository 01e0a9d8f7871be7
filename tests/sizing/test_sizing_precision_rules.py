"""Each part of the cycle at its own format's peak (tco.sizing.precision_rules): the attention at the KV cache's."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.expr import Const, Env
from tco.sizing import peak_tflops
from tco.sizing.precision_rules import ATTENTION_FORMAT, attention_compute, attention_format
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, replica_table

M70 = ModelSpec(70e9, 70e9, 80, 8192, 8, 128, precision="fp8", kv_precision="bf16")
H100 = Hardware(80.0, 3.35, 1979.0, 8, 450.0, None, 5.7e-6, attn_tflops=989.5)
EFF = Calibration(0.9, 0.6, 0.8, 2e-3, 0.0)


def test_attention_format_follows_the_kv_cache_and_fp4_kv_runs_fp8():
    assert [attention_format(k) for k in ("bf16", "fp8", "fp4")] == ["bf16", "fp8", "fp8"]
    assert set(ATTENTION_FORMAT) == {"bf16", "fp8", "fp4"}


def test_attention_compute_scales_the_replica_compute_by_the_peaks_ratio():
    env = Env({"peak_tflops": 4500.0, "attn_tflops": 2250.0}, 1)    # B200 FP8 weights, BF16 KV
    fl = 8 * 4500e12 * 0.5
    assert float(attention_compute(Const(fl)).np(env)) == pytest.approx(8 * 2250e12 * 0.5, rel=1e-15)


def test_a_bf16_kv_cache_beside_fp8_weights_pays_its_attention_at_the_bf16_peak_by_hand():
    """The test_sizing_replica_rules 70B FP8 step at TP8 on H100 (batch 4, 2,048/128, η_c 0.6), KV cache BF16 now:

    attention 4 × 4·80·64·128·(2,112 + 16 × 1,024) FLOPs over 8 × 989.5e12 × 0.6 = 4.7496e15 FLOP/s (the BF16 peak,
    not FP8's 1,979) = 0.0408 ms, twice the FP8 KV's 0.0204 ms; the weights still bound the GEMMs (1.002 < 2.902 ms)
    and their peak stays FP8's; the KV read doubles with the BF16 cache (327,680 B a token over 8 GPUs' KV heads)."""
    v = replica_table([Layout(8)], M70, H100, Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    flops = 4 * 4 * 80 * 64 * 128 * (2112 + 16 * 1024)
    attn_s = flops / (8 * 989.5e12 * 0.6)
    assert v["cmp_s"] == pytest.approx(attn_s, rel=1e-12)
    assert round(attn_s * 1e3, 4) == 0.0408
    w_s, kv_s = 70e9 / (8 * 3.35e12 * 0.9), 4 * 2112 * 327_680 / (8 * 3.35e12 * 0.9)
    assert v["mem_s"] == pytest.approx(w_s + kv_s, rel=1e-12)
    fp8 = replica_table([Layout(8)], M70, replace(H100, attn_tflops=1979.0), Load(2048.0, 128.0, None, None, 2048),
                        EFF, batch=4)[0]
    assert v["cmp_s"] == pytest.approx(2 * fp8["cmp_s"], rel=1e-12)


def test_a_prompt_alone_pays_its_attention_at_the_kv_formats_peak_by_hand():
    """The 70B's prompt of 2,048 tokens alone at TP8: GEMMs 2 × 70e9 × 2,048 / (8 × 1,979e12 × 0.6) = 30.18 ms at the
    FP8 peak, attention 4·80·64·128·1,024 × 2,048 / (8 × 989.5e12 × 0.6) = 1.16 ms at the BF16 one; the weights'
    2.902 ms are shorter, so the prompt's compute, 31.34 ms, plus 160 all-reduces of 2,048 × 16,384 B (27.01 ms)
    and t0 2 ms."""
    v = replica_table([Layout(8)], M70, H100, Load(2048.0, 128.0, None, None, 2048), EFF, batch=4)[0]
    gemm = 2 * 70e9 * 2048 / (8 * 1979e12 * 0.6)
    attn = 4 * 80 * 64 * 128 * 1024 * 2048 / (8 * 989.5e12 * 0.6)
    ar = 160 * (5.7e-6 + 2 * 7 / 8 * 2048 * 16_384 / (450e9 * 0.8))
    assert v["prefill"] == pytest.approx(gemm + attn + ar + 2e-3, rel=1e-12)
    assert round(gemm * 1e3, 2) == 30.18 and round(attn * 1e3, 2) == 1.16 and round(ar * 1e3, 2) == 27.01


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
