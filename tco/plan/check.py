"""Check a scenario's [plan] section against the catalog: every problem at once, file, line and key named,
the closest valid names suggested."""

from __future__ import annotations

from tco.catalog import Catalog
from tco.errors import Problem, closest
from tco.scenario.messages import _show
from tco.plan.components import BRAZIL_REGIONS, SKIP_STATUSES
from tco.resolve import context_problems, line_of, provider_problems, training_length
from tco.scenario import Plan, Scenario
from tco.domain import FleetKind


def _priced_brazil(cat: Catalog) -> list:
    """Catalog offers in Brazil with a usable price."""
    out = []
    for oid in cat.offer_ids:
        o = cat.offer(oid)
        if o.region not in BRAZIL_REGIONS:
            continue
        if o.kind == FleetKind.DEDICATED:
            ok = o.status not in SKIP_STATUSES
        else:
            ok = any(p.usd_per_hour is not None and p.status not in SKIP_STATUSES for p in o.prices.values())
        if ok:
            out.append(o)
    return out


def check(s: Scenario, cat: Catalog, file: str = "<scenario>", lines: dict | None = None) -> list[Problem]:
    """Problems of the [plan] section (an empty list when it is sound or absent)."""
    spec = s.plan or Plan()
    line = line_of(lines or {})
    providers = sorted({o.provider for o in cat.cloud_offers.values()}
                       | {o.provider for o in cat.dedicated_offers.values()})
    out = _unknown_names(spec, cat, providers, file, line)
    if s.model.id in cat.models:  # the requests must fit the model's context window, whatever serves them
        out += context_problems(s, cat.models[s.model.id], file, line, training_length(cat))
    out += provider_problems(s, cat, file, line)  # [proposal.constraints] providers: the search respects them too
    if spec.brazil_only:
        out += _brazil(spec, cat, providers, file, line)
    both = [(j, p) for j, p in enumerate(spec.exclude_pricings) if p in spec.include_pricings]
    out += [Problem(file, f"plan.exclude_pricings[{j}]", f"{_show(p)} is in include_pricings too: a pricing cannot be "
                    "both searched and never used; keep it in one list", line("plan", "exclude_pricings"))
            for j, p in both]  # review L11: the filters cancelled out in silence
    return out


def _unknown_names(spec: Plan, cat: Catalog, providers: list[str], file: str, line) -> list[Problem]:
    """Providers, GPUs, pricings and tax profiles the [plan] names that the catalog does not know."""
    pricings = sorted({p for o in cat.cloud_offers.values() for p in o.prices})
    out: list[Problem] = []
    for j, p in enumerate(spec.providers):
        if p not in providers:
            out.append(Problem(file, f"plan.providers[{j}]", f"unknown provider {_show(p)}; {closest(p, providers)}",
                               line("plan", "providers")))
    listed = {cat.offer(oid).gpu for oid in cat.offer_ids}
    for j, g in enumerate(spec.gpus):
        if g not in cat.gpus:
            why = (f"GPU {_show(g)} has offers in the catalog but no gpus.csv row (no vendor spec yet), so no plan can "
                   "size a fleet on it" if g in listed else f"unknown GPU {_show(g)}; {closest(g, list(cat.gpus))}")
            out.append(Problem(file, f"plan.gpus[{j}]", why, line("plan", "gpus")))
    for key in ("include_pricings", "exclude_pricings"):
        for j, p in enumerate(getattr(spec, key)):
            if p not in pricings:
                out.append(Problem(file, f"plan.{key}[{j}]", f"unknown pricing {_show(p)}; {closest(p, pricings)}",
                                   line("plan", key)))
    for key in ("taxes", "storage_usd_per_gb_month"):
        for p in getattr(spec, key):
            if p not in providers:
                out.append(Problem(file, f"plan.{key}.{p}", f"unknown provider {_show(p)}; {closest(p, providers)}",
                                   line("plan", key, p)))
    for p, tid in spec.taxes.items():
        if tid not in cat.taxes:
            out.append(Problem(file, f"plan.taxes.{p}", f"unknown tax profile {_show(tid)}; {closest(tid, list(cat.taxes))}",
                               line("plan", "taxes", p)))
    return out


def _brazil(spec: Plan, cat: Catalog, providers: list[str], file: str, line) -> list[Problem]:
    """A 'Brazil only' plan needs a Brazilian offer for each GPU and provider it names."""
    br = _priced_brazil(cat)
    out = []
    br_gpus = sorted({o.gpu for o in br if not spec.providers or o.provider in spec.providers})
    for j, g in enumerate(spec.gpus):
        if g in cat.gpus and g not in br_gpus:
            out.append(Problem(file, f"plan.gpus[{j}]", f"brazil_only: no offer in a Brazilian region has GPU {_show(g)} "
                               f"({', '.join(BRAZIL_REGIONS)}); GPUs offered in Brazil: {', '.join(br_gpus) or 'none'}",
                               line("plan", "gpus") or line("plan", "brazil_only")))
    br_prov = sorted({o.provider for o in br if not spec.gpus or o.gpu in spec.gpus})
    for j, p in enumerate(spec.providers):
        if p in providers and p not in br_prov:
            out.append(Problem(file, f"plan.providers[{j}]", f"brazil_only: provider {_show(p)} has no priced offer in "
                               f"Brazil for the GPUs asked; providers that do: {', '.join(br_prov) or 'none'}",
                               line("plan", "providers") or line("plan", "brazil_only")))
    if not br_gpus and not spec.gpus:
        out.append(Problem(file, "plan.brazil_only", "no priced offer in a Brazilian region for the providers asked",
                           line("plan", "brazil_only")))
    return out
