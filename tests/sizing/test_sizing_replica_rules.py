"""The replica rules (tco.sizing.replica_rules): every rule rendered as the Sizing sheet writes it and recalculated
in-process by an Excel evaluator (the `formulas` package) equals its numpy value, for the toy replica in
every layout kind; the workbook's names cover every input; a hand-worked case of the rules alone."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.sizing import replica_rules as sizing_rules
from tco.expr import Const, XlContext
from tco.sizing.replica import Calibration, Hardware, Layout, Load, ModelSpec, inputs_of, replica_table
from expr_walk import inputs_used

formulas = pytest.importorskip("formulas")

TOY_M = ModelSpec(params=1e9, active_params=1e9, layers=2, hidden=64, kv_heads=1, head_dim=64)
TOY_MOE = replace(TOY_M, active_params=0.4e9, experts=8, experts_per_token=2)
TOY_HW = Hardware(memory_gb=10.0, bandwidth_tbs=0.1, peak_tflops=100.0, gpus_per_server=4, link_gbs=10.0,
                  network_gbps=100.0)
TOY_LOAD = Load(input_tokens=1000.0, output_tokens=200.0, target_tps=20.0, ttft_seconds=0.5, max_batch=1000)
TOY_EFF = Calibration(bandwidth_share=0.5, flops_share=0.5, interconnect_share=0.5, step_overhead_seconds=0.001,
                      collective_latency_seconds=1e-5)




def test_every_input_has_a_workbook_name_and_a_numpy_value():
    used: set[str] = set()
    for rule in sizing_rules.RULES:
        inputs_used(rule.expr, used)
    assert used <= set(sizing_rules.INPUTS)
    assert set(sizing_rules.INPUTS) <= set(inputs_of(TOY_M, TOY_HW, TOY_LOAD, TOY_EFF))


def _excel(rule, inputs: dict, row_values: dict) -> float:
    """One rule's formula with every input and every other row in a cell of its own, and the named constants of
    tco.constants by name (c_prompt_attn_share), evaluated as Excel."""
    from tco.constants import ALL

    names = {n: f"IN{i}" for i, n in enumerate(sorted(inputs), start=1)}
    keys = {k: i for i, k in enumerate(sorted(row_values), start=10)}
    ctx = XlContext(col="F", prev=None, row_of=lambda key: keys[key], name_of=lambda n: names[n])
    cells = {names[n]: float(v) for n, v in inputs.items()} | {f"F{keys[k]}": float(v) for k, v in row_values.items()}
    cells |= {c.name.upper(): c.value for c in ALL}
    func = formulas.Parser().ast(rule.formula(ctx))[1].compile()
    out = func(*(cells[name.replace("$", "")] for name in func.inputs))
    return float(np.asarray(out, dtype=object).ravel()[0])


@pytest.mark.parametrize("model,lay", [(TOY_M, Layout(1)), (TOY_M, Layout(2)), (TOY_M, Layout(4, 2, "pp")),
                                       (TOY_MOE, Layout(4, 2, "ep")), (TOY_MOE, Layout(1)),
                                       (TOY_MOE, Layout(4, 1, "ep")), (replace(TOY_M, precision="fp4"), Layout(2)),
                                       (replace(TOY_MOE, precision="fp4", wide_params=0.1e9, wide_precision="bf16",
                                                head_params=0.05e9, vocab_precision="bf16"), Layout(4, 1, "ep"))])
def test_each_rule_recalculates_in_excel_to_its_numpy_value(model, lay):
    hw = replace(TOY_HW, fp4_gemm=model.precision == "fp4")  # the fp4 cases on FP4 tensor cores: c_fp4_gemm_share
    v = replica_table([lay], model, hw, TOY_LOAD, TOY_EFF)[0]
    inputs = inputs_of(model, hw, TOY_LOAD, TOY_EFF)
    rows = {k: (1.0 if v[k] is True else 0.0 if v[k] is False else v[k]) for k in v
            if isinstance(v[k], (int, float)) and k not in ("link_gbs", "network_gbps", "link_lat", "net_lat")}
    rows["ep"] = float(lay.mode == "ep")
    rows["bound"] = 1.0 + sizing_rules.BOUND_TERMS.index(v["bound"])
    for rule in sizing_rules.RULES:
        assert _excel(rule, inputs, rows) == pytest.approx(rows[rule.key], rel=1e-12, abs=1e-15), rule.key


def test_rules_alone_by_hand():
    # TP 1 of the toy (bf16, 1 head of 64, r = 1000/200 = 5, L̄ = 1,100): b_mem = floor((9e9 − 2e9) / (512 × 1,200))
    # = 11,393 (KV reserved to completion, ISL + OSL = 1,200); the weights take a_w = 2e9 / 5e10 + 1 ms = 0.041 s;
    # the GEMMs g = 6 × 2 × 1e9 / 5e13 = 2.4e-4 s per sequence; s = 512 × 1,100 / 5e10 (the KV read is the mean L̄)
    # + attention 4·2·1·64·(1,100 + 5 × 500 / 0.89) / 5e13 ≈ 1.1304e-5 s (the prompt's part ÷ r_a = 0.89,
    # tco.constants.PROMPT_ATTN_SHARE). The decode GEMMs g_d = g/6 = 4e-5 s, the prompt's g_p = 5g/6 = 2e-4 s;
    # n = b/200 of the steps carry a 1,000-token prompt (compute-bound) and save their weight read
    # (tco/sizing/prefill_rules.py). The target 20 tokens/s bounds b three ways: the weights alone,
    # (0.05 − 0.041) / s = 796.2; every step compute-bound, (0.05 − 0.001) / (g + s) = 194.98; the prompt steps
    # compute-bound and the others reading the weights, (g_d/200)·b² + (s + g_p − 0.04/200)·b − 0.009 ≤ 0, whose
    # root 2 × 0.009 / (B + √(B² + 4 × 2e-7 × 0.009)), B = s + 2e-4 − 2e-4 = s, is 185.75: b = 185
    attn = 4 * 2 * 1 * 64 * (1100 + 5 * 500 / 0.89)
    slope, g = 512 * 1100 / 5e10 + attn / 5e13, 6 * 2 * 1e9 / 5e13
    g_d, g_p = g / 6, 5 * g / 6
    v = replica_table([Layout(1)], TOY_M, TOY_HW, replace(TOY_LOAD, ttft_seconds=None), TOY_EFF)[0]
    assert v["b_mem"] == math.floor(7e9 / (512 * 1200)) == 11_393
    assert v["a1"] == pytest.approx(0.041, rel=1e-12)
    assert v["slope"] == pytest.approx(slope, rel=1e-12) and v["g1"] == pytest.approx(g, rel=1e-12)
    qb = slope + g_p - 0.04 / 200
    root = 2 * 0.009 / (qb + math.sqrt(qb * qb + 4 * (g_d / 200) * 0.009))
    assert round(root, 2) == 185.75
    assert v["batch"] == math.floor(min(0.009 / slope, root, (1 / 20 - 0.001) / (g + slope))) == 185
    # the cycle at 185: n = 0.925, (1 − 0.925) × 0.04 + 0.925 × 185 × 4e-5 + 185 × 2e-4 = 0.046845 s of GEMMs
    gemm = 0.075 * 0.04 + 0.925 * 185 * g_d + 185 * g_p
    assert gemm == pytest.approx(0.046845, rel=1e-12)
    assert v["cycle"] == pytest.approx(gemm + 185 * slope + 0.001, rel=1e-12) and v["cycle"] <= 0.05
    assert v["tps_met"] and v["ttft_met"] and v["bound"] == "latency-compute"


def test_latency_bound_decode_step_of_a_70b_fp8_on_8_h100_by_hand():
    """The step of a 70B FP8 (80 layers, d 8,192, 64 query heads of 128, 8 KV heads) at TP8 on H100 SXM with batch 4,
    2,048/128 tokens (r = 16, L̄ = 2,112), η_bw 0.9, η_c 0.6, η_link 0.8, t0 2 ms, NVLink α 5.7 µs:

    weights 70e9 B over 8 × 3.35e12 × 0.9 = 2.412e13 B/s: w = 2.902 ms; decode GEMMs 4 × 2 × 70e9 / (8 × 1,979e12 ×
    0.6) = 0.0590 ms, the prompt's 16 times that, 0.943 ms; n = 4/128 of the cycles carry a 2,048-token prompt
    (compute-bound) and save their weight read: GEMMs w + 0.943 − n × (w − 0.0590) = 3.757 ms, of which (1 − n) × w =
    2.811 ms reading the weights; KV 4 × 2,112 × 163,840 B / 2.412e13 = 0.0574 ms; attention 4 × 4·80·64·128·(2,112 +
    16 × 1,024 / 0.89) / 9.4992e15 = 0.0227 ms (the prompt's part ÷ r_a = 0.89); 160 all-reduces of 4 × 17 × 16,384
    B: 160 × (5.7 µs + 2·7/8 × 1,114,112 / 3.6e11 B/s) = 1.779 ms; t0 2 ms. Step 7.62 ms: 131 tokens/s per user, the
    all-reduces 23 % of it (the fitted α of 74 µs at η_link 0.48 made them 13.3 ms)."""
    m = ModelSpec(70e9, 70e9, 80, 8192, 8, 128, precision="fp8", kv_precision="fp8")
    hw = Hardware(80.0, 3.35, 1979.0, 8, 450.0, None, 5.7e-6)
    eff = Calibration(0.9, 0.6, 0.8, 2e-3, 0.0)
    v = replica_table([Layout(8)], m, hw, Load(2048.0, 128.0, None, None, 2048), eff, batch=4)[0]
    w_s = 70e9 / (8 * 3.35e12 * 0.9)
    kv_s = 4 * 2112 * 163_840 / (8 * 3.35e12 * 0.9)
    attn_s = 4 * 4 * 80 * 64 * 128 * (2112 + 16 * 1024 / 0.89) / (8 * 1979e12 * 0.6)
    assert round(attn_s * 1e3, 4) == 0.0227
    coll_s = 160 * (5.7e-6 + 2 * 7 / 8 * (4 * 17 * 8192 * 2) / (450e9 * 0.8))
    g_d, n = 4 * 2 * 70e9 / (8 * 1979e12 * 0.6), 4 / 128
    gemm = w_s + 16 * g_d - n * (w_s - g_d)
    assert 17 * g_d < w_s and round(gemm * 1e3, 3) == 3.757
    assert v["mem_s"] == pytest.approx((1 - n) * w_s + kv_s, rel=1e-12)
    assert v["cmp_s"] == pytest.approx(attn_s + gemm - (1 - n) * w_s, rel=1e-12)
    assert v["coll_s"] == pytest.approx(coll_s, rel=1e-12)
    assert v["cycle"] == pytest.approx(gemm + kv_s + attn_s + coll_s + 2e-3, rel=1e-12)
    assert round(v["cycle"] * 1e3, 2) == 7.62 and round(coll_s * 1e3, 3) == 1.779


def test_expert_parallel_exchange_by_hand():
    """EP4 inside a server (attention data-parallel, experts split over 4 GPUs) of the toy MoE at batch 10, r = 5:
    60 tokens in the group. Inside one server the exchange is AllGather + ReduceScatter (tco.sizing.moe_rules): each
    GPU receives the other GPUs' tokens, 3/4 × 60 × 64 × 2 B = 3/4 × 7,680 B, and returns as much, whatever k; per layer
    2 × (α + 3/4 × 7,680 / 5e9) with α = 5.7 µs + the calibration's 10 µs; 2 layers: 2 × 2 × (15.7e-6 + 1.152e-6)
    = 67.408 µs. No all-reduce: the replica holds 4 × shared + experts, its KV once."""
    hw = replace(TOY_HW, link_latency_s=5.7e-6)
    v = replica_table([Layout(4, 1, "ep")], TOY_MOE, hw, TOY_LOAD, TOY_EFF, batch=10)[0]
    message = 60 * 64 * 2
    assert message == 7680
    assert v["coll_s"] == pytest.approx(2 * 2 * ((5.7e-6 + 1e-5) + 3 / 4 * message / 5e9), rel=1e-12)
    assert round(v["coll_s"] * 1e6, 3) == 67.408
    experts = (1e9 - 0.4e9) / (1 - 2 / 8)
    assert v["held_b"] == pytest.approx(2 * (4 * (1e9 - experts) + experts), rel=1e-12)
    assert v["kv_rep"] == v["kv_tok"] == 512


def test_imbalance_is_the_expected_busiest_gpu_and_1_without_expert_parallel():
    # batch 10, r 5, k 2 over G 4: μ = 10 × 6 × 2 / 4 = 30 pairs per GPU; 1 + √(2 ln 4 / 30) = 1.30400...
    v = replica_table([Layout(4, 1, "ep"), Layout(4)], TOY_MOE, TOY_HW, TOY_LOAD, TOY_EFF, batch=10)
    assert v[0]["imb"] == pytest.approx(1 + math.sqrt(2 * math.log(4) / 30), rel=1e-12)
    assert v[1]["imb"] == 1.0


def test_kv_heads_repeat_beyond_their_count_under_tensor_parallel():
    # 1 KV head at TP4: every GPU keeps it, 4 copies; 8 heads at TP4 are split, one copy
    v = replica_table([Layout(4)], TOY_M, TOY_HW, TOY_LOAD, TOY_EFF)[0]
    assert v["kv_rep"] == 4 * v["kv_tok"]
    v = replica_table([Layout(4)], replace(TOY_M, kv_heads=8, head_dim=8), TOY_HW, TOY_LOAD, TOY_EFF)[0]
    assert v["kv_rep"] == v["kv_tok"]


def test_without_targets_the_batch_fills_memory_and_the_bound_says_so():
    # no tokens/s and no TTFT target (0 in the rules): 1/0 is infinite, so memory or the cap decides
    load = replace(TOY_LOAD, target_tps=None, ttft_seconds=None, max_batch=100)
    v = replica_table([Layout(1)], TOY_M, TOY_HW, load, TOY_EFF)[0]
    assert v["batch"] == 100 and v["bound"] == "max-batch" and v["met"]
    v = replica_table([Layout(1)], TOY_M, replace(TOY_HW, memory_gb=3.0), replace(load, max_batch=10_000), TOY_EFF)[0]
    assert v["batch"] == math.floor((3e9 * 0.9 - 2e9) / (512 * (1000 + 200))) == 1139 and v["bound"] == "memory"


def test_the_memory_batch_reserves_whole_sequences_and_the_cycle_reads_the_mean():
    # TensorRT-LLM's GUARANTEED_NO_EVICT admits a request only when the cache takes it to its last token: at
    # 1,000/8,000 the toy (512 B of KV per token, 9e9 − 2e9 = 7e9 B free) holds floor(7e9 / (512 × 9,000)) = 1,519
    # sequences, not floor(7e9 / (512 × 5,000)) = 2,734 at the mean context 1,000 + 8,000/2; a cycle still reads the
    # mean: 1,519 × 5,000 × 512 B
    load = replace(TOY_LOAD, output_tokens=8000.0, target_tps=None, ttft_seconds=None, max_batch=10_000)
    v = replica_table([Layout(1)], TOY_M, TOY_HW, load, TOY_EFF)[0]
    assert v["b_mem"] == math.floor(7e9 / (512 * 9000)) == 1519 != math.floor(7e9 / (512 * 5000))
    assert v["batch"] == 1519 and v["bound"] == "memory"
    assert v["kv_read"] == pytest.approx(1519 * 5000 * 512)


def test_a_framework_that_pages_kv_on_demand_holds_the_mean_context():
    # vLLM and SGLang allocate KV pages as tokens come (KV_RESERVE_SHARE 0.5): the same toy at 1,000/8,000 holds
    # floor(7e9 / (512 × (1,000 + 0.5 × 8,000))) = floor(7e9 / 2,560,000) = 2,734 sequences; TensorRT-LLM (1.0) 1,519
    from tco.sizing.replica import KV_RESERVE_SHARE

    load = replace(TOY_LOAD, output_tokens=8000.0, target_tps=None, ttft_seconds=None, max_batch=10_000)
    paged = replica_table([Layout(1)], TOY_M, TOY_HW, replace(load, kv_reserve_share=KV_RESERVE_SHARE["vllm"]),
                          TOY_EFF)[0]
    assert paged["b_mem"] == math.floor(7e9 / (512 * 5000)) == 2734
    assert KV_RESERVE_SHARE["trtllm"] == KV_RESERVE_SHARE["generic"] == 1.0 == 2 * KV_RESERVE_SHARE["sglang"]
    assert replica_table([Layout(1)], TOY_M, TOY_HW, load, TOY_EFF)[0]["b_mem"] == 1519


def test_one_evaluation_over_layouts_equals_one_per_layout():
    lays = [Layout(1), Layout(2), Layout(4), Layout(4, 2, "pp")]
    together = replica_table(lays, TOY_M, TOY_HW, TOY_LOAD, TOY_EFF)
    for lay, v in zip(lays, together):
        assert replica_table([lay], TOY_M, TOY_HW, TOY_LOAD, TOY_EFF)[0] == v


@pytest.mark.parametrize("model", [TOY_M, TOY_MOE], ids=["dense", "moe"])
def test_tables_evaluated_together_equal_each_alone(monkeypatch, model):
    """sizing_inference.replica_tables: tables of several servers (different memory, bandwidth, FLOP/s, links,
    network, calibration) in one pass are, value by value, the tables each gives alone."""
    from collections import OrderedDict

    from tco.sizing import replica as sizing_inference

    servers = [TOY_HW, replace(TOY_HW, memory_gb=3.0), replace(TOY_HW, bandwidth_tbs=0.37, peak_tflops=61.0),
               replace(TOY_HW, link_gbs=0.0, network_gbps=None), replace(TOY_HW, gpus_per_server=8)]
    effs = [TOY_EFF, TOY_EFF, replace(TOY_EFF, bandwidth_share=0.71), TOY_EFF, TOY_EFF]
    keys = [((Layout(1), Layout(2), Layout(4, 2, "pp")), model, hw, TOY_LOAD, eff, None)
            for hw, eff in zip(servers, effs)]
    monkeypatch.setattr(sizing_inference, "_TABLES", OrderedDict())
    together = sizing_inference.replica_tables(keys)
    for key, table in zip(keys, together):
        monkeypatch.setattr(sizing_inference, "_TABLES", OrderedDict())
        alone = sizing_inference.replica_tables([key])[0]
        assert _bits(alone) == _bits(table)  # repr: NaN equals NaN, −0.0 differs from 0.0, floats to the last bit


def _bits(table) -> list[list[tuple[str, str]]]:
    return [sorted((k, repr(x)) for k, x in v.items()) for v in table]


def test_the_plan_search_sizes_the_catalog_as_one_offer_at_a_time(monkeypatch):
    """The plan's offers sized together (plan.components.prime_serving) give every replica the engine's one-offer
    sizing gives (seed scenario: every GPU of the catalog)."""
    from collections import OrderedDict

    from tco import api
    from tco.sizing import replica as sizing_inference
    from tco.plan.components import context, offers, prime_serving, serving_size

    inp = api.load("scenarios/seed_70b_h200.toml")
    ctx = context(inp.scenario, inp.catalog, inp.path)
    fleets = offers(ctx)
    assert len({f.gpu.gpu for f in fleets}) >= 5
    monkeypatch.setattr(sizing_inference, "_TABLES", OrderedDict())
    prime_serving(ctx, fleets)
    together = [serving_size(ctx, f) for f in fleets]
    for f, rep in zip(fleets, together):
        monkeypatch.setattr(sizing_inference, "_TABLES", OrderedDict())
        assert serving_size(ctx, f) == rep


def test_prompt_imbalance_of_attention_data_parallel_by_hand():
    """EP4 of the toy MoE at batch 40, 1000/200 tokens: μ_p = 40 / (4 × 200) = 0.05 prompts per GPU per step;
    1 + √(2 ln 4 / 0.05) = 8.45 > 4, so the busiest GPU carries all 4 shares: f = 4. Its extra work per sequence
    (f − 1) × r × (2 × (N_a − N_ae) + attention at ISL/2 ÷ r_a) / FLOP/s, N_ae = 0.8e9 × 2/8 = 0.2e9, r_a = 0.89:
    3 × 5 × (2 × 0.2e9 + 4·2·1·64·500 / 0.89) / (4 × 100e12 × 0.5) = 3.002157e-5 s; plus those 3 × 5 tokens through its own
    port, gathered out and reduced back on both layers: 3 × 2 layers × 2 × 3/4 × 5 × 128 B / (10 GB/s × 0.5) =
    3 × 1,920 / 5e9 = 1.152e-6 s; together 3.117357e-5 s."""
    v = replica_table([Layout(4, 1, "ep"), Layout(4)], TOY_MOE, TOY_HW, TOY_LOAD, TOY_EFF, batch=40)
    port = 3 * 2 * 2 * 3 / 4 * 5 * 2 * 64 / (10e9 * 0.5)
    assert round(port, 12) == 1.152e-6
    extra = 3 * 5 * (2 * (0.4e9 - 0.2e9) + 4 * 2 * 1 * 64 * 500 / 0.89) / (4 * 100e12 * 0.5) + port
    assert round(extra, 11) == 3.117357e-5
    attn = 40 * 4 * 2 * 1 * 64 * (1100 + 5 * 500 / 0.89) / (4 * 100e12 * 0.5)
    gemm = v[0]["gemm_s"]
    w_s = v[0]["w_read"] / v[0]["bw"]
    assert v[0]["cmp_s"] == pytest.approx(attn + 40 * extra + (gemm if gemm > w_s else 0), rel=1e-12)
    # tensor parallel shares every prompt: no extra
    assert v[1]["cmp_s"] == pytest.approx(attn + (v[1]["gemm_s"] if v[1]["gemm_s"] > v[1]["w_read"] / v[1]["bw"]
                                                  else 0), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(batch=st.integers(1, 5000), gpus=st.sampled_from([2, 4, 8]), isl=st.floats(16, 20000), osl=st.floats(16, 4000))
@pytest.mark.slow
def test_imbalances_lie_between_one_and_all_shares(batch, gpus, isl, osl):
    """The busiest GPU carries at least its share and at most everything: 1 ≤ imb, 1 ≤ f_prompt ≤ G; the step of an
    expert-parallel layout is never shorter than with perfect balance (prompt extra ≥ 0)."""
    load = replace(TOY_LOAD, input_tokens=isl, output_tokens=osl)
    v = replica_table([Layout(gpus, 1, "ep")], TOY_MOE, TOY_HW, load, TOY_EFF, batch=batch)[0]
    assert v["imb"] >= 1.0
    f = sizing_rules.prompt_imbalance(Const(float(batch)))
    inputs = inputs_of(TOY_MOE, TOY_HW, load, TOY_EFF)
    got = sizing_rules.evaluate([sizing_rules.Rule("f", f, "", "")], inputs, 1,
                                {"tp": np.array([float(gpus)]), "nodes": np.array([1.0]), "ep": np.array([1.0])})["f"]
    assert 1.0 <= float(np.ravel(got)[0]) <= gpus + 1e-12
    assert v["cmp_s"] >= v["batch"] * v["attn_tok"] / v["fl"] - 1e-15


def test_expert_parallel_over_two_servers_reads_the_kv_cache_on_all_its_gpus():
    # EP over 2 servers of 4: 8 GPUs read the batch's KV once between them (no per-stage split as in a pipeline):
    # 10 × 1,100 × 512 B over 8 × 0.1e12 × 0.5 B/s
    v = replica_table([Layout(4, 2, "ep")], TOY_MOE, TOY_HW, TOY_LOAD, TOY_EFF, batch=10)[0]
    assert v["kv_read"] == 10 * 1100 * 512 and v["bw"] == pytest.approx(8 * 0.1e12 * 0.5)
