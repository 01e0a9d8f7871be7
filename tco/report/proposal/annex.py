"""The technical annex of the proposal: sizing, exchange-rate risk, sensitivity, sources and glossary.

Read from the typed view (`tco.report.view`); the analyses (break-evens, hedging, sensitivity) are the
engine's, formatted here. Engine ids never reach the page: options by their short label, offers in plain
words (`proposal_words`).
"""

from __future__ import annotations

import numpy as np

from tco.domain import Currency, FleetKind, FleetMode, is_monte_carlo
from tco.report import fmt
from tco.report.i18n import t
from tco.report.proposal.body import counterpart
from tco.report.proposal.sources import _as_of, _short_source
from tco.report.words import _label_or, day, fleet_name, money, pricing_name, table, unit_price, usd
from tco.findings import Tornado
from tco.report.view import FleetView, View

GLOSSARY = ("tco", "pv", "gpu_hour", "fleet", "p5", "forward", "breakeven", "taxes", "adjust", "tokens", "sizing")


def _unit(loc: str):
    return lambda key: t("chart_money_axis", loc, unit=t(key, loc)).strip()


def sizing(v: View, loc: str) -> dict:
    rows = []
    for o in v.ranked_options:
        rows.append([o.label, fleet_name(o.inference, loc), fmt.number(o.peak_servers, loc),
                     fmt.number(o.peak_gpus, loc),
                     fleet_name(o.training, loc) if o.training is not None and o.fleet == FleetMode.SEPARATE else
                     t("pv_a_same_fleet", loc), fmt.number(o.inference_gpu_hours + o.training_gpu_hours, loc)])
    head = [t("pv_a_option", loc), t("pv_a_serving", loc), t("pv_a_servers", loc), t("pv_a_gpus", loc),
            t("pv_a_training", loc), t("pv_a_gpu_hours", loc, months=v.horizon_months)]
    intro = t("pv_a_sizing_intro", loc, users0=fmt.number(v.users_first, loc), users1=fmt.number(v.users_last, loc),
              tokens=fmt.scientific(v.total_tokens, loc), rps=fmt.number_short(v.peak_rps, loc, 1),
              redundancy=_label_or(f"redundancy_{v.redundancy}", loc, v.redundancy))
    facts = v.ranked_options[0].serving_facts if v.ranked_options else None
    if facts:  # issue 21: which model sized the fleet, what bounds it, the latencies it predicts (helper serve)
        intro += " " + t("pv_a_serving_facts", loc, option=v.ranked_options[0].label, layout=facts["layout"],
                         bound=_label_or(f"bound_{facts['bound']}", loc, facts["bound"]),
                         ttft=fmt.number(facts["ttft_s"], loc, 2), itl=fmt.number(facts["itl_s"] * 1e3, loc, 1))
        if facts.get("ttft_p95_s") is not None:  # queued at the planned load (tco.sizing.queueing)
            # fewer than 1 in 20 requests wait: the p95 is the bare TTFT and the mean, lifted by the few that wait,
            # sits above it; say so rather than print a 95th percentile below the mean
            rare = facts["ttft_p95_s"] <= facts["ttft_s"] * (1 + 1e-9)
            intro += " " + t("pv_a_queued_ttft_rare" if rare else "pv_a_queued_ttft", loc,
                             mean=fmt.number(facts["ttft_mean_s"], loc, 2), p95=fmt.number(facts["ttft_p95_s"], loc, 2))
        spec = facts.get("speculative") or {}
        if spec.get("method") == "mtp":  # issue 21: MTP speculative decoding (helper servemoe)
            intro += " " + t("pv_a_speculative", loc, draft=spec["draft_tokens"],
                             acceptance=fmt.number(spec["acceptance_share"] * 100, loc, 0),
                             tokens=fmt.number(spec["accepted_tokens_per_step"], loc, 2))
    out = [t("d_infeasible_item", loc, name=o.label, tps=fmt.number(o.tokens_per_second_per_user, loc, 1))
           for o in v.options if not o.feasible]
    note = t("d_infeasible", loc, target=fmt.number_short(v.target_tokens_per_second_per_user, loc),
             options="; ".join(out)) if out else None
    return {"intro": intro, "table": table(head, rows, num=(2, 3, 5), name=0), "infeasible": note}


