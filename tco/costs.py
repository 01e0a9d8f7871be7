"""Monthly cost lines per option, in each offer's own currency.

Conventions: costs are positive amounts; a cost lands in the month it is incurred; month m runs
1..H. USD lines are converted to BRL later (tco.fx / tco.results), BRL lines at rate 1.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

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


def tax_uplift(profile: TaxProfile) -> float:
    """Taxes as a share of the foreign price P [-].

    import_gross_up (Brazilian company imports the service and bears the taxes, brazil_fx_tax.md §3.4):
        V = P / (1 − IRRF)                      IRRF grossed up
        CIDE = cide·V; ISS = iss·V
        PIS/COFINS-import = pc·V·(1 + iss)/(1 − pc)  (0 if creditable)
        IOF = iof·P
        uplift = (V − P + CIDE + ISS + PIS/COFINS + IOF) / P
    local_por_dentro (local invoice, taxes inside the price): uplift = 1/(1 − pc − iss) − 1
    none: 0
    """
    r = profile.rates
    if profile.method == "none":
        return 0.0
    if profile.method == "local_por_dentro":
        return 1.0 / (1.0 - r["pis_cofins_rate"] - r["iss_rate"]) - 1.0
    v = 1.0 / (1.0 - r["irrf_rate"])
    pc = 0.0 if profile.pis_cofins_creditable else r["pis_cofins_rate"] * v * (1 + r["iss_rate"]) / (1 - r["pis_cofins_rate"])
    return (v - 1.0) + r["cide_rate"] * v + r["iss_rate"] * v + pc + r["iof_rate"]


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


def is_capacity_block(pricing: str) -> bool:
    """Capacity blocks (AWS EC2 Capacity Blocks for ML, GCP DWS calendar mode) reserve a cluster for days or
    weeks: fit for a training burst, never for a fleet that runs all month."""
    return pricing.startswith("capacity_block") or pricing.startswith("dws_calendar")


def commitment_term_months(pricing: str) -> int | None:
    """Term of a committed pricing [months] read from its name ('reserved_1yr' → 12, 'cud_3yr' → 36,
    'ri_3yr_standard_all_upfront_effective' → 36); None when the name states no term."""
    m = re.search(r"(\d+)_?(?:yr|year)", pricing)
    return 12 * int(m.group(1)) if m else None


def committed_schedule(committed: tuple[int, ...], term_months: int, first_month: int, horizon: int) -> np.ndarray:
    """Committed instances in each month 1..H [-]: ``committed[j]`` for the j-th term counted from
    `first_month` (the last value holds for later terms), 0 before it."""
    out = np.zeros(horizon)
    for j, start in enumerate(range(first_month - 1, horizon, term_months)):
        out[start:start + term_months] = committed[min(j, len(committed) - 1)]
    return out


def committed_baseline_hours(servers_by_hour: np.ndarray, days: np.ndarray, committed: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Instance-hours of a committed baseline plus an on-demand (or spot) top-up, month by month [h].

    committed hours[m] = k[m] × 24 × days[m]                (paid every hour of the term, used or not)
    burst hours[m]     = Σ_h max(S[m, h] − k[m], 0) × days[m]  (the hours of the day above the baseline)
    S = servers needed by month × hour of day, k = committed instances by month. ``committed`` may carry
    leading axes (…, H): every commitment level is then costed at once (the plan's ladder).
    """
    k = np.asarray(committed, dtype=float)
    burst = np.clip(servers_by_hour - k[..., None], 0.0, None).sum(axis=-1) * days
    return k * 24.0 * days, burst


def committed_baseline_cost(servers_by_hour: np.ndarray, days: np.ndarray, committed: np.ndarray, price: float,
                            burst_price: float, trend: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inference compute of a committed baseline [USD/month] and its instance-hours [h]:
    (committed hours × committed price + burst hours × burst price) × price trend."""
    c_hours, b_hours = committed_baseline_hours(servers_by_hour, days, committed)
    return (c_hours * price + b_hours * burst_price) * trend, c_hours + b_hours


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
    training_months: int
    warnings: tuple[str, ...]


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
        if inf.kind == "cloud" and opt.committed is not None:
            sched = committed_schedule(opt.committed, opt.commit_term_months, inference_start, h)
            lines["inference_compute"], inf_hours = committed_baseline_cost(by_hour, days, sched, inf.price,
                                                                            opt.burst.price, trend)
            inf_paid = np.maximum(sched, peak)
        elif inf.kind == "cloud":
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

    uplift = tax_uplift(opt.tax)
    usd_base = sum(lines[k] for k in LINES if currency[k] == "USD" and k != "taxes")
    lines["taxes"] = uplift * usd_base if isinstance(usd_base, np.ndarray) else np.zeros(h)
    currency["taxes"] = "USD"
    if opt.tax.method != "none" and not is_cloud and (opt.training is None or opt.training.kind != "cloud"):
        warnings.append("a tax profile is set on a BRL offer; BRL prices are taken as tax-inclusive and no uplift is added")
    return OptionCosts(lines, currency, train_paid, inf_paid, inst_hours, tr_inst_hours, replicas_by_hour, by_hour,
                       train_hours,
                       np.asarray(egress_gb, dtype=float), uplift, n_train_months, tuple(warnings))


def ceil(x: float) -> int:
    return math.ceil(x - 1e-12)
