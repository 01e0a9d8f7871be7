"""Resolve a validated scenario against the catalog: offers, prices, egress, storage, taxes.

This is the second half of checking input: names that the schema cannot know (offers, GPUs,
models, tables) are looked up here, and every problem is reported at once with the scenario's
file, line and key path and the closest valid names.
"""

from __future__ import annotations


from tco.costs import taxes as taxmod
from tco.catalog import Billing, Catalog, EgressTable, ModelArch, TaxProfile
from tco.domain import FleetKind, FleetMode, TrainingMethod, commitment_term_months, is_capacity_block, is_committed, record
from tco.errors import InputError, Problem, closest
from tco.resolve.fleet import Fleet, as_quote, billing_of, fleet_of
from tco.resolve.owned import OwnedTerms, resolve_owned
from tco.scenario import Scenario

__all__ = ["Fleet", "ResolvedOption", "billing_of", "resolve"]

STORAGE_BY_PROVIDER = {"aws": "aws-s3", "gcp": "gcs", "azure": "azure-blob"}
EGRESS_BY_PROVIDER = {"aws": "aws", "gcp": "gcp_premium", "azure": "azure"}
BRL_INVOICE_PROFILE = "brl_invoice_sp"
"""Tax profile of a dedicated provider's BRL invoice (its taxes inside the price; credits by regime)."""


@record
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
    """Reform periods (tco.costs.taxes.ReformPeriod) the option's months fall in."""
    committed: tuple[int, ...] | None = None
    """Committed baseline instances per term, the last holding (``fleet_rules._committed_rules``), or None."""
    burst: Fleet | None = None
    """The inference offer at its burst pricing (hours above the committed baseline)."""
    commit_term_months: int = 0
    owned: OwnedTerms | None = None
    """The purchase, payment, depreciation and running terms of an owned fleet (``tco.resolve.owned``); None = rented."""
    breaches: tuple[str, ...] = ()
    """The client's constraints this option breaks (``tco.scenario.proposal.breaches``): shown, never recommended."""


def _as_tuple(v) -> tuple[int, ...]:
    return tuple(v) if isinstance(v, list) else (int(v),)


def _commitment(s: Scenario, o, i: int, serve: Fleet, cat: Catalog, problems: list[Problem], file: str, line
                ) -> tuple[Fleet | None, int]:
    """Check a committed baseline (committed_instances) and resolve its burst pricing; (burst fleet, term)."""
    key = f"options[{i}]"
    where = line("options", i, "committed_instances")
    if serve.kind != FleetKind.CLOUD or o.fleet != FleetMode.SEPARATE:
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
    burst = fleet_of(cat, o.inference_offer, o.burst_pricing, o.burst_usd_per_hour, None, None, None,
                   f"{key}.burst_pricing", problems,
                   file, line("options", i, "burst_pricing") or where)
    term = commitment_term_months(o.pricing) or s.scenario.horizon_months
    return burst, term


def resolve(s: Scenario, cat: Catalog, file: str = "<scenario>", lines: dict | None = None
            ) -> tuple[ModelArch, list[ResolvedOption]]:
    """Look up everything a scenario names; raise InputError with every problem found."""
    from tco.timeline.calendar import month_labels
    from tco.timeline.fx_base import focus_problems

    lines = lines or {}
    problems: list[Problem] = []
    months = month_labels(s.scenario.start, s.scenario.horizon_months)
    line = line_of(lines)
    model = cat.models.get(s.model.id)
    if model is None:
        problems.append(Problem(file, "model.id", f"unknown model {s.model.id!r}; "
                                f"{closest(s.model.id, list(cat.models))}", line("model", "id")))
    else:
        problems += context_problems(s, model, file, line, training_length(cat))
    problems += focus_problems(s.fx, file, line)
    problems += provider_problems(s, cat, file, line)
    out: list[ResolvedOption] = []
    for i, o in enumerate(s.options):
        serve, train = _fleets_of(s, o, i, cat, problems, file, lines)
        if serve is None:
            continue
        r = _resolved(s, o, i, serve, train, cat, months, problems, file, line)
        if r is not None:
            out.append(r)
    if problems or model is None:
        raise InputError(problems)
    return model, out


def provider_problems(s: Scenario, cat: Catalog, file: str, line) -> list[Problem]:
    """[proposal.constraints] providers must be the catalog's provider ids: a misspelt one would silently leave
    every option of the provider meant out of the ranking."""
    c = s.proposal.constraints if s.proposal is not None else None
    return [Problem(file, f"proposal.constraints.providers[{i}]", f"unknown provider {p!r}; "
                    f"{closest(p, list(cat.providers))}", line("proposal", "constraints", "providers"))
            for i, p in enumerate(c.providers if c is not None else ()) if p not in cat.providers]


