"""Cost lines of tco.costs, worked by hand on tiny options built directly (no catalog offers)."""

from __future__ import annotations

import numpy as np
import pytest

from tco.timeline import calendar as demand
from tco.catalog import EgressTable, Gpu, TaxProfile, load_catalog
from tco.costs import LINES, option_costs
from tco.costs.single import ratchet, tax_uplift
from tco.resolve import Fleet, ResolvedOption
from tco.sizing import ReplicaSize, TrainingSize


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


# ---------------------------------------------------------------------------------------------
# option_costs on hand-built options

GPU = Gpu("TOY", 80.0, 2.0, 500.0, None, None, "nvlink", None, "test", "2026")
FREE = EgressTable("none/dedicated", ((0.0, None, 0.0),), "test", "2026")
NO_TAX = TaxProfile("none", "none", {k: 0.0 for k in ("irrf_rate", "cide_rate", "iss_rate", "pis_cofins_rate",
                                                       "iof_rate")}, False, "", "", "test", "2026")
# one replica serves 1 request/s; two replicas per server
REPLICA = ReplicaSize(tensor_parallel=1, replicas_per_server=2, weights_gb=1.0, kv_mb_per_token=0.1, batch=10,
                      batch_memory_limit=10, step_seconds=0.05, tokens_per_second_per_user=20.0, target_met=True,
                      decode_tokens_per_second=200.0, prefill_seconds_per_request=0.0,
                      replica_seconds_per_request=1.0, requests_per_second=1.0, bound="memory")


def fleet(offer_id, kind, price, *, setup=0.0, term=1, pricing="monthly"):
    return Fleet(offer_id, kind, GPU, 2, "BRL" if kind == "dedicated" else "USD", price,
                 "BRL/month" if kind == "dedicated" else "USD/h", pricing, setup, term, "test", "2026", "listed",
                 "test", "test")


def option(inference, training=None, *, fleet_kind="separate", autoscale=False, egress=FREE, storage=0.0, tax=NO_TAX,
           indexation=0.0, trend=0.0):
    return ResolvedOption("toy", 0, inference.kind, training, inference, fleet_kind, autoscale, egress, storage,
                          "test", "test", tax, indexation, trend)


def training_size(servers, wall_hours):
    return TrainingSize("lora", 1.0, 1.0, 1.0, 1, servers, servers * 2, 0.9, wall_hours, wall_hours * servers * 2, 0.4)


def flat_rps(per_month):
    """Load that is the same in every hour of the day [req/s], shape (months, 24)."""
    return np.repeat(np.asarray(per_month, dtype=float)[:, None], 24, axis=1)


# 14 months from January 2027: the second contract year starts in month 13 (January 2028)
DAYS14 = demand.days_in_months("2027-01", 14)
# inference load per month (flat over the day); with utilisation 0.5 and 2 replicas per server:
#   0 → 0 servers, 0.4 → 1, 1.2 → 3 replicas → 2, 0.8 → 2 → 1, 2.0 → 4 → 2, 3.0 → 6 → 3
LOAD14 = [0.0, 0.4, 0.4, 1.2, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 2.0, 3.0]
PEAK14 = [0, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3]


