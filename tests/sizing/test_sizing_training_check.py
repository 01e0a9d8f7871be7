"""Training GPU-hours against public measurements (docs/calibration_training.md): the check's formulas worked by
hand, the fit that gives the catalog's training MFU tables (refitted here and held to defaults.toml), its
leave-one-out errors by regime, the small-scale H100 measurement the BF16 MFU is held to, and the scope the JSON
states."""

from __future__ import annotations

import csv
import math

import pytest

from tco.catalog import DATA_DIR, load_catalog
from tco.engine import defaults_for
from tco.sizing import size_training
from tco.sizing.training_check import (
    ANCHOR,
    FIT,
    MfuModel,
    Run,
    attention_share,
    errors,
    fit,
    fitted,
    implied_mfu,
    power_law,
    read,
    summary,
)
from tco.sizing.training_rules import SCOPE_DERIVED, SCOPE_GIVEN

RUN_8B = Run("8b", 8.03e9, 32, 4096, 8192, "H100-80GB", 989.5, 15.6e12, 1.46e6)


def test_attention_share_by_hand():
    expected = 12 * 32 * 4096 * 8192 / (6 * 8.03e9)  # 1.2885e10 / 4.818e10
    assert attention_share(RUN_8B) == pytest.approx(expected)
    assert expected == pytest.approx(0.2674, abs=1e-4)


def test_implied_mfu_by_hand():
    expected = 6 * 8.03e9 * 15.6e12 / (1.46e6 * 3600 * 989.5e12 * 0.9)  # 7.516e23 / 4.681e24
    assert implied_mfu(RUN_8B, 0.9) == pytest.approx(expected)
    assert expected == pytest.approx(0.1606, abs=1e-4)
    with_att = expected * (1 + 12 * 32 * 4096 * 8192 / (6 * 8.03e9))
    assert implied_mfu(RUN_8B, 0.9, attention=True) == pytest.approx(with_att)


def test_power_law_by_hand():
    # two rows at N = 1e9 and 1e10 whose implied MFU are 0.2 and 0.4: k = ln(2)/ln(10), a = 0.2 / 1e9^k
    def row(n, mfu):
        hours = 6 * n * 1e12 / (3600 * 100e12 * mfu)  # at peak 100 TFLOPS, scaling 1
        return Run(str(n), n, 1, 1, 1, "g", 100.0, 1e12, hours)
    a, k = power_law([row(1e9, 0.2), row(1e10, 0.4)], 1.0)
    assert k == pytest.approx(math.log(2) / math.log(10))
    assert a * 1e9 ** k == pytest.approx(0.2)
    assert power_law([row(1e9, 0.2)], 1.0) == pytest.approx((0.2, 0.0))


def test_errors_by_hand():
    # two rows implied 0.2 and 0.4, a constant model at their mean (0.3): errors 0.2/0.3 − 1 and 0.4/0.3 − 1;
    # leave-one-out fits the constant on the other row: 0.2/0.4 − 1 and 0.4/0.2 − 1
    rows = [Run("a", 1e9, 1, 1, 1, "g", 100.0, 1e12, 6e21 / (3600 * 1e14 * 0.2)),
            Run("b", 1e9, 1, 1, 1, "g", 100.0, 1e12, 6e21 / (3600 * 1e14 * 0.4))]
    mean = lambda rs, r: sum(implied_mfu(x, 1.0) for x in rs) / len(rs)  # noqa: E731
    e = errors(rows, mean, 1.0)
    assert [x[0] for x in e] == ["a", "b"]
    assert [x[1] for x in e] == pytest.approx([0.2 / 0.3 - 1, 0.4 / 0.3 - 1])
    assert [x[2] for x in e] == pytest.approx([0.2 / 0.4 - 1, 0.4 / 0.2 - 1])
    s = summary(e)
    assert s["in_sample_mean_abs"] == pytest.approx((1 / 3 + 1 / 3) / 2)
    assert s["loo_worst"] == pytest.approx(1.0)


def test_implied_mfu_of_a_benchmark_row_by_hand():
    # Megatron-Bridge 26.02, Llama 3 70B on 64 H100 in FP8: 1,621 tokens/s per GPU against the FP8 peak 1,979
    r = Run("x", 70.55e9, 80, 8192, 8192, "H100", 1979.0, 0.0, 0.0, precision="fp8", tokens_per_s=1621.0)
    expected = 6 * 70.55e9 * 1621 / (1979e12 * 0.9)  # 6.8617e14 / 1.7811e15
    assert implied_mfu(r, 0.9) == pytest.approx(expected) and expected == pytest.approx(0.3853, abs=1e-4)
    # the shipped BF16 model (0.385 × 0.9 of 989.5 TFLOPS) gives 0.385 × 0.9 × 989.5e12 / (6 × 70.55e9) = 810.0
    # tokens/s per GPU: the measurement is 2.0× that, the "FP8 runs measure ~2× the model" of issue 21
    assert 1621 / (0.385 * 0.9 * 989.5e12 / (6 * 70.55e9)) == pytest.approx(2.0, abs=0.01)


