"""tco.report.words: the plain words of the proposal (fleets, plans, providers, pricings), its one
comparison convention, its money (whole reais, unit prices in centavos, dollars) and its dates.

The comparison "N× dearer / N× cheaper" is checked by hand and as a property: swapping the two amounts swaps the
word and keeps the factor, and the factor is never below 1."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report import fmt
from tco.report import words as w
from tco.report.i18n import t
from tco.report.view import FleetView, PlanView


def _fleet(**kw) -> FleetView:
    base = dict(offer="br-dedicated/sp/h200-nvl-1x", kind="dedicated", provider="br-dedicated", gpu="H200-NVL-141GB",
                gpus_per_server=1, price=15300.0, price_unit="BRL/month", currency="BRL", pricing="monthly",
                setup_fee_brl=1530.0, min_term_months=3, status="estimate", source="", as_of="")
    return FleetView(**(base | kw))


# --- names --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("gpu", "name"), [("H200-NVL-141GB", "H200 NVL"), ("H100-SXM-80GB", "H100 SXM"),
                                           ("L4", "L4"), ("B200-SXM-180GB", "B200 SXM"), ("A100-PCIE-40GB", "A100 PCIE")])
def test_gpu_name_drops_the_memory_and_the_dashes(gpu, name):
    assert w.gpu_name(gpu) == name


def test_provider_names():
    assert w.provider_name("aws", "en") == "AWS"
    assert w.provider_name("gcp", "pt-BR") == t("pv_provider_gcp", "pt-BR")
    assert w.provider_name("br-dedicated", "en") == t("pv_provider_br_dedicated", "en")
    assert w.provider_name("lambda", "en") == "Lambda"  # no label: the id, capitalised


def test_fleet_names_in_both_locales():
    assert w.fleet_name(_fleet(), "en") == "dedicated server with 1 H200 NVL GPU"
    assert w.fleet_name(_fleet(gpus_per_server=8, gpu="H200-SXM-141GB"), "en") == (
        "dedicated server with 8 H200 SXM GPUs")
    cloud = _fleet(offer="aws/us-east-1/p5en.48xlarge", kind="cloud", provider="aws", gpu="H200-SXM-141GB",
                   gpus_per_server=8)
    assert w.fleet_name(cloud, "pt-BR") == "AWS p5en.48xlarge com 8 GPUs H200 SXM"
    one = dataclasses.replace(cloud, offer="gcp/us-central1/g2-standard-4", provider="gcp", gpu="L4",
                              gpus_per_server=1)
    assert w.fleet_name(one, "en") == t("pv_fleet_cloud_one", "en", provider="Google Cloud",
                                        instance="g2-standard-4", gpu="L4")


def test_pricing_names_fall_back_to_words():
    assert w.pricing_name("savings_plan_ec2_3yr", "en") == "EC2 Instance Savings Plan 3 years"
    assert w.pricing_name("some_new_pricing", "en") == "some new pricing"


def test_plan_name():
    p = PlanView("aws", 1.0, 1.0, "aws/us-east-1/p5en.48xlarge", "cloud", "H200-SXM-141GB", 8,
                 "savings_plan_ec2_3yr", "us-east-1", 3, None, None)
    assert w.plan_name(p, "en") == "p5en.48xlarge with 8 H200 SXM GPUs, EC2 Instance Savings Plan 3 years"
    one = dataclasses.replace(p, serving_offer="aws/us-east-1/g6.xlarge", serving_gpu="L4", serving_gpus_per_server=1,
                              serving_pricing="on_demand")
    assert w.plan_name(one, "pt-BR") == f"g6.xlarge com 1 GPU L4, {t('pricing_on_demand', 'pt-BR')}"


# --- money ----------------------------------------------------------------------------------------------------------

def test_money_is_whole_reais_and_unit_prices_keep_centavos():
    assert w.money(1234567.89, "pt-BR") == fmt.money(1234568, "pt-BR", False) == "R$\xa01.234.568"
    assert w.unit_price(12.346, "pt-BR") == "R$\xa012,35"
    assert w.unit_price(8.1, "en") == "R$8.10"
    assert w.money(None, "en") == "—"


def test_dollars_always_say_us():
    assert w.usd(63.296, "en") == "US$63.30"
    assert w.usd(63.296, "pt-BR") == "US$\xa063,30"
    assert w.usd(1234.5, "en") == "US$1,234.50"


# --- the comparison convention ------------------------------------------------------------------------------------

def test_multiple_by_hand():
    assert w.multiple(310.0, 100.0, "pt-BR") == "3,1× mais cara"  # 310 / 100 = 3.1
    assert w.multiple(50.0, 100.0, "pt-BR") == "2,0× mais barata"  # 100 / 50 = 2.0
    assert w.multiple(100.0, 100.0, "en") == "1.0× more expensive"  # equal: 1.0×, never "0%"
    assert w.multiple(0.0, 100.0, "en") == "—" and w.multiple(100.0, 0.0, "en") == "—"
    assert w.multiple(-5.0, 100.0, "en") == "—"


def _factor(text: str) -> float:
    return float(re.match(r"([\d.,]+)×", text)[1].replace(",", ""))


@settings(max_examples=200, deadline=None)
@given(a=st.floats(1.0, 1e9), b=st.floats(1.0, 1e9))
def test_swapping_the_pair_swaps_the_word_and_keeps_the_factor(a, b):
    if a == b:
        return
    ab, ba = w.multiple(a, b, "en"), w.multiple(b, a, "en")
    assert {ab.split("× ")[1], ba.split("× ")[1]} == {"more expensive", "cheaper"}
    assert _factor(ab) == _factor(ba) >= 1.0
    assert _factor(ab) == pytest.approx(max(a, b) / min(a, b), abs=0.05 + 1e-9 * max(a, b) / min(a, b))


# --- dates ----------------------------------------------------------------------------------------------------------

def test_document_date_from_the_proposal_else_the_start_month(seed_results, small_run):
    assert w.document_date(seed_results.scenario) == dt.date(2026, 11, 30)  # [proposal] date
    assert small_run.scenario.proposal is None
    y, m = small_run.scenario.scenario.start.split("-")
    assert w.document_date(small_run.scenario) == dt.date(int(y), int(m), 1)  # never the clock


def test_day_and_month_names():
    assert w.day(dt.date(2026, 12, 30), "pt-BR") == "30 de dezembro de 2026"
    assert w.day(None, "en") == "—"
    assert w.month_name(3, "pt-BR") == "março"
    assert w.month_name(12, "en") == "December"


def test_table_marks_number_and_name_columns():
    tab = w.table(["a", "b", "c"], [["x", "1", "2"]], num=(1, 2), highlight=(0,), name=0, foot=["t", "", ""])
    assert tab["cls"] == ["name", "num", "num"]
    assert tab["highlight"] == {0}
    assert tab["rows"] == [["x", "1", "2"]] and tab["foot"] == ["t", "", ""]
