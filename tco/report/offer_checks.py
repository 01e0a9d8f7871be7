"""What the proposal must not contradict: the offer's items against the fleet the engine costed, quotes past
their validity, and recommendations resting on unverified or undated catalog prices.

These notices are the report's, not the engine's (the JSON does not carry them): the terminal prints them
after the engine's, `notes_txt` lists them for the seller, and the PDF states the ones the client must see
(`caveats`). Each is a ``domain.Notice`` whose words are the catalog's ``notice_<code>`` (`tco.report.notices`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tco.domain import BRAZIL_REGIONS, FleetKind, FleetMode, Notice, Role, Status

if TYPE_CHECKING:
    from tco.findings import PlanSearch
    from tco.report.view import View

CHECKED = (Status.LISTED, Status.SCENARIO_OVERRIDE, Status.QUOTE, Status.ESTIMATE, Status.ILLUSTRATIVE_ESTIMATE)
"""Statuses a recommendation may rest on without a further word (estimates have their own notice)."""
TOLERANCE_BRL = 0.5
"""Items and costed fleet differing by less than this [BRL] agree (the PDF shows whole reais)."""


def in_brazil(fleet) -> bool:
    """True when a fleet (view.FleetView) runs in a Brazilian data centre (domain.BRAZIL_REGIONS)."""
    return fleet.region.lower() in BRAZIL_REGIONS


def costed_fleets(o) -> list[tuple[str, Any, int]]:
    """The offered option's dedicated fleets as the engine costed them: (role, fleet, servers at the peak); a
    shared fleet once, the training fleet only when separate."""
    out: list[tuple[str, Any, int]] = []
    for role, f in ((Role.TRAINING, o.training), (Role.INFERENCE, o.inference)):
        if f is None or f.kind != FleetKind.DEDICATED or (role == Role.TRAINING and o.fleet == FleetMode.SHARED):
            continue
        n = o.training_servers if role == Role.TRAINING else o.peak_servers
        out.append((Role.SHARED if o.fleet == FleetMode.SHARED else role, f, max(n, 1)))
    return out


def items_notice(o, items) -> Notice | None:
    """A notice when the `[proposal]` items' monthly total or setup differs from the offered fleet the TCO was
    costed on (servers at the peak × the option's price): the offer page and the TCO would disagree."""
    fleets = costed_fleets(o)
    if not items or not fleets:
        return None
    monthly = sum(i.quantity * i.brl_per_month for i in items)
    setup = sum(i.quantity * i.setup_brl for i in items)
    c_monthly = sum(n * f.price for _, f, n in fleets)
    c_setup = sum(n * f.setup_fee_brl for _, f, n in fleets)
    if abs(monthly - c_monthly) < TOLERANCE_BRL and abs(setup - c_setup) < TOLERANCE_BRL:
        return None
    return Notice("proposal_items_differ", o.name, {"items": monthly, "costed": c_monthly, "items_setup": setup,
                                                    "costed_setup": c_setup})


def expired_quotes(o, doc_date) -> list[Notice]:
    """The option's quoted prices whose validity ended before the document date."""
    day = doc_date.isoformat()
    return [Notice("quote_expired", o.name, {"offer": f.offer, "until": f.as_of, "date": day})
            for f in o.fleets() if f.status == Status.QUOTE and f.as_of and f.as_of < day]


FAR_MONTHS = 24
"""A proposal dated more than this many months before the service starts, or after its horizon ends, gets a notice."""


def date_notices(scenario, doc_date) -> list[Notice]:
    """A proposal date far from the service it offers (review L9): more than FAR_MONTHS before the scenario's start,
    or after its last month."""
    y, m = (int(x) for x in scenario.scenario.start.split("-"))
    start = y * 12 + m - 1
    end = start + scenario.scenario.horizon_months - 1
    doc = doc_date.year * 12 + doc_date.month - 1
    if start - doc > FAR_MONTHS or doc > end:
        return [Notice("proposal_date_far", None, {"date": doc_date.isoformat(), "start": scenario.scenario.start,
                                                   "months": scenario.scenario.horizon_months})]
    return []


def _undated(as_of: str) -> bool:
    return not as_of or as_of.lower().startswith("undated")


def _unverified(status: str, as_of: str) -> bool:
    return status not in CHECKED or _undated(as_of)


def recommended_notices(o) -> list[Notice]:
    """The recommended option's listed prices without a date (an unverified status has the engine's own
    `price_status` notice already)."""
    return [Notice("recommended_undated", o.name, {"offer": f.offer})
            for f in o.fleets() if f.status == Status.LISTED and _undated(f.as_of)]


def plan_notices(found: PlanSearch | None) -> list[Notice]:
    """The best plan's prices that are unverified or undated (the plan search's `overall.best`)."""
    if found is None:
        return []
    out = []
    for x in (found.best.training, found.best.serving):
        if x is not None and x.offer and _unverified(str(x.status or ""), str(x.as_of or "")):
            out.append(Notice("plan_unverified", "", {"offer": x.offer, "status": x.status or "—",
                                                      "as_of": x.as_of or "undated"}))
    return out


def offered(v: View):
    """The option the provider offers: the recommended one when it has a dedicated fleet, else the cheapest
    ranked option with one; None when no option has a dedicated fleet. An owned option (the client's own purchase of
    a dedicated offer's servers) is never the provider's offer."""
    for o in v.ranked_options:
        if o.kind != FleetKind.OWNED and any(f.kind == FleetKind.DEDICATED for f in o.fleets()):
            return o
    return None


def notices(v: View, scenario) -> list[Notice]:
    """Every proposal notice for the view `v` of a run of `scenario`."""
    from tco.report.words import document_date

    out: list[Notice] = []
    o = offered(v)
    p = scenario.proposal
    if o is not None and p is not None:
        n = items_notice(o, p.items)
        out += [n] if n is not None else []
    doc = document_date(scenario)
    out += date_notices(scenario, doc)
    for x in v.ranked_options:
        out += expired_quotes(x, doc)
    if v.ranked:
        out += recommended_notices(v.recommended)
    c = p.constraints if p is not None else None
    if o is not None and (c is None or c.data_in_brazil == "none"):
        abroad = [f for f in o.fleets() if not in_brazil(f)]
        if abroad:
            out.append(Notice("offer_data_abroad", o.name, {"where": ", ".join(f"{f.provider} {f.region}"
                                                                               for f in abroad)}))
    from tco.report.brand import example_brand

    if example_brand(scenario):
        out.append(Notice("brand_example", "", {}))
    return out + plan_notices(v.analysis.plans)