def _row(rid, mfu, precision="bf16", generation="hopper", experts=0, params=1e9, layers=1, use=FIT):
    """A row whose implied MFU is ``mfu`` at peak 100 TFLOPS and scaling 1 (rate = mfu × 1e14 / (6 × active))."""
    active = params / 10 if experts else params
    return Run(rid, params, layers, 1, 1, "g", 100.0, 0.0, 0.0, active, experts, generation, precision,
               mfu * 1e14 / (6 * active), use=use)


def test_fit_by_hand():
    """bf16 anchor 0.4; two fp8 rows at 0.3 and 0.5 give the fp8 base √(0.3 × 0.5) = 0.3873 (least squares on
    logs is the geometric mean); an ampere bf16 row at 0.5 gives the ampere factor 0.5 / 0.4 = 1.25; a blackwell fp8
    row at 0.3 and an fp4 one at 0.2 give blackwell 0.3 / 0.3873 = 0.7746 and fp4 0.2 / 0.7746 = 0.2582; two bf16
    MoE rows at expert sizes 0.01 and 0.1 (10⁹) with MFU 0.1 and 0.2 give k = ln(2)/ln(10) = 0.30103 and
    a = (0.1 / 0.4) / 0.01^k = 0.25 / 0.25119 = 0.99526."""
    rows = [_row("anchor", 0.4, use=ANCHOR), _row("f1", 0.3, "fp8"), _row("f2", 0.5, "fp8"),
            _row("a", 0.5, generation="ampere"), _row("b", 0.3, "fp8", "blackwell"),
            _row("q", 0.2, "fp4", "blackwell"), _row("m1", 0.1, experts=100, params=1e12, layers=1000),
            _row("m2", 0.2, experts=10, params=1e12, layers=1000), _row("out", 0.9, use="excluded: test")]
    assert [r.expert_b for r in rows[-3:-1]] == pytest.approx([0.01, 0.1])
    m = fit(rows, 1.0)
    assert m is not None
    assert m.base["bf16"] == pytest.approx(0.4) and m.base["fp8"] == pytest.approx(math.sqrt(0.15))
    assert m.generation == pytest.approx({"hopper": 1.0, "ampere": 1.25, "blackwell": 0.3 / math.sqrt(0.15)})
    assert m.base["fp4"] == pytest.approx(0.2 / (0.3 / math.sqrt(0.15)))
    assert m.moe_k == pytest.approx(math.log(2) / math.log(10))
    assert m.moe_a == pytest.approx(0.25 / 0.01 ** (math.log(2) / math.log(10)))
    assert m.mfu(rows[6]) == pytest.approx(0.1) and m.mfu(rows[7]) == pytest.approx(0.2)
    # without the only fp4 row the fp4 base has no data: no fit, and the leave-one-out error is nan
    assert fit([r for r in rows if r.id != "q"], 1.0) is None
    loo = dict((e[0], e[2]) for e in errors(rows, fitted(1.0), 1.0))
    assert math.isnan(loo["q"]) and math.isnan(loo["anchor"])


def test_moe_factor_is_capped_at_one():
    m = MfuModel({"bf16": 0.4}, {"hopper": 1.0}, 10.0, 0.5)
    assert m.mfu(_row("big", 0.1, experts=2, params=1e12, layers=1)) == 0.4  # 10 × 500^0.5 ≫ 1 → dense MFU


def test_data_file_reads_and_anchor_reproduces():
    runs = {r.id: r for r in read()}
    assert len(runs) == 41 and sum(r.use == FIT for r in runs.values()) == 36
    assert [r.id for r in runs.values() if r.use == ANCHOR] == ["L31-405B"]
    # the shipped MFU is anchored on the 405B card: its implied MFU (6·N·D, scaling 0.9) is 0.385 within 1 %
    expected = 6 * 405.85e9 * 15.6e12 / (30.84e6 * 3600 * 989.5e12 * 0.9)
    assert implied_mfu(runs["L31-405B"], 0.9) == pytest.approx(expected)
    assert expected == pytest.approx(0.385, rel=0.01)


@pytest.fixture(scope="module")
def ref():
    rows = csv.DictReader((DATA_DIR / "calibration.csv").open(encoding="utf-8"))
    return {r["reference_id"]: r for r in rows}


