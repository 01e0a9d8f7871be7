"""Sizing formulas of tco.sizing, each worked by hand with the arithmetic written out."""

from __future__ import annotations

import math

import pytest

from tco import sizing
from tco.sizing import (kv_bytes_per_token, replica_at, replicas_needed, scaling_efficiency, servers_for,
                        size_replica, size_training, training_flops, training_gpu_hours, training_memory_bytes)

DEFAULTS = {"scaling_efficiency": {"nvlink": 0.9, "nvlink_bridge": 0.9, "pcie": 0.5}}


# ---------------------------------------------------------------------------------------------
# Training


def test_training_flops_is_six_n_d():
    assert training_flops(70e9, 2e9) == pytest.approx(6 * 70e9 * 2e9)


def test_training_flops_counts_epochs():
    assert training_flops(70e9, 2e9, epochs=3) == pytest.approx(6 * 70e9 * 2e9 * 3)


def test_training_gpu_hours_divides_by_peak_mfu_and_seconds():
    flops = 6 * 70e9 * 1e9  # 4.2e20 FLOP
    expected = flops / (989.5e12 * 0.4 * 3600)  # ≈ 294.76 GPU·h
    assert training_gpu_hours(flops, 989.5, 0.4) == pytest.approx(expected)
    assert expected == pytest.approx(294.76, abs=0.01)


def test_training_memory_full_is_16_bytes_per_param_plus_activations():
    expected = 16 * 70e9 * (1 + 0.25)  # 1.4e12 B
    assert training_memory_bytes(70e9, "full", 0.25, 0.01) == pytest.approx(expected)


def test_training_memory_pretrain_equals_full():
    assert training_memory_bytes(8e9, "pretrain", 0.25, 0.01) == training_memory_bytes(8e9, "full", 0.25, 0.01)


def test_training_memory_lora_is_frozen_bf16_plus_adapter_states():
    frozen = 2 * 70e9          # bf16 weights, not trained
    adapters = 16 * 0.01 * 70e9  # 1 % of parameters carry full optimizer state
    expected = (frozen + adapters) * (1 + 0.25)  # 189e9 B
    assert training_memory_bytes(70e9, "lora", 0.25, 0.01) == pytest.approx(expected)
    assert expected == pytest.approx(189e9)


def test_training_memory_none_is_zero():
    assert training_memory_bytes(70e9, "none", 0.25, 0.01) == 0.0


@pytest.mark.parametrize("gpus, interconnect, expected", [
    (1, "nvlink", 1.0),          # a single GPU loses nothing
    (0, "pcie", 1.0),
    (8, "nvlink", 0.9),
    (16, "nvlink_bridge", 0.9),
    (4, "pcie", 0.5),
    (4, "infiniband-unknown", 0.5),  # unknown interconnect falls back to the PCIe figure
])
def test_scaling_efficiency(gpus, interconnect, expected):
    assert scaling_efficiency(gpus, interconnect, DEFAULTS) == expected


def test_scaling_efficiency_without_table_uses_half():
    assert scaling_efficiency(2, "nvlink", {}) == 0.5


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


# A toy model small enough to work by hand: 1e9 parameters in bf16 (2 GB of weights),
# 2 layers × 1 KV head × 64 head dim in bf16 → 2·2·1·64·2 = 512 B of KV cache per token.
TOY = dict(params=1e9, active_params=1e9, layers=2, kv_heads=1, head_dim=64, precision="bf16", kv_precision="bf16",
           gpu_memory_gb=10.0, bandwidth_tbs=0.1, peak_tflops=100.0, gpus_per_server=4, input_tokens=1000.0,
           output_tokens=200.0, target_tps=20.0, bw_eff=0.5, flops_eff=0.5, memory_usable_share=0.9,
           max_batch=1000)


def _toy(**kw):
    return {**TOY, **kw}


