"""tco.report.proposal.offer: the offer page (items, totals, terms) and the next steps, from the view and the
scenario's [proposal].

Which option is offered (the recommended one with a dedicated fleet, else the cheapest ranked one with one, else
none); the items written in [proposal] or derived from the offered option's dedicated fleets (the shared fleet as one
item, separate fleets as two, a cloud fleet named as outside the offer); totals worked by hand; every term and its
fallback."""

from __future__ import annotations

import dataclasses
import datetime as dt
import unicodedata

import pytest

from tco.report import fmt, proposal, view
from tco.report.i18n import t
from tco.report.proposal.offer import VALIDITY_DAYS, next_steps, offer, offered, valid_until
from tco.report.words import fleet_name

DOC = dt.date(2026, 11, 30)
PT = "pt-BR"


def _norm(s: str) -> str:
    return unicodedata.normalize("NFKC", s).replace("\xa0", " ")


@pytest.fixture(scope="module")
def theme():
    return proposal.load_theme()


def _only(res, *names):
    return dataclasses.replace(res, options=[o for o in res.options if o.name in names])


def _proposal(res, **changes):
    sc = res.scenario
    p = sc.proposal.model_copy(update=changes) if changes else None
    return sc.model_copy(update={"proposal": p})


def _offer(res, scenario, theme, loc=PT):
    return offer(view.build(res), scenario, DOC, theme, loc)


# --- which option is offered --------------------------------------------------------------------------------------

def test_the_recommended_option_is_offered_when_it_has_a_dedicated_fleet(seed_results):
    v = view.build(seed_results)
    assert offered(v) is v.recommended
    assert v.recommended.kind == "hybrid"  # AWS training, dedicated serving


def test_else_the_cheapest_ranked_option_with_a_dedicated_fleet(small_run):
    v = view.build(small_run)
    assert v.recommended.kind == "cloud"
    o = offered(v)
    assert o.name == next(n for n in v.ranked if v.option(n).kind != "cloud")


def test_no_dedicated_fleet_no_offer(small_run, theme):
    cloud = dataclasses.replace(small_run, options=[o for o in small_run.options if o.kind == "cloud"])
    assert offered(view.build(cloud)) is None
    out = _offer(cloud, cloud.scenario, theme)
    assert out["option"] is None and out["table"]["rows"] == []
    assert out["none"] == t("pv_no_dedicated", PT)
    assert out["estimate_note"] is None and out["outside"] == []


# --- written items --------------------------------------------------------------------------------------------------

def test_written_items_and_totals_by_hand(seed_results, theme):
    # the seed's [proposal]: 7 servers with 1 H200 NVL at R$ 17,400 a month, R$ 1,740 setup each
    out = _offer(seed_results, seed_results.scenario, theme)
    (row,) = out["table"]["rows"]
    expected_month = 7 * 17400  # R$ 121,800
    expected_setup = 7 * 1740  # R$ 12,180
    assert [_norm(x) for x in row[1:]] == ["7", "R$ 17.400", "R$ 121.800", "R$ 1.740", t("pv_estimate", PT)]
    foot = [_norm(x) for x in out["table"]["foot"]]
    assert foot[3] == _norm(fmt.money(expected_month, PT, False)) == "R$ 121.800"
    assert foot[4] == _norm(fmt.money(expected_setup, PT, False)) == "R$ 12.180"
    assert out["estimate_note"] == t("pv_estimate_once", PT)  # the item is not a firm quote


def test_two_items_add_up(seed_results, theme):
    p = seed_results.scenario.proposal
    item = p.items[0]
    items = [item.model_copy(update={"quantity": 2, "brl_per_month": 1000.0, "setup_brl": 0.0, "firm_quote": True}),
             item.model_copy(update={"quantity": 3, "brl_per_month": 250.5, "setup_brl": 100.0, "firm_quote": True})]
    out = _offer(seed_results, _proposal(seed_results, items=items), theme)
    expected_month = 2 * 1000 + 3 * 250.5  # 2,751.5 → R$ 2.752
    expected_setup = 2 * 0 + 3 * 100
    assert _norm(out["table"]["foot"][3]) == _norm(fmt.money(expected_month, PT, False)) == "R$ 2.752"
    assert _norm(out["table"]["foot"][4]) == _norm(fmt.money(expected_setup, PT, False)) == "R$ 300"
    assert out["table"]["rows"][0][4] == "—"  # no setup on the first item
    assert out["estimate_note"] is None  # every item firm


# --- derived items ---------------------------------------------------------------------------------------------------