def context_problems(s: Scenario, model, file: str, line, default_length: int = 0) -> list[Problem]:
    """A request longer than the model's context window (models.csv max_context_tokens): the prompt and the output
    share it. Blamed on the prompt when it alone is too long, else on the output that pushes the sum over."""
    limit = model.max_context_tokens
    inf = s.inference
    total = inf.input_tokens_per_request + inf.output_tokens_per_request
    seq = (s.training.sequence_length or default_length) if s.training.method != "none" else None
    whose = "" if s.training.sequence_length else " (the catalog's default, defaults.toml [training])"
    out = [] if not limit or not seq or seq <= limit else [  # 1,048,576 on Llama 3.1 8B was costed, 7x the GPU-hours
        Problem(file, "training.sequence_length", f"{seq:,} tokens per training sequence{whose} is longer than the "
                f"context window of {s.model.id!r} ({limit:,} tokens, models.csv max_context_tokens); give at most "
                f"{limit:,}", line("training", "sequence_length"))]
    if not limit or total <= limit:
        return out
    key = "input_tokens_per_request" if inf.input_tokens_per_request > limit else "output_tokens_per_request"
    return out + [Problem(file, f"inference.{key}", f"a request of {inf.input_tokens_per_request:,.0f} input + "
                    f"{inf.output_tokens_per_request:,.0f} output tokens = {total:,.0f} is longer than the context "
                    f"window of {s.model.id!r} ({limit:,} tokens, models.csv max_context_tokens); shorten the "
                    "requests or choose a model with a longer context", line("inference", key))]


def training_length(cat: Catalog) -> int:
    """The catalog's default training sequence length (defaults.toml [training] sequence_length; 0 when absent)."""
    return int((cat.defaults.get("training") or {}).get("sequence_length") or 0)


def line_of(lines: dict):
    """The line of a key path in the scenario file, or of its nearest parent that has one (None if none)."""
    def line(*key):
        while key:
            if key in lines:
                return lines[key]
            key = key[:-1]
        return None
    return line


def _fleets_of(s: Scenario, o, i: int, cat: Catalog, problems: list[Problem], file: str, lines: dict
               ) -> tuple[Fleet | None, Fleet | None]:
    """(serving fleet, training fleet) of option i, with the scenario's price overrides and quotes."""
    key, line = f"options[{i}]", line_of(lines)
    pricing_key = f"{key}.pricing" if "pricing" in o.model_fields_set else ""
    serve = fleet_of(cat, o.inference_offer, o.pricing, o.usd_per_hour, o.brl_per_month, o.setup_fee_brl,
                     o.min_term_months, f"{key}.inference_offer", problems, file,
                     line("options", i, "inference_offer"), pricing_key, lines.get(("options", i, "pricing")))
    train = None
    serve = as_quote(o, i, serve, o.usd_per_hour, o.brl_per_month, line, problems, file)
    if s.training.method != TrainingMethod.NONE:
        if o.training_offer is None:
            problems.append(Problem(file, f"{key}.training_offer",
                                    "required key is missing (training.method is not 'none')", line("options", i)))
        else:
            train = fleet_of(cat, o.training_offer, o.training_pricing, o.training_usd_per_hour,
                             o.training_brl_per_month, o.setup_fee_brl, o.min_term_months, f"{key}.training_offer",
                             problems, file, line("options", i, "training_offer"),
                             f"{key}.training_pricing" if "training_pricing" in o.model_fields_set else "",
                             lines.get(("options", i, "training_pricing")))
    train = as_quote(o, i, train, o.training_usd_per_hour, o.training_brl_per_month, line, problems, file, False)
    return serve, train


