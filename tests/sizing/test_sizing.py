"""Sizing formulas of tco.sizing, each worked by hand with the arithmetic written out."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.catalog.types import Gpu
from tco.sizing import (
    attention_width,
    dense_peak,
    fp4_base,
    kv_bytes_per_token,
    peak_tflops,
    serving_precision_problem,
    size_training,
    training_mfu_base,
    training_problem,
)
from tco.sizing.replica import (
    Calibration,
    Hardware,
    Layout,
    Load,
    ModelSpec,
    allreduce_seconds,
    alltoall_seconds,
    expert_params,
    expert_touch_share,
    replica_terms,
)
from tco.sizing.layout import candidates, choose

DEFAULTS = {"scaling_efficiency": {"nvlink": 0.9, "nvlink_bridge": 0.9, "pcie": 0.5}}


# ---------------------------------------------------------------------------------------------
# Training


def _train(**kw):
    args = dict(method="lora", params=70e9, active_params=70e9, tokens=2e9, epochs=3.0, gpu_hours=None, mfu=0.385,
                peak_tflops=989.5, gpu_memory_gb=141.0, memory_usable_share=0.9, gpus_per_server=8,
                interconnect="nvlink", target_days=14.0, servers=None, activation_share=0.25, lora_share=0.01,
                defaults=DEFAULTS)
    args.update(kw)
    return size_training(**args)


def test_size_training_lora_70b_on_one_hgx():
    t = _train()
    flops = 6 * 70e9 * 2e9 * 3
    hours = flops / (989.5e12 * 0.385 * 3600)  # ≈ 1,837.5 GPU·h of useful work
    mem = (2 * 70e9 + 16 * 0.01 * 70e9) * 1.25  # 189 GB
    assert t.flops == pytest.approx(flops)
    assert t.gpu_hours == pytest.approx(hours)
    assert t.memory_gb == pytest.approx(mem / 1e9)
    assert t.min_gpus == math.ceil(mem / (141e9 * 0.9))  # 189 / 126.9 → 2 GPUs
    assert t.min_gpus == 2
    # one server does it in 14 days: hours / (0.9 × 8 GPUs × 14 d × 24 h) ≈ 0.76 → 1 server
    assert hours / (0.9 * 8 * 14 * 24) < 1
    assert t.servers == 1 and t.gpus == 8
    assert t.scaling_efficiency == 0.9
    assert t.wall_hours == pytest.approx(hours / (8 * 0.9))
    assert t.billed_gpu_hours == pytest.approx(hours / (8 * 0.9) * 8)
    assert t.mfu == 0.385


def test_size_training_counts_the_causal_attention_of_the_sequence_length():
    """Llama 3.1 70B-like (80 layers, query width 8,192) at 8,192 tokens: 6 × 70e9 + 6 × 80 × 8192 × 8192 = 4.2e11 +
    3.2212e10 = 4.52212e11 FLOPs per token (+7.67 %), × 2e9 tokens × 3 epochs; without a length the catalog's default
    (here 4,096: 4.2e11 + 1.6106e10); with neither, 6·N alone."""
    t = _train(sequence_length=8192, layers=80, hidden=8192)
    assert (t.sequence_length, t.attention_width) == (8192, 8192)
    assert t.flops_per_token == pytest.approx(4.2e11 + 32_212_254_720, rel=1e-12)
    assert t.flops == pytest.approx((4.2e11 + 32_212_254_720) * 2e9 * 3, rel=1e-12)
    assert t.attention_share == pytest.approx(32_212_254_720 / 4.2e11) == pytest.approx(0.0767, abs=1e-4)
    assert t.gpu_hours == pytest.approx(t.flops / (989.5e12 * 0.385 * 3600), rel=1e-12)
    d = _train(layers=80, hidden=8192, defaults=DEFAULTS | {"training_mfu": {"sequence_length": 4096}})
    assert d.sequence_length == 4096 and d.flops_per_token == pytest.approx(4.2e11 + 16_106_127_360, rel=1e-12)
    assert _train(layers=80, hidden=8192).flops_per_token == pytest.approx(4.2e11)  # no length anywhere: 6·N
    # a query wider than the hidden size (Qwen3: 64 heads × 128 on hidden 4,096) is counted at its own width
    q = _train(sequence_length=4096, layers=94, hidden=4096, attention_width=8192, active_params=22e9)
    assert q.flops_per_token == pytest.approx(6 * 22e9 + 6 * 94 * 4096 * 8192, rel=1e-12)
    assert _train(gpu_hours=500.0, sequence_length=8192).flops_per_token == 0.0  # given hours: no FLOPs counted


def test_attention_width_of_the_catalog_models():
    """Query heads × head size from models.csv: Llama 3.1 70B 64 × 128 = 8,192 (its hidden size), Qwen3-235B-A22B
    64 × 128 = 8,192 (twice its hidden 4,096); an MLA model (DeepSeek-V3) at its hidden size 7,168, since its head_dim
    encodes the latent cache."""
    from tco.catalog import load_catalog

    m = load_catalog().models
    assert attention_width(m["llama-3.1-70b"]) == 8192 and attention_width(m["llama-3.1-8b"]) == 4096
    assert attention_width(m["qwen3-235b-a22b"]) == 64 * 128 == 2 * m["qwen3-235b-a22b"].hidden_size
    assert attention_width(m["deepseek-v3"]) == m["deepseek-v3"].hidden_size == 7168


def test_size_training_servers_from_target_days():
    # full fine-tune of 8B on 1e11 tokens in 7 days on 8-GPU NVLink servers
    t = _train(method="full", params=8e9, active_params=8e9, tokens=1e11, epochs=1.0, target_days=7.0)
    hours = 6 * 8e9 * 1e11 / (989.5e12 * 0.385 * 3600)  # ≈ 1.26e5 GPU·h
    wanted = math.ceil(hours / (0.9 * 8 * 7 * 24))       # servers to finish in 7 days
    assert wanted > 1
    assert t.servers == wanted
    assert t.gpus == wanted * 8
    assert t.wall_hours == pytest.approx(hours / (wanted * 8 * 0.9))
    assert t.wall_hours <= 7 * 24
    assert t.billed_gpu_hours == pytest.approx(t.wall_hours * wanted * 8)


def test_size_training_memory_sets_the_minimum():
    # full fine-tune of 70B: 16 × 70e9 × 1.25 = 1.4 TB → ceil(1.4e12 / 126.9e9) = 12 GPUs → 2 servers
    t = _train(method="full", gpu_hours=100.0, target_days=30.0)
    mem = 16 * 70e9 * 1.25
    assert t.min_gpus == math.ceil(mem / (141e9 * 0.9)) == 12
    assert t.servers == 2  # the 100 GPU·h alone would fit one server
    assert t.gpu_hours == 100.0  # given hours replace the 6·N·D estimate
    assert t.wall_hours == pytest.approx(100.0 / (16 * 0.9))


def test_size_training_given_servers_override_target_days():
    t = _train(servers=3)
    hours = 6 * 70e9 * 2e9 * 3 / (989.5e12 * 0.385 * 3600)
    assert t.servers == 3 and t.gpus == 24
    assert t.wall_hours == pytest.approx(hours / (24 * 0.9))
    assert t.billed_gpu_hours == pytest.approx(hours / 0.9)


def test_size_training_single_gpu_servers():
    # 1-GPU PCIe servers: sizing assumes multi-GPU scaling (0.5); one server keeps efficiency 1.0
    t = _train(method="lora", params=1e9, active_params=1e9, tokens=1e8, epochs=1.0, gpu_memory_gb=24.0,
               gpus_per_server=1, interconnect="pcie", target_days=10.0)
    hours = 6 * 1e9 * 1e8 / (989.5e12 * 0.385 * 3600)
    assert t.servers == 1 and t.scaling_efficiency == 1.0
    assert t.wall_hours == pytest.approx(hours)


def test_size_training_none_is_empty():
    t = _train(method="none")
    assert (t.flops, t.gpu_hours, t.servers, t.gpus, t.wall_hours, t.billed_gpu_hours) == (0, 0, 0, 0, 0, 0)


# ---------------------------------------------------------------------------------------------
# Inference


def test_kv_bytes_per_token_llama31_70b_bf16():
    expected = 2 * 80 * 8 * 128 * 2  # K and V × layers × KV heads × head dim × 2 bytes = 327,680 B
    assert kv_bytes_per_token(80, 8, 128, "bf16") == expected == 327_680


def test_kv_bytes_per_token_fp8_is_half():
    assert kv_bytes_per_token(80, 8, 128, "fp8") == 2 * 80 * 8 * 128 * 1


# A toy model small enough to work by hand: 1e9 parameters in bf16 (2 GB of weights), 2 layers, hidden 64,
# 1 KV head × 64 head dim in bf16 → 2·2·1·64·2 = 512 B of KV cache per token.
TOY_M = ModelSpec(params=1e9, active_params=1e9, layers=2, hidden=64, kv_heads=1, head_dim=64)
TOY_HW = Hardware(memory_gb=10.0, bandwidth_tbs=0.1, peak_tflops=100.0, gpus_per_server=4, link_gbs=10.0,
                  network_gbps=100.0, link_latency_s=0.0, network_latency_s=0.0)
# (the interconnect's own latencies 0 here: the toy's α is the calibration's 1e-5 s, as worked below)
TOY_LOAD = Load(input_tokens=1000.0, output_tokens=200.0, target_tps=20.0, max_batch=1000)
TOY_EFF = Calibration(bandwidth_share=0.5, flops_share=0.5, interconnect_share=0.5, step_overhead_seconds=0.001,
                      collective_latency_seconds=1e-5)
# FLOPs per output token: (1 + r)·2·N_a + 4·layers·d·(ISL + OSL/2) + r·2·layers·d·ISL, r = 1000/200 = 5
FLOPS_TOK = 6 * 2 * 1e9 + 4 * 2 * 64 * 1100 + 5 * 2 * 2 * 64 * 1000   # 12,001,843,200
GEMM_TOK = 6 * 2 * 1e9                       # the weight GEMMs' part, bound by max(weights read, FLOPs)
ATTN_TOK = 4 * 2 * 64 * 1100 + 5 * 2 * 2 * 64 * 1000 / 0.89   # attention as charged, the prompt's ÷ r_a = 0.89 (tco.constants.
# PROMPT_ATTN_SHARE): 563,200 + 1,280,000 / 0.89 = 2,001,402.2; its FLOPs FLOPS_TOK − GEMM_TOK = 1,843,200


def test_allreduce_time_by_hand():
    # 64 tokens × hidden 8,192 × 2 B = 1,048,576 B over 8 GPUs, 450 GB/s one way × 0.8, 5 µs latency
    msg = 64 * 8192 * 2
    expected = 5e-6 + 2 * 7 / 8 * msg / (450e9 * 0.8)      # 5 µs + 5.097 µs
    assert allreduce_seconds(msg, 8, 450e9 * 0.8, 5e-6) == pytest.approx(expected)
    assert expected == pytest.approx(10.097e-6, rel=1e-3)
    assert allreduce_seconds(msg, 1, 450e9, 5e-6) == 0.0  # one GPU: nothing to reduce


def test_alltoall_time_by_hand():
    # 2 servers, 1 MB of expert traffic each, 50 GB/s: out and back, half of it leaves the server
    assert alltoall_seconds(1e6, 2, 50e9, 1e-5) == pytest.approx(2 * (1e-5 + 1 / 2 * 1e6 / 50e9))
    assert alltoall_seconds(1e6, 1, 50e9, 1e-5) == 0.0


def test_expert_touch_share_by_hand():
    # Mixtral 8x7B: 8 experts, 2 per token; 4 tokens leave 0.75⁴ of the experts untouched
    assert expert_touch_share(4, 8, 2) == pytest.approx(1 - 0.75 ** 4) == pytest.approx(0.68359375)
    assert expert_touch_share(1, 8, 2) == pytest.approx(2 / 8)   # one token reads exactly its k experts
    assert expert_touch_share(0, 8, 2) == 0.0
    assert expert_touch_share(5, 0, 0) == 1.0                     # dense: every weight is read


def test_expert_params_by_hand():
    # Mixtral 8x7B: (46.7 − 12.9)e9 inactive = 6/8 of the experts → experts hold 33.8e9 / 0.75 = 45.07e9
    assert expert_params(46.7e9, 12.9e9, 8, 2) == pytest.approx(33.8e9 / 0.75)
    assert expert_params(70e9, 70e9, 0, 0) == 0.0


def test_replica_tp1_by_hand():
    v = replica_terms(Layout(1), TOY_M, TOY_HW, TOY_LOAD, TOY_EFF)
    kv_tok = 2 * 2 * 1 * 64 * 2                          # 512 B
    ctx = 1000 + 200 / 2                                  # 1,100 tokens resident on average
    b_mem = math.floor((10e9 * 0.9 - 2e9) / (kv_tok * (1000 + 200)))  # reserved to completion: 7e9 / 614,400 → 11,393
    bw, fl = 0.1e12 * 0.5, 100e12 * 0.5                   # 5e10 B/s, 5e13 FLOP/s
    a_w = 2e9 / bw + 0.001                                # weights once + overhead = 0.041 s
    g_d, g_p = 2e9 / fl, 5 * 2e9 / fl                     # GEMMs per sequence: decode 4e-5 s, its prompt share 2e-4 s
    slope = kv_tok * ctx / bw + ATTN_TOK / fl             # per sequence: KV read + attention ≈ 1.1304e-5 s
    # the batch's closed form (tco/sizing/prefill_rules.limit), exact while b ≤ OSL: the weights alone,
    # (0.05 − 0.041) / slope = 796.2; every step compute-bound, 0.049 / (g_d + g_p + slope) = 194.98; n = b/200 of the
    # steps carry a 1,000-token prompt (compute-bound) and the others read the weights: the root of
    # (g_d/200)·b² + (slope + g_p − 0.04/200)·b − 0.009 = 0, 185.75
    qa, qb, c = g_d / 200, slope + g_p - 2e9 / bw / 200, 1 / 20 - a_w
    b_tps = min(c / slope, 2 * c / (qb + math.sqrt(qb * qb + 4 * qa * c)), (1 / 20 - 0.001) / (g_d + g_p + slope))
    batch = math.floor(b_tps)
    # the cycle: n = 185/200 = 0.925 of the steps carry a prompt and save their weight read
    n = batch / 200
    gemm = (1 - n) * 2e9 / bw + n * batch * g_d + batch * g_p   # 0.003 + 0.006845 + 0.037 = 0.046845 s
    cycle = gemm + batch * slope + 0.001
    prefill = max(2e9 / bw, (2 * 1e9 * 1000 + 4 * 2 * 64 * 500 * 1000 / 0.89) / fl) + 0.001   # = 0.041005753 s
    assert v["b_mem"] == b_mem == 11_393
    assert v["flops_tok"] == pytest.approx(FLOPS_TOK)
    assert v["batch"] == batch == 185
    assert v["cycle"] == pytest.approx(cycle) and gemm == pytest.approx(0.046845) and cycle <= 0.05
    assert replica_terms(Layout(1), TOY_M, TOY_HW, TOY_LOAD, TOY_EFF, batch=186)["cycle"] > 0.05
    assert v["coll_s"] == 0.0                             # one GPU: no all-reduce
    assert v["prefill"] == pytest.approx(prefill) and prefill == pytest.approx(0.041005753)
    assert v["ttft"] == pytest.approx(prefill + cycle)
    assert v["cap"] == pytest.approx(batch / (200 * cycle))
    assert v["bound"] == "latency-compute" and v["met"]


def test_replica_tp2_pays_the_all_reduce():
    v = replica_terms(Layout(2), TOY_M, TOY_HW, TOY_LOAD, TOY_EFF, batch=10)
    tokens = 10 * (1 + 5)                                 # decode + chunked prompt tokens in the step
    ar = 1e-5 + 2 * 1 / 2 * tokens * 64 * 2 / (10e9 * 0.5)  # one all-reduce of 60 × 64 × 2 B
    # the one KV head is on both GPUs (2 copies of 512 B per token); the weights (0.02 s) outlast the decode GEMMs
    # (10 × 2e-5 s); n = 10/200 = 0.05 of the cycles carry a prompt (10 × 5 × 2e-5 = 0.001 s of prompt GEMMs per
    # cycle) and save their weight read: 0.02 + 0.001 − 0.05 × (0.02 − 0.0002) = 0.02001 s
    gemm = 0.02 + 10 * 5 * 2e-5 - 0.05 * (0.02 - 10 * 2e-5)
    expected = 10 * 1100 * 512 * 2 / (2 * 5e10) + gemm + 10 * ATTN_TOK / (2 * 5e13) + 2 * 2 * ar + 0.001
    assert 10 * GEMM_TOK / (2 * 5e13) < 2e9 / (2 * 5e10)
    assert v["coll_s"] == pytest.approx(2 * 2 * ar)      # 2 per layer × 2 layers
    assert v["cycle"] == pytest.approx(expected)


def test_larger_degree_only_when_it_pays():
    # on the toy's 10 GB/s link TP 2 halves the weight read and wins; on a 0.01 GB/s link each sequence adds
    # 4 all-reduces × 6 tokens × 128 B / 5e6 B/s ≈ 0.6 ms to the step and one GPU per replica serves the most per GPU
    fast_target = replace(TOY_LOAD, target_tps=30.0)    # TP 1 needs 0.041 s + … > 1/30 s
    assert choose(candidates(TOY_M, TOY_HW, fast_target, TOY_EFF), 4).tensor_parallel > 1
    slow = replace(TOY_HW, link_gbs=0.01)
    cands = candidates(TOY_M, slow, TOY_LOAD, TOY_EFF)
    per_gpu = {c["tp"]: c["cap"] / c["tp"] for c in cands}
    best = choose(cands, 4)
    assert best.tensor_parallel == 1 and per_gpu[1] == max(per_gpu.values())
    # and a fast one with a tight target makes TP 2 or more the only way to meet it
    best = choose(candidates(TOY_M, TOY_HW, fast_target, TOY_EFF), 4)
    assert best.target_met and best.tensor_parallel >= 2


def test_two_server_pipeline_replica_by_hand():
    # 0.5 GB GPUs: one 4-GPU server holds 4 × 0.45 = 1.8 GB < 2 GB of weights; two servers in a pipeline do
    hw = replace(TOY_HW, memory_gb=0.5)
    cands = candidates(TOY_M, hw, TOY_LOAD, TOY_EFF)
    assert not any(c["fits"] for c in cands if c["nodes"] == 1)
    rep = choose(cands, 4)
    assert (rep.tensor_parallel, rep.nodes, rep.parallel_mode) == (4, 2, "pp")
    assert rep.replicas_per_server == 0.5                # a replica takes two servers
    v = replica_terms(Layout(4, 2, "pp"), TOY_M, hw, TOY_LOAD, TOY_EFF, batch=10)
    tokens = 10 * 6                                      # per cycle; 2 micro-batches of 30
    act = 30 * 64 * 2                                    # one micro-batch's activations: 3,840 B
    # each stage rereads its half per micro-batch; the one KV head sits on the 4 GPUs of a stage (4 copies)
    mem_s = (2e9 + 10 * 1100 * 512 * 4 / 2) / (4 * 5e10)
    cmp_s = 10 * ATTN_TOK / (8 * 5e13)                   # all 8 GPUs compute; the weights outlast the GEMMs
    ar = 1e-5 + 2 * 3 / 4 * act / (10e9 * 0.5)           # all-reduce over the 4 GPUs of a stage
    hops = 2 * (1e-5 + act / (100e9 / 8 * 0.5))          # 2 micro-batches cross the 100 Gb/s network
    assert tokens / 2 * 64 * 2 == act
    assert v["mem_s"] == pytest.approx(mem_s)
    assert v["cmp_s"] == pytest.approx(cmp_s)
    assert v["coll_s"] == pytest.approx(2 * 2 * ar + hops)
    assert v["cycle"] == pytest.approx(mem_s + cmp_s + 2 * 2 * ar + hops + 0.001)
    # without a known network a replica cannot span servers
    assert choose(candidates(TOY_M, replace(hw, network_gbps=None), TOY_LOAD, TOY_EFF), 4) is None


def test_moe_step_reads_only_the_experts_it_touches():
    # 8 experts, 2 per token: experts hold 0.6e9 / 0.75 = 0.8e9 parameters (1.6e9 B), shared 0.4e9 B
    moe = replace(TOY_M, active_params=0.4e9, experts=8, experts_per_token=2)
    v = replica_terms(Layout(1), moe, TOY_HW, TOY_LOAD, TOY_EFF, batch=1)
    touch = 1 - 0.75 ** 6                                # one sequence + 5 prompt tokens per step
    assert v["w_read"] == pytest.approx(0.4e9 + 1.6e9 * touch)
    big = replica_terms(Layout(1), moe, TOY_HW, TOY_LOAD, TOY_EFF, batch=500)
    assert big["w_read"] == pytest.approx(2e9)           # a large batch touches every expert
    # compute counts active parameters only
    assert v["flops_tok"] == pytest.approx(6 * 2 * 0.4e9 + 4 * 2 * 64 * 1100 + 5 * 2 * 2 * 64 * 1000)


def test_ttft_target_limits_the_batch():
    # TTFT = prefill + cycle ≤ 0.085 s: the prefill (2e12 + 4·2·64·500·1,000 / 0.89) / 5e13 + 0.001 = 0.041005753 s
    # (its attention ÷ r_a = 0.89), the cycle's budget 0.085 − 0.041005753 = 0.043994247 s, c = that − 0.041;
    # b ≤ min(c / s, the root of (g_d/200)·b² + (s + g_p − 0.04/200)·b − c = 0, (budget − 0.001) / (g_d + g_p + s))
    # = min(264.9, 97.32, 171.1) = 97, below the tokens/s target's 185
    slope, g_d, g_p = 512 * 1100 / 5e10 + ATTN_TOK / 5e13, 2e9 / 5e13, 5 * 2e9 / 5e13
    v = replica_terms(Layout(1), TOY_M, TOY_HW, replace(TOY_LOAD, ttft_seconds=0.085), TOY_EFF)
    budget = 0.085 - (2e12 + 4 * 2 * 64 * 500 * 1000 / 0.89) / 5e13 - 0.001
    qa, qb, c = g_d / 200, slope + g_p - 0.04 / 200, budget - 0.041
    root = 2 * c / (qb + math.sqrt(qb * qb + 4 * qa * c))
    assert round(root, 2) == 97.32
    assert v["batch"] == math.floor(min(c / slope, root, (budget - 0.001) / (g_d + g_p + slope))) == 97
    assert v["bound"] == "latency-ttft" and v["met"]
    # 5 ms is below even TP 4's weight read (2e9 / (4 × 5e10) = 10 ms): target_met is False
    rep = choose(candidates(TOY_M, TOY_HW, replace(TOY_LOAD, ttft_seconds=0.005), TOY_EFF), 4)
    assert not rep.target_met and not rep.ttft_target_met


def test_tokens_per_second_target_missed_sizes_at_batch_one():
    rep = choose(candidates(TOY_M, TOY_HW, replace(TOY_LOAD, target_tps=1000.0), TOY_EFF), 4)
    assert rep.batch == 1 and not rep.target_met


def test_memory_and_max_batch_bounds():
    loose = replace(TOY_LOAD, target_tps=None)
    v = replica_terms(Layout(1), TOY_M, replace(TOY_HW, memory_gb=3.0), replace(loose, max_batch=10_000), TOY_EFF)
    assert v["batch"] == math.floor((3e9 * 0.9 - 2e9) / (512 * (1000 + 200))) == 1139 and v["bound"] == "memory"
    v = replica_terms(Layout(1), TOY_M, TOY_HW, replace(loose, max_batch=256), TOY_EFF)
    assert v["batch"] == 256 and v["bound"] == "max-batch"


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 2000), extra=st.integers(1, 500), tokens=st.floats(0, 1e4), e=st.integers(2, 256))
@pytest.mark.slow
def test_cycle_grows_with_the_batch_and_touch_stays_a_share(b, extra, tokens, e):
    moe = replace(TOY_M, active_params=0.4e9, experts=e, experts_per_token=min(2, e - 1))
    c1 = replica_terms(Layout(2), moe, TOY_HW, TOY_LOAD, TOY_EFF, batch=b)["cycle"]
    c2 = replica_terms(Layout(2), moe, TOY_HW, TOY_LOAD, TOY_EFF, batch=b + extra)["cycle"]
    assert c2 >= c1
    assert 0.0 <= expert_touch_share(tokens, e, min(2, e - 1)) <= 1.0


def test_deepseek_v3_fp8_on_h100_servers_sizes_and_costs():
    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.scenario import load_text

    text = """
