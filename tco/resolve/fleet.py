"""One offer as an option uses it: the catalog row looked up with its price at the option's pricing (or the
scenario's own price or quote), and how its provider bills a Brazilian CNPJ. Problems name the scenario's
file, line and key, with the closest valid names."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tco.catalog import Billing, Catalog, CloudOffer, DedicatedOffer, Gpu
from tco.domain import REFUSED_STATUSES, Currency, FleetKind, Status, commitment_term_months
from tco.errors import Problem, closest

REFUSED = REFUSED_STATUSES
"""Catalog statuses never used silently: an option naming one must give the price itself."""
DEFAULT_PROFILE = {"import": "import_direct_sp", "local_entity": "brazil_local_entity_sp"}
"""Tax profile by billing mode when tax_profiles.toml has no [billing.<mode>] entry."""


@dataclass(frozen=True)
class Fleet:
    """One offer as used by an option, with its resolved price."""

    offer_id: str
    kind: str  # 'cloud' | 'dedicated'
    gpu: Gpu
    gpus_per_server: int
    currency: str  # 'USD' | 'BRL'
    price: float  # USD per hour, or BRL per month, per server
    price_unit: str
    pricing: str
    setup_fee_brl: float
    min_term_months: int
    price_source: str
    price_as_of: str
    price_status: str
    provider: str
    region: str
    upfront_usd: float = 0.0
    """Paid per instance in the first month of each commitment term [USD] (all/partial upfront); `price` is then
    the effective rate, upfront spread over the term's hours (fleet_rules: the upfront rules)."""
    upfront_term_months: int = 0


def billing_of(cat: Catalog, fleet: Fleet) -> Billing:
    """How the provider of a cloud fleet bills a Brazilian CNPJ, and the default tax profile that follows.

    The offer's own `br_billing` (set by the catalog's providers file, where there is one) wins; else the
    provider's entry in tax_profiles.toml [billing.*]; else an import of services, marked unverified."""
    offer = cat.offer(fleet.offer_id)
    mode = getattr(offer, "br_billing", None) or ""
    known = cat.billing.get(fleet.provider)
    if mode:
        same = known if known is not None and known.mode == mode else None
        prov = getattr(cat, "providers", {}).get(fleet.provider)
        status = (getattr(prov, "br_billing_status", "") or (same.status if same else "")
                  or (Status.SOURCED if getattr(offer, "br_billing_source", "") else Status.UNVERIFIED))
        dflt = cat.billing.get(mode)
        profile = same.profile if same else (dflt.profile if dflt else DEFAULT_PROFILE[mode])
        return Billing(fleet.provider, mode, profile, status,
                       getattr(offer, "br_billing_source", "") or (same.source if same else ""),
                       getattr(prov, "as_of", "") or (same.as_of if same else ""))
    if known is not None:
        return known
    dflt = cat.billing.get("import")
    return Billing(fleet.provider, "import", dflt.profile if dflt else DEFAULT_PROFILE["import"], Status.UNVERIFIED,
                   f"no billing information for provider {fleet.provider!r}: taken as an import of services", "")


def fleet_of(cat: Catalog, offer_id: str, pricing: str, usd_override, brl_override, setup_override, term_override,
             where: str, problems: list[Problem], file: str, line, pricing_where: str = "", pricing_line=None
             ) -> Fleet | None:
    """The offer at a pricing with its price (the scenario's own price wins), or None with a problem recorded."""
    def refuse(message: str, about_pricing: bool = False) -> None:
        if about_pricing:
            problems.append(Problem(file, pricing_where or where, message, pricing_line or line))
        else:
            problems.append(Problem(file, where, message, line))

    offer = cat.offer(offer_id)
    if offer is None:
        refuse(f"unknown offer {offer_id!r}; {closest(offer_id, cat.offer_ids)}")
        return None
    gpu = cat.gpus.get(offer.gpu)
    if gpu is None:
        refuse(f"offer {offer_id!r} uses GPU {offer.gpu!r}, which is not in gpus.csv; {closest(offer.gpu, list(cat.gpus))}")
        return None
    if isinstance(offer, CloudOffer):
        return _cloud_fleet(offer_id, offer, gpu, pricing, usd_override, refuse)
    assert isinstance(offer, DedicatedOffer)
    if brl_override is None and offer.status in REFUSED:
        refuse(f"offer {offer_id!r} is marked {offer.status!r} in the catalog; choose another offer or give the price "
               "in the scenario (brl_per_month)")
        return None
    price = brl_override if brl_override is not None else offer.brl_per_month
    status = Status.SCENARIO_OVERRIDE if brl_override is not None else offer.status
    return Fleet(offer_id, FleetKind.DEDICATED, gpu, offer.gpu_count, Currency.BRL, price, "BRL/month", "monthly",
                 setup_override if setup_override is not None else offer.setup_fee_brl,
                 term_override if term_override is not None else offer.min_term_months,
                 offer.source if brl_override is None else "price given in the scenario",
                 offer.as_of if brl_override is None else "scenario", status, offer.provider, offer.region)