def _resolved(s: Scenario, o, i: int, serve: Fleet, train: Fleet | None, cat: Catalog, months: list[str],
              problems: list[Problem], file: str, line) -> ResolvedOption | None:
    """Option i with its fleets, egress, storage and taxes looked up (None when one of them is missing)."""
    burst, term = _pricing_checks(s, o, i, serve, train, cat, problems, file, line)
    egress = _egress_of(o, i, serve, cat, problems, file, line)
    sid, sprice, ssrc = _storage_of(s, o, i, serve, cat, problems, file, line)
    tax, brl_tax, billing = _taxes_of(o, i, serve, train, cat, problems, file, line)
    owned = None
    if o.owned is not None:  # bought servers: their taxes are in the landed cost, no invoice to credit
        owned = resolve_owned(s, o, i, serve, problems, file, line)
        tax, brl_tax = cat.taxes.get("none"), None
        if owned is None:
            return None
    if egress is None or tax is None:
        return None
    autoscale = (o.autoscale and serve.kind == FleetKind.CLOUD and o.fleet == FleetMode.SEPARATE
                 and not is_committed(o.pricing))
    return ResolvedOption(o.name, i, serve.kind, train, serve, o.fleet, autoscale, egress, sprice, sid, ssrc, tax,
                          o.indexation_rate, o.price_trend_rate, s.scenario.tax_regime, brl_tax,
                          taxmod.rates_by_month(tax, months, cat.tax_reform),
                          taxmod.rates_by_month(brl_tax, months, cat.tax_reform) if brl_tax else None,
                          billing, tuple(taxmod.periods_used(brl_tax or tax, months, cat.tax_reform)),
                          None if burst is None else _as_tuple(o.committed_instances), burst, term, owned,
                          _breaches(s, serve, train))


def _breaches(s: Scenario, serve: Fleet, train: Fleet | None) -> tuple[str, ...]:
    """The client's constraints ([proposal.constraints]) the option breaks; a shared fleet trains where it serves."""
    from tco.domain import TrainingMethod
    from tco.scenario.proposal import breaches

    if s.proposal is None or s.proposal.constraints is None:
        return ()
    trains = s.training.method != TrainingMethod.NONE
    where = train or serve
    return breaches(s.proposal.constraints, (where.provider, where.region) if trains else None,
                    (serve.provider, serve.region))


def _pricing_checks(s: Scenario, o, i: int, serve: Fleet, train: Fleet | None, cat: Catalog, problems: list[Problem],
                    file: str, line) -> tuple[Fleet | None, int]:
    """Fleet and pricing combinations that cannot be paid as the option says (shared fleet on two offers,
    a reservation for a burst, a capacity block for a month-long fleet, a term beyond the horizon…), and
    the committed baseline's burst fleet and term (None, 0 without one)."""
    key = f"options[{i}]"
    if o.fleet == FleetMode.SHARED and o.training_offer is not None and o.training_offer != o.inference_offer:
        problems.append(Problem(file, f"{key}.fleet", "a 'shared' fleet trains and serves on the same offer: "
                                "set training_offer = inference_offer, or use fleet = 'separate'",
                                line("options", i, "fleet")))
    if (train is not None and train.kind == FleetKind.CLOUD and o.fleet == FleetMode.SEPARATE
            and is_committed(o.training_pricing) and not is_capacity_block(o.training_pricing)):
        problems.append(Problem(file, f"{key}.training_pricing", "a separate training burst is rented by the hour; "
                                "a 1- or 3-year reservation would be paid long after it ends: use 'on_demand' or "
                                "'spot', or fleet = 'shared' with a reserved fleet",
                                line("options", i, "training_pricing")))
    burst, term = None, 0
    if o.committed_instances is not None:
        burst, term = _commitment(s, o, i, serve, cat, problems, file, line)
    elif (train is not None and train.kind == FleetKind.CLOUD and is_capacity_block(o.training_pricing)
          and o.fleet == FleetMode.SHARED):
        problems.append(Problem(file, f"{key}.training_pricing", f"a capacity block ({o.training_pricing!r}) "
                                "reserves a cluster for days, not a fleet that runs all month: use it for a "
                                "separate training burst (fleet = 'separate')", line("options", i, "training_pricing")))
    if serve.kind == FleetKind.CLOUD:
        _serving_pricing_checks(s, o, i, cat, problems, file, line)
    return burst, term