def test_replica_at_small_case_by_hand():
    r = replica_at(1, **TOY)
    weights = 1e9 * 2                   # 2e9 B
    kv_tok = 2 * 2 * 1 * 64 * 2         # 512 B
    ctx_max = 1000 + 200                # 1,200 tokens per sequence at the end
    ctx_avg = 1000 + 200 / 2            # 1,100 tokens on average during decode
    mem = 1 * 10e9 * 0.9                # 9e9 B usable
    bw = 1 * 0.1e12 * 0.5               # 5e10 B/s
    fl = 1 * 100e12 * 0.5               # 5e13 FLOP/s
    b_mem = math.floor((mem - weights) / (kv_tok * ctx_max))      # 7e9 / 614,400 → 11,393
    b_bw = (bw / 20 - weights) / (kv_tok * ctx_avg)                # (2.5e9 − 2e9) / 563,200 ≈ 887.78
    b_cmp = fl / (2 * 1e9 * 20)                                    # 5e13 / 4e10 = 1,250
    assert b_mem == 11_393 and b_bw == pytest.approx(887.78, abs=0.01) and b_cmp == 1250
    batch = math.floor(b_bw)                                       # 887, the latency limit binds
    step = max((weights + batch * kv_tok * ctx_avg) / bw, 2 * 1e9 * batch / fl)
    assert step == pytest.approx((2e9 + 887 * 563_200) / 5e10)     # memory read dominates: ≈ 0.04999 s
    decode_tps = batch / step
    prefill = 2 * 1e9 * 1000 / fl                                  # 0.04 s
    per_request = prefill + 200 / decode_tps
    assert r.tensor_parallel == 1 and r.replicas_per_server == 4
    assert r.weights_gb == pytest.approx(2.0)
    assert r.kv_mb_per_token == pytest.approx(512 / 1e6)
    assert r.batch_memory_limit == b_mem
    assert r.batch == batch
    assert r.bound == "latency-bandwidth"
    assert r.step_seconds == pytest.approx(step)
    assert r.tokens_per_second_per_user == pytest.approx(1 / step)
    assert r.target_met and 1 / step >= 20
    assert r.decode_tokens_per_second == pytest.approx(decode_tps)
    assert r.prefill_seconds_per_request == pytest.approx(prefill) and prefill == pytest.approx(0.04)
    assert r.replica_seconds_per_request == pytest.approx(per_request)
    assert r.requests_per_second == pytest.approx(1 / per_request)


def test_replica_at_tensor_parallel_two_doubles_memory_bandwidth_and_flops():
    r = replica_at(2, **_toy(max_batch=10_000))
    kv_tok, ctx_avg, ctx_max = 512, 1100, 1200
    b_mem = math.floor((2 * 9e9 - 2e9) / (kv_tok * ctx_max))   # 16e9 / 614,400 → 26,041
    b_bw = (2 * 5e10 / 20 - 2e9) / (kv_tok * ctx_avg)          # (5e9 − 2e9) / 563,200 ≈ 5,326.7
    b_cmp = 2 * 5e13 / (2 * 1e9 * 20)                           # 2,500
    assert r.batch_memory_limit == b_mem
    assert b_cmp < b_bw
    assert r.bound == "latency-compute" and r.batch == 2500
    step = max((2e9 + 2500 * kv_tok * ctx_avg) / 1e11, 2 * 1e9 * 2500 / 1e14)  # max(0.0341, 0.05) = 0.05
    assert step == pytest.approx(0.05)
    assert r.step_seconds == pytest.approx(step)
    assert r.replicas_per_server == 4 // 2
    assert r.prefill_seconds_per_request == pytest.approx(2 * 1e9 * 1000 / 1e14)


