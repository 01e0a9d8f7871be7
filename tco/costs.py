"""Monthly cost lines per option, in each offer's own currency.

Conventions: costs are positive amounts; a cost lands in the month it is incurred; month m runs
1..H. USD lines are converted to BRL later (tco.fx / tco.results), BRL lines at rate 1.

Taxes (tco.taxes): the `taxes` line is the sum of its components, IRRF, CIDE, ISS, PIS/COFINS, CBS,
IBS and IOF, minus `credits`, all positive amounts in the line's currency (OptionCosts.tax_components).
Credits make the line smaller, never the month's total negative: on taxes added to a price they recover
at most what was charged; on a BRL invoice with its taxes inside (a dedicated offer) the line is
−credits, at most the taxes inside that price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tco import taxes as taxmod
from tco.catalog import EgressTable, TaxProfile
from tco.sizing import ReplicaSize, TrainingSize

if TYPE_CHECKING:  # resolve imports is_committed from here
    from tco.resolve import ResolvedOption

LINES = ("training_compute", "inference_compute", "setup", "storage", "egress", "taxes")
"""Cost lines of the ledger, in this order everywhere."""


# ---------------------------------------------------------------------------------------------
# Small formulas


def egress_cost_usd(gb: np.ndarray | float, table: EgressTable) -> np.ndarray:
    """Tiered egress [USD] for a month's volume [GB]: Σ over tiers of price × GB falling in the tier.

    Tiers reset each month; the free allowance is a 0-priced first tier. The function is continuous
    and piecewise linear in the volume.
    """
    gb = np.asarray(gb, dtype=float)
    cost = np.zeros_like(gb)
    for lo, hi, price in table.tiers:
        in_tier = np.clip(gb - lo, 0.0, (hi - lo) if hi is not None else np.inf)
        if price is None:
            if np.any(in_tier > 0):
                raise ValueError(f"egress table {table.egress_id!r} has no verified price above {lo:g} GB "
                                 f"and this workload reaches it")
            continue
        cost = cost + in_tier * price
    return cost


def tax_uplift(profile: TaxProfile, regime: str | None = None) -> float:
    """Net taxes as a share of the taxed price P at the profile's base rates [-] (tco.taxes.uplift).

    import_gross_up (brazil_fx_tax.md §3.4): V = P/(1 − IRRF); IRRF = V − P; CIDE = cide·V; ISS = iss·V;
        PIS/COFINS-import = pc·V·(1 + iss)/(1 − pc); IOF = iof·P; uplift = Σ/P − credits/P
    local_por_dentro: uplift = 1/(1 − pc − iss) − 1 (before credits); none: 0
    """
    return taxmod.uplift(profile, regime)


def option_taxes(opt: ResolvedOption, lines: dict[str, np.ndarray], currency: dict[str, str]
                 ) -> tuple[np.ndarray, dict[str, np.ndarray], str, float, list[str], np.ndarray | None]:
    """The taxes line of an option, its components, its currency, the net share of the taxed amount, warnings,
    and the credit netted from a hybrid option's BRL lines (None if none).

    An option with a cloud fleet taxes its USD lines with its profile (`opt.tax`). An all-BRL option
    takes its invoice's profile (`opt.brl_tax`): the creditable taxes inside its BRL prices move from
    the BRL lines (changed in place, to the price net of them) to the taxes line, with their credit."""
    h = len(lines["setup"])
    warnings: list[str] = []
    cloud = currency["training_compute"] == "USD" or currency["inference_compute"] == "USD"
    brl_keys = [k for k in LINES if currency[k] == "BRL" and k != "taxes"]
    usd_base = sum((lines[k] for k in LINES if currency[k] == "USD" and k != "taxes"), np.zeros(h))
    brl_base = sum((lines[k] for k in brl_keys), np.zeros(h))
    usd_rates = opt.tax_rates or taxmod.rates_by_month(opt.tax, [""] * h)
    brl_credits = None
    if cloud or opt.brl_tax is None:
        base, cur, profile, rates = usd_base, "USD", opt.tax, usd_rates
        if opt.brl_tax is not None and opt.brl_tax.method != "none" and np.any(brl_base > 0):
            # a hybrid: its taxes line is in USD, so the credit on its BRL invoice is netted from the BRL lines
            brl_rates = opt.brl_tax_rates or taxmod.rates_by_month(opt.brl_tax, [""] * h)
            credit = taxmod.credit_share(opt.brl_tax, brl_rates, opt.regime)
            brl_credits = credit * brl_base
            for k in brl_keys:
                lines[k] = lines[k] * (1.0 - credit)
            if np.any(brl_credits > 0):
                warnings.append(f"the tax credit on this hybrid option's BRL invoice ({brl_credits.sum():,.0f} BRL) is "
                                "netted from its BRL price lines (its taxes line is in USD)")
    else:
        base, cur, profile = brl_base, "BRL", opt.brl_tax
        rates = opt.brl_tax_rates or taxmod.rates_by_month(profile, [""] * h)
        net = 1.0 - taxmod.inside_share(profile.method, rates)
        for k in brl_keys:
            lines[k] = lines[k] * net
    comp = taxmod.components(base, profile, rates, opt.regime)
    line = taxmod.total(comp)
    taxed = float(np.sum(base))
    share = float(line.sum()) / taxed if taxed > 0 else 0.0
    return line, comp, cur, share, warnings, brl_credits


def yearly_factor(months: np.ndarray, annual_rate: float) -> np.ndarray:
    """Price factor stepping once per contract year: (1 + rate)^floor((m − 1)/12)."""
    return (1.0 + annual_rate) ** np.floor((np.asarray(months) - 1) / 12.0)


def spread_hours(wall_hours: float, start_month: int, days: np.ndarray) -> np.ndarray:
    """Wall-clock hours of a job run from the start of `start_month`, filling months in order [h]."""
    out = np.zeros(len(days))
    left = wall_hours
    for m in range(start_month - 1, len(days)):
        if left <= 0:
            break
        cap = days[m] * 24.0
        out[m] = min(cap, left)
        left -= out[m]
    return out


def is_committed(pricing: str) -> bool:
    """Committed capacity (reservations, committed-use discounts) is paid every hour of its term:
    everything but on-demand and spot."""
    return not (pricing == "on_demand" or pricing.startswith("spot"))


def ratchet(servers: np.ndarray) -> np.ndarray:
    """A fleet that is never released once rented (dedicated contracts, reserved capacity)."""
    return np.maximum.accumulate(servers) if len(servers) else servers


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionCosts:
    lines: dict[str, np.ndarray]
    """Line → monthly amount in `currency[line]`."""
    currency: dict[str, str]
    training_servers: np.ndarray
    inference_servers: np.ndarray
    """Servers (instances) paid for each month; for autoscaled fleets the peak of the day."""
    instance_hours: np.ndarray
    """Server-hours paid each month (all fleets) [h]."""
    training_hours: np.ndarray
    """Server-hours paid each month for training (the training share of a shared fleet) [h]."""
    replicas_by_hour: np.ndarray
    """Inference replicas needed, month × hour of a typical day [-]."""
    servers_by_hour: np.ndarray
    """Inference servers needed, month × hour of a typical day [-]."""
    training_wall_hours: np.ndarray
    """Wall-clock hours of the training job falling in each month [h]."""
    egress_gb: np.ndarray
    tax_uplift: float
    """Net taxes over the horizon as a share of the amount taxed [-] (0 if nothing is taxed)."""
    training_months: int
    warnings: tuple[str, ...]
    tax_components: dict[str, np.ndarray] | None = None
    """Tax component (tco.taxes.COMPONENTS) → monthly amount in currency['taxes']; taxes = Σ taxes − credits."""
    brl_price_credits: np.ndarray | None = None
    """A hybrid option's credit on its BRL invoice, netted from its BRL price lines [BRL/month] (None if none)."""