def fx(v: View, palette, loc: str) -> dict:
    from tco.report.proposal import charts

    rec = v.recommended
    other = counterpart(v, rec)
    out: dict = {"paragraphs": [], "chart": None, "hedge": None}
    if not any(f.currency == Currency.USD for o in v.options for f in o.fleets()):
        out["paragraphs"].append(t("pv_a_fx_none", loc))
        return out
    model = _label_or(f"fxm_{v.fx_model}", loc, v.fx_model)
    if is_monte_carlo(v.fx_model):
        out["paragraphs"].append(t("pv_a_fx_mc", loc, model=model, paths=fmt.number(v.fx_paths, loc),
                                   rate=unit_price(v.usdbrl, loc)))
    else:
        out["paragraphs"].append(t("pv_a_fx_fixed", loc, model=model, rate=unit_price(v.usdbrl, loc)))
    if len(v.fx_path) > 1 and abs(v.fx_path[-1] - v.fx_path[0]) > 0.005:
        out["paragraphs"].append(t("pv_a_fx_path", loc, first=unit_price(v.fx_path[0], loc),
                                   last=unit_price(v.fx_path[-1], loc), path=t(f"fxb_{v.fx_base}", loc)))
    for row in v.analysis.breakevens.usdbrl if v.analysis.breakevens is not None else ():
        if other is not None and {row.option, row.versus} == {rec.name, other.name} and row.usdbrl:
            out["paragraphs"].append(t("pv_a_breakeven", loc, other=other.label, rec=rec.label,
                                       rate=unit_price(row.usdbrl, loc)))
    if other is not None and other.fan_brl is not None:
        chart = charts.fan_chart(list(v.months), {k: np.asarray(x) for k, x in other.fan_brl.items()},
                                 t("fan_band", loc), t("fan_median", loc), loc, _unit(loc),
                                 (rec.label, np.asarray(rec.monthly_brl)), palette,
                                 clip_label=lambda x: t("clipped", loc, value=fmt.money_compact(x, loc)))
        out["chart"] = {"title": t("pv_a_fan_title", loc, option=other.label), "html": chart}
    hedge = v.analysis.hedging
    labels = {o.name: o.label for o in v.options}
    rows = [[labels.get(h.option, h.option), money(v.option(h.option).tco_brl, loc),
             money(h.hedged_tco_brl, loc), money(h.unhedged_p95_brl, loc)]
            for h in (hedge.options if hedge is not None else ()) if h.option in v.ranked]
    if rows and hedge is not None:
        out["hedge"] = {"intro": t("pv_a_hedge_intro", loc, first=unit_price(hedge.forward_first, loc),
                                   last=unit_price(hedge.forward_last, loc)),
                        "table": table([t("pv_a_option", loc), t("pv_a_base", loc), t("pv_a_hedged", loc),
                                        t("pv_a_p95", loc)], rows, num=(1, 2, 3), name=0)}
    return out


def _tornado(v: View) -> tuple[Tornado | None, Tornado | None]:
    """(the tornado the PDF shows, the leaders' when that is another pair): the dedicated-vs-cloud pair when the
    engine made one (its two leaders are of one kind), else the leaders' tornado the terminal and workbook show."""
    sens = v.analysis.sensitivity
    if sens is None:
        return None, None
    pair, leaders = sens.dedicated_vs_cloud, sens.leaders
    if pair is not None and pair.rows:
        return pair, leaders if leaders.rows else None
    return (leaders if leaders.rows else None), None


