"""tco.sizing.moe_rules: the MoE layers, the MoE block's fixed cost under expert parallel and the experts' exchange
(AllGather + ReduceScatter inside one server, all-to-all across servers), each by hand, through the replica rules."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.expr import Const, Env
from tco.sizing import moe_rules
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, replica_table

MAVERICK = ModelSpec(params=400e9, active_params=17e9, layers=48, hidden=5120, kv_heads=8, head_dim=128, experts=128,
                     experts_per_token=1, precision="fp8", kv_precision="fp8", heads=40, moe_layers=24)
"""Llama 4 Maverick as models.csv has it: 24 MoE layers of 48, top-1 of 128 experts, hidden 5,120."""
H200 = Hardware(memory_gb=141.0, bandwidth_tbs=4.8, peak_tflops=1979.0, gpus_per_server=8, link_gbs=450.0,
                link_latency_s=5.7e-6, link_share=370.0 / 450.0)
"""NVLink at NCCL's 370 of 450 GB/s one way, α 5.7 µs (tco.sizing.replica)."""
EFF = Calibration(bandwidth_share=0.95, flops_share=0.55, interconnect_share=0.45, step_overhead_seconds=0.0,
                  collective_latency_seconds=0.0, sequence_overhead_seconds=1e-5, layer_overhead_seconds=1e-4)
LOAD = Load(input_tokens=1000.0, output_tokens=1000.0, max_batch=4096)


def _env(**inputs: float) -> Env:
    base = {"experts": 128.0, "experts_k": 1.0, "moe_layers": 24.0, "layer_over": 1e-4}
    return Env(base | inputs, 1)


def test_moe_layers_and_block_overhead_by_hand():
    # Maverick under expert parallel: 24 MoE blocks × t_layer 100 µs = 2.4 ms; nothing under tensor parallel
    assert float(moe_rules.block_overhead(Const(1)).np(_env())) == pytest.approx(24 * 1e-4, rel=1e-12)
    assert float(moe_rules.block_overhead(Const(0)).np(_env())) == 0.0
    # a dense model has no MoE layer, whatever the column says
    assert float(moe_rules.moe_layers().np(_env(experts=0.0, experts_k=0.0))) == 0.0


def test_exchange_inside_a_server_moves_every_token_whatever_k():
    """Maverick EP8 on one server, batch 1,000 at 1,000/1,000 (r = 1): 2,000 tokens in the group each step. AllGather +
    ReduceScatter: each GPU receives 7/8 × 2,000 × 10,240 B = 17.92 MB and returns as much; per MoE layer
    2 × (5.7 µs + 17.92e6 / 370e9) = 2 × (5.7 + 48.432) µs = 108.265 µs; 24 layers: 2.598 ms. (The all-to-all the
    rules charged before, 48 layers × 2 × (5.7 µs + 7/8 × 250 × 1 × 10,240 B / 370 GB/s), was 1.128 ms.)"""
    v = replica_table([Layout(8, 1, "ep")], MAVERICK, H200, LOAD, EFF, batch=1000)[0]
    per_layer = 2 * (5.7e-6 + 7 / 8 * 2000 * 5120 * 2 / 370e9)
    assert round(per_layer * 1e6, 3) == 108.265
    assert v["coll_s"] == pytest.approx(24 * per_layer, rel=1e-9)
    assert round(v["coll_s"] * 1e3, 3) == 2.598
    # the per-sequence part the batch's closed form uses: 24 × 2 × 7/8 × 2 tokens × 10,240 B / 370 GB/s
    assert v["c_seq"] == pytest.approx(24 * 2 * 7 / 8 * 2 * 10240 / 370e9, rel=1e-9)
    assert v["c_const"] == pytest.approx(24 * 2 * 5.7e-6, rel=1e-12)


def test_overhead_adds_one_t_layer_per_moe_layer_under_expert_parallel_only():
    # t0 0 + (48 + 24) × 100 µs + 1,000 / 8 × 10 µs = 7.2 + 1.25 = 8.45 ms under EP8 (each rank's loop its 125
    # sequences, side by side); TP8 keeps 48 × 100 µs + 1,000 × 10 µs = 4.8 + 10 = 14.8 ms (one loop, every sequence)
    ep, tp = replica_table([Layout(8, 1, "ep"), Layout(8)], MAVERICK, H200, LOAD, EFF, batch=1000)
    assert ep["overhead_s"] == pytest.approx((48 + 24) * 1e-4 + 1000 / 8 * 1e-5, rel=1e-12)
    assert round(ep["overhead_s"] * 1e3, 2) == 8.45
    assert tp["overhead_s"] == pytest.approx(48 * 1e-4 + 1000 * 1e-5, rel=1e-12)


