"""The body of the proposal a CFO reads: the recommendation and the bridge that explains it, the comparison
with each competitor's best plan, the risks and the case beyond cost. Everything reads the typed view
(`tco.report.view`); the only arithmetic is presentation (sums of lines, ratios between totals).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.domain import BRAZIL_REGIONS, CostLine, Currency, FleetKind, FleetMode, Role, is_committed, is_monte_carlo
from tco.report import fmt
from tco.report.i18n import t
from tco.report.offer_checks import in_brazil
from tco.report.words import (fleet_name, gpu_name, money, multiple, plan_name, pricing_name, provider_name,
                               table, unit_price, usd)

if TYPE_CHECKING:
    from tco.report.view import View

COMPUTE = (CostLine.TRAINING_COMPUTE, CostLine.INFERENCE_COMPUTE)
"""The compute lines of the bridge; the other lines are summed as the rest."""


def counterpart(v: View, ours):
    """The option the bridge sets against `ours`: the cheapest ranked option of another kind (a hybrid or
    dedicated recommendation meets the cheapest cloud or owned option, a cloud one the cheapest with a dedicated or
    owned fleet)."""
    want = ((FleetKind.DEDICATED, FleetKind.HYBRID, FleetKind.OWNED) if ours.kind == FleetKind.CLOUD
            else (FleetKind.CLOUD, FleetKind.OWNED))  # buying the servers is a competitor too (issue 26)
    return next((o for o in v.ranked_options if o.kind in want and o.name != ours.name), None)


def _commitment(o, loc: str) -> str:
    """What choosing `o` commits the client to, in plain words: the serving fleet, and a separate dedicated
    training cluster's minimum term (paid even when the job ends sooner)."""
    f = o.inference
    if o.kind == FleetKind.OWNED:
        out = t("pv_commit_owned", loc, n=o.peak_servers, what=fleet_name(f, loc))
    elif f.kind == FleetKind.DEDICATED:
        out = t("pv_commit_dedicated", loc, n=o.peak_servers, what=fleet_name(f, loc), term=f.min_term_months or 1)
    elif not is_committed(f.pricing):
        out = t("pv_commit_none", loc)
    else:
        out = t("pv_commit_cloud", loc, pricing=pricing_name(f.pricing, loc))
    tr = o.training
    if tr is not None and tr.kind == FleetKind.DEDICATED and o.fleet == FleetMode.SEPARATE:
        out += " " + t("pv_commit_training", loc, n=o.training_servers, what=fleet_name(tr, loc),
                       term=tr.min_term_months or 1)
    return out


def all_in_gpu_hour(o) -> float | None:
    """TCO ÷ the GPU-hours paid (serving and training) [BRL/GPU·h]: the workbook's "per GPU-hour, all in"
    (workbook_years.gpu_hours); the bridge's "with taxes" row is the serving server's price, another figure."""
    hours = o.inference_gpu_hours + o.training_gpu_hours
    return o.tco_brl / hours if hours > 0 else None


def summary(v: View, loc: str) -> dict:
    rec = v.recommended
    other = counterpart(v, rec)
    months = v.horizon_months
    sentences = [t("pv_rec", loc, rec=rec.label, months=months, tco=money(rec.tco_brl, loc)),
                 t("pv_commit_intro", loc, rec=rec.label) + " " + _commitment(rec, loc)]
    if other is not None:
        sentences.append(t("pv_vs_other", loc, other=other.label, tco=money(other.tco_brl, loc),
                           cmp=multiple(other.tco_brl, rec.tco_brl, loc)))
        if is_monte_carlo(v.fx_model) and other.p5_brl and other.kind == FleetKind.CLOUD:
            sentences.append(t("pv_fx_p5", loc, other=other.label, cmp=multiple(other.p5_brl, rec.tco_brl, loc)))
    plans = competitors(v, rec)
    if plans and (other is None or plans[0].tco_brl < other.tco_brl):
        # the comparison page's headline, said here too: pages 2 and 4 name the same cheapest alternative
        best = plans[0]
        sentences.append(t("pv_vs_plan", loc, provider=provider_name(best.provider, loc), plan=plan_name(best, loc),
                           tco=money(best.tco_brl, loc), cmp=multiple(best.tco_brl, rec.tco_brl, loc)))
    figures = [(t("pv_kf_tco", loc, months=months), money(rec.tco_brl, loc)),
               (t("pv_kf_pv", loc, rate=fmt.percent_short(v.discount_rate, loc)), money(rec.npv_brl, loc)),
               (t("pv_kf_gpu_hour", loc), unit_price(all_in_gpu_hour(rec), loc)),
               (t("pv_kf_mtok", loc), unit_price(rec.cost_per_million_tokens_brl, loc))]
    return {"recommended": rec.label, "sentences": sentences, "figures": figures,
            "bridge": bridge(v, rec, other, loc) if other is not None else None}