def test_dedicated_separate_option_by_hand():
    tr = fleet("ded/train", "dedicated", 5000.0, setup=500.0, term=3)
    inf = fleet("ded/serve", "dedicated", 1000.0, setup=100.0, term=1)
    opt = option(inf, tr, indexation=0.04)
    # 2 training servers for 1,000 wall-clock hours: January (744 h) and February (256 h)
    oc = option_costs(opt, training=training_size(2, 1000.0), replica=REPLICA, rps=flat_rps(LOAD14), days=DAYS14,
                      egress_gb=np.zeros(14), storage_gb=500.0, training_start=1, inference_start=2,
                      utilization=0.5, redundancy="none")
    idx = np.array([1.0] * 12 + [1.04] * 2)
    # training: 2 months of work, but a 3-month minimum term: months 1–3 at 2 × 5,000
    expected_train = np.array([2 * 5000.0] * 3 + [0.0] * 11)
    # inference: the serving fleet is never released (ratchet), indexed by IPCA in year 2
    fleet_paid = np.array([0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3], dtype=float)
    np.testing.assert_array_equal(ratchet(np.array(PEAK14, dtype=float)), fleet_paid)
    expected_inf = fleet_paid * 1000.0 * idx
    # setup: 2 training servers in month 1; serving servers added in months 2, 4 and 14
    expected_setup = np.zeros(14)
    expected_setup[0] = 2 * 500.0
    expected_setup[1] = 1 * 100.0
    expected_setup[3] = 1 * 100.0
    expected_setup[13] = 1 * 100.0
    np.testing.assert_allclose(oc.lines["training_compute"], expected_train)
    np.testing.assert_allclose(oc.lines["inference_compute"], expected_inf)
    assert oc.lines["inference_compute"][12] == pytest.approx(2 * 1000 * 1.04)  # month 13: 2,080
    np.testing.assert_allclose(oc.lines["setup"], expected_setup)
    # dedicated: local disks included, no egress, no taxes
    for k in ("storage", "egress", "taxes"):
        np.testing.assert_array_equal(oc.lines[k], 0.0)
    assert oc.currency["training_compute"] == oc.currency["inference_compute"] == oc.currency["setup"] == "BRL"
    np.testing.assert_array_equal(oc.training_servers, [2, 2, 2] + [0] * 11)
    np.testing.assert_array_equal(oc.inference_servers, fleet_paid)
    np.testing.assert_allclose(oc.instance_hours, (np.array([2, 2, 2] + [0] * 11) + fleet_paid) * DAYS14 * 24)
    np.testing.assert_allclose(oc.training_hours, np.array([2, 2, 2] + [0] * 11) * DAYS14 * 24)
    assert oc.training_months == 2
    assert oc.tax_uplift == 0.0


def test_dedicated_training_min_term_past_horizon_warns():
    tr = fleet("ded/train", "dedicated", 5000.0, setup=0.0, term=12)
    inf = fleet("ded/serve", "dedicated", 1000.0)
    oc = option_costs(option(inf, tr), training=training_size(1, 100.0), replica=REPLICA, rps=flat_rps([0.4] * 3),
                      days=DAYS14[:3], egress_gb=np.zeros(3), storage_gb=0.0, training_start=2, inference_start=1,
                      utilization=0.5, redundancy="none")
    # term of 12 months from month 2 of a 3-month horizon: months 2–3 costed, the rest dropped with a warning
    np.testing.assert_allclose(oc.lines["training_compute"], [0.0, 5000.0, 5000.0])
    assert [n.code for n in oc.notices] == ["min_term_idle", "min_term_past_horizon"]  # busy 1 of 12 months, and past H


def test_cloud_autoscaled_option_by_hand(cat):
    tax = cat.taxes["import_direct_sp"]
    inf = fleet("cloud/serve", "cloud", 2.0, pricing="on_demand")
    tr = fleet("cloud/train", "cloud", 30.0, pricing="on_demand")
    opt = option(inf, tr, autoscale=True, egress=cat.egress["aws/us-east-1"], storage=0.02, tax=tax)
    days = demand.days_in_months("2027-01", 3)  # 31, 28, 31
    # day profile: 12 hours at 0.4 req/s (1 server), 12 hours at 1.2 req/s (3 replicas → 2 servers)
    day = np.array([0.4] * 12 + [1.2] * 12)
    rps = np.stack([day, day * 0.0, day])
    egress = np.array([1_000.0, 0.0, 20_000.0])
    oc = option_costs(opt, training=training_size(2, 1000.0), replica=REPLICA, rps=rps, days=days, egress_gb=egress,
                      storage_gb=100.0, training_start=1, inference_start=1, utilization=0.5, redundancy="none")
    server_hours = np.array([(12 * 1 + 12 * 2) * 31, 0.0, (12 * 1 + 12 * 2) * 31])  # Σ_h servers × days
    np.testing.assert_allclose(oc.lines["inference_compute"], server_hours * 2.0)
    assert oc.lines["inference_compute"][0] == pytest.approx(1116 * 2.0)
    # training: 2 instances for the wall-clock hours of each month, by the hour
    np.testing.assert_allclose(oc.lines["training_compute"], [2 * 744 * 30.0, 2 * 256 * 30.0, 0.0])
    np.testing.assert_allclose(oc.lines["storage"], [100 * 0.02] * 3)
    expected_egress = [(1_000 - 100) * 0.09, 0.0, (10_340 - 100) * 0.09 + (20_000 - 10_340) * 0.085]
    np.testing.assert_allclose(oc.lines["egress"], expected_egress)
    np.testing.assert_array_equal(oc.lines["setup"], 0.0)
    base = oc.lines["training_compute"] + oc.lines["inference_compute"] + oc.lines["storage"] + oc.lines["egress"]
    np.testing.assert_allclose(oc.lines["taxes"], tax_uplift(tax) * base)
    assert all(oc.currency[k] == "USD" for k in LINES if k != "setup")
    np.testing.assert_array_equal(oc.inference_servers, [2, 0, 2])  # the peak of the day
    np.testing.assert_allclose(oc.instance_hours, server_hours + np.array([2 * 744, 2 * 256, 0]))
    np.testing.assert_allclose(oc.training_hours, [2 * 744, 2 * 256, 0])


