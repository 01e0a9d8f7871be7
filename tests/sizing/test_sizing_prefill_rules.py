"""The prompts' GEMMs inside the decode steps or in prefill steps of their own (tco.sizing.prefill_rules): the cycle of
each case by hand on the toy replica of test_sizing_replica_rules, the batch the closed form gives under a target, the
value of each framework and version era, and the properties (never below the roofline of all the work, never above
the prefill steps of their own)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.expr import In, Row, Rule, evaluate
from tco.sizing.prefill_rules import PREFILL_MIX_SHARE, gemm_time, prefill_mix_share, prompt_steps
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


def test_cycle_by_hand():
    # b = 100, decode memory-bound (g_d = 100 × 4e-5 = 0.004 s < W/BW = 0.04 s), g_p = 100 × 2e-4 = 0.02 s; n = b/OSL =
    # 100/200 = 0.5 of the cycles carry a whole 1,000-token prompt:
    #   prefill steps of their own (m = 0): max(0.04, 0.004) + 0.02 = 0.06 s, the decodes wait for the prompt
    #   prompt inside a decode step (m = 1): half the cycles max(0.04, (100 + 1,000) × 4e-5 = 0.044), half 0.04:
    #     0.5 × 0.044 + 0.5 × 0.04 = 0.042 s = (1 − 0.5) × max(0.04, 0.004) + max(0.5 × 0.04, 0.5 × 0.004 + 0.02)
    #     (the rule: decode-only steps, then the steps that carry a prompt, per cycle)
    #   the prompt spread evenly (no framework): max(0.04, 0.024) = 0.04 s
    alone, mixed = _cycle(0.0, 100), _cycle(1.0, 100)
    assert alone["hide"] == mixed["hide"] == pytest.approx(1 / (1 + 5), rel=1e-12)
    assert alone["gemm_t"] == pytest.approx(0.04 + 0.02, rel=1e-9)
    assert mixed["gemm_t"] == pytest.approx(0.5 * (1100 * G_DECODE) + 0.5 * 0.04, rel=1e-9) == pytest.approx(0.042)
    assert alone["cycle"] - mixed["cycle"] == pytest.approx(0.06 - 0.042, rel=1e-9)
    # the weight read: (1 − n) · 0.04 = 0.02 s when the prompt rides in half the steps (those are compute-bound); with
    # steps of their own, every decode step's 0.04 s and the prefill step's, whose 1,000 tokens sit on the ridge point
    # (1,000 × 4e-5 = 0.04 s = w; a tie counts as the weight read, as for the decode step): 0.5 × 0.04 s
    assert mixed["mem_s"] - alone["mem_s"] == pytest.approx(0.5 * 0.04 - (0.04 + 0.5 * 0.04), rel=1e-9)
    # and the GEMMs beyond it: none alone; 0.042 − 0.5 × 0.04 = 0.022 s inside the decode steps
    assert mixed["cmp_s"] - alone["cmp_s"] == pytest.approx(0.042 - 0.5 * 0.04, rel=1e-9)
    # b = 500: n = min(1, 2.5) = 1, a prompt in every step: m = 1 gives the roofline of all the work, max(0.04,
    # 500 × 2.4e-4) = 0.12 s; m = 0 pays the decode step's weight read too: 0.04 + 500 × 2e-4 = 0.14 s
    assert _cycle(1.0, 500)["gemm_t"] == pytest.approx(0.12, rel=1e-9)
    assert _cycle(0.0, 500)["gemm_t"] == pytest.approx(0.14, rel=1e-9)
    # b = 1,000: the decode tokens alone outlast the weights (1,000 × 4e-5 = 0.04 s): both 1,000 × 2.4e-4 = 0.24 s
    assert _cycle(0.0, 1000)["cycle"] == pytest.approx(_cycle(1.0, 1000)["cycle"], rel=1e-12)
    # 100-token prompts (below the ridge point 0.04 / 4e-5 = 1,000 tokens), b = 50, n = 50/200 = 0.25, g_d = 50 ×
    # 4e-5 = 0.002 s, g_p = 50 × 0.5 × 4e-5 = 0.001 s: a step that carries a prompt, max(0.04, 150 × 4e-5 = 0.006),
    # is memory-bound too: 0.75 × 0.04 + max(0.25 × 0.04, 0.25 × 0.002 + 0.001) = 0.03 + 0.01 = 0.04 s. A prefill
    # step of its own reads the weights for its 100 tokens, max(0.04, 100 × 4e-5) = 0.04 s once every 4 cycles:
    # max(0.04, 0.002) + max(0.25 × 0.04, 0.001) = 0.04 + 0.01 = 0.05 s (the prompt's FLOPs alone, 0.001 s, would
    # miss 0.009 s of weight read)
    short = dict(input_tokens=100.0)
    assert _cycle(1.0, 50, **short)["gemm_t"] == pytest.approx(0.75 * 0.04 + 0.25 * 0.04, rel=1e-9)
    assert _cycle(0.0, 50, **short)["gemm_t"] == pytest.approx(0.04 + 0.25 * 0.04, rel=1e-9) == pytest.approx(0.05)
    assert _cycle(0.0, 50, **short)["mem_s"] - _cycle(1.0, 50, **short)["mem_s"] == pytest.approx(0.01, rel=1e-9)


def test_prompt_steps_count_the_accepted_tokens_by_hand():
    # with speculative decoding a step keeps A tokens per sequence, so A · b / OSL requests end (and prompts arrive)
    # per step: A = 2.533, b = 20, OSL = 200 → n = min(1, 2.533 × 20 / 200) = 0.2533; per cycle (a token) w = 0.04 s,
    # g_d = 0.002 s, g_p = 0.01 s: m = 1 → 0.7467 × 0.04 + max(0.2533 × 0.04, 0.2533 × 0.002 + 0.01) = 0.029868 +
    # 0.0105066 = 0.0403746 s; m = 0 → 0.04 + max(0.010132, 0.01) = 0.050132 s
    rows = {"gemm_s": np.array([0.012]), "hide": np.array([0.002 / 0.012]), "batch": np.array([20.0])}
    for m, expected in ((1.0, 0.7467 * 0.04 + 0.2533 * 0.002 + 0.01), (0.0, 0.04 + 0.2533 * 0.04)):
        inputs = {"w": 0.04, "prefill_mix": m, "spec_accept": 2.533, "out_tokens": 200.0}
        got = evaluate([Rule("n", prompt_steps(Row("batch")), "", ""), Rule("g", gemm_time(In("w")), "s", "")],
                       inputs, 1, rows)
        assert got["n"][0] == pytest.approx(0.2533, rel=1e-12)
        assert got["g"][0] == pytest.approx(expected, rel=1e-12)


def test_batch_under_a_target_by_hand():
    # target 20 tokens/s, s = 512 × 1,100 / 5e10 (KV at L̄ = 1,100) + attention 4·2·1·64·(1,100 + 5 × 500 / 0.89) / 5e13
    # (the prompt's attention ÷ r_a = 0.89, tco.constants.PROMPT_ATTN_SHARE).
    # Prefill steps of their own: max(0.04, b·g_d) + b·(s + g_p) + t0 ≤ 0.05 s (the prefill step of 1,000 tokens is
    # compute-bound, max(n·w, g_p) = g_p), b = floor(min((0.05 − 0.041) / (s + g_p), (0.05 − 0.001) / (g_d + s + g_p)))
    # = floor(min(42.59, 195.0)) = 42; inside the decode steps: 185 (test_sizing_replica_rules.test_rules_alone_by_hand)
    s = 512 * 1100 / 5e10 + 4 * 2 * 1 * 64 * (1100 + 5 * 500 / 0.89) / 5e13
    b = math.floor(min((0.05 - 0.041) / (s + G_PROMPT), (0.05 - 0.001) / (G_DECODE + s + G_PROMPT)))
    for mix, batch in ((0.0, 42), (1.0, 185)):
        v = replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, target_tps=20.0, prefill_mix_share=mix), TOY_EFF)[0]
        assert v["slope"] == pytest.approx(s, rel=1e-12)
        assert v["batch"] == batch and v["cycle"] <= 0.05
        assert _cycle(mix, batch + 1, target_tps=20.0)["cycle"] > 0.05   # the closed form is exact below b = OSL
    assert b == 42
    # with its own prefill steps the cycle is the bound itself
    alone = _cycle(0.0, b, target_tps=20.0)
    assert alone["cycle"] == pytest.approx(max(0.04, b * G_DECODE) + b * (s + G_PROMPT) + 0.001, rel=1e-12)
    # inside the decode steps (n = 42/200 = 0.21) the same batch saves 0.21 × (0.04 − 42 × 4e-5) of weight read
    assert _cycle(1.0, b)["cycle"] == pytest.approx(alone["cycle"] - b / 200 * (0.04 - b * G_DECODE), rel=1e-9)
    # (1,000-token prompts: a prefill step's FLOPs, 1,000 × 4e-5 = 0.04 s, equal its weight read, so max(n·w, g_p) is
    # g_p). 100-token prompts: the closed form adds, at m = 0, the prefill step's weight read per sequence, max(w/OSL,
    # g_p/b) = max(0.04/200, 0.5 × 4e-5) = 2e-4 s; s = 512 × 200 / 5e10 + 4·2·1·64·(200 + 0.5 × 50 / 0.89) / 5e13 (L̄ = 100 +
    # 100); b = floor(min((0.05 − 0.041) / (s + 2e-4), (0.05 − 0.001) / (4e-5 + s + 2e-4))) = floor(min(44.5, 202.4))
    # = 44, and the cycle there is exact (b ≤ OSL): 0.04 + 44 × 2e-4 + 44 · s + 0.001 = 0.04989 s
    s = 512 * 200 / 5e10 + 4 * 2 * 1 * 64 * (200 + 0.5 * 50 / 0.89) / 5e13
    b = math.floor(min((0.05 - 0.041) / (s + 2e-4), (0.05 - 0.001) / (G_DECODE + s + 2e-4)))
    v = replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, input_tokens=100.0, target_tps=20.0,
                                                           prefill_mix_share=0.0), TOY_EFF)[0]
    assert v["batch"] == b == 44
    assert v["cycle"] == pytest.approx(0.04 + 44 * 2e-4 + 44 * s + 0.001, rel=1e-12) and v["cycle"] <= 0.05
    assert _cycle(0.0, 45, input_tokens=100.0, target_tps=20.0)["cycle"] > 0.05


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
def test_a_prompt_is_never_free_and_a_stalled_decode_never_faster(batch, isl, osl, mix):
    # between the roofline of all the work (the prompt spread evenly) and the prefill steps of their own
    load = dict(input_tokens=isl, output_tokens=osl)
    spread, mixed, part, alone = None, *(_cycle(m, batch, **load) for m in (1.0, mix, 0.0))
    w = mixed["w_read"] / (TOY_HW.bandwidth_tbs * 1e12 * TOY_EFF.bandwidth_share)
    spread = max(w, mixed["gemm_s"])
    assert spread * (1 - 1e-12) <= mixed["gemm_t"] <= part["gemm_t"] * (1 + 1e-12)
    assert part["gemm_t"] <= alone["gemm_t"] * (1 + 1e-12)
    # each the mean of its steps over the period of 1/n cycles: decode-only max(w, g_d); a prompt of g_p/n inside a
    # decode step, max(w, g_d + g_p/n); a prefill step of its own, max(w, g_p/n)
    n, g_d, g_p = min(1.0, batch / osl), mixed["gemm_s"] * mixed["hide"], mixed["gemm_s"] * (1 - mixed["hide"])
    assert mixed["gemm_t"] == pytest.approx((1 - n) * max(w, g_d) + n * max(w, g_d + g_p / n), rel=1e-9)
    assert alone["gemm_t"] == pytest.approx(max(w, g_d) + n * max(w, g_p / n), rel=1e-9)
    # the weight read and the compute beyond it add up to the GEMM time
    for v in (mixed, part, alone):
        assert v["mem_s"] + v["cmp_s"] == pytest.approx(v["kv_read"] / (TOY_HW.bandwidth_tbs * 1e12 * 0.5) + v["gemm_t"]
                                                        + batch * (v["attn_tok"] / 5e13), rel=1e-9)


@settings(max_examples=12, deadline=None)
@given(isl=st.floats(16, 20_000), osl=st.floats(16, 4000), mix=st.sampled_from([0.0, 1.0]), tps=st.floats(10, 24))
def test_the_closed_form_batch_is_the_largest_that_meets_the_target(isl, osl, mix, tps):
    # the batch meets the target; below b = OSL (where the closed form is exact) one more sequence misses it
    load = replace(TOY_LOAD, input_tokens=isl, output_tokens=osl, target_tps=tps, prefill_mix_share=mix)
    v = replica_table([Layout(1)], TOY_M, TOY_HW, load, TOY_EFF)[0]
    b = int(v["batch"])
    if b > 1 or v["tps_met"]:
        assert v["tps_met"]
    if b < osl - 1 and b < v["b_max"] and v["tps_met"]:
        assert replica_table([Layout(1)], TOY_M, TOY_HW, load, TOY_EFF, b + 1)[0]["cycle"] > 1 / tps * (1 - 1e-9)