def _serving_pricing_checks(s: Scenario, o, i: int, cat: Catalog, problems: list[Problem], file: str, line) -> None:
    """A cloud serving fleet's pricing: not a capacity block, a commitment within the horizon, no autoscaling of
    reserved capacity (a committed baseline aside)."""
    key = f"options[{i}]"
    if is_capacity_block(o.pricing):
        problems.append(Problem(file, f"{key}.pricing", f"a capacity block ({o.pricing!r}) reserves a cluster for "
                                "days, not a fleet that serves all month: use it as training_pricing of a separate "
                                "burst; serve on 'on_demand' or a 1- or 3-year commitment",
                                line("options", i, "pricing")))
    term_m = commitment_term_months(o.pricing) if is_committed(o.pricing) else None
    if term_m is not None and term_m > s.scenario.horizon_months:
        offer = cat.offer(o.inference_offer)
        fit = sorted(p for p, v in offer.prices.items() if v.usd_per_hour is not None and not is_capacity_block(p)
                     and (commitment_term_months(p) or 0) <= s.scenario.horizon_months)
        problems.append(Problem(file, f"{key}.pricing", f"the commitment {o.pricing!r} runs {term_m} months, longer "
                                f"than the horizon ({s.scenario.horizon_months} months): the months after the "
                                f"horizon would be paid but not counted; {closest(o.pricing, fit)} (pricings of "
                                f"{o.inference_offer!r} that fit: {', '.join(fit) or 'none'}), or a longer horizon",
                                line("options", i, "pricing")))
    if o.autoscale and is_committed(o.pricing) and o.committed_instances is None:
        problems.append(Problem(file, f"{key}.autoscale", "reserved capacity is paid every hour and cannot follow "
                                "the load: set autoscale = false or pricing = 'on_demand'",
                                line("options", i, "autoscale")))


def _egress_of(o, i: int, serve: Fleet, cat: Catalog, problems: list[Problem], file: str, line) -> EgressTable | None:
    """The option's egress table: its own, none for dedicated servers, else the provider's in the region."""
    key = f"options[{i}]"
    if o.egress is not None:
        eid = o.egress
    elif serve.kind == FleetKind.DEDICATED:
        eid = "none/dedicated"
    else:
        eid = f"{EGRESS_BY_PROVIDER.get(serve.provider, serve.provider)}/{serve.region}"
    egress = cat.egress.get(eid)
    if egress is None:
        problems.append(Problem(file, f"{key}.egress", f"no egress table {eid!r}; {closest(eid, list(cat.egress))}",
                                line("options", i, "egress") or line("options", i)))
    return egress


def _storage_of(s: Scenario, o, i: int, serve: Fleet, cat: Catalog, problems: list[Problem], file: str, line
                ) -> tuple[str, float, str]:
    """(storage id, USD per GB-month, source): the scenario's price, disks included in a dedicated server, or
    the provider's object storage in the region."""
    key = f"options[{i}]"
    if o.storage_usd_per_gb_month is not None:
        sid = o.storage or "scenario"
        sprice, ssrc = o.storage_usd_per_gb_month, "price given in the scenario"
    elif serve.kind == FleetKind.DEDICATED and o.storage is None:
        sid, sprice, ssrc = "included", 0.0, "local disks included in the dedicated server price"
    else:
        sid = o.storage or f"{STORAGE_BY_PROVIDER.get(serve.provider, serve.provider)}/{serve.region}"
        st = cat.storage.get(sid)
        if st is None:
            problems.append(Problem(file, f"{key}.storage",
                                    f"no storage price {sid!r}; {closest(sid, list(cat.storage))}",
                                    line("options", i, "storage") or line("options", i)))
            sprice, ssrc = 0.0, ""
        elif st.usd_per_gb_month is None and s.inference.storage_gb > 0:
            problems.append(Problem(file, f"{key}.storage", f"storage price {sid!r} is {st.status or 'unknown'}; "
                                    "choose another storage id or set inference.storage_gb = 0",
                                    line("options", i, "storage") or line("options", i)))
            sprice, ssrc = 0.0, st.source
        else:
            sprice, ssrc = st.usd_per_gb_month or 0.0, st.source
    return sid, sprice, ssrc


def _taxes_of(o, i: int, serve: Fleet, train: Fleet | None, cat: Catalog, problems: list[Problem], file: str, line
              ) -> tuple[TaxProfile | None, TaxProfile | None, Billing | None]:
    """(tax profile of the USD lines, profile of the BRL invoice, billing of the cloud provider)."""
    key = f"options[{i}]"
    all_brl = serve.kind == FleetKind.DEDICATED and (train is None or train.kind == FleetKind.DEDICATED)
    cloud = serve if serve.kind == FleetKind.CLOUD else train
    billing = None if all_brl or cloud is None else billing_of(cat, cloud)
    tid = o.taxes or (billing.profile if billing is not None else "none")
    tax = cat.taxes.get(tid)
    if tax is None:
        problems.append(Problem(file, f"{key}.taxes", f"unknown tax profile {tid!r}; {closest(tid, list(cat.taxes))}",
                                line("options", i, "taxes") or line("options", i)))
    brl_tax = None
    any_dedicated = serve.kind == FleetKind.DEDICATED or (train is not None and train.kind == FleetKind.DEDICATED)
    if any_dedicated and o.taxes != "none":
        brl_tax = cat.taxes.get(BRL_INVOICE_PROFILE)
    return tax, brl_tax, billing
