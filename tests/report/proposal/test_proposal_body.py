"""tco.report.proposal.body: the recommendation, the bridge from GPU-hour price to TCO, the comparison with each
competitor's best plan, the yearly cash, the risks and the case beyond cost.

Checked in English (so the expected sentences read plainly) against the view's values: the bridge's price per GPU-hour
worked by hand (hourly price / GPUs, × the spot rate), compute + the rest = the TCO, the yearly blocks add up to the
TCO, and each risk or case row present exactly when its fact is."""

from __future__ import annotations

import dataclasses

import pytest

from tco.report import fmt, view
from tco.report.proposal import body
from tco.report.i18n import t
from tco.report.words import fleet_name, money, multiple, plan_name, provider_name, unit_price, usd

EN = "en"
ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]


def _rows(tab: dict) -> dict[str, list[str]]:
    return {r[0]: r[1:] for r in tab["rows"]}


# --- the counterpart ------------------------------------------------------------------------------------------------

def test_a_hybrid_recommendation_meets_the_cheapest_cloud_option(seed_view):
    rec = seed_view.recommended
    assert rec.kind == "hybrid"
    other = body.counterpart(seed_view, rec)
    assert other.kind == "cloud"
    assert other.name == next(o.name for o in seed_view.ranked_options if o.kind == "cloud")


def test_a_cloud_recommendation_meets_the_cheapest_with_a_dedicated_fleet(small_view):
    rec = small_view.recommended
    assert rec.kind == "cloud"
    other = body.counterpart(small_view, rec)
    assert other.kind in ("dedicated", "hybrid")


def test_no_option_of_another_kind_no_counterpart(small_run):
    cloud = view.build(dataclasses.replace(small_run, options=[o for o in small_run.options if o.kind == "cloud"]))
    assert body.counterpart(cloud, cloud.recommended) is None
    assert body.summary(cloud, EN)["bridge"] is None


# --- summary and bridge -----------------------------------------------------------------------------------------------

def test_summary_sentences_and_key_figures(seed_view):
    out = body.summary(seed_view, EN)
    rec, other = seed_view.recommended, body.counterpart(seed_view, seed_view.recommended)
    assert out["sentences"][0] == t("pv_rec", EN, rec=rec.label, months=36, tco=money(rec.tco_brl, EN))
    # the hybrid serves on dedicated servers: up to its peak servers, each for the catalog's minimum term; its
    # training runs on cloud capacity (no training commitment)
    assert out["sentences"][1] == t("pv_commit_intro", EN, rec=rec.label) + " " + t(
        "pv_commit_dedicated", EN, n=rec.peak_servers, what=fleet_name(rec.inference, EN),
        term=rec.inference.min_term_months)
    assert out["sentences"][2] == t("pv_vs_other", EN, other=other.label, tco=money(other.tco_brl, EN),
                                    cmp=multiple(other.tco_brl, rec.tco_brl, EN))
    figures = dict(out["figures"])
    assert figures[t("pv_kf_pv", EN, rate="14%")] == money(rec.npv_brl, EN)  # discount rate 0.14 → "14%"
    assert figures[t("pv_kf_mtok", EN)] == unit_price(rec.cost_per_million_tokens_brl, EN)


def test_bridge_prices_by_hand(seed_view):
    rec = seed_view.recommended
    other = body.counterpart(seed_view, rec)
    rows = _rows(body.bridge(seed_view, rec, other, EN)["table"])
    f = other.inference  # a cloud instance priced in US$ per hour
    assert f.currency == "USD"
    per_gpu_usd = f.price / f.gpus_per_server  # e.g. US$ 63.30 / 8 GPUs
    assert rows[t("pv_b_list", EN)][1] == usd(per_gpu_usd, EN)
    assert rows[t("pv_b_fx", EN, rate=unit_price(5.40, EN))][1] == unit_price(per_gpu_usd * 5.40, EN)
    g = rec.inference  # the dedicated serving server, R$ per month
    per_gpu_brl = g.price / 730 / g.gpus_per_server
    assert rows[t("pv_b_list", EN)][0] == unit_price(per_gpu_brl, EN)
    assert rows[t("pv_b_fx", EN, rate=unit_price(5.40, EN))][0] == unit_price(per_gpu_brl, EN)  # already in reais


