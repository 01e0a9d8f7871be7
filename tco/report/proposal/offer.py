"""The offer page of the proposal: items, prices and conditions; then next steps and the signature block.

The terms come from the scenario's `[proposal]` section (`tco.scenario.proposal`). Where it is absent or
has no items, the items are the offered option's own fleets at their catalog prices: quantity = the most
servers paid in any month, R$ per month and setup per server, the catalog's minimum term; the offer is
then marked an estimate, plainly, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import datetime as _dt

from tco.domain import FleetKind, FleetMode, Role
from tco.report import fmt
from tco.report.i18n import t
from tco.report.offer_checks import notices, offered  # noqa: F401  (offered: public here too)
from tco.report.words import day, fleet_name, money, month_name, table

if TYPE_CHECKING:
    from tco.report.view import View

VALIDITY_DAYS = 30
"""Validity of an offer whose `[proposal]` names no `valid_until` [days from the document date]."""


def expired(f, doc_date: _dt.date) -> bool:
    """True when the fleet's price is a quote whose validity ended before the document date."""
    return f.status == "quote" and bool(f.as_of) and f.as_of < doc_date.isoformat()


def _derived_items(o, loc: str, doc_date: _dt.date) -> list[dict]:
    """The offered option's dedicated fleets as items (catalog prices; the training fleet only when separate)."""
    out = []
    for role, f in ((Role.TRAINING, o.training), (Role.INFERENCE, o.inference)):
        if f is None or f.kind != FleetKind.DEDICATED or (role == Role.TRAINING and o.fleet == FleetMode.SHARED):
            continue
        qty = o.training_servers if role == Role.TRAINING else o.peak_servers
        role = Role.SHARED if o.fleet == FleetMode.SHARED else role  # one fleet trains, then serves
        out.append({"description": t(f"pv_item_{role}", loc, what=fleet_name(f, loc)), "quantity": max(qty, 1),
                    "brl_per_month": f.price, "setup_brl": f.setup_fee_brl,
                    "firm": f.status == "quote" and not expired(f, doc_date),
                    "min_term": f.min_term_months})
    return out


def _items(p, o, loc: str, doc_date: _dt.date) -> tuple[list[dict], bool]:
    """(items, derived?)."""
    if p is not None and p.items:
        return [{"description": i.description, "quantity": i.quantity, "brl_per_month": i.brl_per_month,
                 "setup_brl": i.setup_brl, "firm": i.firm_quote, "min_term": None} for i in p.items], False
    return (_derived_items(o, loc, doc_date) if o is not None else []), True


def offer(v: View, scenario, doc_date: _dt.date, theme: dict, loc: str, catalog=None) -> dict:
    """The offer page. `catalog` (the run's) gives an estimated price's low–high range."""
    p = scenario.proposal
    o = offered(v)
    items, derived = _items(p, o, loc, doc_date)
    rows = []
    for i in items:
        status = t("pv_firm" if i["firm"] else "pv_estimate", loc)
        rows.append([i["description"], fmt.number(i["quantity"], loc), money(i["brl_per_month"], loc),
                     money(i["quantity"] * i["brl_per_month"], loc),
                     money(i["setup_brl"], loc) if i["setup_brl"] else "—", status])
    monthly = sum(i["quantity"] * i["brl_per_month"] for i in items)
    setup = sum(i["quantity"] * i["setup_brl"] for i in items)
    foot = [t("pv_total_month", loc), "", "", money(monthly, loc), money(setup, loc) if setup else "—", ""]
    head = [t("pv_col_item", loc), t("pv_col_qty", loc), t("pv_col_unit_month", loc), t("pv_col_month", loc),
            t("pv_col_setup", loc), t("pv_col_status", loc)]
    terms = _terms(p, o, items, doc_date, theme, loc, _ranges(o, catalog))
    estimate = derived or not all(i["firm"] for i in items)
    return {"option": o.label if o else None, "table": table(head, rows, num=(1, 2, 3, 4), name=0, foot=foot),
            "terms": terms, "contract": contract_terms(p, loc, o),
            "estimate_note": t("pv_estimate_once", loc) if estimate and items else None,
            "none": None if items else t("pv_no_dedicated", loc), "included": _included(p, o, loc),
            "caveats": caveats(v, scenario, o, loc) if o is not None else [],
            "need": p.client_need if p is not None else "", "outside": _outside(o, loc)}