def test_replica_at_memory_bound():
    # 3 GB GPU: 2.7e9 usable − 2e9 weights = 7e8 B for KV → floor(7e8 / 614,400) = 1,139 sequences;
    # the latency and compute limits are lifted with plenty of bandwidth and FLOPS
    r = replica_at(1, **_toy(gpu_memory_gb=3.0, bandwidth_tbs=100.0, peak_tflops=1e5, max_batch=10_000))
    expected = math.floor((3e9 * 0.9 - 2e9) / (512 * 1200))
    assert expected == 1139
    assert r.bound == "memory" and r.batch == expected == r.batch_memory_limit


def test_replica_at_max_batch_bound():
    r = replica_at(1, **_toy(bandwidth_tbs=100.0, peak_tflops=1e5, max_batch=256))
    assert r.bound == "max-batch" and r.batch == 256


def test_replica_at_none_when_weights_and_one_sequence_do_not_fit():
    # 2 GB GPU: 1.8e9 usable < 2e9 of weights
    assert replica_at(1, **_toy(gpu_memory_gb=2.0)) is None
    # on two such GPUs 3.6e9 ≥ 2e9 + 614,400: it fits
    assert replica_at(2, **_toy(gpu_memory_gb=2.0)) is not None


def test_replica_at_target_missed_sizes_at_batch_one():
    # 1,000 tokens/s per user is beyond the toy GPU even at batch 1: (2e9 + 563,200)/5e10 ≈ 0.04 s per step
    r = replica_at(1, **_toy(target_tps=1000.0))
    step = (2e9 + 1 * 512 * 1100) / 5e10
    assert r.batch == 1
    assert r.step_seconds == pytest.approx(step)
    assert r.tokens_per_second_per_user == pytest.approx(1 / step)
    assert not r.target_met


def test_step_seconds_takes_the_slower_of_bandwidth_and_compute():
    assert sizing.step_seconds(10, 2e9, 1e6, 1e11, 1e14, 1e9) == pytest.approx((2e9 + 10 * 1e6) / 1e11)
    assert sizing.step_seconds(1000, 2e9, 1e3, 1e12, 1e14, 1e9) == pytest.approx(2 * 1e9 * 1000 / 1e14)


def _size(**kw):
    args = _toy(**kw)
    return size_replica(**args)


def _best_by_hand(tp_eff=None, **kw):
    args = _toy(**kw)
    cands = []
    for tp in (1, 2, 4):
        e = (tp_eff or {}).get(tp, 1.0)
        r = replica_at(tp, **{**args, "bw_eff": args["bw_eff"] * e, "flops_eff": args["flops_eff"] * e})
        if r is not None:
            cands.append(r)
    return max(cands, key=lambda r: (r.target_met, r.requests_per_second / r.tensor_parallel))


def test_size_replica_picks_most_requests_per_gpu():
    best = _size()
    by_hand = _best_by_hand()
    assert best.tensor_parallel == by_hand.tensor_parallel
    rates = {tp: replica_at(tp, **TOY).requests_per_second / tp for tp in (1, 2, 4)}
    assert rates[best.tensor_parallel] == max(rates.values())


def test_size_replica_tensor_parallel_efficiency_can_make_tp1_win():
    # with a 50 % penalty on multi-GPU replicas, one GPU per replica serves the most per GPU
    eff = {1: 1.0, 2: 0.5, 4: 0.5}
    best = size_replica(**TOY, tp_efficiency=eff)
    assert best.tensor_parallel == _best_by_hand(tp_eff=eff).tensor_parallel == 1


def test_size_replica_needs_tp_when_weights_do_not_fit_one_gpu():
    # 2 GB GPUs cannot hold 2 GB of weights at 90 % usable: TP = 1 is skipped
    best = _size(gpu_memory_gb=2.0)
    assert best.tensor_parallel >= 2
    assert best.tensor_parallel == _best_by_hand(gpu_memory_gb=2.0).tensor_parallel