def _price_cells(o, v, loc: str) -> tuple[str, str, str]:
    """(list price per GPU-hour, in reais at the spot rate, with taxes) for the serving fleet of `o`."""
    f = o.inference
    if o.kind == FleetKind.OWNED:  # bought servers have no price per hour: their TCO per GPU-hour paid, in all three
        all_in = unit_price(all_in_gpu_hour(o), loc)
        return all_in, all_in, all_in
    if f.currency == Currency.USD:
        return usd(f.price_per_gpu_hour, loc), unit_price(f.price_per_gpu_hour * v.usdbrl, loc), unit_price(
            o.gpu_hour_brl[Role.INFERENCE], loc)
    brl = unit_price(f.price_per_gpu_hour, loc)
    return brl, brl, unit_price(o.gpu_hour_brl[Role.INFERENCE], loc)


def bridge(v: View, ours, other, loc: str) -> dict:
    """From the price per GPU-hour to the TCO, for `ours` and `other`, step by step."""
    cols = [ours, other]
    prices = [_price_cells(o, v, loc) for o in cols]
    compute = [sum(o.lines_brl.get(k, 0.0) for k in COMPUTE) for o in cols]
    rest = [sum(x for k, x in o.lines_brl.items() if k not in COMPUTE)
            for o in cols]
    rows = [
        [t("pv_b_list", loc)] + [p[0] for p in prices],
        [t("pv_b_fx", loc, rate=unit_price(v.usdbrl, loc))] + [p[1] for p in prices],
        [t("pv_b_taxes", loc)] + [p[2] + (f" (+{fmt.percent(o.tax_uplift_share, loc)})"
                                          if o.tax_currency == Currency.USD
                                          and o.inference.currency == Currency.USD  # the serving price's own uplift
                                          and o.tax_uplift_share else "") for p, o in zip(prices, cols)],
        [t("pv_b_fleet", loc)] + [t("pv_b_fleet_value", loc, servers=fmt.number(o.peak_servers, loc),
                                    gpus=fmt.number(o.inference.gpus_per_server, loc)) for o in cols],
        [t("pv_b_hours", loc, months=v.horizon_months)] + [fmt.number(o.inference_gpu_hours + o.training_gpu_hours, loc)
                                                           for o in cols],
        [t("pv_b_compute", loc)] + [money(x, loc) for x in compute],
        [t("pv_b_rest", loc)] + [money(x, loc) for x in rest],
        [t("pv_b_tco", loc)] + [money(o.tco_brl, loc) for o in cols],
    ]
    return {"intro": t("pv_b_intro", loc, ours=ours.label, other=other.label),
            "table": table([t("pv_b_step", loc), ours.label, other.label], rows, num=(1, 2), highlight=(7,), name=0)}


def competitors(v: View, ours) -> list:
    """Each competitor's best plan (plan search): the cloud providers' groups, cheapest first."""
    return [p for p in v.plans if p.provider != FleetKind.HYBRID and p.serving_kind == FleetKind.CLOUD]