def test_cloud_storage_starts_with_first_use():
    inf = fleet("cloud/serve", "cloud", 2.0, pricing="on_demand")
    oc = option_costs(option(inf, None, storage=0.02), training=None, replica=REPLICA,
                      rps=flat_rps([0.0, 0.0, 0.4, 0.4]), days=DAYS14[:4], egress_gb=np.zeros(4), storage_gb=100.0,
                      training_start=1, inference_start=3, utilization=0.5, redundancy="none")
    np.testing.assert_allclose(oc.lines["storage"], [0, 0, 100 * 0.02, 100 * 0.02])


def test_cloud_not_autoscaled_runs_the_peak_all_month():
    inf = fleet("cloud/serve", "cloud", 2.0, pricing="on_demand")
    days = DAYS14[:3]
    day = np.array([0.4] * 12 + [1.2] * 12)
    oc = option_costs(option(inf, None), training=None, replica=REPLICA, rps=np.stack([day, day * 0.5, day * 0]),
                      days=days, egress_gb=np.zeros(3), storage_gb=0.0, training_start=1, inference_start=1,
                      utilization=0.5, redundancy="none")
    # peaks 2, 1 (0.6 req/s → 2 replicas → 1 server), 0: on demand follows the monthly peak, down as well as up
    np.testing.assert_allclose(oc.lines["inference_compute"], np.array([2, 1, 0]) * 24 * days * 2.0)


def test_reserved_option_ratchets_the_peak(cat):
    inf = fleet("cloud/serve", "cloud", 1.5, pricing="reserved_1yr")
    days = demand.days_in_months("2027-01", 13)
    load = [0.4, 1.2, 0.4] + [0.4] * 10  # peaks 1, 2, 1, … → paid 1, 2, 2, …
    opt = option(inf, None, autoscale=False, trend=-0.10)
    oc = option_costs(opt, training=None, replica=REPLICA, rps=flat_rps(load), days=days, egress_gb=np.zeros(13),
                      storage_gb=0.0, training_start=1, inference_start=1, utilization=0.5, redundancy="none")
    paid = np.array([1] + [2] * 12, dtype=float)
    trend = np.array([1.0] * 12 + [0.9])  # cloud prices 10 % lower from month 13
    expected = paid * 24 * days * 1.5 * trend
    np.testing.assert_allclose(oc.lines["inference_compute"], expected)
    assert oc.lines["inference_compute"][2] == pytest.approx(2 * 24 * 31 * 1.5)  # March: 2 instances kept
    np.testing.assert_array_equal(oc.inference_servers, paid)