def inference_replicas_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Replicas needed in each month × hour of day [-] (vectorised replicas_needed)."""
    rps = np.asarray(rps, dtype=float)
    replicas = np.ceil(rps / (rep.requests_per_second * utilization) - 1e-9)
    replicas = np.where(rps > 0, np.maximum(replicas, 1.0), 0.0)
    if redundancy == "n+1":
        replicas = np.where(replicas > 0, replicas + 1.0, 0.0)
    return replicas


def inference_servers_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Servers needed in each month × hour of day [-] (vectorised replicas_needed + servers_for)."""
    return np.ceil(inference_replicas_by_hour(rps, rep, utilization, redundancy) / rep.replicas_per_server)


def option_costs(opt: ResolvedOption, *, training: TrainingSize | None, replica: ReplicaSize, rps: np.ndarray,
                 days: np.ndarray, egress_gb: np.ndarray, storage_gb: float, training_start: int,
                 inference_start: int, utilization: float, redundancy: str) -> OptionCosts:
    """All cost lines of one option, month by month, in the offer's currency."""
    h = len(days)
    months = np.arange(1, h + 1)
    hours_in_month = days * 24.0
    warnings: list[str] = []
    inf = opt.inference
    trend = yearly_factor(months, opt.price_trend_rate)
    index = yearly_factor(months, opt.indexation_rate)

    replicas_by_hour = inference_replicas_by_hour(rps, replica, utilization, redundancy)
    by_hour = np.ceil(replicas_by_hour / replica.replicas_per_server)
    peak = by_hour.max(axis=1)

    train_hours = np.zeros(h)
    train_servers = np.zeros(h)
    n_train_months = 0
    if training is not None and training.method != "none" and opt.training is not None:
        train_hours = spread_hours(training.wall_hours, training_start, days)
        n_train_months = int(np.count_nonzero(train_hours))
        if training.wall_hours - train_hours.sum() > 1e-6:
            warnings.append(f"training needs {training.wall_hours:,.0f} h but only {train_hours.sum():,.0f} h fit in "
                            "the horizon; the rest is not costed")
        train_servers = np.where(train_hours > 0, float(training.servers), 0.0)

    lines = {k: np.zeros(h) for k in LINES}
    currency = {k: "BRL" for k in LINES}
    setup = np.zeros(h)

    if opt.fleet == "shared":
        # one fleet, the training cluster and the serving fleet in one, kept from the first month it is needed
        need = train_servers + peak
        first = np.argmax(need > 0) if np.any(need > 0) else h
        fleet = np.zeros(h)
        fleet[first:] = ratchet(need[first:])
        if inf.kind == "cloud":
            unit = inf.price * hours_in_month * trend
        else:
            unit = inf.price * index
        total = fleet * unit
        train_part = np.minimum(fleet, train_servers) * unit
        lines["training_compute"] = train_part
        lines["inference_compute"] = total - train_part
        inst_hours = fleet * hours_in_month
        tr_inst_hours = np.minimum(fleet, train_servers) * hours_in_month
        added = np.diff(np.concatenate([[0.0], fleet]))
        if inf.kind == "dedicated":
            setup = np.clip(added, 0, None) * inf.setup_fee_brl
        train_paid, inf_paid = np.minimum(fleet, train_servers), fleet - np.minimum(fleet, train_servers)
    else:
        # training cluster for the burst only
        tr = opt.training
        train_paid = np.zeros(h)
        if tr is not None and n_train_months:
            if tr.kind == "cloud":
                lines["training_compute"] = train_servers * train_hours * tr.price * trend
                train_paid = train_servers.copy()
                tr_inst_hours = train_servers * train_hours
            else:
                first = training_start - 1
                months_paid = max(tr.min_term_months, n_train_months)
                paid = np.zeros(h)
                paid[first:first + months_paid] = training.servers
                if months_paid > n_train_months:
                    warnings.append(f"the training cluster is paid for its {tr.min_term_months}-month minimum term but "
                                    f"busy {n_train_months} month(s); a shared fleet, or serving from it, may cost less")
                if first + months_paid > h:
                    warnings.append(f"the training cluster's minimum term ({tr.min_term_months} months) runs past "
                                    "the horizon; months beyond it are not costed")
                lines["training_compute"] = paid * tr.price * index
                setup[first] += training.servers * tr.setup_fee_brl
                train_paid = paid
                tr_inst_hours = paid * hours_in_month
        else:
            tr_inst_hours = np.zeros(h)
        # inference fleet
        if inf.kind == "cloud":
            if opt.autoscale:
                inf_hours = by_hour.sum(axis=1) * days
                inf_paid = peak
            elif is_committed(inf.pricing):
                inf_paid = ratchet(peak)
                inf_hours = inf_paid * hours_in_month
            else:
                inf_paid = peak
                inf_hours = inf_paid * hours_in_month
            lines["inference_compute"] = inf_hours * inf.price * trend
        else:
            inf_paid = ratchet(peak)
            inf_hours = inf_paid * hours_in_month
            lines["inference_compute"] = inf_paid * inf.price * index
            added = np.diff(np.concatenate([[0.0], inf_paid]))
            setup = setup + np.clip(added, 0, None) * inf.setup_fee_brl
        inst_hours = tr_inst_hours + inf_hours

    for name in ("training_compute", "inference_compute"):
        fleet_kind = (opt.training if name == "training_compute" and opt.fleet == "separate" else inf)
        currency[name] = fleet_kind.currency if fleet_kind is not None else "BRL"
    lines["setup"] = setup

    is_cloud = inf.kind == "cloud"
    # storage and egress are priced in USD (catalog tables); a dedicated offer includes its disks (price 0)
    first_use = min(training_start if n_train_months else h + 1, inference_start)
    stored = np.where(months >= first_use, storage_gb, 0.0)
    lines["storage"] = stored * opt.storage_usd_per_gb_month
    currency["storage"] = "USD"
    lines["egress"] = egress_cost_usd(egress_gb, opt.egress)
    currency["egress"] = "USD"

    lines["taxes"], comp, currency["taxes"], uplift, tax_warn, brl_credits = option_taxes(opt, lines, currency)
    warnings += tax_warn
    if opt.tax.method != "none" and not is_cloud and (opt.training is None or opt.training.kind != "cloud"):
        warnings.append("a tax profile is set on a BRL offer; BRL prices are taken as tax-inclusive and no uplift is added")
    return OptionCosts(lines, currency, train_paid, inf_paid, inst_hours, tr_inst_hours, replicas_by_hour, by_hour,
                       train_hours,
                       np.asarray(egress_gb, dtype=float), uplift, n_train_months, tuple(warnings), comp, brl_credits)


def ceil(x: float) -> int:
    return math.ceil(x - 1e-12)