def comparison(v: View, ours, loc: str) -> dict:
    plans = competitors(v, ours)
    rows = [[t("pv_our_offer", loc), ours.label, money(ours.tco_brl, loc), "—"]]
    rows += [[provider_name(p.provider, loc), plan_name(p, loc), money(p.tco_brl, loc),
              multiple(p.tco_brl, ours.tco_brl, loc)] for p in plans]
    head = [t("pv_c_provider", loc), t("pv_c_plan", loc), t("pv_c_tco", loc, months=v.horizon_months),
            t("pv_c_vs", loc)]
    sentences = []
    if plans:
        best = plans[0]
        sentences.append(t("pv_c_best", loc, provider=provider_name(best.provider, loc), plan=plan_name(best, loc),
                           cmp=multiple(best.tco_brl, ours.tco_brl, loc), months=v.horizon_months))
    else:
        sentences.append(t("pv_c_no_plans", loc))
    sentences += _coverage(v, loc)
    return {"sentences": sentences, "table": table(head, rows, num=(2, 3), highlight=(0,), name=1),
            "cash": _yearly(v, ours, loc)}


def _coverage(v: View, loc: str) -> list[str]:
    """Why providers the catalog lists have no row (the client's constraints, no offer that serves), and which rows
    rest on a stand-in egress or storage price: every provider in the fight, or a stated reason."""
    found = v.analysis.plans.search if v.analysis.plans is not None else None
    out = []
    left = [c for c in (found.coverage if found is not None else ()) if c.tco_brl is None]
    by_reason: dict[str, list[str]] = {}
    for c in left:
        by_reason.setdefault(c.reason, []).append(provider_name(c.provider, loc))
    for reason, names in sorted(by_reason.items()):
        out.append(t("pv_c_left_out", loc, names=", ".join(sorted(names)), why=t(f"pv_c_why_{reason}", loc)))
    shown = {p.provider for p in v.plans}
    stand = sorted({provider_name(x.provider, loc) for x in (found.stand_ins if found is not None else ())
                    if x.provider in shown})
    if stand:
        out.append(t("pv_c_stand_ins", loc, names=", ".join(stand)))
    return out


def _yearly(v: View, ours, loc: str) -> dict:
    """Cash out per contract year: the offer and the cheapest cloud option of the scenario."""
    cloud = next((o for o in v.ranked_options if o.kind == FleetKind.CLOUD and o.name != ours.name), None)
    cols = [ours] + ([cloud] if cloud is not None else [])
    rows = []
    for i in range(len(ours.yearly_brl)):
        first = v.months[12 * i]
        rows.append([t("pv_year", loc, n=i + 1, year=first[:4])] + [money(o.yearly_brl[i], loc) for o in cols])
    rows.append([t("pv_total", loc)] + [money(o.tco_brl, loc) for o in cols])
    return {"table": table([t("pv_y_year", loc)] + [o.label for o in cols], rows, num=tuple(range(1, len(cols) + 1)),
                           highlight=(len(rows) - 1,), name=0),
            "note": t("pv_y_note", loc, first=unit_price(v.fx_path[0], loc), last=unit_price(v.fx_path[-1], loc),
                      path=t(f"fxb_{v.fx_base}", loc))
            if cloud is not None and v.fx_path else None}


