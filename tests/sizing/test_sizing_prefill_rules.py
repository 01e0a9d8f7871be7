"""Prefill mixed into the decode steps or run in steps of its own (tco.sizing.prefill_rules): the cycle of each case by
hand on the toy replica of test_sizing_replica_rules, the batch the closed form gives under a target, the share of
each framework and version era, and the properties (a stalled decode is never faster; m = 1 is the mixed cycle)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.sizing.prefill_rules import PREFILL_MIX_SHARE, prefill_mix_share
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, replica_table

# The toy: 1e9 parameters in BF16 (W = 2e9 B), bandwidth 0.1 TB/s × 0.5 = 5e10 B/s (W/BW = 0.04 s), peak 100 TFLOPS ×
# 0.5 = 5e13 FLOP/s, 1,000/200 tokens (r = 5), t0 = 1 ms
TOY_M = ModelSpec(params=1e9, active_params=1e9, layers=2, hidden=64, kv_heads=1, head_dim=64)
TOY_HW = Hardware(memory_gb=10.0, bandwidth_tbs=0.1, peak_tflops=100.0, gpus_per_server=4, link_gbs=10.0,
                  network_gbps=100.0)
TOY_LOAD = Load(input_tokens=1000.0, output_tokens=200.0, target_tps=None, ttft_seconds=None, max_batch=10_000)
TOY_EFF = Calibration(bandwidth_share=0.5, flops_share=0.5, interconnect_share=0.5, step_overhead_seconds=0.001,
                      collective_latency_seconds=1e-5)
G_DECODE = 2 * 1e9 / 5e13
"""GEMM time of one decode token [s] = 2 · N / peak = 4e-5 s."""
G_PROMPT = 5 * G_DECODE
"""GEMM time of a sequence's r = 5 prompt tokens per cycle [s] = 2e-4 s."""


def _cycle(mix: float, batch: int, **load) -> dict:
    return replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, prefill_mix_share=mix, **load), TOY_EFF, batch)[0]


def test_unmixed_cycle_by_hand():
    # b = 100, decode memory-bound (100 × 4e-5 = 0.004 s < 0.04 s):
    #   mixed:   max(W/BW, b·(g_d + g_p)) = max(0.04, 100 × 2.4e-4 = 0.024) = 0.04 s: the prompt hides under the weights
    #   unmixed: max(0.04, 100 × 4e-5) + 100 × 2e-4 = 0.04 + 0.02 = 0.06 s: the prefill step runs alone, decodes wait
    mixed, alone = _cycle(1.0, 100), _cycle(0.0, 100)
    assert mixed["hide"] == 1.0 and alone["hide"] == pytest.approx(1 / (1 + 5), rel=1e-12)
    assert alone["cycle"] - mixed["cycle"] == pytest.approx(0.06 - max(0.04, 100 * (G_DECODE + G_PROMPT)), rel=1e-9)
    assert alone["cmp_s"] - mixed["cmp_s"] == pytest.approx(100 * G_PROMPT, rel=1e-9)  # 0.02 s of prompt GEMMs
    assert alone["mem_s"] == pytest.approx(mixed["mem_s"], rel=1e-12)  # both still read the weights once
    # b = 500: mixed is compute-bound, max(0.04, 500 × 2.4e-4) = 0.12 s; unmixed 0.04 + 500 × 2e-4 = 0.14 s: it pays
    # the decode step's weight read, W/BW − b·g_d = 0.04 − 0.02 = 0.02 s more
    assert _cycle(0.0, 500)["cycle"] - _cycle(1.0, 500)["cycle"] == pytest.approx(0.14 - 0.12, rel=1e-9)
    # b = 1,000: the decode tokens alone outlast the weights (1,000 × 4e-5 = 0.04 s): both 1,000 × 2.4e-4 = 0.24 s
    assert _cycle(0.0, 1000)["cycle"] == pytest.approx(_cycle(1.0, 1000)["cycle"], rel=1e-12)


def test_unmixed_batch_under_a_target_by_hand():
    # target 20 tokens/s: cycle(b) = max(0.04, b·g_d) + b·(s + g_p) + t0 ≤ 0.05 s, s = 512 × 1,100 / 5e10 (KV at
    # L̄ = 1,100) + attention 4·2·1·64·(1,100 + 5 × 500) / 5e13; the two sides of the max:
    # b = floor(min((0.05 − 0.041) / (s + g_p), (0.05 − 0.001) / (g_d + s + g_p))) = floor(min(42.59, 195.0)) = 42
    # (mixed: 194, test_sizing_replica_rules.test_rules_alone_by_hand): stalling decodes for prefills costs 4.6× here
    s = 512 * 1100 / 5e10 + 4 * 2 * 1 * 64 * (1100 + 5 * 500) / 5e13
    v = replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, target_tps=20.0, prefill_mix_share=0.0), TOY_EFF)[0]
    assert v["slope"] == pytest.approx(s, rel=1e-12)
    b = math.floor(min((0.05 - 0.041) / (s + G_PROMPT), (0.05 - 0.001) / (G_DECODE + s + G_PROMPT)))
    assert v["batch"] == b == 42
    assert v["cycle"] == pytest.approx(max(0.04, b * G_DECODE) + b * (s + G_PROMPT) + 0.001, rel=1e-12)
    assert v["cycle"] <= 0.05
    assert _cycle(0.0, b + 1, target_tps=20.0)["cycle"] > 0.05


def test_shares_by_framework_and_era():
    # TensorRT-LLM's in-flight batching and vLLM V1 mix; vLLM 0.6 (multi-step, no chunked prefill) and SGLang (no
    # --enable-mixed-chunk) run prefill steps of their own
    assert PREFILL_MIX_SHARE["trtllm"] == PREFILL_MIX_SHARE["generic"] == PREFILL_MIX_SHARE["vllm"] == 1.0
    assert PREFILL_MIX_SHARE["sglang"] == PREFILL_MIX_SHARE["sglang-0.3"] == PREFILL_MIX_SHARE["sglang-0.4"] == 0.0
    assert prefill_mix_share("vllm", "vllm-0.6") == 0.0 and prefill_mix_share("vllm", "vllm-0.8") == 1.0
    assert prefill_mix_share("vllm", "vllm-9.9") == 1.0  # an era the table lacks: the framework's
    assert prefill_mix_share("", "") == 1.0  # a run of unknown framework: TensorRT-LLM's, as the main fit


@settings(max_examples=12, deadline=None)
@given(batch=st.integers(1, 3000), isl=st.floats(16, 20_000), osl=st.floats(16, 4000), mix=st.floats(0, 1))
def test_stalling_decodes_is_never_faster_and_full_mixing_is_the_mixed_cycle(batch, isl, osl, mix):
    load = dict(input_tokens=isl, output_tokens=osl)
    mixed, part, alone = (_cycle(m, batch, **load)["cycle"] for m in (1.0, mix, 0.0))
    assert mixed <= part * (1 + 1e-12) and part <= alone * (1 + 1e-12)
    assert mixed == replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, **load), TOY_EFF, batch)[0]["cycle"]
