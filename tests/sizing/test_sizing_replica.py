"""tco.sizing.replica: the terms of a replica worked by hand on Llama 3.1 70B in fp8 on two H200s, the
collective times of the α–β model, the share of experts a step touches."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.sizing.replica import (
    BYTES_PER_PARAM, Calibration, Hardware, Layout, Load, ModelSpec, allreduce_seconds, alltoall_seconds,
    expert_params, expert_touch_share, kv_bytes_per_token, replica_terms,
)

LLAMA70 = ModelSpec(70e9, 70e9, layers=80, hidden=8192, kv_heads=8, head_dim=128, precision="fp8", kv_precision="fp8")
H200 = Hardware(memory_gb=141, bandwidth_tbs=4.8, peak_tflops=989, gpus_per_server=8, link_gbs=450)
LOAD = Load(input_tokens=2000, output_tokens=400, target_tps=25)
EFF = Calibration(bandwidth_share=0.7, flops_share=0.5, interconnect_share=0.8, step_overhead_seconds=0.008,
                  collective_latency_seconds=5e-6)


def test_kv_bytes_per_token_by_hand():
    assert kv_bytes_per_token(80, 8, 128, "bf16") == 2 * 80 * 8 * 128 * 2      # K and V, 80 layers, 2 B
    assert kv_bytes_per_token(80, 8, 128, "fp8") == 2 * 80 * 8 * 128 * 1
    assert kv_bytes_per_token(80, 8, 128, "fp4") == 2 * 80 * 8 * 128 * 0.5625  # NVFP4: 4 bits + an FP8 scale per 16
    assert BYTES_PER_PARAM == {"bf16": 2.0, "fp8": 1.0, "fp4": 4.5 / 8}


def test_allreduce_by_hand():
    # 1 MiB over 8 GPUs at 360 GB/s: α + 2·(8−1)/8 · n / B
    expected = 5e-6 + 2 * 7 / 8 * 1_048_576 / 360e9
    assert allreduce_seconds(1_048_576, 8, 360e9, 5e-6) == pytest.approx(expected, rel=1e-12)
    assert allreduce_seconds(1_048_576, 1, 360e9, 5e-6) == 0.0                 # one GPU: no collective


def test_alltoall_by_hand():
    expected = 2 * (1e-5 + (4 - 1) / 4 * 8e6 / 50e9)                          # dispatch and combine
    assert alltoall_seconds(8e6, 4, 50e9, 1e-5) == pytest.approx(expected, rel=1e-12)
    assert alltoall_seconds(8e6, 1, 50e9, 1e-5) == 0.0


def test_expert_touch_share_by_hand():
    assert expert_touch_share(4, 8, 2) == pytest.approx(1 - 0.75 ** 4)        # Mixtral: 0.68359375
    assert expert_touch_share(1, 8, 2) == pytest.approx(2 / 8)
    assert expert_touch_share(10, 0, 0) == 1.0                                 # dense model


@given(st.floats(0, 1e4), st.integers(2, 256), st.integers(1, 8))
def test_expert_touch_share_is_a_share_growing_with_tokens(tokens, experts, k):
    k = min(k, experts)
    a, b = expert_touch_share(tokens, experts, k), expert_touch_share(tokens + 1, experts, k)
    assert 0 <= a <= b <= 1


def test_expert_params_by_hand():
    # Mixtral 8x7B: 46.7 B total, 12.9 B active, 2 of 8 experts: experts hold (46.7 − 12.9)/(1 − 2/8)
    assert expert_params(46.7e9, 12.9e9, 8, 2) == pytest.approx((46.7e9 - 12.9e9) / 0.75, rel=1e-12)


def test_layout_gpus_and_label():
    assert Layout(4).gpus == 4 and Layout(4).label == "TP4"
    assert Layout(8, 2, "pp").gpus == 16 and Layout(8, 2, "pp").label == "TP8×PP2"


def test_replica_terms_by_hand_llama70_fp8_on_two_h200():
    v = replica_terms(Layout(2), LLAMA70, H200, LOAD, EFF)
    assert v["weights_b"] == 70e9 * 1                                           # fp8: 1 B per parameter
    assert v["kv_tok"] == 2 * 80 * 8 * 128 * 1
    assert v["mem_b"] == pytest.approx(2 * 141e9 * 0.9)                         # usable memory of 2 GPUs
    assert v["bw"] == pytest.approx(2 * 4.8e12 * 0.7)                           # η_bw × 2 GPUs' bandwidth
    assert v["fl"] == pytest.approx(2 * 989e12 * 0.5)
    # the batch memory holds: (memory − weights) / (KV per token × the whole sequence ISL + OSL, reserved to completion)
    # = floor(183.8e9 / (163,840 B × 2,400)) = floor(467.4) = 467
    assert v["b_mem"] == math.floor((2 * 141e9 * 0.9 - 70e9) / (2 * 80 * 8 * 128 * (2000 + 400))) == 467
    b = v["batch"]
    # the GEMMs at 25 tokens/s: the batch 24 (the closed form's bound, the prompt outside the weight read); its decode
    # GEMMs, 24 × 2 × 70e9 / 9.89e14 = 3.40 ms, are shorter than reading the weights once (70e9 B / 6.72e12 B/s =
    # 10.42 ms); the prompts' (r = 5), 16.99 ms, run at the compute roofline in the n = 24/400 = 0.06 of the cycles that
    # carry one, which save their weight read: 10.42 + 16.99 − 0.06 × (10.42 − 3.40) = 26.98 ms, of which
    # (1 − 0.06) × 10.42 = 9.79 ms reading the weights; the memory term adds each sequence's KV cache
    w_s, g_d = 70e9 / (2 * 4.8e12 * 0.7), b * 2 * 70e9 / (2 * 989e12 * 0.5)
    gemm_s = 6 * g_d
    assert b == 24 and g_d < w_s
    gemm_t = w_s + 5 * g_d - b / 400 * (w_s - g_d)
    assert round(gemm_t * 1e3, 2) == 26.98
    expected_mem_s = b * 2 * 80 * 8 * 128 * (2000 + 400 / 2) / (2 * 4.8e12 * 0.7) + (1 - b / 400) * w_s
    assert v["mem_s"] == pytest.approx(expected_mem_s, rel=1e-9)
    assert v["gemm_s"] == pytest.approx(gemm_s, rel=1e-9) and v["gemm_t"] == pytest.approx(gemm_t, rel=1e-9)
    assert v["cmp_s"] > gemm_t - (1 - b / 400) * w_s
    assert v["cycle"] == pytest.approx(v["mem_s"] + v["cmp_s"] + v["coll_s"] + v["overhead_s"], rel=1e-12)
    assert v["overhead_s"] == 0.008
    assert 1 / v["cycle"] >= 25 and v["met"] and v["fits"]                     # the target is met at this batch
    assert v["decode_tps"] == pytest.approx(b / v["cycle"], rel=1e-9)           # b tokens per cycle
    assert v["tp"] == 2 and v["gpus"] == 2 and v["nodes"] == 1 and v["mode"] == "tp"


def test_memory_edge_one_gpu():
    # 80 GB × 0.9 = 72 GB usable: 70 GB of weights leave 2 GB, room for 5 sequences of 2,400 reserved tokens (2e9 / 393.2e6 = 5.09)
    gpu80 = Hardware(memory_gb=80, bandwidth_tbs=2.0, peak_tflops=900, gpus_per_server=1, link_gbs=0)
    v = replica_terms(Layout(1), LLAMA70, gpu80, LOAD, EFF)
    assert v["fits"] and v["b_mem"] == math.floor((80e9 * 0.9 - 70e9) / (2 * 80 * 8 * 128 * 2400)) == 5
    # 64 GB × 0.9 = 57.6 GB usable: the weights alone do not fit
    assert not replica_terms(Layout(1), LLAMA70, Hardware(64, 2.0, 900, 1, 0), LOAD, EFF)["fits"]


def test_replica_terms_returns_copies():
    a = replica_terms(Layout(2), LLAMA70, H200, LOAD, EFF)
    a["batch"] = -1
    assert replica_terms(Layout(2), LLAMA70, H200, LOAD, EFF)["batch"] > 0


@given(st.integers(1, 64))
@pytest.mark.slow
def test_a_larger_batch_never_shortens_the_cycle(b):
    from tco.sizing.replica import replica_table

    lo = replica_table([Layout(4)], LLAMA70, H200, LOAD, EFF, batch=b)[0]
    hi = replica_table([Layout(4)], LLAMA70, H200, LOAD, EFF, batch=b + 1)[0]
    assert hi["cycle"] >= lo["cycle"] and hi["decode_tps"] >= lo["decode_tps"] * (1 - 1e-12)


def test_mtp_speculative_step_by_hand():
    """8B dense FP8 on one GPU of 2 TB/s and 1,000 TFLOPS at full efficiency and no overheads, 0/1,000 tokens (mean
    context 500), batch 10; MTP drafts n = 1 token accepted with a = 0.85: a step verifies S = 2 positions per
    sequence and keeps A = 1 + 0.85 = 1.85 tokens. The step reads the weights and the KV cache once, computes S
    tokens, and pays the draft (one layer of 32: its weights and its FLOPs per sequence); the cycle per generated
    token is the step over A."""
    m = ModelSpec(8e9, 8e9, layers=32, hidden=4096, kv_heads=8, head_dim=128, precision="fp8", kv_precision="fp8")
    hw = Hardware(memory_gb=80, bandwidth_tbs=2.0, peak_tflops=1000, gpus_per_server=1, link_gbs=450)
    eff = Calibration(1.0, 1.0, 1.0, 0.0, 0.0)
    plain = Load(0, 1000, max_batch=64)
    mtp = Load(0, 1000, max_batch=64, draft_tokens=1, acceptance_share=0.85)
    assert mtp.accepted_tokens == pytest.approx(1.85)
    weights = 8e9 / 2e12                                  # 4 ms: every step reads the 8 GB once
    kv = 10 * 500 * (2 * 32 * 8 * 128 * 1) / 2e12         # 0.16384 ms: 10 sequences × 500 tokens × 65,536 B
    attn = 10 * 4 * 32 * 32 * 128 * 500 / 1e15           # attention of one position per sequence [s]
    gemm = 10 * 2 * 2 * 8e9 / 1e15                        # 0.32 ms for S = 2 positions: below the 4 ms read
    draft = 8e9 / 32 / 2e12 + 10 * 2 * 8e9 / 32 / 1e15    # one layer's weights + one layer's FLOPs per sequence
    step = weights + kv + 2 * attn + draft
    assert gemm < weights and step == pytest.approx(4.29908288e-3)
    v = replica_terms(Layout(1), m, hw, mtp, eff, batch=10)
    assert v["cycle"] == pytest.approx(step / 1.85)        # 2.3238 ms per generated token
    assert v["decode_tps"] == pytest.approx(10 * 1.85 / step)
    assert v["overhead_s"] == pytest.approx(draft / 1.85)
    p = replica_terms(Layout(1), m, hw, plain, eff, batch=10)
    assert p["cycle"] == pytest.approx(weights + kv + attn)   # 4.1665 ms without MTP
    assert v["cycle"] < p["cycle"]
    # acceptance 0 keeps 1 token per step and pays the draft and the second position: slower than plain decoding
    bad = replica_terms(Layout(1), m, hw, replace(mtp, acceptance_share=0.0), eff, batch=10)
    assert bad["cycle"] == pytest.approx(step) and bad["cycle"] > p["cycle"]


@given(n=st.integers(1, 4), a=st.floats(0.0, 1.0))
def test_accepted_tokens_is_between_one_and_the_verified_positions(n, a):
    got = Load(1, 1, draft_tokens=n, acceptance_share=a).accepted_tokens
    assert 1.0 <= got <= n + 1 + 1e-12