def test_bridge_compute_and_rest_add_up_to_the_tco(seed_view):
    rec = seed_view.recommended
    other = body.counterpart(seed_view, rec)
    rows = _rows(body.bridge(seed_view, rec, other, EN)["table"])
    for i, o in enumerate((rec, other)):
        compute = o.lines_brl["training_compute"] + o.lines_brl["inference_compute"]
        rest = o.lines_brl["setup"] + o.lines_brl["storage"] + o.lines_brl["egress"] + o.lines_brl["taxes"]
        assert compute + rest == pytest.approx(o.tco_brl, rel=1e-12)
        assert rows[t("pv_b_compute", EN)][i] == money(compute, EN)
        assert rows[t("pv_b_rest", EN)][i] == money(rest, EN)
        assert rows[t("pv_b_tco", EN)][i] == money(o.tco_brl, EN)
        assert rows[t("pv_b_fleet", EN)][i] == f"{o.peak_servers} × {o.inference.gpus_per_server}"
        assert rows[t("pv_b_hours", EN, months=36)][i] == fmt.number(o.inference_gpu_hours + o.training_gpu_hours, EN)


# --- comparison and yearly cash -----------------------------------------------------------------------------------------

def test_comparison_lists_our_offer_then_each_cloud_providers_best_plan(small_view):
    ours = small_view.option(next(n for n in small_view.ranked if small_view.option(n).kind == "dedicated"))
    out = body.comparison(small_view, ours, EN)
    rows = out["table"]["rows"]
    assert rows[0] == [t("pv_our_offer", EN), ours.label, money(ours.tco_brl, EN), "—"]
    plans = [p for p in small_view.plans if p.provider != "hybrid" and p.serving_kind == "cloud"]
    assert len(rows) == 1 + len(plans) > 1
    for r, p in zip(rows[1:], plans, strict=True):
        assert r == [provider_name(p.provider, EN), plan_name(p, EN), money(p.tco_brl, EN),
                     multiple(p.tco_brl, ours.tco_brl, EN)]
    assert out["sentences"][0].startswith(t("pv_c_best", EN, provider=provider_name(plans[0].provider, EN),
                                            plan=plan_name(plans[0], EN), cmp="", months=24).split(" is ")[0])


def test_without_a_plan_search_the_comparison_says_so(seed_view):
    out = body.comparison(seed_view, seed_view.recommended, EN)
    assert out["sentences"] == [t("pv_c_no_plans", EN)]
    assert len(out["table"]["rows"]) == 1


def test_yearly_cash_adds_up_to_the_tco(seed_view):
    ours = seed_view.recommended
    cash = body.comparison(seed_view, ours, EN)["cash"]
    rows = cash["table"]["rows"]
    assert [r[0] for r in rows] == [t("pv_year", EN, n=n, year=y) for n, y in ((1, 2027), (2, 2028), (3, 2029))] + [
        t("pv_total", EN)]
    cloud = next(o for o in seed_view.ranked_options if o.kind == "cloud")
    for col, o in enumerate((ours, cloud), 1):
        assert [r[col] for r in rows[:-1]] == [money(x, EN) for x in o.yearly_brl]
        assert rows[-1][col] == money(o.tco_brl, EN)
        assert sum(o.yearly_brl) == pytest.approx(o.tco_brl, rel=1e-12)
    assert cash["note"] is not None  # a cloud column: the exchange rate it is converted at is named


# --- risks and the case beyond cost -------------------------------------------------------------------------------------

def test_risks_of_a_dedicated_offer(seed_results, seed_view):
    ours = seed_view.recommended
    rows = _rows(body.risks(seed_view, ours, seed_results.scenario, EN)["table"])
    term = seed_results.scenario.proposal.min_term_months  # 3, written in [proposal]
    per = ours.inference.price * term  # one server paid for the minimum term
    assert rows[t("pv_r_demand", EN)][0] == t("pv_r_demand_i", EN, term=term, per=money(per, EN))
    # redundancy = "n+1", and the seed's [proposal.included] commits to 99.9 % a month
    assert rows[t("pv_r_failure", EN)][1] == t("pv_r_failure_m_n1", EN) + " " + t("pv_r_sla", EN, sla="99.9%")
    assert t("pv_r_ageing", EN) in rows
    assert t("pv_r_fx", EN) not in rows  # no Monte Carlo in this run: no P95 to quote
    tax = any(n.code == "tax_rates_estimate" for n in seed_view.notices)
    assert (t("pv_r_tax", EN) in rows) == tax