def test_a_shared_dedicated_fleet_is_one_item(seed_results, theme):
    res = _only(seed_results, "Dedicado BR — 8x H200")
    v = view.build(res)
    o = v.recommended
    out = _offer(res, _proposal(res, items=[]), theme)
    (row,) = out["table"]["rows"]
    assert row[0] == t("pv_item_shared", PT, what=fleet_name(o.inference, PT))
    assert row[1] == fmt.number(o.peak_servers, PT)
    assert _norm(row[3]) == _norm(fmt.money(o.peak_servers * o.inference.price, PT, False))
    assert out["estimate_note"] == t("pv_estimate_once", PT)  # derived from the catalog: an estimate


def test_separate_dedicated_fleets_are_two_items(seed_results, theme):
    res = _only(seed_results, "Dedicado BR — 8x H200 (frotas separadas)")
    o = view.build(res).recommended
    out = _offer(res, _proposal(res, items=[], min_term_months=None), theme)
    training, serving = out["table"]["rows"]
    assert training[0] == t("pv_item_training", PT, what=fleet_name(o.training, PT))
    assert training[1] == fmt.number(max(o.training_servers, 1), PT)
    assert serving[0] == t("pv_item_inference", PT, what=fleet_name(o.inference, PT))
    expected_month = o.training_servers * o.training.price + o.peak_servers * o.inference.price
    assert _norm(out["table"]["foot"][3]) == _norm(fmt.money(expected_month, PT, False))
    # no term written: the longest of the catalog's minimum terms for the items
    assert dict(out["terms"])[t("pv_t_term", PT)] == t("pv_months", PT, n=max(o.training.min_term_months,
                                                                                o.inference.min_term_months))


def test_a_hybrid_names_its_cloud_fleet_as_outside_the_offer(seed_results, theme):
    out = _offer(seed_results, _proposal(seed_results, items=[]), theme)
    o = view.build(seed_results).recommended
    assert len(out["table"]["rows"]) == 1  # only the dedicated serving fleet is offered
    assert out["outside"] == [t("pv_offer_outside", PT, what=fleet_name(o.training, PT))]


# --- terms -----------------------------------------------------------------------------------------------------------

def test_terms_of_the_seed_proposal(seed_results, theme):
    terms = dict(_offer(seed_results, seed_results.scenario, theme)["terms"])
    o = view.build(seed_results).recommended
    assert terms[t("pv_t_number", PT)] == "NE-2026-0142, versão 1"
    assert terms[t("pv_t_term", PT)] == "3 meses"
    assert terms[t("pv_t_adjust", PT)] == t("pv_adjust_anniversary", PT, index="IPCA",
                                            rate=fmt.percent_short(o.indexation_rate, PT))
    assert terms[t("pv_t_taxes", PT)] == t("pv_taxes_in", PT)
    assert terms[t("pv_t_payment", PT)] == "Mensal, em reais, 30 dias após a emissão da NFS-e"
    assert terms[t("pv_t_validity", PT)] == "30 de dezembro de 2026"
    assert terms[t("pv_t_signatory", PT)] == "Diretoria comercial"


def test_term_alternatives(seed_results, theme):
    sc = _proposal(seed_results, adjustment_index="none", taxes_included=False, number="", payment_terms="")
    terms = dict(_offer(seed_results, sc, theme)["terms"])
    assert terms[t("pv_t_adjust", PT)] == t("pv_adjust_none", PT)
    assert terms[t("pv_t_taxes", PT)] == t("pv_taxes_out", PT)
    assert terms[t("pv_t_number", PT)] == "—"
    assert terms[t("pv_t_payment", PT)] == t("pv_payment_default", PT)
    month = dict(_offer(seed_results, _proposal(seed_results, adjustment_month=3), theme)["terms"])
    assert "março" in month[t("pv_t_adjust", PT)]


def test_without_a_signatory_the_theme_contact_signs(seed_results, theme):
    terms = dict(_offer(seed_results, _proposal(seed_results, signatory=None), theme)["terms"])
    expected = ", ".join(x for x in (theme["contact"]["person"], theme["provider"]["name"]) if x)
    assert terms[t("pv_t_signatory", PT)] == expected


def test_validity_defaults_to_thirty_days_after_the_document(seed_results):
    assert valid_until(None, dt.date(2027, 3, 1)) == dt.date(2027, 3, 31)  # 1 March + 30 days
    assert valid_until(None, dt.date(2027, 12, 15)) == dt.date(2028, 1, 14)  # across the year end
    assert VALIDITY_DAYS == 30
    assert valid_until(seed_results.scenario.proposal, DOC) == dt.date(2026, 12, 30)  # written