def caveats(v: View, scenario, o, loc: str) -> list[str]:
    """What the client must read beside the offer: items that differ from the costed fleet, expired quotes."""
    out = []
    for n in notices(v, scenario):
        if n.option != o.name:
            continue
        if n.code == "proposal_items_differ":
            out.append(t("pv_caveat_items", loc, items=money(float(n.params["items"]), loc),  # type: ignore[arg-type]
                         costed=money(float(n.params["costed"]), loc)))  # type: ignore[arg-type]
        elif n.code == "quote_expired":
            f = next(x for x in o.fleets() if x.offer == n.params["offer"])
            out.append(t("pv_caveat_quote_expired", loc, what=fleet_name(f, loc),
                         until=fmt.iso_date(str(n.params["until"]), loc)))
    return out


def _outside(o, loc: str) -> list[str]:
    """The offered option's cloud fleets: in its total cost, but bought from the cloud provider, not offered here."""
    if o is None:
        return []
    return [t("pv_offer_outside", loc, what=fleet_name(f, loc)) for f in o.fleets()
            if f.kind != FleetKind.DEDICATED]


def valid_until(p, doc_date: _dt.date) -> _dt.date:
    return p.valid_until if p is not None and p.valid_until else doc_date + _dt.timedelta(days=VALIDITY_DAYS)


def _ranges(o, catalog) -> list[tuple[float, float]]:
    """The catalog's low–high price range of each estimated dedicated fleet of the offered option [BRL/month]."""
    if o is None or catalog is None:
        return []
    out = []
    for f in o.fleets():
        row = catalog.dedicated_offers.get(f.offer) if f.kind == FleetKind.DEDICATED else None
        if row is not None and f.status == "estimate" and row.brl_per_month_low and row.brl_per_month_high:
            out.append((row.brl_per_month_low, row.brl_per_month_high))
    return out


def _terms(p, o, items, doc_date, theme: dict, loc: str, ranges=()) -> list[tuple[str, str]]:
    term = p.min_term_months if p is not None and p.min_term_months else max(
        [i["min_term"] or 0 for i in items] or [0])
    index = p.adjustment_index if p is not None else "IPCA"
    rate = o.indexation_rate if o is not None else None
    if index == "none":
        adjust = t("pv_adjust_none", loc)
    elif p is not None and p.adjustment_month:
        adjust = t("pv_adjust_month", loc, index=index, month=month_name(p.adjustment_month, loc),
                   rate=fmt.percent_short(rate, loc))
    else:
        adjust = t("pv_adjust_anniversary", loc, index=index, rate=fmt.percent_short(rate, loc))
    taxes = p.taxes_included if p is not None else True
    signer = _signatory(p, theme)
    number = (p.number if p is not None else "") or "—"
    version = p.version if p is not None else 1
    out = [
        (t("pv_t_number", loc),
         t("pv_number_version", loc, number=number, version=version) if number != "—" else "—"),
        (t("pv_t_term", loc), t("pv_months", loc, n=term) if term else "—"),
        (t("pv_t_adjust", loc), adjust),
        (t("pv_t_taxes", loc), t("pv_taxes_in" if taxes else "pv_taxes_out", loc)),
        (t("pv_t_payment", loc), (p.payment_terms if p is not None else "") or t("pv_payment_default", loc)),
        (t("pv_t_validity", loc), day(valid_until(p, doc_date), loc)),
    ]
    out += quote_status(p, items, loc, ranges)
    out.append((t("pv_t_signatory", loc), signer))
    return out


def quote_status(p, items, loc: str, ranges=()) -> list[tuple[str, str]]:
    """The price's status whenever there are items: a firm quote with its reference and date, or an estimate with
    the catalog's low–high range of the offered servers' price (`ranges`)."""
    c = p.contract if p is not None else None
    out: list[tuple[str, str]] = []
    if items:
        firm = all(i["firm"] for i in items)
        if firm and c is not None and (c.quote_reference or c.quote_date):
            ref = ", ".join(x for x in (c.quote_reference, day(c.quote_date, loc) if c.quote_date else "") if x)
            out.append((t("pv_t_quote", loc), t("pv_quote_firm_ref", loc, ref=ref)))
        else:
            status = t("pv_firm" if firm else "pv_estimate", loc)
            if not firm and ranges:
                status = t("pv_estimate_range", loc, ranges="; ".join(
                    t("pv_range", loc, low=money(lo, loc), high=money(hi, loc)) for lo, hi in ranges))
            out.append((t("pv_t_quote", loc), status))
    return out