def _cloud_fleet(offer_id: str, offer: CloudOffer, gpu, pricing: str, usd_override, refuse) -> Fleet | None:
    """A cloud offer at a pricing, or None once `refuse` has recorded why (no price, a price the catalog refuses)."""
    p = offer.prices.get(pricing)
    status: str
    if usd_override is not None:
        price, src, asof, status = usd_override, "price given in the scenario", "scenario", Status.SCENARIO_OVERRIDE
    elif p is None or p.usd_per_hour is None:
        have = [k for k, v in offer.prices.items() if v.usd_per_hour is not None]
        why = p.status if p is not None else "not in the catalog"
        if not have:
            refuse(f"offer {offer_id!r} is {why} with no known price in any pricing ({', '.join(sorted(offer.prices))}); "
                   "choose another offer")
            return None
        refuse(f"offer {offer_id!r} has no {pricing!r} price ({why}); {closest(pricing, have)} "
               f"(priced: {', '.join(sorted(have))}); or give the price in the scenario (usd_per_hour)", True)
        return None
    elif p.status in REFUSED:
        refuse(f"the {pricing!r} price of {offer_id!r} is marked {p.status!r} in the catalog"
               f"{': ' + p.note if p.note else ''}; choose another offer or pricing, or give the price in the scenario "
               "(usd_per_hour)", True)
        return None
    else:
        price, src, asof, status = p.usd_per_hour, p.source, p.as_of, p.status
    up = p.upfront_usd if usd_override is None and p is not None and p.upfront_usd else 0.0
    up_term = (p.term_months or commitment_term_months(pricing) or 0) if up and p is not None else 0
    return Fleet(offer_id, FleetKind.CLOUD, gpu, offer.gpu_count, Currency.USD, price, "USD/h", pricing, 0.0, 0,
                 src, asof, status, offer.provider, offer.region, up if up_term else 0.0, up_term)


def as_quote(o, i: int, fleet: Fleet | None, usd, brl, line, problems: list[Problem], file: str,
             check: bool = True) -> Fleet | None:
    """A price the scenario gives with `quote_valid_until` is a provider's quote: status 'quote', dated."""
    key = f"options[{i}]"
    if check and o.quote_source is not None and o.quote_valid_until is None:
        problems.append(Problem(file, f"{key}.quote_valid_until", "a quote needs its validity date: add "
                                'quote_valid_until = "YYYY-MM-DD"', line("options", i, "quote_source")))
    if check and o.quote_valid_until is not None and all(
            v is None for v in (o.usd_per_hour, o.brl_per_month, o.training_usd_per_hour, o.training_brl_per_month)):
        problems.append(Problem(file, f"{key}.quote_valid_until", "quote_valid_until dates a quoted price, but the "
                                "option gives none: add brl_per_month (dedicated) or usd_per_hour (cloud)",
                                line("options", i, "quote_valid_until")))
    if fleet is None or o.quote_valid_until is None or (usd is None and brl is None):
        return fleet
    until = o.quote_valid_until.isoformat()
    who = o.quote_source or "provider's quote"
    return replace(fleet, price_status="quote", price_source=f"quote: {who} (valid until {until})", price_as_of=until)