[scenario]
name = "DeepSeek-V3 on H100"
start = "2027-01"
horizon_months = 12
discount_rate = 0.12
[model]
id = "deepseek-v3"
precision = "fp8"
kv_precision = "bf16"
[training]
method = "none"
[inference]
users = { model = "linear", start_users = 500, end_users = 2000 }
requests_per_user_per_day = 20
input_tokens_per_request = 1500
output_tokens_per_request = 500
tokens_per_second_per_user = 20
time_to_first_token_seconds = 2.0
[fx]
usdbrl = 5.4
model = "fixed"
[[options]]
name = "AWS p5 (H100)"
inference_offer = "aws/us-east-1/p5.48xlarge"
[[options]]
name = "Dedicated 8x H100"
inference_offer = "br-dedicated/sp/hgx-h100-8x"
"""
    res = run_scenario(load_text(text), load_catalog(), simulate=False)
    for o in res.options:
        # 671e9 B of FP8 weights need more than one server's 8 × 80 GB: a replica spans servers
        assert o.replica.nodes >= 2 and o.replica.replicas_per_server == 1 / o.replica.nodes
        assert o.replica.target_met and o.replica.ttft_seconds <= 2.0
        assert o.tco.deterministic > 0
        assert o.costs.inference_servers.max() % o.replica.nodes == 0  # whole replicas of whole servers


def test_size_training_given_servers_never_below_the_memory_minimum():
    t = _train(method="full", tokens=1e8, epochs=1.0, servers=1)
    assert t.min_gpus == math.ceil(16 * 70e9 * 1.25 / (141e9 * 0.9)) == 12
    assert t.servers == 2 and t.gpus >= t.min_gpus  # 1 server (8 GPUs) cannot hold the job: raised to 2


# ---------------------------------------------------------------------------------------------
# precision: peaks, FP4 support and the catalog's training MFU (issue 21)


A100 = Gpu("A100", 80.0, 2.0, 312.0, None, 400.0, "nvlink", 600.0, "t", "t", None, "ampere")
H100 = Gpu("H100", 80.0, 3.35, 989.5, 1979.0, 700.0, "nvlink", 900.0, "t", "t", None, "hopper")
B200 = Gpu("B200", 180.0, 7.7, 2250.0, 4500.0, 1000.0, "nvlink", 1800.0, "t", "t", 9000.0, "blackwell")
TABLE = {"base": {"bf16": 0.385, "fp8": 0.401, "fp4": 0.280}, "generation": {"ampere": 1.340, "hopper": 1.0,
                                                                              "blackwell": 0.882}}


def test_dense_peak_and_serving_peak_by_precision():
    assert [dense_peak(B200, p) for p in ("bf16", "fp8", "fp4")] == [2250.0, 4500.0, 9000.0]
    assert dense_peak(A100, "fp8") is None and dense_peak(H100, "fp4") is None
    # serving falls back to the next wider format the GPU has (weight-only), as for FP8 on an A100 before
    assert (peak_tflops(B200, "fp4"), peak_tflops(H100, "fp4"), peak_tflops(A100, "fp8")) == (9000.0, 1979.0, 312.0)


def test_fp4_serving_needs_fp4_tensor_cores():
    assert serving_precision_problem(B200, "fp4", "fp4", [A100, H100, B200]) is None
    assert serving_precision_problem(A100, "fp8", "fp8", [A100]) is None  # weight-only FP8 still serves
    why = serving_precision_problem(H100, "fp8", "fp4", [A100, H100, B200])
    assert why is not None and "model.kv_precision = 'fp4'" in why and "H100" in why and "GPUs with FP4: B200" in why


def test_training_mfu_base_is_precision_times_generation_by_hand():
    assert training_mfu_base(H100, "bf16", TABLE) == 0.385
    assert training_mfu_base(A100, "bf16", TABLE) == pytest.approx(0.385 * 1.340)  # 0.5159
    assert training_mfu_base(H100, "fp8", TABLE) == pytest.approx(0.401)
    assert training_mfu_base(B200, "fp8", TABLE) == pytest.approx(0.401 * 0.882)  # 0.3537
    assert training_mfu_base(B200, "fp4", TABLE) == pytest.approx(0.280 * 0.882)  # 0.2470


def test_fp4_base_from_fp8_and_the_fp4_share_by_hand():
    """Without an fp4 cell the fp4 base comes from fp8's: share 0.467 of the fp8 step at the FP4 rate (B200: 9,000 /
    4,500 = 2× the FP8 peak): 0.405 / (0.467 + 2 × 0.533) = 0.405 / 1.533 = 0.264188, × Blackwell 0.949 = 0.250714."""
    table = {"base": {"bf16": 0.412, "fp8": 0.405}, "generation": {"blackwell": 0.949}, "fp4_share": 0.467}
    assert training_mfu_base(B200, "fp4", table) == pytest.approx(0.405 / 1.533 * 0.949, rel=1e-12)
    assert training_mfu_base(B200, "fp4", table) == pytest.approx(0.250714, abs=1e-6)
    assert fp4_base(0.405, 1.0, 9000, 4500) == 0.405  # all of the step at the FP4 rate: fp8's share of its own peak
    assert fp4_base(0.405, 0.0, 9000, 4500) == pytest.approx(0.405 / 2)  # none: fp8's speed against a 2× peak
    assert table["base"] == {"bf16": 0.412, "fp8": 0.405}  # the catalog's table is not written to


def test_training_that_cannot_be_sized_names_what_would_cover_it():
    with pytest.raises(ValueError, match="A100 does not have.*GPUs with them: B200, H100.*precision = 'bf16'"):
        training_mfu_base(A100, "fp8", TABLE, [A100, H100, B200])
    ada = replace(H100, gpu="L40S", generation="ada")
    with pytest.raises(ValueError, match="L40S: its generation 'ada'.*generation_factor.*give \\[training\\] mfu"):
        training_mfu_base(ada, "bf16", TABLE)
    assert training_problem(ada, "bf16", TABLE, [], mfu_given=True) is None  # a given MFU covers it
    assert training_problem(A100, "fp8", TABLE, [], mfu_given=True) is not None  # but not a missing FP8 peak
    no_fp4 = {"base": {"bf16": 0.385}, "generation": TABLE["generation"]}
    assert "mfu_by_precision" in (training_problem(B200, "fp4", no_fp4, [], mfu_given=False) or "")


def test_size_training_uses_the_precision_peak_and_the_moe_factor():
    """DeepSeek-V3-like MoE on B200 in FP8: MFU = 0.401 × 0.882 × min(1, 2.345 × (671e9 / (61 × 256) / 1e9)^0.512)
    = 0.353682 × 0.468077 = 0.165550; 6 × 37e9 × 1e12 / (4,500e12 × 0.165550 × 3600) = 82,777 GPU-hours."""
    ts = size_training(method="pretrain", params=671e9, active_params=37e9, tokens=1e12, epochs=1, gpu_hours=None,
                       mfu=None, peak_tflops=4500.0, gpu_memory_gb=180, memory_usable_share=0.9, gpus_per_server=8,
                       interconnect="nvlink", target_days=30, servers=None, activation_share=0.25, lora_share=0.01,
                       defaults={"scaling_efficiency": {"nvlink": 0.9}, "training_mfu": {"moe_a": 2.345,
                                                                                         "moe_k": 0.512}},
                       mfu_base=0.401 * 0.882, layers=61, experts=256, precision="fp8")
    factor = 2.345 * (671e9 / (61 * 256) / 1e9) ** 0.512
    assert ts.mfu == pytest.approx(0.401 * 0.882 * factor, rel=1e-12) and ts.mfu == pytest.approx(0.165550, abs=1e-6)
    assert ts.gpu_hours == pytest.approx(6 * 37e9 * 1e12 / (4500e12 * ts.mfu * 3600), rel=1e-12)
    assert ts.gpu_hours == pytest.approx(82_777, rel=1e-4)
    assert (ts.precision, ts.peak_tflops) == ("fp8", 4500.0)


def _seed_with(tmp_path, lines: str):
    from pathlib import Path

    seed = (Path(__file__).parents[2] / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
    scen = tmp_path / "s.toml"
    scen.write_text(seed.replace("[inference]\n", "[inference]\n" + lines), encoding="utf-8")
    return scen


def test_a_framework_without_its_calibration_stops_with_exit_2_naming_what_covers_it(tmp_path, capsys):
    from pathlib import Path

    from tco.cli import main

    shipped = (Path(__file__).parents[2] / "tco" / "catalog" / "data" / "calibration_default.toml").read_text()
    mine = shipped[:shipped.index("[framework.")].replace('frameworks = "sglang,trtllm,vllm"', 'frameworks = "trtllm"')
    (tmp_path / "mine.toml").write_text(mine, encoding="utf-8")  # fitted on TensorRT-LLM runs only
    scen = _seed_with(tmp_path, 'framework = "sglang"\ncalibration = "mine.toml"\n')
    assert main(["run", str(scen), "-o", str(tmp_path / "o"), "--formats", "json", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "inference.framework" in err and "'sglang'" in err and "mine.toml" in err
    assert "python -m tco calibrate" in err and "trtllm" in err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())   # nothing half-written


@pytest.mark.slow
def test_vllm_and_sglang_size_with_their_own_fit(tmp_path):
    """The shipped calibration has [framework.vllm] and [framework.sglang] (fitted on their runs): a scenario naming
    them sizes, with the framework's shares (vLLM reaches less of the bandwidth than TensorRT-LLM: fewer requests/s
    per replica) and says which fit sized it."""
    import json

    from tco.cli import main

    caps = {}
    for fw in ("generic", "vllm", "sglang"):
        scen = _seed_with(tmp_path, f'framework = "{fw}"\n')
        assert main(["run", str(scen), "-o", str(tmp_path / fw), "--formats", "json", "--quiet"]) == 0
        doc = json.loads((tmp_path / fw / "s.json").read_text())
        caps[fw] = doc["options"][0]["sizing"]["replica"]["requests_per_second"]
        if fw != "generic":
            assert f"{fw} fit" in doc["options"][0]["sizing"]["calibration"]
    assert caps["vllm"] < caps["generic"]


def test_the_framework_the_shipped_calibration_was_fitted_on_sizes_as_generic(tmp_path):
    import json

    from tco.cli import main

    runs = {}
    for fw in ("generic", "trtllm"):
        scen = _seed_with(tmp_path, f'framework = "{fw}"\n')
        assert main(["run", str(scen), "-o", str(tmp_path / fw), "--formats", "json", "--quiet"]) == 0
        doc = json.loads((tmp_path / fw / "s.json").read_text())
        runs[fw] = [o["sizing"]["replica"] for o in doc["options"]]
        assert all(o["sizing"]["inference"]["framework"] == fw for o in doc["options"])
        assert all(o["sizing"]["inference"]["speculative"]["method"] == "none" for o in doc["options"])
    assert runs["generic"] == runs["trtllm"]


def test_mtp_on_a_model_without_an_mtp_module_stops_with_exit_2(tmp_path, capsys):
    from tco.cli import main

    scen = _seed_with(tmp_path, 'speculative = "mtp"\n')
    assert main(["run", str(scen), "-o", str(tmp_path / "o"), "--formats", "json", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "inference.speculative" in err and "'llama-3.1-70b'" in err and "deepseek-r1" in err
    assert "mtp_modules" in err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_speculative_dict_by_hand():
    from types import SimpleNamespace as NS

    from tco.sizing import speculative_dict

    off = NS(inference=NS(speculative="none", speculative_draft_tokens=1, speculative_acceptance_share=0.85))
    assert speculative_dict(off) == {"method": "none", "draft_tokens": 0, "acceptance_share": None,
                                     "accepted_tokens_per_step": 1.0}
    on = NS(inference=NS(speculative="mtp", speculative_draft_tokens=2, speculative_acceptance_share=0.5))
    assert speculative_dict(on)["accepted_tokens_per_step"] == 1 + 0.5 + 0.25