def test_default_mfu_against_small_scale_h100_8b(ref):
    """At the scale the tool sizes (one 8-GPU server), torchtitan's Llama 3.1 8B runs 5,762–6,667 tokens/s/GPU on
    an H100 held to 500 W; the default MFU gives 0.385 × 0.9 × 989.5e12 / (6 × 8.03e9) = 7,116 tokens/s/GPU, so its
    GPU-hours are 6–19 % below the measurement, not the −58 % of the Llama 3.1 8B card."""
    d = defaults_for(load_catalog())
    tool_rate = d["mfu"] * d["scaling_efficiency"]["nvlink"] * 989.5e12 / (6 * 8.03e9)
    assert tool_rate == pytest.approx(7116.3, rel=1e-4)
    measured = [float(ref[k]["value"]) for k in ("torchtitan-llama31-8b-h100x8-fsdp-tps",
                                                  "torchtitan-llama31-8b-h100x8-fsdp-compile-tps")]
    assert measured == [5762.0, 6667.0]
    hours_error = [m / tool_rate - 1 for m in measured]  # tool hours / measured hours − 1
    assert hours_error == pytest.approx([5762 / 7116.3 - 1, 6667 / 7116.3 - 1], rel=1e-4)
    assert all(-0.20 < e < 0 for e in hours_error)
    # the card's rate: 15.6e12 tokens / (1.46e6 GPU-h × 3600) = 2,968 tokens/s/GPU, about half the measured one
    # (15.6e12 tokens as for the 405B; the card's "15T+" would make it 2,854)
    card_rate = float(ref["llama31-405b-train-tokens"]["value"]) / (float(
        ref["llama31-8b-train-gpuhours"]["value"]) * 3600)
    assert card_rate == pytest.approx(15.6e12 / (1.46e6 * 3600))
    assert card_rate < 0.55 * min(measured)


def test_shipped_tables_are_the_fit():
    """defaults.toml [training] is the fit of calibration_training.csv, rounded to 3 decimals; the BF16 base is the
    shipped 0.385, within 0.3 % of the 405B anchor's implied 0.3842 (kept, so BF16 Hopper sizing did not move)."""
    d = defaults_for(load_catalog())
    m = fit(read(), d["scaling_efficiency"]["nvlink"])
    assert m is not None
    table = d["training_mfu"]
    assert table["base"]["bf16"] == d["mfu"] == pytest.approx(m.base["bf16"], rel=3e-3)
    for p in ("fp8", "fp4"):
        assert table["base"][p] == pytest.approx(m.base[p], abs=6e-4), p
    for g in ("ampere", "hopper", "blackwell"):
        assert table["generation"][g] == pytest.approx(m.generation[g], abs=6e-4), g
    assert (table["moe_a"], table["moe_k"]) == pytest.approx((m.moe_a, m.moe_k), abs=6e-4)


REGIMES = {"BF16 dense": (15, 0.12), "FP8 dense": (5, 0.05), "Blackwell dense": (5, 0.12), "FP4 (NVFP4)": (2, 0.34),
           "MoE": (9, 0.15)}
"""Regime → (rows fitted, median |leave-one-out error| the docs report, rounded up): the table of
docs/calibration_training.md. FP4 and MoE miss the issue's 12 %: reported, not hidden."""


def test_leave_one_out_by_regime():
    runs = read()
    used = [r for r in runs if r.use in (FIT, ANCHOR)]
    errs = {e[0]: e for e in errors(used, fitted(0.9), 0.9)}
    for regime, (n, bound) in REGIMES.items():
        rows = [errs[r.id] for r in used if r.regime == regime and r.use == FIT]
        assert len(rows) == n, regime
        assert summary(rows)["loo_median_abs"] < bound, regime
    assert math.isnan(errs["L31-405B"][2])  # the anchor: no other row fixes the BF16 base


def _size(gpu_hours):
    return size_training(method="pretrain", params=8e9, active_params=8e9, tokens=1e11, epochs=1,
                         gpu_hours=gpu_hours, mfu=0.385, peak_tflops=989.5, gpu_memory_gb=80,
                         memory_usable_share=0.9, gpus_per_server=8, interconnect="nvlink", target_days=10,
                         servers=None, activation_share=0.25, lora_share=0.01, defaults={"scaling_efficiency": {
                             "nvlink": 0.9}})


def test_json_says_what_training_counts():
    derived, given = _size(None).as_dict(), _size(5000.0).as_dict()
    assert derived["scope"] == SCOPE_DERIVED and given["scope"] == SCOPE_GIVEN
    assert "6·N·D" in derived["scope"]["counts"] and "restarts" in derived["scope"]["excludes"]
    assert "hours_given" not in derived
    none = size_training(method="none", params=8e9, active_params=8e9, tokens=0, epochs=1, gpu_hours=None, mfu=0.385,
                         peak_tflops=989.5, gpu_memory_gb=80, memory_usable_share=0.9, gpus_per_server=8,
                         interconnect="nvlink", target_days=10, servers=None, activation_share=0.25,
                         lora_share=0.01, defaults={})
    assert "scope" not in none.as_dict()
