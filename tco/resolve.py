"""Resolve a validated scenario against the catalog: offers, prices, egress, storage, taxes.

This is the second half of checking input: names that the schema cannot know (offers, GPUs,
models, tables) are looked up here, and every problem is reported at once with the scenario's
file, line and key path and the closest valid names.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tco import taxes as taxmod
from tco.catalog import Billing, Catalog, CloudOffer, DedicatedOffer, EgressTable, Gpu, ModelArch, TaxProfile
from tco.domain import commitment_term_months, is_capacity_block, is_committed
from tco.errors import InputError, Problem, closest
from tco.scenario import Scenario

STORAGE_BY_PROVIDER = {"aws": "aws-s3", "gcp": "gcs", "azure": "azure-blob"}
EGRESS_BY_PROVIDER = {"aws": "aws", "gcp": "gcp_premium", "azure": "azure"}
REFUSED = ("not_offered", "anomalous")
"""Catalog statuses never used silently: an option naming one must give the price itself."""


BRL_INVOICE_PROFILE = "brl_invoice_sp"
"""Tax profile of a dedicated provider's BRL invoice (its taxes inside the price; credits by regime)."""


def billing_of(cat: Catalog, fleet: Fleet) -> Billing:
    """How the provider of a cloud fleet bills a Brazilian CNPJ, and the default tax profile that follows.

    The offer's own `br_billing` (set by the catalog's providers file, where there is one) wins; else the
    provider's entry in tax_profiles.toml [billing.*]; else an import of services, marked unverified."""
    offer = cat.offer(fleet.offer_id)
    mode = getattr(offer, "br_billing", None) or ""
    known = cat.billing.get(fleet.provider)
    if mode:
        same = known is not None and known.mode == mode
        prov = getattr(cat, "providers", {}).get(fleet.provider)
        status = (getattr(prov, "br_billing_status", "") or (known.status if same else "")
                  or ("sourced" if getattr(offer, "br_billing_source", "") else "unverified"))
        dflt = cat.billing.get(mode)
        profile = known.profile if same else (dflt.profile if dflt else DEFAULT_PROFILE[mode])
        return Billing(fleet.provider, mode, profile, status,
                       getattr(offer, "br_billing_source", "") or (known.source if same else ""),
                       getattr(prov, "as_of", "") or (known.as_of if same else ""))
    if known is not None:
        return known
    dflt = cat.billing.get("import")
    return Billing(fleet.provider, "import", dflt.profile if dflt else DEFAULT_PROFILE["import"], "unverified",
                   f"no billing information for provider {fleet.provider!r}: taken as an import of services", "")


DEFAULT_PROFILE = {"import": "import_direct_sp", "local_entity": "brazil_local_entity_sp"}


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


@dataclass(frozen=True)
class ResolvedOption:
    name: str
    index: int
    kind: str
    training: Fleet | None
    inference: Fleet
    fleet: str
    autoscale: bool
    egress: EgressTable
    storage_usd_per_gb_month: float
    storage_id: str
    storage_source: str
    tax: TaxProfile
    """Tax profile of the option's USD (cloud) lines, or of an all-BRL option's USD lines ('none' by default)."""
    indexation_rate: float
    price_trend_rate: float
    regime: str | None = None
    """The buyer's tax regime (scenario.tax_regime); None = no credits beyond the profile's own."""
    brl_tax: TaxProfile | None = None
    """Tax profile of the BRL (dedicated) invoice of an all-BRL option; None = nothing added or credited."""
    tax_rates: dict | None = None
    """Rate key → array over months of `tax` (profile in force each month); None = base rates every month."""
    brl_tax_rates: dict | None = None
    billing: Billing | None = None
    """How the cloud fleet's provider bills a Brazilian CNPJ (None for an all-BRL option)."""
    tax_periods: tuple = ()
    """Reform periods (tco.taxes.ReformPeriod) the option's months fall in."""
    committed: tuple[int, ...] | None = None
    """Committed baseline instances per term (costs.committed_schedule), or None."""
    burst: Fleet | None = None
    """The inference offer at its burst pricing (hours above the committed baseline)."""
    commit_term_months: int = 0