def risks(v: View, ours, scenario, loc: str) -> dict:
    """Risk, impact, mitigation: each row from a fact of the results or the proposal's terms."""
    p = scenario.proposal
    inc = p.included if p is not None else None
    f = ours.inference
    term = (p.min_term_months if p is not None and p.min_term_months else None) or f.min_term_months or 1
    rows = []
    if f.kind == FleetKind.DEDICATED:
        rows.append([t("pv_r_demand", loc), t("pv_r_demand_i", loc, term=term, per=money(f.price * term, loc)),
                     t("pv_r_demand_m", loc)])
        red = scenario.inference.redundancy
        sla = fmt.percent_short(inc.sla_share, loc, 3) if inc and inc.sla_share else None
        rows.append([t("pv_r_failure", loc), t("pv_r_failure_i", loc),
                     t("pv_r_failure_m_" + ("n1" if red != "none" else "none"), loc)
                     + (" " + t("pv_r_sla", loc, sla=sla) if sla else "")])
        rows.append([t("pv_r_ageing", loc), t("pv_r_ageing_i", loc, gpu=gpu_name(f.gpu), months=v.horizon_months),
                     t("pv_r_ageing_m", loc, term=term)])
    other = counterpart(v, ours)
    if other is not None and other.kind == FleetKind.CLOUD and is_monte_carlo(v.fx_model) and other.p95_brl:
        usd = [f for f in ours.fleets() if f.currency != Currency.BRL]
        mitigation = (t("pv_r_fx_m_part", loc, usd=", ".join(fleet_name(f, loc) for f in usd)) if usd
                      else t("pv_r_fx_m", loc))
        rows.append([t("pv_r_fx", loc), t("pv_r_fx_i", loc, other=other.label, p95=money(other.p95_brl, loc)),
                     mitigation])
    if any(n.code == "tax_rates_estimate" for n in v.notices):
        rows.append([t("pv_r_tax", loc), t("pv_r_tax_i", loc), t("pv_r_tax_m", loc)])
    return {"table": table([t("pv_r_col_risk", loc), t("pv_r_col_impact", loc), t("pv_r_col_mitigation", loc)], rows,
                           name=0)}


def case(v: View, ours, scenario, loc: str) -> list[tuple[str, str]]:
    """The case beyond cost, from the offer's data and the proposal's terms (nothing stated that is not known):
    each claim covers every fleet of the offer, training included, or says which part it covers."""
    p = scenario.proposal
    inc = p.included if p is not None else None
    out = []
    split = any(not in_brazil(f) for f in ours.fleets())
    residency = _residency(v, ours, inc, loc)
    if residency:
        out.append((t("pv_case_residency_split" if split else "pv_case_residency", loc), residency))
    billing = _billing(ours, loc)
    if billing:
        usd = any(f.currency != Currency.BRL for f in ours.fleets())
        out.append((t("pv_case_billing_part" if usd else "pv_case_billing", loc), billing))
    if inc and inc.latency_ms:
        out.append((t("pv_case_latency", loc), t("pv_case_latency_v", loc, ms=fmt.number_short(inc.latency_ms, loc))))
    if inc and inc.support_hours:
        out.append((t("pv_case_support", loc), inc.support_hours))
    return out


def _residency(v: View, ours, inc, loc: str) -> str | None:
    """Where the data stays: the whole offer in Brazil, serving only (training abroad, said), or no claim when
    the serving fleet is abroad."""
    if not in_brazil(ours.inference):
        return None
    plans = competitors(v, ours)
    abroad = len([x for x in plans if x.serving_region.lower() not in BRAZIL_REGIONS])
    city = t("pv_in_city", loc, city=inc.datacenter_city) if inc and inc.datacenter_city else t("pv_brazil", loc)
    out_fleets = [f for f in ours.fleets() if not in_brazil(f)]
    if not out_fleets:
        return t("pv_case_residency_v", loc, city=city, abroad=abroad, total=len(plans))
    where = ", ".join(f"{provider_name(f.provider, loc)} {f.region}" for f in out_fleets)
    return t("pv_case_residency_serving_v", loc, city=city, where=where, abroad=abroad, total=len(plans))


def _billing(ours, loc: str) -> str | None:
    """Billing in reais: the whole offer (no remittance, IOF or exchange-rate swing), the serving part only with
    the training's dollars said, or no claim when the serving fleet is priced in dollars."""
    if ours.inference.currency != Currency.BRL:
        return None
    usd_fleets = [f for f in ours.fleets() if f.currency != Currency.BRL]
    if not usd_fleets:
        return t("pv_case_billing_v", loc)
    return t("pv_case_billing_part_v", loc, what=fleet_name(ours.inference, loc),
             usd=", ".join(fleet_name(f, loc) for f in usd_fleets))
