"""tco.report.proposal.annex: the technical annex (sizing, exchange-rate risk, sensitivity, sources, glossary).

Each section is read through its function and held against the view and the engine's analyses: the sizing table's
GPUs = servers × GPUs per server and GPU-hours = serving + training; the FX paragraphs chosen by the model and by
whether any option pays in dollars; the hedge table from the engine's hedging; the tornado rows ordered by swing;
one sources row per offer and pricing used, priced per hour or per month in its own currency."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tco.findings import Sensitivity
from tco.report import fmt, proposal, view
from tco.report.proposal import annex
from tco.report.i18n import t
from tco.report.words import fleet_name, money, unit_price, usd

EN = "en"


@pytest.fixture(scope="module")
def palette():
    return proposal.load_theme()["colors"]["palette"]


# --- sizing ---------------------------------------------------------------------------------------------------------

def test_sizing_rows_follow_the_ranking(small_view):
    out = annex.sizing(small_view, EN)
    rows = out["table"]["rows"]
    assert [r[0] for r in rows] == [o.label for o in small_view.ranked_options]
    for r, o in zip(rows, small_view.ranked_options, strict=True):
        assert r[1] == fleet_name(o.inference, EN)
        assert r[2] == fmt.number(o.peak_servers, EN)
        assert r[3] == fmt.number(o.peak_servers * o.inference.gpus_per_server, EN)  # e.g. 3 servers × 4 L4 = 12
        assert r[5] == fmt.number(o.inference_gpu_hours + o.training_gpu_hours, EN)
    shared = next(r for r, o in zip(rows, small_view.ranked_options, strict=True) if o.fleet == "shared")
    assert shared[4] == t("pv_a_same_fleet", EN)
    assert out["infeasible"] is None


def test_sizing_intro_states_the_demand(small_view):
    intro = annex.sizing(small_view, EN)["intro"]
    assert fmt.number(small_view.users_first, EN) in intro and fmt.number(small_view.users_last, EN) in intro
    assert fmt.scientific(small_view.total_tokens, EN) in intro


def test_sizing_intro_states_mtp_only_when_the_scenario_uses_it(small_view):
    intro = annex.sizing(small_view, EN)["intro"]
    assert "MTP" not in intro                                       # the small case decodes one token per step
    first = small_view.ranked_options[0]
    spec = {"method": "mtp", "draft_tokens": 1, "acceptance_share": 0.85, "accepted_tokens_per_step": 1.85}
    facts = dict(first.serving_facts, speculative=spec)
    mtp_view = dataclasses.replace(small_view, options=tuple(
        dataclasses.replace(o, serving_facts=facts) if o.name == first.name else o for o in small_view.options))
    intro = annex.sizing(mtp_view, EN)["intro"]
    assert t("pv_a_speculative", EN, draft=1, acceptance="85", tokens="1.85") in intro


def test_an_infeasible_option_is_named_with_its_speed(small_run):
    slow = small_run.options[0]
    v = view.build(dataclasses.replace(small_run, options=[
        dataclasses.replace(o, replica=dataclasses.replace(o.replica, target_met=False)) if o is slow else o
        for o in small_run.options]))
    out = annex.sizing(v, EN)
    o = v.option(slow.name)
    assert o.label not in [r[0] for r in out["table"]["rows"]]
    assert t("d_infeasible_item", EN, name=o.label, tps=fmt.number(o.tokens_per_second_per_user, EN, 1)) in (
        out["infeasible"])


# --- exchange rate ----------------------------------------------------------------------------------------------------

def test_fx_of_a_fixed_rate_run(small_view, palette):
    out = annex.fx(small_view, palette, EN)
    paras = out["paragraphs"]
    assert paras[0] == t("pv_a_fx_fixed", EN, model=t("fxm_fixed", EN), rate=unit_price(5.40, EN))
    first, last = small_view.fx_path[0], small_view.fx_path[-1]
    assert abs(last - first) > 0.005  # the Focus base path moves: its first and last rates are stated
    assert paras[1] == t("pv_a_fx_path", EN, first=unit_price(first, EN), last=unit_price(last, EN),
                         path=t("fxb_focus", EN))
    assert out["chart"] is None  # no Monte Carlo fan for a fixed rate


def test_fx_breakeven_of_the_recommendation_and_its_counterpart(small_run, small_view, palette):
    rec = small_view.recommended
    paras = annex.fx(small_view, palette, EN)["paragraphs"]
    row = next(b for b in small_run.analysis.breakevens.usdbrl if rec.name in (b.option, b.versus))
    other = small_view.option(row.versus if row.option == rec.name else row.option)
    assert t("pv_a_breakeven", EN, other=other.label, rec=rec.label, rate=unit_price(row.usdbrl, EN)) in paras


def test_hedge_table_from_the_engine(small_run, small_view, palette):
    hedge = annex.fx(small_view, palette, EN)["hedge"]
    h = small_run.analysis.hedging
    assert hedge["intro"] == t("pv_a_hedge_intro", EN, first=unit_price(h.forward_first, EN),
                               last=unit_price(h.forward_last, EN))
    labels = {o.name: o.label for o in small_view.options}
    assert hedge["table"]["rows"] == [[labels[x.option], money(small_view.option(x.option).tco_brl, EN),
                                       money(x.hedged_tco_brl, EN), money(x.unhedged_p95_brl, EN)]
                                      for x in h.options]


def test_no_dollar_costs_no_fx_section(small_run, palette):
    ded = view.build(dataclasses.replace(small_run, options=[o for o in small_run.options if o.kind == "dedicated"]))
    assert annex.fx(ded, palette, EN) == {"paragraphs": [t("pv_a_fx_none", EN)], "chart": None, "hedge": None}


# --- sensitivity ------------------------------------------------------------------------------------------------------

def test_sensitivity_intro_and_chart(small_run, small_view, palette):
    sens = small_run.analysis.sensitivity.dedicated_vs_cloud
    out = annex.sensitivity(small_view, palette, EN)
    labels = {o.name: o.label for o in small_view.options}
    lead = small_run.analysis.sensitivity.leaders  # another pair: the PDF says which the terminal shows (L8)
    assert out["intro"] == t("pv_a_sens_intro", EN, leader=labels[sens.leader],
                             challenger=labels[sens.challenger], base=money(sens.base_diff_brl, EN)) + " " + t(
        "pv_a_sens_why_pair", EN, leader=labels[lead.leader], challenger=labels[lead.challenger],
        base=money(lead.base_diff_brl, EN))
    svg = out["chart"]["html"]
    assert "<svg" in svg
    # the TCO rows, widest swing first (the tornado's order)
    rows = sorted((r for r in sens.rows if r.metric == "tco"), key=lambda r: -abs(r.swing_brl))
    names = [t(f"sens_in_{r.input}", EN) for r in rows]
    pos = [svg.find(re.sub("&", "&amp;", n)) for n in names]
    assert all(p >= 0 for p in pos), names
    assert pos == sorted(pos)


def test_no_sensitivity_no_section(seed_view, palette):
    assert annex.sensitivity(seed_view, palette, EN) is None


def test_the_leaders_tornado_when_the_engine_made_no_other_pair(small_run, small_view, palette):
    lead = small_run.analysis.sensitivity.leaders
    v = dataclasses.replace(small_view, analysis=dataclasses.replace(small_view.analysis,
                                                                     sensitivity=Sensitivity(leaders=lead)))
    labels = {o.name: o.label for o in v.options}
    assert annex.sensitivity(v, palette, EN)["intro"] == t(
        "pv_a_sens_intro", EN, leader=labels[lead.leader], challenger=labels[lead.challenger],
        base=money(lead.base_diff_brl, EN))


# --- sources and glossary ----------------------------------------------------------------------------------------------

def test_one_source_row_per_offer_and_pricing_then_the_model(small_run, small_view):
    rows = annex.sources(small_view, small_run, EN)["table"]["rows"]
    used = list(dict.fromkeys((f.offer, f.pricing) for o in small_view.ranked_options for f in o.fleets()))
    assert len(rows) == len(used) + 1
    fleets = {(f.offer, f.pricing): f for o in small_view.ranked_options for f in o.fleets()}
    for r, key in zip(rows, used, strict=False):
        f = fleets[key]
        price = (usd(f.price, EN) + t("per_hour", EN) if f.currency == "USD"
                 else money(f.price, EN) + t("per_month", EN))
        assert r[0] == fleet_name(f, EN) and r[2] == price
    assert rows[-1][0] == t("pv_a_model", EN, model=small_run.model.model)
    assert all(r[4] and not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", r[4]) for r in rows)  # dates localised


def test_glossary_has_every_term_in_both_locales():
    for loc in ("pt-BR", "en"):
        g = annex.glossary(loc)
        assert len(g) == len(annex.GLOSSARY)
        assert all(term and definition and term != definition for term, definition in g)
    assert annex.glossary("pt-BR") != annex.glossary("en")


def test_queued_ttft_never_prints_a_95th_percentile_below_the_mean(small_view):
    # Erlang C with a wait probability under 5 %: the p95 is the bare TTFT (0.30 s) while the mean is lifted by
    # the few that wait (0.30 + 0.02 = 0.32 s); the annex then says that fewer than 1 in 20 wait
    first = small_view.ranked_options[0]

    def with_facts(**queued):
        facts = dict(first.serving_facts, ttft_s=0.30, **queued)
        return dataclasses.replace(small_view, options=tuple(
            dataclasses.replace(o, serving_facts=facts) if o.name == first.name else o for o in small_view.options))

    rare = annex.sizing(with_facts(ttft_mean_s=0.32, ttft_p95_s=0.30), EN)["intro"]
    assert t("pv_a_queued_ttft_rare", EN, mean="0.32", p95="0.30") in rare
    assert t("pv_a_queued_ttft", EN, mean="0.32", p95="0.30") not in rare
    busy = annex.sizing(with_facts(ttft_mean_s=0.50, ttft_p95_s=1.20), EN)["intro"]  # many wait: p95 above the mean
    assert t("pv_a_queued_ttft", EN, mean="0.50", p95="1.20") in busy