def _fleet(cat: Catalog, offer_id: str, pricing: str, usd_override, brl_override, setup_override, term_override,
           where: str, problems: list[Problem], file: str, line, pricing_where: str = "", pricing_line=None
           ) -> Fleet | None:
    offer = cat.offer(offer_id)
    if offer is None:
        problems.append(Problem(file, where, f"unknown offer {offer_id!r}; {closest(offer_id, cat.offer_ids)}", line))
        return None
    gpu = cat.gpus.get(offer.gpu)
    if gpu is None:
        problems.append(Problem(file, where, f"offer {offer_id!r} uses GPU {offer.gpu!r}, which is not in gpus.csv; "
                                             f"{closest(offer.gpu, list(cat.gpus))}", line))
        return None
    if isinstance(offer, CloudOffer):
        p = offer.prices.get(pricing)
        if usd_override is not None:
            price, src, asof, status = usd_override, "price given in the scenario", "scenario", "scenario_override"
        elif p is None or p.usd_per_hour is None:
            have = [k for k, v in offer.prices.items() if v.usd_per_hour is not None]
            why = p.status if p is not None else "not in the catalog"
            if not have:
                problems.append(Problem(file, where, f"offer {offer_id!r} is {why} with no known price in any pricing "
                                        f"({', '.join(sorted(offer.prices))}); choose another offer", line))
                return None
            hint = f"priced: {', '.join(sorted(have))}"
            problems.append(Problem(file, pricing_where or where,
                                    f"offer {offer_id!r} has no {pricing!r} price ({why}); {closest(pricing, have)} "
                                    f"({hint}); or give the price in the scenario (usd_per_hour)",
                                    pricing_line or line))
            return None
        elif p.status in REFUSED:
            problems.append(Problem(file, pricing_where or where,
                                    f"the {pricing!r} price of {offer_id!r} is marked {p.status!r} in the catalog"
                                    f"{': ' + p.note if p.note else ''}; choose another offer or pricing, or give the "
                                    "price in the scenario (usd_per_hour)", pricing_line or line))
            return None
        else:
            price, src, asof, status = p.usd_per_hour, p.source, p.as_of, p.status
        up = p.upfront_usd if usd_override is None and p is not None and p.upfront_usd else 0.0
        up_term = (p.term_months or commitment_term_months(pricing) or 0) if up and p is not None else 0
        return Fleet(offer_id, "cloud", gpu, offer.gpu_count, "USD", price, "USD/h", pricing, 0.0, 0, src, asof,
                     status, offer.provider, offer.region, up if up_term else 0.0, up_term)
    assert isinstance(offer, DedicatedOffer)
    if brl_override is None and offer.status in REFUSED:
        problems.append(Problem(file, where, f"offer {offer_id!r} is marked {offer.status!r} in the catalog; choose "
                                "another offer or give the price in the scenario (brl_per_month)", line))
        return None
    price = brl_override if brl_override is not None else offer.brl_per_month
    status = "scenario_override" if brl_override is not None else offer.status
    return Fleet(offer_id, "dedicated", gpu, offer.gpu_count, "BRL", price, "BRL/month", "monthly",
                 setup_override if setup_override is not None else offer.setup_fee_brl,
                 term_override if term_override is not None else offer.min_term_months,
                 offer.source if brl_override is None else "price given in the scenario",
                 offer.as_of if brl_override is None else "scenario", status, offer.provider, offer.region)