def sensitivity(v: View, palette, loc: str) -> dict | None:
    from tco.report.proposal import charts

    sens, other = _tornado(v)
    if sens is None:
        return None
    rows = sorted((r for r in sens.rows if r.metric == "tco"), key=lambda r: -abs(r.swing_brl or 0))
    label = lambda r: _label_or(f"sens_in_{r.input}", loc, r.label or r.input)  # noqa: E731
    labels = {o.name: o.label for o in v.options}
    chart = charts.tornado([label(r) for r in rows], [r.low_diff_brl for r in rows],
                           [r.high_diff_brl for r in rows], sens.base_diff_brl or 0.0, t("sens_low", loc),
                           t("sens_high", loc), loc, _unit(loc), palette)

    def name(n: str | None) -> str:  # a tornado with rows names both options
        return labels.get(n or "", n or "")

    intro = t("pv_a_sens_intro", loc, leader=name(sens.leader), challenger=name(sens.challenger),
              base=money(sens.base_diff_brl, loc))
    if other is not None:
        intro += " " + t("pv_a_sens_why_pair", loc, leader=name(other.leader), challenger=name(other.challenger),
                         base=money(other.base_diff_brl, loc))
    return {"intro": intro, "chart": {"title": t("chart_sens_title", loc), "html": chart}}


def _status(f, doc_date, loc: str) -> str:
    from tco.report.proposal.offer import expired

    if expired(f, doc_date):
        return t("pv_quote_expired", loc)
    return _label_or(f"status_{f.status}", loc, f.status or "—")


def caveats(v: View, loc: str) -> list[str]:
    """The recommended option's prices that are unverified (the engine's `price_status`) or undated."""
    from tco.report.offer_checks import recommended_notices

    if not v.ranked:
        return []
    rec = v.recommended
    flagged = {n.params["offer"] for n in v.notices if n.option == rec.name and n.code == "price_status"}
    flagged |= {n.params["offer"] for n in recommended_notices(rec)}
    return [t("pv_caveat_unverified", loc, what=fleet_name(f, loc), status=_label_or(f"status_{f.status}", loc,
                                                                                       f.status or "—"),
              as_of=_as_of(f.as_of, loc)) for f in rec.fleets() if f.offer in flagged]


def sources(v: View, res, loc: str) -> dict:
    from tco.report.words import document_date

    doc_date = document_date(res.scenario)
    seen: dict[tuple, FleetView] = {}
    rows = []
    for o in v.ranked_options:
        for f in o.fleets():
            seen.setdefault((f.offer, f.pricing, f.price, f.status), f)  # a quoted price beside the catalog's
    firm = _firm_quote(v, res.scenario)
    for f in seen.values():
        price = (usd(f.price, loc) + t("per_hour", loc) if f.currency == Currency.USD
                 else money(f.price, loc) + t("per_month", loc))
        if f.offer in firm:  # the offer's own price, quoted firm in [proposal]: firm on every page
            c = res.scenario.proposal.contract
            rows.append([fleet_name(f, loc), pricing_name(f.pricing, loc), price, t("pv_firm", loc),
                         day(c.quote_date, loc) if c.quote_date else day(doc_date, loc),
                         c.quote_reference or t("pv_src_firm_quote", loc)])
            continue
        rows.append([fleet_name(f, loc), pricing_name(f.pricing, loc), price,
                     _status(f, doc_date, loc), _as_of(f.as_of, loc),
                     _short_source(f.source, loc, f.status in ("estimate", "illustrative_estimate"))])
    rows.append([t("pv_a_model", loc, model=str(getattr(res.model, "model", ""))), "—", "—", "—",
                 _as_of(getattr(res.model, "as_of", None), loc), _short_source(getattr(res.model, "source", ""), loc)])
    head = [t("pv_a_item", loc), t("pv_a_pricing", loc), t("pv_a_price", loc), t("pv_a_status", loc),
            t("pv_a_as_of", loc), t("pv_a_source", loc)]
    return {"table": table(head, rows, num=(2,), name=0), "caveats": caveats(v, loc)}


def _firm_quote(v: View, scenario) -> set[str]:
    """The offered option's dedicated offers when every [proposal] item is a firm quote (the proposal quotes the
    offer's own servers), else nothing."""
    from tco.report.offer_checks import offered

    p = scenario.proposal
    if p is None or not p.items or not all(i.firm_quote for i in p.items):
        return set()
    o = offered(v)
    return {f.offer for f in o.fleets() if f.kind == FleetKind.DEDICATED} if o is not None else set()


def glossary(loc: str) -> list[tuple[str, str]]:
    return [(t(f"pv_g_{k}", loc), t(f"pv_g_{k}_def", loc)) for k in GLOSSARY]