def test_a_cloud_offer_has_no_server_risks(small_run, small_view):
    rows = _rows(body.risks(small_view, small_view.recommended, small_run.scenario, EN)["table"])
    assert t("pv_r_demand", EN) not in rows and t("pv_r_failure", EN) not in rows


# Was "data stays in Brazil" and "no remittance, no IOF, no exchange-rate swing" for the seed's hybrid, whose
# training runs on AWS us-east-1 priced in dollars (review H2): each claim now covers the training fleet too.
def test_the_case_beyond_cost(seed_results, seed_view):
    # the seed asks for the data in Brazil: its recommendation trains in São Paulo; the us-east-1 hybrid (shown, not
    # recommended) is the case of training abroad
    assert seed_view.recommended.training.region == "sa-east-1"
    ours = seed_view.option("Híbrido — treino AWS p5en sob demanda, serviço Dedicado BR 1x H200 NVL")
    assert (ours.training.region, ours.training.currency) == ("us-east-1", "USD")
    out = dict(body.case(seed_view, ours, seed_results.scenario, EN))
    assert t("pv_case_residency", EN) not in out and t("pv_case_billing", EN) not in out
    sp = t("pv_in_city", EN, city="São Paulo")
    assert out[t("pv_case_residency_split", EN)] == t("pv_case_residency_serving_v", EN, city=sp,
                                                       where="AWS us-east-1", abroad=0, total=0)
    assert out[t("pv_case_billing_part", EN)] == t("pv_case_billing_part_v", EN, what=fleet_name(ours.inference, EN),
                                                    usd=fleet_name(ours.training, EN))
    assert t("pv_case_latency", EN) not in out  # no latency written


def test_an_offer_all_in_brazil_and_in_reais_keeps_the_whole_claims(seed_results):
    v = view.build(dataclasses.replace(seed_results, options=[
        o for o in seed_results.options if o.name == "Dedicado BR — 8x H200 (frotas separadas)"]))
    out = dict(body.case(v, v.recommended, seed_results.scenario, EN))
    sp = t("pv_in_city", EN, city="São Paulo")
    assert out[t("pv_case_residency", EN)] == t("pv_case_residency_v", EN, city=sp, abroad=0, total=0)
    assert out[t("pv_case_billing", EN)] == t("pv_case_billing_v", EN)


def test_serving_abroad_makes_no_residency_or_reais_claim(seed_results, seed_view):
    ours = seed_view.recommended
    moved = dataclasses.replace(ours, inference=dataclasses.replace(ours.inference, region="us-east-1",
                                                                    currency="USD"))
    out = dict(body.case(seed_view, moved, seed_results.scenario, EN))
    assert not {t("pv_case_residency", EN), t("pv_case_residency_split", EN), t("pv_case_billing", EN),
                t("pv_case_billing_part", EN)} & set(out)


def test_the_case_counts_competitors_abroad(small_run, small_view):
    ours = small_view.option(next(n for n in small_view.ranked if small_view.option(n).kind == "dedicated"))
    out = dict(body.case(small_view, ours, small_run.scenario, EN))
    plans = body.competitors(small_view, ours)
    abroad = [p for p in plans if p.serving_region not in ("sa-east-1", "southamerica-east1", "brazilsouth", "br")]
    assert out[t("pv_case_residency", EN)] == t("pv_case_residency_v", EN, city=t("pv_brazil", EN),
                                                 abroad=len(abroad), total=len(plans))


# Was a list of prefixes with 'sp' (and without the dedicated providers' 'br'): Azure 'spaincentral' counted as Brazil.
def test_a_region_in_spain_is_abroad(small_run, small_view):
    ours = small_view.option(next(n for n in small_view.ranked if small_view.option(n).kind == "dedicated"))
    plans = tuple(dataclasses.replace(p, serving_region="spaincentral") for p in small_view.plans)
    v = dataclasses.replace(small_view, plans=plans)
    n = len(body.competitors(v, ours))
    out = dict(body.case(v, ours, small_run.scenario, EN))
    assert out[t("pv_case_residency", EN)] == t("pv_case_residency_v", EN, city=t("pv_brazil", EN), abroad=n, total=n)


