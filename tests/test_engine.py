"""tco.engine: the pipeline's totals agree with its ledger, GPU-hour prices by hand, defaults and notices,
and the FX risk step without Monte Carlo."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from tco.domain import LINES, FleetKind, Notice
from tco.engine import HOURS_PER_MONTH, apply_fx_risk, defaults_for, price_notices, run_scenario, workload
from tco.scenario import load_text

from conftest import SEED


def test_defaults_for_reads_the_catalog_only():
    cat = SimpleNamespace(defaults={"training": {"mfu": 0.41}, "scaling_efficiency": {"pcie": 0.5},
                                    "inference": {"flops_efficiency_share": 0.6, "bandwidth_efficiency_share": 0.75}})
    d = defaults_for(cat)
    assert (d["mfu"], d["flops_efficiency_share"], d["bandwidth_efficiency_share"]) == (0.41, 0.6, 0.75)
    assert d["scaling_efficiency"] == {"pcie": 0.5}


def test_defaults_for_gives_the_shipped_defaults_toml():
    # No fallback copy in the code (it said MFU 0.38 and bandwidth share 0.7 where the file says 0.385 and 0.8): the
    # values are the file's, read here with tomllib.
    import tomllib
    from pathlib import Path

    import tco.catalog
    from tco.catalog import load_catalog

    shipped = tomllib.loads((Path(tco.catalog.__file__).parent / "data" / "defaults.toml").read_text("utf-8"))
    d = defaults_for(load_catalog())
    assert d["mfu"] == shipped["training"]["mfu"]
    assert d["bandwidth_efficiency_share"] == shipped["inference"]["bandwidth_efficiency_share"]
    assert d["flops_efficiency_share"] == shipped["inference"]["flops_efficiency_share"]
    assert d["scaling_efficiency"] == shipped["scaling_efficiency"]


def test_training_mfu_tables_from_defaults():
    from tco.engine import training_mfu_table

    d = training_mfu_table({"mfu": 0.4, "mfu_by_precision": {"fp8": 0.41}, "generation_factor": {"hopper": 1},
                            "moe": {"a": 2.0, "k": 0.5, "low_precision": 0.6},
                            "width": {"reference": 8192, "k": 0.2}, "fp4": {"share": 0.5},
                            "uncalibrated_generations": ["ada"]})
    assert d == {"base": {"bf16": 0.4, "fp8": 0.41}, "generation": {"hopper": 1.0}, "moe_a": 2.0, "moe_k": 0.5,
                 "moe_lowp": 0.6, "width_k": 0.2, "hidden_ref": 8192.0, "fp4_share": 0.5,
                 "uncalibrated": ["ada"]}
    # without the newer tables: factors 1 (width exponent 0), no fp4 share
    assert training_mfu_table({"mfu": 0.4})["moe_lowp"] == 1.0 and "fp4_share" not in training_mfu_table({"mfu": 0.4})
    # the BF16 base is [training] mfu, one value: a catalog that overrides mfu moves it
    assert training_mfu_table({"mfu": 0.3})["base"] == {"bf16": 0.3}


def test_totals_are_the_sums_of_the_lines(seed_results):
    res = seed_results
    df = res.timeline["df"]
    for o in res.options:
        assert set(o.lines_brl) == set(LINES)
        total = np.zeros(len(res.months))
        for line in LINES:
            total = total + o.lines_brl[line]
        np.testing.assert_array_equal(o.total_brl, total)
        assert o.tco.deterministic == pytest.approx(total.sum(), rel=1e-12)
        assert o.npv.deterministic == pytest.approx(float(np.sum(total * df)), rel=1e-12)
        assert o.npv.deterministic < o.tco.deterministic                  # discount rate 14 %, costs positive
        ledger_total = sum(s.amount_brl.sum() for s in res.ledger.series if s.option == o.name)
        assert ledger_total == pytest.approx(o.tco.deterministic, rel=1e-12)


def test_options_keep_their_order_and_kind(seed_results):
    names = [o.name for o in seed_results.options]
    assert names == [o.name for o in seed_results.scenario.options]
    kinds = {o.name: o.kind for o in seed_results.options}
    assert kinds["Dedicado BR — 8x H200"] == FleetKind.DEDICATED
    assert kinds["AWS us-east-1 — p5en (H200)"] == FleetKind.CLOUD
    assert kinds[names[-1]] == FleetKind.HYBRID                           # AWS training, dedicated serving


def test_workload_rows(seed_results):
    s = seed_results.scenario
    users, requests, tokens, hourly, egress = workload(s, seed_results.days)
    np.testing.assert_array_equal(users, seed_results.users)
    assert users[0] == 0                                                   # serving starts in month 2
    # month 2: 200 users × 30 requests × that month's days (the logistic curve starts at start_users)
    assert requests[1] == pytest.approx(users[1] * 30 * seed_results.days[1], rel=1e-12)
    assert tokens[1] == pytest.approx(requests[1] * (2000 + 400), rel=1e-12)
    assert egress[1] == pytest.approx(requests[1] * 20e3 / 1e9, rel=1e-12)    # 20 kB per request, in GB
    assert hourly.shape == (36, 24)


def test_dedicated_gpu_hour_price_by_hand(seed_inputs):
    text = SEED.read_text(encoding="utf-8").replace(
        'inference_offer = "br-dedicated/sp/h200-nvl-1x"\nfleet = "separate"\n\n[[options]]\nname = "AWS us-east-1',
        'inference_offer = "br-dedicated/sp/h200-nvl-1x"\nfleet = "separate"\nbrl_per_month = 73000\n\n[[options]]\n'
        'name = "AWS us-east-1', 1)
    assert "brl_per_month = 73000" in text
    res = run_scenario(load_text(text, "s.toml"), seed_inputs.catalog, simulate=False)
    o = res.options[1]
    gpus = o.resolved.inference.gpus_per_server
    assert gpus == 1                                                       # 1× H200 NVL
    # 73,000 BRL a month for one GPU over 730 hours: 100 BRL per GPU-hour
    assert o.gpu_hour_brl["inference"]["brl_per_gpu_hour"] == pytest.approx(73000 / (1 * 730))
    assert HOURS_PER_MONTH == 8760 / 12


def test_price_notices(seed_results):
    opt = seed_results.options[0].resolved
    fleet = opt.inference
    est = replace(opt, inference=replace(fleet, price_status="estimate"), training=None)
    assert Notice("price_estimate", opt.name, {"offer": fleet.offer_id}) in price_notices(est, "2029-12")
    odd = replace(opt, inference=replace(fleet, price_status="unverified", price_source="flagged anomalous"),
                  training=None)
    got = price_notices(odd, "2029-12")
    assert Notice("price_status", opt.name, {"offer": fleet.offer_id, "status": "unverified"}) in got
    assert Notice("price_anomalous", opt.name, {"offer": fleet.offer_id, "pricing": fleet.pricing}) in got
    listed = replace(opt, inference=replace(fleet, price_status="listed", price_source="x"), training=None)
    assert not [n for n in price_notices(listed, "2029-12") if n.code.startswith("price_")]


def test_apply_fx_risk_without_monte_carlo_marks_the_cheapest(seed_results):
    res = seed_results
    s = res.scenario.model_copy(update={"fx": res.scenario.fx.model_copy(update={"model": "fixed"})})
    out = apply_fx_risk(replace(res, scenario=s))
    best = min(out.options, key=lambda o: o.tco.deterministic)
    assert [o.prob_cheapest for o in out.options] == [1.0 if o is best else 0.0 for o in out.options]
    assert out.fx_info is not None and out.fx_info.model == "fixed" and out.fx_info.base.path == "focus"
    assert out.fx_info.monte_carlo is None and "centred_on" not in out.fx_info.as_dict()  # deterministic: no MC keys
    for o in out.options:
        assert o.tco.p5 == o.tco.p50 == o.tco.p95 == o.tco.deterministic


def test_one_unverified_offer_under_two_pricings_is_one_notice(seed_results):
    """Review L13: training on p5.48xlarge spot and serving on p5.48xlarge on demand, both unverified, named the
    offer twice in the same words."""
    opt = seed_results.options[0].resolved
    fleet = replace(opt.inference, price_status="unverified", price_source="x")
    both = replace(opt, inference=replace(fleet, pricing="on_demand"), training=replace(fleet, pricing="spot"))
    got = [n for n in price_notices(both, "2029-12") if n.code == "price_status"]
    assert got == [Notice("price_status", opt.name, {"offer": fleet.offer_id, "status": "unverified"})]


# ---------------------------------------------------------------------------------------------
# precision: FP4 on the GPUs that have it, a clear refusal elsewhere (issue 21)

FP4_SCENARIO = """
[scenario]
name = "fp4"
start = "2027-01"
horizon_months = 12
[model]
id = "llama-3.1-70b"
precision = "{serve}"
kv_precision = "{serve}"
[training]
method = "pretrain"
tokens = 1.0e10
precision = "{train}"
[inference]
users = {{ model = "linear", start_users = 100, end_users = 200 }}
requests_per_user_per_day = 10
input_tokens_per_request = 500
output_tokens_per_request = 200
[fx]
usdbrl = 5.4
model = "fixed"
[[options]]
name = "cloud"
training_offer = "{train_offer}"
inference_offer = "{serve_offer}"
fleet = "separate"
"""
B200 = "aws/us-east-1/p6-b200.48xlarge"


def _fp4_run(serve="fp4", train="fp4", serve_offer=B200, train_offer=B200):
    from tco.catalog import load_catalog

    text = FP4_SCENARIO.format(serve=serve, train=train, serve_offer=serve_offer, train_offer=train_offer)
    return run_scenario(load_text(text, "fp4.toml"), load_catalog(), file="fp4.toml", simulate=False)


def test_fp4_on_b200_sizes_weights_kv_and_training():
    """NVFP4 on 8 × B200: the replica holds 0.5625 B per weight (the BF16 embedding and head 2 B) and per KV value, and
    the training cluster runs at the FP4 dense peak 9,000 TFLOPS with the fp4 base from fp8's (defaults.toml [training.fp4] share
    0.453 of the fp8 step at twice the rate: 0.429 / (0.453 + 9,000 / 4,500 × 0.547) = 0.429 / 1.547 = 0.27731) ×
    Blackwell 0.973 = 0.26982 (Llama 3 70B, hidden 8192: width factor 1). FLOPs per token at the default 4,096-token
    sequence: 6 × 70.55e9 + 6 × 80 × 4096 × 8192 = 4.23300e11 + 1.61061e10 = 4.39406e11; × 1e10 tokens / (9,000e12
    × 0.26982 × 3600) = 502.6 useful GPU-hours (fp8 on the same GPU: 0.429 × 0.973 of 4,500 TFLOPS, 649.8)."""
    res = _fp4_run()
    o = res.options[0]
    assert o.replica is not None and o.replica.replicas_per_server >= 1
    rep = o.replica
    vd = 128_256 * 8_192  # the embedding and the output head stay BF16 (tco/sizing/vocab_rules.py)
    assert rep.weights_gb == pytest.approx(((70.55e9 - 2 * vd) * 0.5625 + 2 * vd * 2) / 1e9)  # 42.71 GB (141.1 in bf16)
    assert round(rep.weights_gb, 2) == 42.71
    assert rep.kv_mb_per_token == pytest.approx(80 * 2 * 8 * 128 * 0.5625 / 1e6)  # K and V, 80 layers × 8 × 128
    ts = res.training_by_option[o.name]
    assert (ts.precision, ts.peak_tflops) == ("fp4", 9000.0)
    mfu = 0.429 / (0.453 + 9000 / 4500 * (1 - 0.453)) * 0.973
    assert ts.mfu == pytest.approx(mfu, rel=1e-12) and mfu == pytest.approx(0.26982, abs=1e-5)
    per_token = 6 * 70.55e9 + 6 * 80 * 4096 * 8192
    assert (ts.sequence_length, ts.flops_per_token) == (4096, pytest.approx(per_token, rel=1e-12))
    assert ts.gpu_hours == pytest.approx(per_token * 1e10 / (9000e12 * mfu * 3600), rel=1e-9)
    assert ts.gpu_hours == pytest.approx(502.6, abs=0.1)
    fp8 = _fp4_run(train="fp8").training_by_option[o.name]
    assert fp8.gpu_hours == pytest.approx(per_token * 1e10 / (4500e12 * 0.429 * 0.973 * 3600), rel=1e-9)
    assert fp8.gpu_hours == pytest.approx(649.8, abs=0.1)
    assert fp8.gpu_hours / ts.gpu_hours == pytest.approx(9000 * 0.27731 / (4500 * 0.429), rel=1e-4)  # 1.293


def test_fp4_on_a_gpu_without_fp4_is_refused_naming_what_has_it():
    from tco.errors import InputError

    with pytest.raises(InputError) as e:
        _fp4_run(train="bf16", serve_offer="aws/us-east-1/p5.48xlarge")
    (p,) = e.value.problems
    assert p.key == "options[0].inference_offer"
    assert "H100-SXM-80GB" in p.message and "FP4 tensor cores" in p.message and "B200-SXM-180GB" in p.message


def test_fp8_training_on_an_a100_is_refused_naming_what_has_fp8():
    from tco.errors import InputError

    with pytest.raises(InputError) as e:
        _fp4_run(serve="fp8", train="fp8", train_offer="aws/us-east-1/p4de.24xlarge")
    (p,) = e.value.problems
    assert p.key == "options[0].training_offer"
    assert "A100-SXM-80GB" in p.message and "H100-SXM-80GB" in p.message and "precision = 'bf16'" in p.message


def test_training_on_an_uncalibrated_generation_says_so():
    """The L4 scenario trains LoRA on L4 (Ada): its MFU is Hopper's BF16 base 0.449, carried over, × the 8B's width
    factor (4096 / 8192)^0.146 = 0.90375, and a notice says so; the H200 seed has none."""
    from pathlib import Path

    from tco.catalog import load_catalog
    from tco.scenario import load

    path = Path(SEED).parent / "assistant_8b_l4.toml"
    res = run_scenario(load(path)[0], load_catalog(), file=str(path), simulate=False)
    found = [n for n in res.notices if n.code == "training_mfu_uncalibrated"]
    assert found and {n.params["generation"] for n in found} == {"ada"} and found[0].params["mfu"] == pytest.approx(0.449 * 0.5 ** 0.146)


def test_a_ttft_target_missed_at_the_planned_load_gets_a_notice():
    """Queued p95 (tco.sizing.queueing) against the target: batch 2, cap 2 req/s, bare TTFT 0.2 s, peak 1 req/s at a
    utilisation target of 0.5 → ⌈1 / (2 × 0.5)⌉ = 1 replica, λ = 1, ρ = 0.5, C(2, 1) = 1/3,
    p95 = 0.2 + ln((1/3) / 0.05) / (2 − 1) = 0.2 + 1.897 = 2.097 s: above a 1 s target, below a 3 s one."""
    import math
    from types import SimpleNamespace as NS

    from tco.engine import _queue_notices
    from tco.sizing.queueing import at_planned_load

    rep = NS(requests_per_second=2.0, batch=2, ttft_seconds=0.2, ttft_target_met=True)

    def scen(target):
        return NS(inference=NS(time_to_first_token_seconds=target, utilization_target_share=0.5, redundancy="none"))

    def notices(target):
        s = scen(target)
        return _queue_notices(NS(name="o"), rep, s, at_planned_load(rep, s.inference, [[0.4, 1.0]]))
    [n] = notices(1.0)
    assert n.code == "ttft_queued_over_target"
    assert n.params["p95"] == pytest.approx(0.2 + math.log((1 / 3) / 0.05)) and n.params["utilisation"] == 0.5
    assert notices(3.0) == [] and notices(None) == []
    load = at_planned_load(rep, scen(1.0).inference, [[0.4, 1.0]])
    assert load.as_dict()["ttft_p95_seconds"] == load.p95_seconds == n.params["p95"]
    assert load.mean_seconds == pytest.approx(0.2 + (1 / 3) / (2 - 1)) and load.target_met is False