def contract_terms(p, loc: str, o=None) -> list[tuple[str, str]]:
    """The contract's terms ([proposal.contract]) as the offer page shows them: only the keys written. The LGPD row
    ends with where the offered option's data goes, from its fleets (never the seller's words alone)."""
    c = p.contract if p is not None else None
    out: list[tuple[str, str]] = []
    if c is None:
        return out
    if c.duration_months:
        out.append((t("pv_t_duration", loc), t("pv_months", loc, n=c.duration_months)))
    if c.renewal:
        out.append((t("pv_t_renewal", loc), c.renewal))
    if c.sla_credits:
        out.append((t("pv_t_credits", loc), "; ".join(
            t("pv_credit", loc, below=fmt.percent_short(x.below_share, loc, 3),
              credit=fmt.percent_short(x.credit_share, loc)) for x in sorted(c.sla_credits,
                                                                               key=lambda x: -x.below_share))))
    if c.support_response:
        out.append((t("pv_t_support_response", loc), c.support_response))
    if c.early_exit == "with_penalty" and c.early_exit_penalty_share is not None:
        exit_ = t("pv_exit_penalty", loc, share=fmt.percent_short(c.early_exit_penalty_share, loc))
    else:
        exit_ = t("pv_exit_not_allowed", loc)
    if c.exit_notice_days is not None:
        exit_ += "; " + t("pv_exit_notice", loc, days=c.exit_notice_days)
    if c != type(c)():
        out.append((t("pv_t_exit", loc), exit_))
    if c.late_payment:
        out.append((t("pv_t_late", loc), c.late_payment))
    if c.data_protection:
        out.append((t("pv_t_lgpd", loc), " ".join(x for x in (c.data_protection, _where_data(o, loc)) if x)))
    if c.data_return_days is not None:
        out.append((t("pv_t_data_return", loc), t("pv_data_return", loc, days=c.data_return_days)))
    if c.jurisdiction:
        out.append((t("pv_t_jurisdiction", loc), c.jurisdiction))
    return out


def _where_data(o, loc: str) -> str:
    """Where the offered option processes the data, from its fleets: in Brazil, or which fleets are abroad (an
    international transfer, LGPD art. 33)."""
    from tco.report.offer_checks import in_brazil
    from tco.report.words import provider_name

    if o is None:
        return ""
    abroad = [f for f in o.fleets() if not in_brazil(f)]
    if not abroad:
        return t("pv_lgpd_in_brazil", loc)
    return t("pv_lgpd_abroad", loc, where=", ".join(f"{provider_name(f.provider, loc)} {f.region}" for f in abroad))


def _signatory(p, theme: dict) -> str:
    s = p.signatory if p is not None and p.signatory else None
    if s is not None:
        return ", ".join(x for x in (s.name, s.role) if x)
    c = theme.get("contact", {})
    return ", ".join(x for x in (c.get("person"), theme["provider"].get("name")) if x) or "—"


def _included(p, o, loc: str) -> list[tuple[str, str]]:
    inc = p.included if p is not None else None
    out = []
    hw = (inc.hardware if inc else "") or (fleet_name(o.inference, loc) if o is not None else "")
    for key, value in (("hardware", hw), ("network", inc.network if inc else ""),
                       ("storage", inc.storage if inc else ""), ("management", inc.management if inc else ""),
                       ("support", inc.support_hours if inc else ""),
                       ("sla", fmt.percent_short(inc.sla_share, loc, 3) if inc and inc.sla_share else ""),
                       ("datacenter", " — ".join(x for x in ((inc.datacenter_tier, inc.datacenter_city)
                                                              if inc else ()) if x))):
        if value:
            out.append((t(f"pv_inc_{key}", loc), value))
    return out


def next_steps(v: View, scenario, doc_date: _dt.date, theme: dict, loc: str) -> dict:
    p = scenario.proposal
    if p is not None and p.next_steps:
        rows = [[s.what, s.who or "—", day(s.by, loc)] for s in p.next_steps]
        suggested = False
    else:  # dates counted from the document date, said to be suggestions
        until = valid_until(p, doc_date)
        rows = [[t("pv_step_benchmark", loc), t("pv_who_both", loc), day(doc_date + _dt.timedelta(days=14), loc)],
                [t("pv_step_quote", loc), t("pv_who_provider", loc), day(doc_date + _dt.timedelta(days=21), loc)],
                [t("pv_step_contract", loc), t("pv_who_both", loc), day(until, loc)]]
        suggested = True
    owner = p.owner if p is not None and p.owner else None
    contact = theme.get("contact", {})
    owner_line = (", ".join(x for x in (owner.name, owner.role, owner.email, owner.phone) if x) if owner else
                  ", ".join(x for x in (contact.get("person"), contact.get("email"), contact.get("phone")) if x))
    s = p.signatory if p is not None and p.signatory else None
    return {"table": table([t("pv_col_step", loc), t("pv_col_who", loc), t("pv_col_by", loc)], rows, name=0),
            "suggested": t("pv_steps_suggested", loc) if suggested else None, "owner": owner_line or "—",
            "provider_signer": s.name if s else "", "provider_role": s.role if s else "",
            "provider": theme["provider"].get("name") or "", "client": v.client or v.name,
            "valid": day(valid_until(p, doc_date), loc)}