def test_shared_dedicated_fleet_by_hand():
    f = fleet("ded/hgx", "dedicated", 10_000.0, setup=1000.0, term=12)
    opt = option(f, f, fleet_kind="shared", indexation=0.04)
    # training: 2 servers over months 1–2 (1,000 h); inference peaks 0, 1, 1, 2, 1, … as above
    oc = option_costs(opt, training=training_size(2, 1000.0), replica=REPLICA, rps=flat_rps(LOAD14), days=DAYS14,
                      egress_gb=np.zeros(14), storage_gb=0.0, training_start=1, inference_start=2,
                      utilization=0.5, redundancy="none")
    need = np.array([2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + np.array(PEAK14)  # 2, 3, 1, 2, 1, …, 2, 3
    fleet_paid = ratchet(need.astype(float))
    np.testing.assert_array_equal(fleet_paid, [2] + [3] * 13)
    idx = np.array([1.0] * 12 + [1.04] * 2)
    total = fleet_paid * 10_000.0 * idx
    train_part = np.array([2, 2] + [0] * 12) * 10_000.0 * idx
    np.testing.assert_allclose(oc.lines["training_compute"], train_part)
    np.testing.assert_allclose(oc.lines["inference_compute"], total - train_part)
    # setup on each increment of the one fleet: 2 servers in month 1, 1 more in month 2
    np.testing.assert_allclose(oc.lines["setup"], [2 * 1000.0, 1 * 1000.0] + [0.0] * 12)
    np.testing.assert_allclose(oc.instance_hours, fleet_paid * DAYS14 * 24)
    np.testing.assert_allclose(oc.training_hours, np.array([2, 2] + [0] * 12) * DAYS14 * 24)
    np.testing.assert_array_equal(oc.training_servers + oc.inference_servers, fleet_paid)


def test_shared_cloud_fleet_pays_whole_months():
    f = fleet("cloud/8x", "cloud", 10.0, pricing="on_demand")
    opt = option(f, f, fleet_kind="shared", autoscale=True)
    days = DAYS14[:3]
    oc = option_costs(opt, training=training_size(1, 100.0), replica=REPLICA, rps=flat_rps([0.0, 0.4, 0.4]),
                      days=days, egress_gb=np.zeros(3), storage_gb=0.0, training_start=1, inference_start=2,
                      utilization=0.5, redundancy="none")
    # need = 1 (training) + 0, 0 + 1, 0 + 1 → one instance kept all three months, every hour
    np.testing.assert_allclose(oc.lines["training_compute"], [1 * 24 * 31 * 10.0, 0, 0])
    np.testing.assert_allclose(oc.lines["inference_compute"], [0, 1 * 24 * 28 * 10.0, 1 * 24 * 31 * 10.0])


def test_option_costs_currency_and_tax_warning_on_brl_offer(cat):
    inf = fleet("ded/serve", "dedicated", 1000.0)
    oc = option_costs(option(inf, None, tax=cat.taxes["import_direct_sp"]), training=None, replica=REPLICA,
                      rps=flat_rps([0.4]), days=DAYS14[:1], egress_gb=np.zeros(1), storage_gb=0.0, training_start=1,
                      inference_start=1, utilization=0.5, redundancy="none")
    np.testing.assert_array_equal(oc.lines["taxes"], [0.0])  # no USD line, nothing to tax
    assert "tax_on_brl_offer" in [n.code for n in oc.notices]


def test_cloud_training_with_dedicated_serving_taxes_only_the_usd_training(cat):
    tax = cat.taxes["import_direct_sp"]
    tr = fleet("cloud/train", "cloud", 30.0, pricing="on_demand")
    inf = fleet("ded/serve", "dedicated", 1000.0)
    oc = option_costs(option(inf, tr, tax=tax), training=training_size(1, 100.0), replica=REPLICA,
                      rps=flat_rps([0.4, 0.4]), days=DAYS14[:2], egress_gb=np.zeros(2), storage_gb=50.0,
                      training_start=1, inference_start=1, utilization=0.5, redundancy="none")
    assert oc.currency["training_compute"] == "USD" and oc.currency["inference_compute"] == "BRL"
    np.testing.assert_allclose(oc.lines["training_compute"], [1 * 100 * 30.0, 0.0])
    np.testing.assert_allclose(oc.lines["taxes"], [tax_uplift(tax) * 100 * 30.0, 0.0])
    np.testing.assert_allclose(oc.lines["inference_compute"], [1000.0, 1000.0])


def test_egress_on_a_dedicated_option_is_in_usd(cat):
    inf = fleet("ded/serve", "dedicated", 1000.0)
    oc = option_costs(option(inf, None, egress=cat.egress["aws/us-east-1"]), training=None, replica=REPLICA,
                      rps=flat_rps([0.4]), days=DAYS14[:1], egress_gb=np.array([20_000.0]), storage_gb=0.0,
                      training_start=1, inference_start=1, utilization=0.5, redundancy="none")
    assert oc.lines["egress"][0] == pytest.approx((10_340 - 100) * 0.09 + (20_000 - 10_340) * 0.085)
    assert oc.currency["egress"] == "USD"


def test_explicit_storage_price_on_a_dedicated_option_is_costed():
    inf = fleet("ded/serve", "dedicated", 1000.0)
    oc = option_costs(option(inf, None, storage=0.02), training=None, replica=REPLICA, rps=flat_rps([0.4]),
                      days=DAYS14[:1], egress_gb=np.zeros(1), storage_gb=1000.0, training_start=1, inference_start=1,
                      utilization=0.5, redundancy="none")
    assert oc.lines["storage"][0] == pytest.approx(1000 * 0.02)


def test_reserved_training_burst_is_rejected(cat):
    from tco.engine import run_scenario
    from tco.errors import InputError
    from tco.scenario import load_text

    text = """
[scenario]
name = "reserved burst"
start = "2027-01"
horizon_months = 3
[model]
id = "llama-3.1-8b"
precision = "fp8"
kv_precision = "fp8"
[training]
method = "lora"
gpu_hours = 400
[inference]
users = { model = "list", users = [100] }
requests_per_user_per_day = 30
input_tokens_per_request = 500
output_tokens_per_request = 200
[fx]
usdbrl = 5.0
[[options]]
name = "reserved burst"
training_offer = "aws/sa-east-1/g6.12xlarge"
training_pricing = "reserved_1yr"
inference_offer = "br-dedicated/sp/l4-1x"
"""
    # a 1-year reservation for a 200-hour burst used to be billed for the 200 hours only, at the reserved rate;
    # it is now rejected, naming the key and the way out
    with pytest.raises(InputError) as exc:
        run_scenario(load_text(text), cat)
    msg = str(exc.value)
    assert "training_pricing" in msg and "on_demand" in msg


# ---------------------------------------------------------------------------------------------
# Commitments paid upfront: the upfront in the month each term starts, the hourly part every hour


def upfront_fleet(price, upfront, term, pricing):
    from dataclasses import replace

    return replace(fleet("cloud/serve", "cloud", price, pricing=pricing), upfront_usd=upfront,
                   upfront_term_months=term)


def test_all_upfront_reserved_fleet_pays_each_instance_upfront_in_its_first_month():
    # effective 2.0 US$/h of which 8,760 US$ upfront per instance for 12 months: hourly part 2 − 8,760/(12·730) = 1.0
    inf = upfront_fleet(2.0, 8760.0, 12, "ri_1yr_standard_all_upfront_effective")
    days = demand.days_in_months("2027-01", 14)
    load = [0.4, 1.2, 0.4] + [0.4] * 11  # peaks 1, 2, 1, … → paid 1, 2, 2, … (a new instance in month 2)
    oc = option_costs(option(inf, None), training=None, replica=REPLICA, rps=flat_rps(load), days=days,
                      egress_gb=np.zeros(14), storage_gb=0.0, training_start=1, inference_start=1, utilization=0.5,
                      redundancy="none")
    hourly = 2.0 - 8760.0 / (12 * 730)
    assert hourly == pytest.approx(1.0)
    paid = np.array([1] + [2] * 13, dtype=float)
    # upfronts: instance 1 in month 1 and again in month 13 (its second term); instance 2 in month 2 and month 14
    starts = np.array([1, 1] + [0] * 10 + [1, 1], dtype=float)
    expected = paid * 24 * days * hourly + starts * 8760.0
    np.testing.assert_allclose(oc.lines["inference_compute"], expected)
    assert oc.lines["inference_compute"][0] == pytest.approx(1 * 24 * 31 * 1.0 + 8760.0)   # 9,504
    assert oc.lines["inference_compute"][2] == pytest.approx(2 * 24 * 31 * 1.0)            # March: hourly only
    np.testing.assert_array_equal(oc.rows["upfronts"], starts)


def test_upfront_costs_the_same_over_a_term_and_npv_penalises_paying_early():
    # one instance for 12 months: all upfront (upfront 8,760 + hourly part 1.0) against the same effective 2.0
    # spread; over the term the two differ only by the hours (730 h a month in the price, 24·days in the months)
    days = demand.days_in_months("2027-01", 12)
    kw = dict(training=None, replica=REPLICA, rps=flat_rps([0.4] * 12), days=days, egress_gb=np.zeros(12),
              storage_gb=0.0, training_start=1, inference_start=1, utilization=0.5, redundancy="none")
    up = option_costs(option(upfront_fleet(2.0, 8760.0, 12, "ri_1yr_standard_all_upfront_effective")), **kw)
    spread = option_costs(option(fleet("cloud/serve", "cloud", 2.0, pricing="reserved_1yr")), **kw)
    hours = 24 * days.sum()                                        # 8,760 h in 2027
    assert up.lines["inference_compute"].sum() == pytest.approx(8760.0 + hours * 1.0)
    assert spread.lines["inference_compute"].sum() == pytest.approx(hours * 2.0)
    # at 12 % a year the upfront, paid in month 1, weighs more than the same money spread over the year
    df = (1.12) ** (-np.arange(1, 13) / 12)
    assert up.lines["inference_compute"] @ df > spread.lines["inference_compute"] @ df


def test_committed_baseline_with_upfront_pays_each_terms_level_at_its_start():
    from dataclasses import replace

    # serving from month 2; 12-month terms: term 1 = months 2–13 (2 instances), term 2 = months 14–15 (1 instance)
    inf = upfront_fleet(3.0, 730.0 * 12, 12, "ri_1yr_standard_all_upfront_effective")  # hourly part 3 − 1 = 2.0
    burst = fleet("cloud/serve", "cloud", 5.0, pricing="on_demand")
    opt = replace(option(inf, None), committed=(2, 1), burst=burst, commit_term_months=12)
    days = demand.days_in_months("2027-01", 15)
    load = [0.0] + [0.4] * 14  # one server needed every hour from month 2
    oc = option_costs(opt, training=None, replica=REPLICA, rps=flat_rps(load), days=days, egress_gb=np.zeros(15),
                      storage_gb=0.0, training_start=1, inference_start=2, utilization=0.5, redundancy="none")
    commit = np.array([0] + [2] * 12 + [1] * 2, dtype=float)
    starts = np.zeros(15)
    starts[1], starts[13] = 2, 1          # month 2: the first term's 2 instances; month 14: the second term's 1
    expected = commit * 24 * days * 2.0 + starts * 8760.0   # no burst: the load never exceeds the baseline
    np.testing.assert_allclose(oc.lines["inference_compute"], expected)
    assert oc.lines["inference_compute"][1] == pytest.approx(2 * 24 * 28 * 2.0 + 2 * 8760.0)   # Feb 2027


def test_the_plan_search_costs_an_upfront_baseline_as_the_engine_does():
    # tco.plan.costing._ladder: costs.committed_levels, the baseline's own rules evaluated over a batch of levels
    from dataclasses import replace

    from tco.costs import committed_levels

    inf = upfront_fleet(3.0, 730.0 * 12, 12, "ri_1yr_standard_all_upfront_effective")
    burst = fleet("cloud/serve", "cloud", 5.0, pricing="on_demand")
    opt = replace(option(inf, None, trend=-0.1), committed=(1, 2), burst=burst, commit_term_months=12)
    days = demand.days_in_months("2027-01", 26)
    load = [0.0] + [0.4] * 12 + [1.2] * 13  # 1 server needed, then 2 from month 14

    def costs_of(o):
        return option_costs(o, training=None, replica=REPLICA, rps=flat_rps(load), days=days, egress_gb=np.zeros(26),
                            storage_gb=0.0, training_start=1, inference_start=2, utilization=0.5, redundancy="none")

    oc = costs_of(opt)
    base = costs_of(replace(opt, committed=None, burst=None))  # the offer at its pricing, as the search costs it first
    np.testing.assert_array_equal(committed_levels(opt, base, np.array([[1.0, 2.0]]))[0], oc.lines["inference_compute"])
    ladder = committed_levels(opt, base, np.array([[0.0], [1.0], [2.0]]))  # each level held over every term, at once
    for k in range(3):
        np.testing.assert_array_equal(ladder[k], costs_of(replace(opt, committed=(k,))).lines["inference_compute"])
    # by hand: hourly part 3 − 8,760 / (12 × 730) = 2.0; terms start in months 2 (1 instance), 14 (2) and 26 (2, the
    # last level holding); the load never exceeds the baseline (no burst); the trend 0.9^⌊(t − 1)/12⌋
    assert oc.rows["hourly_part"][0] == pytest.approx(3.0 - 8760.0 / (12 * 730))
    np.testing.assert_array_equal(np.nonzero(oc.rows["upfronts"])[0] + 1, [2, 14, 26])
    commit = np.array([0] + [1] * 12 + [2] * 13, dtype=float)
    starts = np.zeros(26)
    starts[[1, 13, 25]] = [1, 2, 2]
    trend = 0.9 ** np.floor(np.arange(26) / 12)
    expected = (commit * 24 * days * 2.0 + starts * 8760.0) * trend
    np.testing.assert_allclose(oc.lines["inference_compute"], expected)