def test_included_lists_only_what_is_written(seed_results, theme):
    inc = seed_results.scenario.proposal.included.model_copy(update={"sla_share": 0.9995, "datacenter_tier": "Tier III"})
    out = _offer(seed_results, _proposal(seed_results, included=inc), theme)
    included = dict(out["included"])
    assert included[t("pv_inc_hardware", PT)] == "Servidores com 1 GPU H200 NVL, exclusivos do cliente"
    assert included[t("pv_inc_sla", PT)] == "99,95%"
    assert included[t("pv_inc_datacenter", PT)] == "Tier III — São Paulo"
    assert t("pv_inc_network", PT) not in included  # not written, not shown


def test_without_hardware_written_the_offered_fleet_is_named(seed_results, theme):
    inc = seed_results.scenario.proposal.included.model_copy(update={"hardware": ""})
    included = dict(_offer(seed_results, _proposal(seed_results, included=inc), theme)["included"])
    o = view.build(seed_results).recommended
    assert included[t("pv_inc_hardware", PT)] == fleet_name(o.inference, PT)


# --- next steps -----------------------------------------------------------------------------------------------------

def test_written_next_steps(seed_results, theme):
    out = next_steps(view.build(seed_results), seed_results.scenario, DOC, theme, PT)
    assert [r[2] for r in out["table"]["rows"]] == ["11 de dezembro de 2026", "18 de dezembro de 2026",
                                                    "30 de dezembro de 2026"]
    assert out["suggested"] is None
    assert out["provider_signer"] == "Diretoria comercial"
    assert out["owner"] == "Equipe comercial, comercial@nuvem-exemplo.com.br, +55 11 4000-0000"


def test_suggested_next_steps_count_from_the_document_date(seed_results, theme):
    out = next_steps(view.build(seed_results), _proposal(seed_results, next_steps=[]), DOC, theme, PT)
    # benchmark at +14 days, firm quote at +21 days, signature on the last day of validity
    assert [r[2] for r in out["table"]["rows"]] == ["14 de dezembro de 2026", "21 de dezembro de 2026",
                                                    "30 de dezembro de 2026"]
    assert out["suggested"] == t("pv_steps_suggested", PT)


def test_without_proposal_the_owner_is_the_theme_contact(small_run, theme):
    doc = dt.date(2027, 3, 1)
    out = next_steps(view.build(small_run), small_run.scenario, doc, theme, PT)
    c = theme["contact"]
    assert out["owner"] == ", ".join(x for x in (c.get("person"), c.get("email"), c.get("phone")) if x)
    assert out["valid"] == "31 de março de 2027"
    assert out["client"] == small_run.scenario.scenario.client


# --- issue 23: the contract terms and the quote's status ---------------------------------------------------------


def test_quote_status_firm_with_reference_or_an_estimate_with_its_range():
    from datetime import date

    from tco.report.proposal.offer import quote_status
    from tco.scenario.proposal import Contract, Item, Proposal

    est = quote_status(None, [{"firm": False}], PT, [(7700.0, 23900.0)])
    assert est == [(t("pv_t_quote", PT), t("pv_estimate_range", PT, ranges=t(
        "pv_range", PT, low=fmt.money(7700, PT, False), high=fmt.money(23900, PT, False))))]
    assert "R$ 7.700 a R$ 23.900" in _norm(est[0][1])
    firm = Proposal(date=date(2026, 11, 30), items=[Item(description="x", quantity=1, brl_per_month=1.0,
                                                         firm_quote=True)],
                    contract=Contract(quote_reference="Q-7", quote_date=date(2026, 11, 20)))
    (row,) = quote_status(firm, [{"firm": True}], PT, [(7700.0, 23900.0)])
    assert row == (t("pv_t_quote", PT), t("pv_quote_firm_ref", PT, ref="Q-7, 20 de novembro de 2026"))
    assert quote_status(None, [], PT) == []  # no items, nothing to say


def test_contract_terms_show_only_what_is_written():
    from tco.report.proposal.offer import contract_terms
    from tco.scenario.proposal import Contract, Credit, Proposal

    assert contract_terms(Proposal(), PT) == []
    p = Proposal(contract=Contract(duration_months=36, early_exit="with_penalty", early_exit_penalty_share=0.5,
                                   exit_notice_days=30, sla_credits=[Credit(below_share=0.99, credit_share=0.25),
                                                                     Credit(below_share=0.999, credit_share=0.1)]))
    rows = dict(contract_terms(p, PT))
    assert rows[t("pv_t_duration", PT)] == t("pv_months", PT, n=36)
    assert _norm(rows[t("pv_t_exit", PT)]) == _norm(t("pv_exit_penalty", PT, share="50%") + "; "
                                                    + t("pv_exit_notice", PT, days=30))
    credits = _norm(rows[t("pv_t_credits", PT)])
    assert credits.index("99,9%") < credits.index("99%")  # the strictest level first
    assert t("pv_t_lgpd", PT) not in rows and t("pv_t_jurisdiction", PT) not in rows
