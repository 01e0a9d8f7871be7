"""tco.report.proposal.notes_txt: the seller's notes beside the proposal, read line by line.

Each line the notes may carry is triggered here by the situation it describes and checked absent otherwise: the
engine's notices (grouped, counted), "none" when there are none, the cheaper plan the search found, an offer that
is an estimate, an offer that is not the recommended option, and no offer at all."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from tco.report import fmt, notices
from tco.report.proposal import notes_txt
from tco.report.i18n import t
from tco.report.plan_names import plan_label


def _lines(res) -> list[str]:
    text = notes_txt.render(res)
    assert text.endswith("\n") and not text.endswith("\n\n")
    return text.splitlines()


def _with_proposal(res, **changes):
    sc = res.scenario
    p = sc.proposal.model_copy(update=changes)
    return dataclasses.replace(res, scenario=sc.model_copy(update={"proposal": p}))


def _firm(res):
    p = res.scenario.proposal
    return _with_proposal(res, items=[i.model_copy(update={"firm_quote": True}) for i in p.items])


def test_title_date_and_every_notice_grouped(seed_results):
    lines = _lines(seed_results)
    name = seed_results.scenario.scenario.name
    assert lines[0] == t("nt_title", "pt-BR", name=name)
    # the [proposal] date, 2026-11-30, not the clock
    assert lines[1] == t("nt_date", "pt-BR", date=fmt.long_date(dt.date(2026, 11, 30), "pt-BR"))
    assert lines[1].endswith("30 de novembro de 2026")
    from tco.report import offer_checks, view

    mine = offer_checks.notices(view.build(seed_results), seed_results.scenario)  # the proposal's own: brand, …
    found = notices.grouped(list(seed_results.notices) + mine, "pt-BR", " e ")
    i = lines.index(t("nt_notices", "pt-BR", n=len(found)))
    assert lines[i + 1:i + 1 + len(found)] == [f"- {x}" for x in found]
    assert len(found) < len(seed_results.notices)  # the same sentence for two options is one line naming both


def test_without_notices_the_list_says_none(seed_results, monkeypatch):
    from tco.report import offer_checks

    monkeypatch.setattr(offer_checks, "notices", lambda v, s: [])  # nor the proposal's own (the example brand…)
    lines = _lines(dataclasses.replace(seed_results, notices=()))
    i = lines.index(t("nt_notices", "pt-BR", n=0))
    assert lines[i + 1] == "- " + t("nt_none", "pt-BR")


def test_estimate_items_say_the_offer_is_an_estimate(seed_results):
    # the seed's one item is not a firm quote; the offered option is the recommended hybrid (dedicated serving)
    lines = _lines(seed_results)
    from tco.report import view

    hybrid = view.build(seed_results).recommended
    assert hybrid.name.startswith("Híbrido") and hybrid.training.region == "sa-east-1"
    assert t("nt_estimate", "pt-BR", option=hybrid.label) in lines
    assert not any(x.startswith("A oferta (") and "não é a opção mais barata" in x for x in lines)


def test_firm_items_drop_the_estimate_line(seed_results):
    lines = _lines(_firm(seed_results))
    assert not any(x.startswith("A oferta (") and "sai como estimativa" in x for x in lines)


def test_no_items_is_an_estimate_even_with_firm_flags_elsewhere(seed_results):
    lines = _lines(_with_proposal(seed_results, items=[]))
    assert any(x.startswith("A oferta (") and "sai como estimativa" in x for x in lines)


def test_an_offer_that_is_not_the_cheapest_names_the_recommendation(small_run):
    # the L4 example: the cheapest option is GCP (no dedicated fleet); the offer is the dedicated option
    lines = _lines(small_run)
    labels = {o.name: o.label or o.name for o in small_run.scenario.options}
    cheapest = min(small_run.options, key=lambda o: o.tco.deterministic).name
    dedicated = next(o.name for o in small_run.options if o.kind == "dedicated")
    assert cheapest != dedicated
    assert t("nt_not_recommended", "pt-BR", option=labels[dedicated], rec=labels[cheapest]) in lines
    assert t("nt_estimate", "pt-BR", option=labels[dedicated]) in lines  # no [proposal]: an estimate


def test_no_dedicated_option_means_no_offer(small_run):
    cloud = [o for o in small_run.options if o.kind == "cloud"]
    lines = _lines(dataclasses.replace(small_run, options=cloud))
    assert t("nt_no_offer", "pt-BR") in lines
    assert not any(x.startswith("A oferta (") for x in lines)


def test_a_cheaper_plan_is_pointed_out_with_its_saving(small_run):
    vs = small_run.analysis.plans.vs_options
    assert vs.best_plan_saving_brl > 0
    # the saving is the cheapest option's TCO less the best plan's
    assert vs.best_plan_saving_brl == pytest.approx(vs.cheapest_option_tco_brl - vs.best_plan_tco_brl)
    # the plan named in the run's locale (the JSON keeps the English name: vs.best_plan)
    best = small_run.analysis.plans.best
    assert best.name == vs.best_plan and best.name.startswith("Plan ")
    named = plan_label(best, "pt-BR")
    assert named.startswith("Plano ") and named != vs.best_plan
    expected = t("nt_best_plan", "pt-BR", plan=named, tco=fmt.money(vs.best_plan_tco_brl, "pt-BR", False),
                 saving=fmt.money(vs.best_plan_saving_brl, "pt-BR", False))
    assert expected in _lines(small_run)
    assert not any(vs.best_plan in line for line in _lines(small_run))


def test_no_saving_no_plan_line(small_run):
    found = small_run.analysis.plans
    plans = dataclasses.replace(found, vs_options=dataclasses.replace(found.vs_options, best_plan_saving_brl=0.0))
    lines = _lines(dataclasses.replace(small_run, analysis=dataclasses.replace(small_run.analysis, plans=plans)))
    assert not any(x.startswith("A busca de planos") for x in lines)


def test_notes_follow_the_scenario_locale(seed_results):
    sc = seed_results.scenario
    en = dataclasses.replace(seed_results, scenario=sc.model_copy(
        update={"scenario": sc.scenario.model_copy(update={"locale": "en"})}))
    lines = _lines(en)
    assert lines[0] == t("nt_title", "en", name=sc.scenario.name)
    assert lines[1] == "Proposal date: November 30, 2026"
    found = notices.grouped(list(seed_results.notices), "en", t("and_last", "en"))
    assert all(f"- {x}" in lines for x in found)