def test_size_replica_prefers_a_layout_meeting_the_target():
    # one sequence per replica (max_batch 1) and a 10 % loss on multi-GPU replicas; 30 tokens/s per user.
    # TP 1: step (2e9 + 563,200) / 5e10 ≈ 0.0400 s → 25 tokens/s, misses the target but serves the most per GPU;
    # TP 2: step (2e9 + 563,200) / 9e10 ≈ 0.0222 s → 45 tokens/s, meets it: the layout meeting the target wins
    eff = {1: 1.0, 2: 0.9, 4: 0.9}
    args = _toy(target_tps=30.0, max_batch=1)
    r1 = replica_at(1, **args)
    r2 = replica_at(2, **{**args, "bw_eff": 0.5 * 0.9, "flops_eff": 0.5 * 0.9})
    step1 = (2e9 + 512 * 1100) / 5e10
    step2 = (2e9 + 512 * 1100) / 9e10
    rps1 = 1 / (2e9 * 1000 / 5e13 + 200 * step1)
    rps2 = 1 / (2e9 * 1000 / 9e13 + 200 * step2)
    assert r1.requests_per_second == pytest.approx(rps1) and r2.requests_per_second == pytest.approx(rps2)
    assert not r1.target_met and r2.target_met
    assert rps1 / 1 > rps2 / 2
    best = size_replica(**args, tp_efficiency=eff)
    assert best.target_met and best.tensor_parallel == 2  # TP 4 ties TP 2 per GPU; the first found is kept


def test_size_replica_none_when_nothing_fits():
    assert _size(gpu_memory_gb=0.4) is None  # 4 × 0.36 GB < 2 GB of weights


def test_size_replica_only_tries_divisors_of_the_server():
    # 0.6 GB GPUs (0.54 GB usable) need TP 4 (2.16 GB) for 2 GB of weights; on a 6-GPU server TP 4 is not
    # a divisor and TP 8 exceeds the server, so nothing fits; on an 8-GPU server TP 4 does
    assert _size(gpu_memory_gb=0.6, gpus_per_server=6) is None
    assert _size(gpu_memory_gb=0.6, gpus_per_server=8).tensor_parallel in (4, 8)


@pytest.mark.parametrize("rps, cap, util, red, expected", [
    (0.0, 1.0, 0.8, "none", 0),        # no load, no replica (and no spare)
    (0.0, 1.0, 0.8, "n+1", 0),
    (1.0, 1.0, 0.8, "none", 2),        # ceil(1 / 0.8) = ceil(1.25) = 2
    (1.0, 1.0, 0.8, "n+1", 3),         # … plus one spare
    (1.6, 1.0, 0.8, "none", 2),        # exactly 2 replicas at 80 %: no extra from rounding noise
    (0.1, 2.0, 0.5, "none", 1),        # ceil(0.1 / 1.0) = 1
    (10.0, 0.5, 1.0, "n+1", 21),       # ceil(10 / 0.5) = 20, + 1
])
def test_replicas_needed(rps, cap, util, red, expected):
    assert replicas_needed(rps, cap, util, red) == expected


def test_replicas_needed_tiny_positive_load_needs_one():
    # costs.inference_servers_by_hour clamps this case to 1 replica; replicas_needed does not
    assert replicas_needed(1e-12, 1.0, 1.0, "none") == 1


@pytest.mark.parametrize("replicas, per_server, expected", [
    (0, 8, 0), (1, 8, 1), (8, 8, 1), (9, 8, 2), (3, 1, 3), (5, 2, 3),
])
def test_servers_for(replicas, per_server, expected):
    assert servers_for(replicas, per_server) == expected


def test_size_training_given_servers_never_below_the_memory_minimum():
    t = _train(method="full", tokens=1e8, epochs=1.0, servers=1)
    assert t.min_gpus == math.ceil(16 * 70e9 * 1.25 / (141e9 * 0.9)) == 12
    assert t.servers == 2 and t.gpus >= t.min_gpus  # 1 server (8 GPUs) cannot hold the job: raised to 2