def _as_quote(o, i: int, fleet: Fleet | None, usd, brl, line, problems: list[Problem], file: str,
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
def _as_tuple(v) -> tuple[int, ...]:
    return tuple(v) if isinstance(v, list) else (int(v),)


def _commitment(s: Scenario, o, i: int, inf: Fleet, cat: Catalog, problems: list[Problem], file: str, line
                ) -> tuple[Fleet | None, int]:
    """Check a committed baseline (committed_instances) and resolve its burst pricing; (burst fleet, term)."""
    key = f"options[{i}]"
    where = line("options", i, "committed_instances")
    if inf.kind != "cloud" or o.fleet != "separate":
        problems.append(Problem(file, f"{key}.committed_instances", "a committed baseline applies to a cloud serving "
                                "fleet of a separate-fleet option (dedicated servers are committed already)", where))
        return None, 0
    if not is_committed(o.pricing) or is_capacity_block(o.pricing):
        problems.append(Problem(file, f"{key}.pricing", f"committed_instances needs a 1- or 3-year commitment as "
                                f"pricing, not {o.pricing!r}", line("options", i, "pricing") or where))
        return None, 0
    if is_committed(o.burst_pricing):
        problems.append(Problem(file, f"{key}.burst_pricing", f"the hours above the committed baseline are bought by "
                                f"the hour: 'on_demand' or 'spot', not {o.burst_pricing!r}",
                                line("options", i, "burst_pricing") or where))
        return None, 0
    if isinstance(o.committed_instances, list) and not o.committed_instances:
        problems.append(Problem(file, f"{key}.committed_instances", "give at least one number", where))
        return None, 0
    burst = _fleet(cat, o.inference_offer, o.burst_pricing, o.burst_usd_per_hour, None, None, None,
                   f"{key}.burst_pricing", problems,
                   file, line("options", i, "burst_pricing") or where)
    term = commitment_term_months(o.pricing) or s.scenario.horizon_months
    return burst, term


def resolve(s: Scenario, cat: Catalog, file: str = "<scenario>", lines: dict | None = None
            ) -> tuple[ModelArch, list[ResolvedOption]]:
    """Look up everything a scenario names; raise InputError with every problem found."""
    from tco.demand import month_labels

    lines = lines or {}
    problems: list[Problem] = []
    months = month_labels(s.scenario.start, s.scenario.horizon_months)

    def line(*key):
        while key:
            if key in lines:
                return lines[key]
            key = key[:-1]
        return None

    model = cat.models.get(s.model.id)
    if model is None:
        problems.append(Problem(file, "model.id", f"unknown model {s.model.id!r}; {closest(s.model.id, list(cat.models))}",
                                line("model", "id")))
    out: list[ResolvedOption] = []
    for i, o in enumerate(s.options):
        key = f"options[{i}]"
        inf = _fleet(cat, o.inference_offer, o.pricing, o.usd_per_hour, o.brl_per_month, o.setup_fee_brl,
                     o.min_term_months, f"{key}.inference_offer", problems, file, line("options", i, "inference_offer"),
                     f"{key}.pricing" if "pricing" in o.model_fields_set else "", lines.get(("options", i, "pricing")))
        tr = None
        inf = _as_quote(o, i, inf, o.usd_per_hour, o.brl_per_month, line, problems, file)
        if s.training.method != "none":
            if o.training_offer is None:
                problems.append(Problem(file, f"{key}.training_offer",
                                        "required key is missing (training.method is not 'none')", line("options", i)))
            else:
                tr = _fleet(cat, o.training_offer, o.training_pricing, o.training_usd_per_hour, o.training_brl_per_month,
                            o.setup_fee_brl, o.min_term_months, f"{key}.training_offer", problems, file,
                            line("options", i, "training_offer"),
                            f"{key}.training_pricing" if "training_pricing" in o.model_fields_set else "",
                            lines.get(("options", i, "training_pricing")))
        tr = _as_quote(o, i, tr, o.training_usd_per_hour, o.training_brl_per_month, line, problems, file, False)
        if inf is None:
            continue
        if o.fleet == "shared" and o.training_offer is not None and o.training_offer != o.inference_offer:
            problems.append(Problem(file, f"{key}.fleet", "a 'shared' fleet trains and serves on the same offer: "
                                    "set training_offer = inference_offer, or use fleet = 'separate'", line("options", i, "fleet")))
        if (tr is not None and tr.kind == "cloud" and o.fleet == "separate" and is_committed(o.training_pricing)
                and not is_capacity_block(o.training_pricing)):
            problems.append(Problem(file, f"{key}.training_pricing", "a separate training burst is rented by the hour; "
                                    "a 1- or 3-year reservation would be paid long after it ends: use 'on_demand' or "
                                    "'spot', or fleet = 'shared' with a reserved fleet",
                                    line("options", i, "training_pricing")))
        burst, term = None, 0
        if o.committed_instances is not None:
            burst, term = _commitment(s, o, i, inf, cat, problems, file, line)
        elif tr is not None and tr.kind == "cloud" and is_capacity_block(o.training_pricing) and o.fleet == "shared":
            problems.append(Problem(file, f"{key}.training_pricing", f"a capacity block ({o.training_pricing!r}) "
                                    "reserves a cluster for days, not a fleet that runs all month: use it for a "
                                    "separate training burst (fleet = 'separate')", line("options", i, "training_pricing")))
        if inf.kind == "cloud" and is_capacity_block(o.pricing):
            problems.append(Problem(file, f"{key}.pricing", f"a capacity block ({o.pricing!r}) reserves a cluster for "
                                    "days, not a fleet that serves all month: use it as training_pricing of a separate "
                                    "burst; serve on 'on_demand' or a 1- or 3-year commitment",
                                    line("options", i, "pricing")))
        term_m = commitment_term_months(o.pricing) if is_committed(o.pricing) else None
        if inf.kind == "cloud" and term_m is not None and term_m > s.scenario.horizon_months:
            offer = cat.offer(o.inference_offer)
            fit = sorted(p for p, v in offer.prices.items() if v.usd_per_hour is not None and not is_capacity_block(p)
                         and (commitment_term_months(p) or 0) <= s.scenario.horizon_months)
            problems.append(Problem(file, f"{key}.pricing", f"the commitment {o.pricing!r} runs {term_m} months, longer "
                                    f"than the horizon ({s.scenario.horizon_months} months): the months after the "
                                    f"horizon would be paid but not counted; {closest(o.pricing, fit)} (pricings of "
                                    f"{o.inference_offer!r} that fit: {', '.join(fit) or 'none'}), or a longer horizon",
                                    line("options", i, "pricing")))
        if inf.kind == "cloud" and o.autoscale and is_committed(o.pricing) and o.committed_instances is None:
            problems.append(Problem(file, f"{key}.autoscale", "reserved capacity is paid every hour and cannot follow "
                                    "the load: set autoscale = false or pricing = 'on_demand'", line("options", i, "autoscale")))
        # egress
        if o.egress is not None:
            eid = o.egress
        elif inf.kind == "dedicated":
            eid = "none/dedicated"
        else:
            eid = f"{EGRESS_BY_PROVIDER.get(inf.provider, inf.provider)}/{inf.region}"
        egress = cat.egress.get(eid)
        if egress is None:
            problems.append(Problem(file, f"{key}.egress", f"no egress table {eid!r}; {closest(eid, list(cat.egress))}",
                                    line("options", i, "egress") or line("options", i)))
        # storage
        if o.storage_usd_per_gb_month is not None:
            sid = o.storage or "scenario"
            sprice, ssrc = o.storage_usd_per_gb_month, "price given in the scenario"
        elif inf.kind == "dedicated" and o.storage is None:
            sid, sprice, ssrc = "included", 0.0, "local disks included in the dedicated server price"
        else:
            sid = o.storage or f"{STORAGE_BY_PROVIDER.get(inf.provider, inf.provider)}/{inf.region}"
            st = cat.storage.get(sid)
            if st is None:
                problems.append(Problem(file, f"{key}.storage", f"no storage price {sid!r}; {closest(sid, list(cat.storage))}",
                                        line("options", i, "storage") or line("options", i)))
                sprice, ssrc = 0.0, ""
            elif st.usd_per_gb_month is None and s.inference.storage_gb > 0:
                problems.append(Problem(file, f"{key}.storage", f"storage price {sid!r} is {st.status or 'unknown'}; "
                                        "choose another storage id or set inference.storage_gb = 0",
                                        line("options", i, "storage") or line("options", i)))
                sprice, ssrc = 0.0, st.source
            else:
                sprice, ssrc = st.usd_per_gb_month or 0.0, st.source
        all_brl = inf.kind == "dedicated" and (tr is None or tr.kind == "dedicated")
        cloud = inf if inf.kind == "cloud" else tr
        billing = None if all_brl or cloud is None else billing_of(cat, cloud)
        tid = o.taxes or (billing.profile if billing is not None else "none")
        tax = cat.taxes.get(tid)
        if tax is None:
            problems.append(Problem(file, f"{key}.taxes", f"unknown tax profile {tid!r}; {closest(tid, list(cat.taxes))}",
                                    line("options", i, "taxes") or line("options", i)))
        brl_tax = None
        if (inf.kind == "dedicated" or (tr is not None and tr.kind == "dedicated")) and o.taxes != "none":
            brl_tax = cat.taxes.get(BRL_INVOICE_PROFILE)
        if egress is None or tax is None:
            continue
        out.append(ResolvedOption(o.name, i, inf.kind, tr, inf, o.fleet, o.autoscale and inf.kind == "cloud"
                                  and o.fleet == "separate" and not is_committed(o.pricing),
                                  egress, sprice, sid, ssrc, tax,
                                  o.indexation_rate, o.price_trend_rate, s.scenario.tax_regime, brl_tax,
                                  taxmod.rates_by_month(tax, months, cat.tax_reform),
                                  taxmod.rates_by_month(brl_tax, months, cat.tax_reform) if brl_tax else None,
                                  billing, tuple(taxmod.periods_used(brl_tax or tax, months, cat.tax_reform)),
                                  None if burst is None else _as_tuple(o.committed_instances), burst, term))
    if problems:
        raise InputError(problems)
    return model, out