def test_a_separate_dedicated_training_cluster_commits_to_its_term(seed_results):
    v = view.build(dataclasses.replace(seed_results, options=[
        o for o in seed_results.options if o.name == "Dedicado BR — 8x H200 (frotas separadas)"]))
    rec = v.recommended
    sentence = body.summary(v, EN)["sentences"][1]
    assert sentence.endswith(" " + t("pv_commit_training", EN, n=rec.training_servers,
                                     what=fleet_name(rec.training, EN), term=rec.training.min_term_months))
    assert rec.training.min_term_months == 12  # paid 12 months for a one-month job (the engine's notice)


# Was "this offer is in reais" for the seed's hybrid, whose training is priced in dollars (review H2).
def test_the_fx_risk_of_an_offer_with_dollar_training_says_so(seed_results, seed_view):
    ours = seed_view.recommended
    other = body.counterpart(seed_view, ours)
    opts = tuple(dataclasses.replace(o, p95_brl=o.tco_brl * 1.2) if o.name == other.name else o
                 for o in seed_view.options)
    v = dataclasses.replace(seed_view, fx_model="gbm", options=opts)
    rows = _rows(body.risks(v, ours, seed_results.scenario, EN)["table"])
    assert rows[t("pv_r_fx", EN)][1] == t("pv_r_fx_m_part", EN, usd=fleet_name(ours.training, EN))
    brl_only = v.option("Dedicado BR — 8x H200 (frotas separadas)")
    rows = _rows(body.risks(v, brl_only, seed_results.scenario, EN)["table"])
    assert rows[t("pv_r_fx", EN)][1] == t("pv_r_fx_m", EN)


# Review L8: the PDF's "per GPU-hour, taxes included" (the serving server's price, 15,300 / 730 = 20.96) sat beside
# the workbook's "per GPU-hour, all in" (TCO ÷ GPU-hours paid, 20.51): the key figure is now the workbook's.
def test_the_key_gpu_hour_figure_is_the_workbooks_all_in_figure(seed_results, seed_view):
    from tco.costs.unit_rules import unit_costs

    rec = seed_view.recommended
    result = next(o for o in seed_results.options if o.name == rec.name)
    gpu_hours = unit_costs(result, seed_results.users, seed_results.tokens)["gpu_hours"]
    expected = rec.tco_brl / gpu_hours  # the workbook's Summary "R$ per GPU-hour, all in"
    assert gpu_hours == pytest.approx(rec.inference_gpu_hours + rec.training_gpu_hours)
    figures = dict(body.summary(seed_view, EN)["figures"])
    assert figures[t("pv_kf_gpu_hour", EN)] == unit_price(expected, EN)
    assert rec.inference.price / 730 != pytest.approx(expected)  # the serving price: another figure, in the bridge


# --- issue 23: one figure per option; pages 2 and 4 name the same cheapest alternative ----------------------------


def test_page_2_names_the_searchs_cheaper_plan_as_a_plan():
    import tco

    res = tco.run(ROOT / "scenarios" / "seed_70b_h200.toml", paths=50, sensitivity=False)
    v = view.build(res)
    rec = v.recommended
    other = body.counterpart(v, rec)
    plans = body.competitors(v, rec)
    assert plans and plans[0].tco_brl < other.tco_brl  # AWS's best plan in Brazil beats the AWS option written
    out = body.summary(v, EN)
    said = t("pv_vs_plan", EN, provider=provider_name(plans[0].provider, EN), plan=plan_name(plans[0], EN),
             tco=money(plans[0].tco_brl, EN), cmp=multiple(plans[0].tco_brl, rec.tco_brl, EN))
    assert said in out["sentences"]
    # the plan is named as a plan (its training half too), never under the option's label
    assert plan_name(plans[0], EN) != other.label
    p = plans[0]
    if p.training_offer and p.training_offer != p.serving_offer:  # a separate training burst is named with it
        assert "; training on " + p.training_offer.split("/")[-1] in plan_name(p, EN)
    page4 = body.comparison(v, rec, EN)["sentences"][0]
    assert plan_name(plans[0], EN) in page4 and multiple(plans[0].tco_brl, rec.tco_brl, EN) in page4