def test_the_host_cost_per_sequence_is_each_ranks_under_attention_data_parallel():
    """DeepSeek-R1's MOE36 shape: 3,072 sequences on EP8 at t_seq 8.68 µs. One loop over all would take
    3,072 × 8.68 µs = 26.66 ms a step; eight ranks, 384 sequences each, side by side: 384 × 8.68 µs = 3.33 ms."""
    env = Env({"seq_over": 8.68e-6}, 1)
    per_seq = float(moe_rules.sequence_overhead(Const(1), Const(8)).np(env))
    assert per_seq == pytest.approx(8.68e-6 / 8, rel=1e-12)
    assert round(3072 * per_seq * 1e3, 2) == 3.33
    assert round(3072 * float(moe_rules.sequence_overhead(Const(0), Const(8)).np(env)) * 1e3, 2) == 26.66
    # through the rules: t_seq adds 10 µs / 8 = 1.25 µs to the EP8 slope (the batch's closed form), 10 µs to TP8's
    lays = [Layout(8, 1, "ep"), Layout(8)]
    ep, tp = replica_table(lays, MAVERICK, H200, LOAD, EFF, batch=1000)
    ep0, tp0 = replica_table(lays, MAVERICK, H200, LOAD, replace(EFF, sequence_overhead_seconds=0.0), batch=1000)
    assert ep["slope"] - ep0["slope"] == pytest.approx(1.25e-6, rel=1e-9)
    assert tp["slope"] - tp0["slope"] == pytest.approx(1e-5, rel=1e-9)


def test_across_servers_the_all_to_all_sends_each_token_to_its_k_experts():
    """EP over 2 servers (parts 2) of a top-8 model, batch 100, r = 1: 200 tokens, each part 100 × k 8 × 2d bytes, half of
    it leaves: per MoE layer 2 × (20 µs + 1/2 × 100 × 8 × 4,096 × 2 / 50e9); the share is k/p = 4 per token."""
    qwen_like = replace(MAVERICK, params=235e9, active_params=22e9, layers=94, hidden=4096, kv_heads=4, heads=64,
                        experts_per_token=8, moe_layers=0)
    hw = replace(H200, network_gbps=400.0, network_latency_s=20e-6)
    eff = replace(EFF, interconnect_share=1.0)
    v = replica_table([Layout(8, 2, "ep")], qwen_like, hw, LOAD, eff, batch=100)[0]
    assert float(moe_rules.token_share(Const(2), Const(2)).np(_env(experts_k=8.0))) == 4.0
    per_layer = 2 * (20e-6 + 1 / 2 * 100 * 8 * 4096 * 2 / 50e9)
    assert v["coll_s"] == pytest.approx(94 * per_layer, rel=1e-9)   # moe_layers empty: every one of the 94 layers


def test_a_prompt_alone_is_gathered_to_every_gpu():
    # one 1,000-token prompt on one GPU of EP8, padded: n = 8 × 1,000 × 10,240 B; 24 × 2 × (5.7 µs + 7/8 × n / 370 GB/s)
    n = 8 * 1000 * 10240
    expected = 24 * 2 * (5.7e-6 + 7 / 8 * n / 370e9)
    got = moe_rules.prompt_exchange(Const(1000 * 10240), Const(8), Const(1), Const(370e9), Const(5.7e-6)).np(_env())
    assert float(got) == pytest.approx(expected, rel=1e-12)
    assert round(expected * 1e3, 2) == 9.57


@given(k=st.integers(1, 16), tokens=st.floats(1, 1e6), parts=st.sampled_from([2, 4, 8]))
def test_inside_a_server_the_exchange_does_not_depend_on_k_and_grows_with_tokens(k, tokens, parts):
    def time(k_, n):
        env = _env(experts_k=float(k_))
        share = moe_rules.token_share(Const(parts), Const(1))
        return float(moe_rules.exchange(Const(n * 10240) * share, Const(parts), Const(370e9), Const(5.7e-6)).np(env))
    assert time(k, tokens) == time(1, tokens)
    assert time(k, 2 * tokens) >= time(k, tokens)
    assert float(moe_rules.exchange(Const(1.0), Const(1), Const(1.0), Const(1.0)).np(_env())) == 0.0
