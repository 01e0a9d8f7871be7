"""The training cluster's rules (tco.sizing.training_rules): each worked by hand with the arithmetic written out, each
rendered as the Sizing sheet writes it and recalculated in-process by an Excel evaluator (the `formulas` package) to
its numpy value, and the workbook's training cells equal to the engine's evaluation of the same rules."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.sizing import training_rules
from tco.domain import TrainingMethod
from tco.expr import Rule, XlContext, evaluate
from tco.sizing.training_rules import UNLISTED_INTERCONNECT_SCALING, evaluate_cluster, multi_gpu_scaling, rules
from expr_walk import inputs_used

ROOT = Path(__file__).resolve().parents[2]
BASE = dict(params=70e9, active_params=70e9, tokens=2e9, epochs=1.0, mfu=0.3, gpu_hours=0.0, peak_tflops=989.0,
            gpu_memory_gb=141.0, memory_usable_share=0.9, gpus_per_server=8, target_days=14.0, servers=0.0,
            activation_share=0.25, lora_share=0.01, multi_gpu_scaling=0.9, mfu_base=0.4, layers=80, experts=0,
            moe_a=2.345, moe_k=0.512, moe_lowp=1.0, hidden=8192, width_k=0.2, hidden_ref=8192, seq_len=0.0,
            attn_width=8192)
"""A dense 70B at the reference width: the width and MoE factors are 1, so the derived MFU is ``mfu_base`` = 0.4
(``mfu`` = 0.3 is the given branch's); sequence length 0 leaves the attention out, so the FLOPs are 6·N·D."""
BRANCHES = [(m, h, s) for m in ("lora", "full", "pretrain") for h in (False, True) for s in (False, True)]


def _rows(method: str = "lora", hours_given: bool = False, servers_given: bool = False, mfu_given: bool = False,
          **kw) -> dict[str, float]:
    return evaluate_cluster(rules(method, hours_given=hours_given, servers_given=servers_given, mfu_given=mfu_given),
                            BASE | kw)


# ---------------------------------------------------------------------------------------------
# by hand


def test_flops_are_six_n_d_times_epochs():
    assert _rows()["tr_flops"] == pytest.approx(6 * 70e9 * 2e9)
    assert _rows(epochs=3.0)["tr_flops"] == pytest.approx(6 * 70e9 * 2e9 * 3)
    assert _rows(active_params=13e9)["tr_flops"] == pytest.approx(6 * 13e9 * 2e9)  # a MoE trains its active part


def test_flops_per_token_count_the_causal_attention_by_hand():
    """Llama 3.1 70B (80 layers, 64 query heads × 128 = 8,192 wide) at 8,192 tokens per sequence: 6 × 70e9 = 4.2e11
    for the weight matmuls, 6 × 80 × 8192 × 8192 = 3.2212e10 for the causal attention (Q·Kᵀ and scores·V, 2 FLOP per
    multiply-add, forward and two backward, half the positions under the mask), 4.52212e11 per token, +7.67 %."""
    v = _rows(seq_len=8192.0)
    assert 6 * 80 * 8192 * 8192 == 32_212_254_720
    assert v["tr_flops_per_token"] == pytest.approx(4.2e11 + 32_212_254_720, rel=1e-12)
    assert v["tr_flops"] == pytest.approx((4.2e11 + 32_212_254_720) * 2e9, rel=1e-12)
    assert 32_212_254_720 / 4.2e11 == pytest.approx(0.0767, abs=1e-4)
    # at 4,096 tokens half that: 1.6106e10, +3.83 %; an 8B (32 layers × 4,096) at 8K: 6 × 32 × 4096 × 8192 = 6.4425e9
    # on 6 × 8.03e9 = 4.818e10, +13.4 %: the narrow model pays more for the same context
    assert _rows(seq_len=4096.0)["tr_flops_per_token"] == pytest.approx(4.2e11 + 16_106_127_360, rel=1e-12)
    eight_b = _rows(seq_len=8192.0, active_params=8.03e9, layers=32, attn_width=4096)["tr_flops_per_token"]
    assert eight_b / (6 * 8.03e9) - 1 == pytest.approx(6 * 32 * 4096 * 8192 / 4.818e10, rel=1e-12)
    assert 6 * 32 * 4096 * 8192 / 4.818e10 == pytest.approx(0.1337, abs=1e-4)


@given(st.floats(128, 1_048_576), st.floats(128, 1_048_576))
def test_flops_per_token_grow_linearly_with_the_sequence_length(s1, s2):
    a, b = _rows(seq_len=s1)["tr_flops_per_token"], _rows(seq_len=s2)["tr_flops_per_token"]
    assert (a - 6 * 70e9) * s2 == pytest.approx((b - 6 * 70e9) * s1, rel=1e-9)
    assert (a <= b) == (s1 <= s2) or a == pytest.approx(b, rel=1e-12)


def test_gpu_hours_divide_the_flops_by_peak_mfu_and_seconds():
    gpu_hours = 6 * 70e9 * 2e12 / (989e12 * 0.4 * 3600)  # 8.4e23 FLOP / 1.42416e18 FLOP per GPU·h
    assert _rows(tokens=2e12)["gpu_hours"] == pytest.approx(gpu_hours, rel=1e-12)
    assert gpu_hours == pytest.approx(589_821.4, rel=1e-6)
    assert _rows(hours_given=True, gpu_hours=1234.0)["gpu_hours"] == 1234.0  # given hours replace 6·N·D


def test_dense_mfu_is_the_catalog_cell_and_a_given_mfu_replaces_it():
    v = _rows()
    assert v["tr_expert_b"] == pytest.approx(70e9 / (80 * 1) / 1e9)  # a whole layer: 0.875e9 parameters
    assert v["tr_moe_factor"] == 1 and v["tr_mfu"] == 0.4  # dense: the factor is 1
    assert _rows(mfu_given=True)["tr_mfu"] == 0.3
    assert _rows(mfu_given=True)["gpu_hours"] == pytest.approx(6 * 70e9 * 2e9 / (989e12 * 0.3 * 3600))
    assert "tr_mfu" not in _rows(hours_given=True, gpu_hours=10.0)  # given GPU-hours need no MFU


def test_moe_factor_falls_with_the_expert_size_by_hand():
    # DeepSeek-V3: 671e9 parameters, 61 layers, 256 routed experts → 671e9 / (61 × 256) = 42.97e6 per expert
    v = _rows(params=671e9, active_params=37e9, layers=61, experts=256)
    expert_b = 671e9 / (61 * 256) / 1e9
    assert v["tr_expert_b"] == pytest.approx(expert_b) and expert_b == pytest.approx(0.04297, rel=1e-3)
    factor = 2.345 * expert_b ** 0.512  # 2.345 × 0.042969^0.512 = 2.345 × 0.199606 = 0.468077
    assert v["tr_moe_factor"] == pytest.approx(factor, rel=1e-12) and factor == pytest.approx(0.468077, abs=1e-6)
    assert v["tr_mfu"] == pytest.approx(0.4 * factor, rel=1e-12)
    # 6·N_active·D at that MFU: 6 × 37e9 × 2e9 / (989e12 × 0.4 × 0.468077 × 3600)
    assert v["gpu_hours"] == pytest.approx(6 * 37e9 * 2e9 / (989e12 * 0.4 * factor * 3600), rel=1e-12)
    # a coarse MoE (Mixtral 8x22B: 141e9 / (56 × 8) = 0.315e9 per expert) is capped at the dense MFU
    assert _rows(params=141e9, layers=56, experts=8)["tr_moe_factor"] == 1.0  # 2.345 × 0.315^0.512 = 1.30 → 1


def test_width_factor_by_hand():
    # Llama 3 8B, hidden 4096 against the reference 8192: (4096 / 8192)^0.2 = 0.5^0.2 = 0.870551
    v = _rows(params=8.03e9, active_params=8.03e9, hidden=4096)
    assert v["tr_width"] == pytest.approx(0.5 ** 0.2, rel=1e-12) and v["tr_width"] == pytest.approx(0.870551, abs=1e-6)
    assert v["tr_mfu"] == pytest.approx(0.4 * 0.870551, rel=1e-6)
    assert _rows(hidden=16384)["tr_width"] == pytest.approx(2 ** 0.2)  # 405B: 1.1487, wider GEMMs fill better
    assert _rows()["tr_width"] == 1.0


def test_moe_factor_of_the_shipped_coefficients_by_hand():
    """Qwen3-30B-A3B trained in fp8 (defaults.toml [training.moe]: a 0.712, k 0.049, low precision 0.688). Expert size
    = 30.5e9 / (48 × 128) = 4.9642e6 parameters = 0.0049642 × 10⁹; a × E^k = 0.712 × 0.0049642^0.049 = 0.712 ×
    0.77107 = 0.54901; × 0.688 (fp8: routing and permutation do not speed up) = 0.37772. The same on one B200 server
    (⌈610 GB / (180 × 0.9)⌉ = 4 GPUs) as on two H100 servers (⌈610 / 72⌉ = 9 GPUs): the all-to-all the public runs hide
    behind compute (docs/calibration_training.md), so where it runs no longer changes the factor."""
    moe = dict(params=30.5e9, active_params=3.3e9, layers=48, experts=128, hidden=2048, moe_a=0.712, moe_k=0.049,
               moe_lowp=0.688)
    b200 = _rows("full", gpu_memory_gb=180.0, **moe)
    assert b200["tr_expert_b"] == pytest.approx(0.0049642, rel=1e-4)
    assert 0.0049642 ** 0.049 == pytest.approx(0.77107, abs=1e-5) and 0.712 * 0.77107 == pytest.approx(0.54900, abs=1e-5)
    assert b200["tr_min_servers"] == 1 and b200["tr_min_gpus"] == 4
    assert b200["tr_moe_factor"] == pytest.approx(0.712 * (30.5e9 / (48 * 128) / 1e9) ** 0.049 * 0.688, rel=1e-12)
    assert b200["tr_moe_factor"] == pytest.approx(0.37772, abs=1e-5)
    h100 = _rows("full", gpu_memory_gb=80.0, **moe)
    assert h100["tr_min_gpus"] == 9 and h100["tr_min_servers"] == 2
    assert h100["tr_moe_factor"] == pytest.approx(b200["tr_moe_factor"], rel=1e-12)
    # bf16 (low-precision factor 1): 0.54901
    assert _rows("full", gpu_memory_gb=80.0, **moe | {"moe_lowp": 1.0})["tr_moe_factor"] == pytest.approx(0.54901,
                                                                                                      abs=1e-5)
    # MFU = base × width × MoE factor: (2048 / 8192)^0.2 = 0.25^0.2 = 0.75786
    assert b200["tr_mfu"] == pytest.approx(0.4 * 0.75786 * 0.37772, rel=1e-4)


def test_fp8_training_gpu_hours_by_hand():
    """An FP8 dense run on H100 against its own FP8 peak: Llama 3 70B (hidden 8192: width factor 1), 1e12 tokens, MFU
    = fp8 base 0.411 × Hopper 1. FLOPs = 6 × 70.55e9 × 1e12 = 4.233e23; per GPU-hour 1,979e12 × 0.411 × 3600 =
    2.92813e18 FLOP → 144,563 GPU·h. The same run in BF16 (989.5 TFLOPS, MFU 0.421): 4.233e23 / (989.5e12 × 0.421 ×
    3600) = 282,259 GPU·h, 1.95× as many; Megatron-Bridge measures 1,664 tokens/s per GPU on 64 H100 in FP8, the
    model 0.411 × 0.9 × 1,979e12 / (6 × 70.55e9) = 1,729 (docs/calibration_training.md)."""
    fp8 = _rows(params=70.55e9, active_params=70.55e9, tokens=1e12, peak_tflops=1979.0, mfu_base=0.411)
    flops = 6 * 70.55e9 * 1e12
    assert fp8["tr_flops"] == pytest.approx(flops) and flops == pytest.approx(4.233e23)
    assert fp8["tr_width"] == 1.0 and fp8["tr_moe_factor"] == 1.0
    assert fp8["gpu_hours"] == pytest.approx(flops / (1979e12 * 0.411 * 3600), rel=1e-12)
    assert fp8["gpu_hours"] == pytest.approx(144_563, rel=1e-5)
    bf16 = _rows(params=70.55e9, active_params=70.55e9, tokens=1e12, peak_tflops=989.5, mfu_base=0.421)
    assert bf16["gpu_hours"] == pytest.approx(282_259, rel=1e-5)
    assert bf16["gpu_hours"] / fp8["gpu_hours"] == pytest.approx(1979 * 0.411 / (989.5 * 0.421), rel=1e-12)
    assert 0.411 * 0.9 * 1979e12 / (6 * 70.55e9) == pytest.approx(1729.3, abs=0.1)


def test_memory_full_is_16_bytes_per_param_plus_activations():
    expected = 16 * 70e9 * (1 + 0.25)  # 1.4e12 B
    assert _rows("full")["tr_mem_b"] == pytest.approx(expected, rel=1e-12)
    assert _rows("pretrain")["tr_mem_b"] == _rows("full")["tr_mem_b"]


def test_memory_lora_is_frozen_bf16_plus_adapter_states():
    frozen = 2 * 70e9  # bf16 weights, not trained
    adapters = 16 * 0.01 * 70e9  # 1 % of parameters carry full optimizer state
    expected = (frozen + adapters) * (1 + 0.25)  # 189e9 B
    assert _rows("lora")["tr_mem_b"] == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(189e9)


def test_no_cluster_without_training():
    with pytest.raises(ValueError, match="no training cluster"):
        rules(TrainingMethod.NONE, hours_given=False, servers_given=False)


def test_minimum_gpus_and_servers_hold_the_memory():
    v = _rows("full")
    min_gpus = math.ceil(16 * 70e9 * 1.25 / (141e9 * 0.9))  # 1.4e12 / 126.9e9 = 11.03 → 12 GPUs
    assert v["tr_min_gpus"] == min_gpus == 12
    assert v["tr_min_servers"] == math.ceil(12 / 8) == 2
    tiny = _rows("lora", params=1e6, active_params=1e6)  # 2.7 MB still needs one GPU
    assert tiny["tr_min_gpus"] == 1 and tiny["tr_min_servers"] == 1


def test_servers_for_the_target_duration():
    v = _rows("full", params=8e9, active_params=8e9, tokens=1e11, target_days=7.0)
    hours = 6 * 8e9 * 1e11 / (989e12 * 0.4 * 3600)  # ≈ 3,370.4 GPU·h
    wanted = math.ceil(hours / (0.9 * 8 * 7 * 24))  # 3,370.4 / 1,209.6 = 2.79 → 3 servers
    assert v["tr_wanted"] == wanted == 3
    assert v["tr_servers"] == 3 and v["tr_gpus"] == 3 * 8  # memory alone: 8e9 × 16 × 1.25 = 160 GB → 2 GPUs
    assert v["scaling_eff"] == 0.9
    assert v["wall_hours"] == pytest.approx(hours / (3 * 8 * 0.9), rel=1e-12)
    assert v["wall_hours"] <= 7 * 24
    assert v["tr_billed_gpu_hours"] == pytest.approx(hours / 0.9, rel=1e-12)


def test_given_servers_are_never_below_the_memory_minimum():
    assert _rows("full", servers_given=True, servers=1.0)["tr_servers"] == 2  # 12 GPUs need 2 servers of 8
    assert _rows("full", servers_given=True, servers=5.0)["tr_servers"] == 5


def test_no_work_takes_one_server_and_no_time():
    v = _rows("lora", hours_given=True, gpu_hours=0.0)
    assert (v["tr_wanted"], v["tr_servers"], v["wall_hours"], v["tr_billed_gpu_hours"]) == (1, 1, 0, 0)


@pytest.mark.parametrize("gpus, interconnect, expected", [
    (1, "nvlink", 1.0),  # a single GPU loses nothing
    (0, "pcie", 1.0),
    (8, "nvlink", 0.9),
    (16, "nvlink_bridge", 0.9),
    (4, "pcie", 0.5),
    (4, "infiniband-unknown", 0.5),  # an interconnect the table does not list scales like PCIe
])
def test_scaling_efficiency(gpus, interconnect, expected):
    table = {"nvlink": 0.9, "nvlink_bridge": 0.9, "pcie": 0.5}
    rows = evaluate((training_rules.SCALING,), {"multi_gpu_scaling": multi_gpu_scaling(interconnect, table)}, 1,
                    {"tr_gpus": np.array([float(gpus)])})
    assert rows["scaling_eff"][0] == expected


def test_scaling_without_a_table_uses_the_one_fallback():
    assert multi_gpu_scaling("nvlink", {}) == UNLISTED_INTERCONNECT_SCALING == 0.5
    assert multi_gpu_scaling("nvswitch-next", {"pcie": 0.6}) == 0.6  # unlisted: as PCIe, when PCIe is listed


# ---------------------------------------------------------------------------------------------
# declaration and Excel rendering




@pytest.mark.parametrize("method, hours_given, servers_given", BRANCHES)
@pytest.mark.parametrize("mfu_given", [False, True])
def test_every_rule_has_a_unit_a_sentence_and_named_inputs(method, hours_given, servers_given, mfu_given):
    from tco.report.workbook.model import TRAINING_FORMATS

    used: set[str] = set()
    for rule in rules(method, hours_given=hours_given, servers_given=servers_given, mfu_given=mfu_given):
        assert rule.unit in TRAINING_FORMATS and len(rule.doc) > 20, rule.key
        inputs_used(rule.expr, used)
    assert used <= set(training_rules.INPUTS) == set(BASE)


def test_the_sheet_leaves_out_the_flops_only_when_the_hours_are_given():
    keys = [r.key for r in training_rules.sheet_rules("lora", hours_given=True, servers_given=False)]
    assert "tr_flops" not in keys and "tr_flops_per_token" not in keys and "gpu_hours" in keys
    assert [r.key for r in training_rules.sheet_rules("lora", hours_given=False, servers_given=True)][:2] == [
        "tr_flops_per_token", "tr_flops"]


def _excel(rule: Rule, inputs: dict, row_values: dict) -> float:
    """One rule's formula with every input and every other row in a cell of its own, and the named constants of
    tco.constants by name, evaluated as Excel."""
    from tco.constants import ALL

    formulas = pytest.importorskip("formulas")
    names = {n: f"IN{i}" for i, n in enumerate(sorted(inputs), start=1)}
    keys = {k: i for i, k in enumerate(sorted(row_values), start=10)}
    ctx = XlContext(col="F", prev=None, row_of=lambda key: keys[key], name_of=lambda n: names[n])
    cells = {names[n]: float(v) for n, v in inputs.items()} | {f"F{keys[k]}": float(v) for k, v in row_values.items()}
    cells |= {c.name.upper(): c.value for c in ALL}
    func = formulas.Parser().ast(rule.formula(ctx))[1].compile()
    out = func(*(cells[name.replace("$", "")] for name in func.inputs))
    return float(np.asarray(out, dtype=object).ravel()[0])


@pytest.mark.parametrize("method, hours_given, servers_given", BRANCHES)
@pytest.mark.parametrize("case", [{}, {"tokens": 1e11, "target_days": 3.0}, {"gpus_per_server": 1, "servers": 3.0,
                                                                            "gpu_hours": 500.0},
                                  {"params": 671e9, "active_params": 37e9, "layers": 61, "experts": 256},
                                  {"params": 30.5e9, "active_params": 3.3e9, "layers": 48, "experts": 128,
                                   "hidden": 2048, "moe_lowp": 0.688, "gpu_memory_gb": 180.0}])
def test_each_rule_recalculates_in_excel_to_its_numpy_value(method, hours_given, servers_given, case):
    inputs = BASE | case
    rule_set = rules(method, hours_given=hours_given, servers_given=servers_given)
    v = evaluate_cluster(rule_set, inputs)
    for rule in rule_set:
        assert _excel(rule, inputs, v) == pytest.approx(v[rule.key], rel=1e-12), rule.key


# ---------------------------------------------------------------------------------------------
# the workbook writes the same rules with the engine's values


@pytest.mark.parametrize("given", [False, True])
@pytest.mark.slow
def test_workbook_training_cells_are_the_rules_with_the_engines_values(tmp_path, given):
    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.report import i18n, view, workbook
    from tco.scenario import Scenario, load

    path = ROOT / "scenarios" / "seed_70b_h200.toml"
    s = load(path)[0]
    if given:  # the GPU-hours and the servers as the scenario gives them; memory raises the 1 server given
        data = s.model_dump()
        data["training"].update(method="full", gpu_hours=50_000.0, servers=1)
        s = Scenario.model_validate(data)
    res = run_scenario(s, load_catalog(), file=str(path), paths=200)
    f = tmp_path / "book.xlsx"
    workbook.write(res, view.build(res), f)
    ws = openpyxl.load_workbook(f).worksheets[4]
    cached = openpyxl.load_workbook(f, data_only=True).worksheets[4]
    sheet = training_rules.sheet_rules(s.training.method, hours_given=given, servers_given=given)
    row_of = {}
    for rule in sheet:
        label = i18n.t(rule.key, s.scenario.locale)
        (row_of[rule.key],) = [c.row for c in ws["A"] if c.value == label and c.row > 40]
    checked = 0
    for i, o in enumerate(res.options, start=1):
        ts = res.training_by_option[o.name]
        column = openpyxl.utils.get_column_letter(2 + i)
        ctx = XlContext(col=column, prev=None, row_of=row_of.__getitem__,
                        name_of=lambda n, i=i: training_rules.INPUTS[n].format(p=f"in_o{i}_"))
        for rule in sheet:
            cell = f"{column}{row_of[rule.key]}"
            assert ws[cell].value == rule.formula(ctx), (o.name, rule.key)
            assert cached[cell].value == pytest.approx(ts.rows[rule.key], rel=1e-15), (o.name, rule.key)
            checked += 1
        # and the engine's figures are that evaluation
        assert (ts.servers, ts.wall_hours, ts.memory_gb) == (ts.rows["tr_servers"], ts.rows["wall_hours"],
                                                            ts.rows["tr_mem_b"] / 1e9)
        if given:
            assert ts.servers == ts.rows["tr_min_servers"] > 1 and ts.gpu_hours == 50_000.0  # memory raised 1 server
    assert checked >= len(res.options) * len(sheet)


def test_the_rule_builder_gives_the_same_objects_back():
    # The compiled programs are found by the rules themselves, and an expression's == builds a comparison node, so
    # a rebuilt (equal but new) rule set is compiled again: the seed's plan search compiled this one 281 times.
    import tco.expr.compiled as compiled

    a = rules("lora", hours_given=False, servers_given=False)
    assert a is rules("lora", hours_given=False, servers_given=False)
    assert a is not rules("lora", hours_given=True, servers_given=False)
    assert compiled.program(a) is compiled.program(rules("lora", hours_given=False, servers_given=False))


# ---------------------------------------------------------------------------------------------
# properties


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(servers=st.integers(1, 63), gps=st.sampled_from([1, 2, 4, 8]), hours=st.floats(1.0, 1e7),
       scaling=st.floats(0.3, 1.0))
def test_more_servers_never_bill_fewer_gpu_hours(servers, gps, hours, scaling):
    """Billed GPU-hours = useful hours / scaling efficiency: one more server never lowers them (the work is the
    same, the scaling loss only appears from the second GPU on)."""
    def billed(n):
        return _rows("full", hours_given=True, servers_given=True, gpu_hours=hours, servers=float(n),
                     gpus_per_server=gps, multi_gpu_scaling=scaling, params=1e6, active_params=1e6)
    a, b = billed(servers), billed(servers + 1)
    assert b["tr_billed_gpu_hours"] >= a["tr_billed_gpu_hours"] * (1 - 1e-12)
    assert a["tr_billed_gpu_hours"] >= hours * (1 - 1e-12)


def test_the_shipped_mfu_stays_in_zero_one_for_every_catalog_model_gpu_and_precision():
    """The derived MFU (catalog cell × width × MoE factor) of every model of models.csv on every GPU that trains at
    each precision, for full training and LoRA, lies in (0, 1]."""
    from tco.catalog import load_catalog
    from tco.engine import defaults_for
    from tco.sizing import dense_peak, training_mfu_base

    cat = load_catalog()
    table = defaults_for(cat)["training_mfu"]
    checked = 0
    for m in cat.models.values():
        for g in cat.gpus.values():
            for prec in ("bf16", "fp8", "fp4"):
                if not dense_peak(g, prec) or g.generation not in table["generation"]:
                    continue
                for method in ("full", "lora"):
                    v = _rows(method, params=m.params_b * 1e9, active_params=m.active_params_b * 1e9,
                              layers=m.layers, experts=m.experts, hidden=m.hidden_size or m.kv_heads * m.head_dim,
                              mfu_base=training_mfu_base(g, prec, table), moe_a=table["moe_a"],
                              moe_k=table["moe_k"], moe_lowp=table["moe_lowp"] if prec != "bf16" else 1.0,
                              width_k=table["width_k"],
                              hidden_ref=table["hidden_ref"], gpu_memory_gb=g.memory_gb)
                    assert 0 < v["tr_mfu"] <= 1, (m.model, g.gpu, prec, method)
                    checked += 1
    assert checked > 100
