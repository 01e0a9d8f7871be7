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

import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from tco import taxes as taxmod
from tco.catalog import EgressTable, TaxProfile
from tco.domain import LINES, FleetKind, FleetMode, Notice, is_committed
from tco.expr import ROUNDUP, Fill, In, Month, Ratchet, Row, Rule, Scalar, evaluate
from tco.expr.deps import needed
from tco.fleet_rules import Shape, egress_rules, factor, plan, replicas
from tco.costs_taxes import TaxPlan, option_taxes, tax_plan  # noqa: F401  (re-exported)
from tco.sizing import ReplicaSize, TrainingSize

if TYPE_CHECKING:
    from tco.resolve import ResolvedOption

__all__ = ["LINES", "OptionCosts", "committed_levels", "egress_cost_usd", "is_committed", "option_costs", "tax_uplift"]


# ---------------------------------------------------------------------------------------------
# Single rules of fleet_rules, evaluated on plain values (for tests, plans and the analysis)


def egress_cost_usd(gb: np.ndarray | float, table: EgressTable) -> np.ndarray:
    """Tiered egress [USD] for a month's volume [GB]: Σ over tiers of price × GB falling in the tier
    (``fleet_rules.egress_rules``). Continuous and piecewise linear in the volume."""
    scalar = np.ndim(gb) == 0
    gb = np.atleast_1d(np.asarray(gb, dtype=float))
    tiers = tuple((hi is not None, price is not None) for _, hi, price in table.tiers)
    rules, expr = egress_rules(tiers)
    inputs: dict[str, object] = {}
    for j, (lo, hi, price) in enumerate(table.tiers, start=1):
        inputs |= {f"o.eg{j}_lo": lo, f"o.eg{j}_hi": hi, f"o.eg{j}_p": price}
    rows = evaluate((*rules, Rule("cost", expr, "USD", "egress")), inputs, len(gb), rows={"egress": gb})
    _check_priced(rows, table)
    return rows["cost"][0] if scalar else rows["cost"]


def _check_priced(rows: dict[str, np.ndarray], table: EgressTable) -> None:
    for j, (lo, _, price) in enumerate(table.tiers, start=1):
        if price is None and np.any(rows[f"eg_{j}"] > 0):
            raise UnverifiedPriceError(f"egress table {table.egress_id!r} has no verified price above {lo:g} GB "
                                       f"and this workload reaches it")


def tax_uplift(profile: TaxProfile, regime: str | None = None) -> float:
    """Net taxes as a share of the taxed price P at the profile's base rates [-] (tco.taxes.uplift).

    import_gross_up (brazil_fx_tax.md §3.4): V = P/(1 − IRRF); IRRF = V − P; CIDE = cide·V; ISS = iss·V;
        PIS/COFINS-import = pc·V·(1 + iss)/(1 − pc); IOF = iof·P; uplift = Σ/P − credits/P
    local_por_dentro: uplift = 1/(1 − pc − iss) − 1 (before credits); none: 0
    """
    return taxmod.uplift(profile, regime)


def yearly_factor(months: np.ndarray, annual_rate: float) -> np.ndarray:
    """Price factor stepping once per contract year: (1 + rate)^⌊(m − 1)/12⌋ (``fleet_rules.factor``)."""
    t = np.asarray(months, dtype=float)
    return evaluate(_FACTOR, {"rate": annual_rate}, len(t),
                    rows={"year": np.floor((t - 1) / 12.0)})["f"]


def spread_hours(wall_hours: float, start_month: int, days: np.ndarray) -> np.ndarray:
    """Wall-clock hours of a job run from the start of ``start_month``, filling months in order [h]
    (the ``train_hours`` rule)."""
    return evaluate(_SPREAD, {"wall": wall_hours, "start": float(start_month)}, len(days),
                    rows={"hours": np.asarray(days, dtype=float) * 24.0})["x"]


def ratchet(servers: np.ndarray) -> np.ndarray:
    """A fleet that is never released once rented (the ``Ratchet`` of dedicated and reserved fleets)."""
    servers = np.asarray(servers, dtype=float)
    if not len(servers):
        return servers
    return evaluate(_RATCHET, {}, len(servers), rows={"need": servers})["x"]


_FACTOR = (Rule("f", factor("rate"), "-", ""),)
_SPREAD = (Rule("x", Fill("x", In("wall"), Row("hours"), Month() >= In("start")), "h", ""),)
_RATCHET = (Rule("x", Ratchet("x", Row("need")), "-", ""),)


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
    notices: tuple[Notice, ...]
    """What a reader must know about these costs (the option is named by the engine)."""
    storage_gb: np.ndarray | None = None
    """Data stored each month (billed per GB-month) [GB]."""
    rules: tuple = ()
    """The rules that made these costs (``fleet_rules.plan``), in order."""
    rows: dict[str, np.ndarray] = field(default_factory=dict)
    """Every row those rules computed, by key: the trace the workbook caches beside each formula."""
    inputs: dict[str, object] = field(default_factory=dict)
    """The rules' inputs, by name."""
    tax_components: dict[str, np.ndarray] | None = None
    """Tax component (tco.taxes.COMPONENTS) → monthly amount in currency['taxes']; taxes = Σ taxes − credits."""
    brl_price_credits: np.ndarray | None = None
    """A hybrid option's credit on its BRL invoice, netted from its BRL price lines [BRL/month] (None if none)."""
    tax_rules: tuple = ()
    """The option's tax rules (``tax_rules.option_rules``), in order."""
    tax_rows: dict[str, np.ndarray] = field(default_factory=dict)
    """Every row the tax rules computed (and the rate rows they read), by key; ``l_<line>`` here is a line after its
    taxes moved to the block, while `rows` keeps the fleet rules' lines before (``g_<line>`` of the tax rules)."""


def inference_replicas_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Replicas needed in each month × hour of day [-] (``fleet_rules.replicas``)."""
    return _by_hour(rps, rep, utilization, redundancy, servers=False)


def inference_servers_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Servers needed in each month × hour of day [-] (the ``srv_<h>`` rules)."""
    return _by_hour(rps, rep, utilization, redundancy, servers=True)


@functools.lru_cache(maxsize=16)
def _hour_rules(hours: int, servers: bool) -> tuple[Rule, ...]:
    def make(r):
        return ROUNDUP(replicas(r) / In("c.rps_server"), 0) if servers else replicas(r)
    return tuple(Rule(f"x_{hr}", make(Row(f"rps_{hr}")), "-", "") for hr in range(hours))


def _by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str, *, servers: bool) -> np.ndarray:
    rps = np.atleast_2d(np.asarray(rps, dtype=float))
    inputs = {"c.cap": rep.requests_per_second, "c.rps_server": float(rep.replicas_per_server),
              "utilization": utilization, "n1": 1.0 if redundancy == "n+1" else 0.0}
    rows = evaluate(_hour_rules(rps.shape[1], servers), inputs, rps.shape[0],
                    rows={f"rps_{hr}": rps[:, hr] for hr in range(rps.shape[1])})
    return np.stack([rows[f"x_{hr}"] for hr in range(rps.shape[1])], axis=1)


def _shape(opt: ResolvedOption, training_on: bool) -> Shape:
    inf = opt.inference
    return Shape(
        shared=opt.fleet == FleetMode.SHARED, inference_cloud=inf.kind == FleetKind.CLOUD,
        training_cloud=(opt.training.kind == FleetKind.CLOUD) if training_on and opt.training is not None else None,
        autoscale=bool(opt.autoscale), committed=is_committed(inf.pricing),
        commit_terms=len(opt.committed) if inf.kind == FleetKind.CLOUD and opt.committed else 0,
        tiers=tuple((hi is not None, price is not None) for _, hi, price in opt.egress.tiers),
        upfront_term=inf.upfront_term_months if inf.kind == FleetKind.CLOUD and inf.upfront_usd > 0 else 0)


def _currency(opt: ResolvedOption) -> dict[str, str]:
    """Line → currency: compute in its fleet's currency, setup in BRL, storage, egress and taxes in USD."""
    if opt.fleet == FleetMode.SEPARATE:
        training_currency = opt.training.currency if opt.training is not None else "BRL"
    else:
        training_currency = opt.inference.currency
    return {"training_compute": training_currency, "inference_compute": opt.inference.currency, "setup": "BRL",
            "storage": "USD", "egress": "USD", "taxes": "USD"}


def rule_inputs(opt: ResolvedOption, *, training: TrainingSize | None, replica: ReplicaSize, horizon: int,
                storage_gb: float, training_start: int, inference_start: int, utilization: float,
                redundancy: str) -> dict[str, object]:
    """The inputs of ``fleet_rules.plan`` for one option, by rule input name."""
    inf, tr = opt.inference, opt.training
    out: dict[str, object] = {
        "c.cap": replica.requests_per_second, "c.rps_server": float(replica.replicas_per_server),
        "utilization": utilization, "n1": 1.0 if redundancy == "n+1" else 0.0, "horizon": float(horizon),
        "train_start": float(training_start), "inf_start": float(inference_start), "storage_gb": storage_gb,
        "o.trend": opt.price_trend_rate, "o.index": opt.indexation_rate, "o.inf_price": inf.price,
        "o.setup": inf.setup_fee_brl, "o.storage": opt.storage_usd_per_gb_month,
    }
    if inf.kind == FleetKind.CLOUD and inf.upfront_usd > 0:
        out |= {"o.upfront": inf.upfront_usd, "o.up_term": float(inf.upfront_term_months)}
    if opt.committed and opt.burst is not None:
        out |= {"o.burst_price": opt.burst.price, "o.commit_term": float(opt.commit_term_months)}
        out |= {f"o.commit_{j}": float(k) for j, k in enumerate(opt.committed, start=1)}
    if tr is not None:
        out |= {"o.tr_price": tr.price, "o.tr_setup": tr.setup_fee_brl, "o.tr_min_term": float(tr.min_term_months)}
    if training is not None:
        out |= {"c.wall_hours": training.wall_hours, "c.tr_servers": float(training.servers)}
    for j, (lo, hi, price) in enumerate(opt.egress.tiers, start=1):
        out |= {f"o.eg{j}_lo": lo, f"o.eg{j}_hi": hi, f"o.eg{j}_p": price}
    return out


GIVEN_ROWS = ("t", "year", "days", "hours", "egress", "peak_rps", *(f"rps_{hr}" for hr in range(24)))
"""The timeline rows an option's rules read (``given_rows``)."""


def given_rows(rps: np.ndarray, days: np.ndarray, egress_gb: np.ndarray) -> dict[str, np.ndarray]:
    """The timeline rows the option's rules read: t, contract year, days, hours, hourly load, egress."""
    h = len(days)
    t = np.arange(1, h + 1, dtype=float)
    rows = {"t": t, "year": np.floor((t - 1) / 12.0), "days": np.asarray(days, dtype=float),
            "hours": np.asarray(days, dtype=float) * 24.0, "egress": np.asarray(egress_gb, dtype=float),
            "peak_rps": np.asarray(rps, dtype=float).max(axis=1)}
    rows |= {f"rps_{hr}": np.asarray(rps[:, hr], dtype=float) for hr in range(24)}
    return rows


def committed_levels(opt: ResolvedOption, oc: OptionCosts, committed: np.ndarray) -> np.ndarray:
    """The serving line of a committed baseline for each row of `committed` [USD/month], rows × months.

    ``committed[n, j]`` is case n's committed level in term j + 1 (the last holding for later terms); `opt` is the
    baseline (its ``burst`` and ``commit_term_months``; its own ``committed`` is replaced by each row) and `oc` the
    costs of its serving offer at its pricing (``option_costs``: the rule inputs and timeline rows it ran with).
    The rules are the option's own (``fleet_rules.plan``, its committed branch ``_committed_rules`` with the
    upfronts), evaluated once with the cases as a leading axis: the plan search costs every level of its ladder in
    one evaluation, and the level it keeps exactly as the engine costs that option."""
    levels = np.asarray(committed, dtype=float)
    n, terms = levels.shape
    assert opt.burst is not None, "a committed baseline has a burst pricing"
    shape = replace(_shape(opt, "train_hours" in oc.rows), commit_terms=terms)
    inputs = oc.inputs | {"o.burst_price": opt.burst.price, "o.commit_term": float(opt.commit_term_months)}
    inputs |= {f"o.commit_{j}": levels[:, j - 1:j] for j in range(1, terms + 1)}
    h = len(oc.rows["days"])
    rows = evaluate(_serving_line_rules(shape), inputs, h, rows={k: oc.rows[k] for k in _LADDER_GIVEN})
    return np.broadcast_to(rows["l_inference_compute"], (n, h))


_LADDER_GIVEN = (*GIVEN_ROWS, "trend", *(f"srv_{hr}" for hr in range(24)))
"""What the ladder reads from the option's costs at its pricing: the timeline rows, and the rows of the rules every
shape begins with (``fleet_rules._sizing_rules``: the price trend, the servers needed at each hour)."""


@functools.lru_cache(maxsize=64)
def _serving_line_rules(shape: Shape) -> tuple[Rule | Scalar, ...]:
    """The rules of ``plan(shape)`` the serving line depends on, past the rows the ladder is given."""
    return needed(plan(shape), ("l_inference_compute",), given=_LADDER_GIVEN)


def option_costs(opt: ResolvedOption, *, training: TrainingSize | None, replica: ReplicaSize, rps: np.ndarray,
                 days: np.ndarray, egress_gb: np.ndarray, storage_gb: float, training_start: int,
                 inference_start: int, utilization: float, redundancy: str) -> OptionCosts:
    """All cost lines of one option, month by month, in the offer's currency: the rules of
    ``fleet_rules.plan`` evaluated with numpy (the workbook writes the same rules as formulas)."""
    h = len(days)
    training_on = training is not None and training.method != "none" and opt.training is not None
    currency = _currency(opt)
    shape = _shape(opt, training_on)
    inputs = rule_inputs(opt, training=training if training_on else None, replica=replica, horizon=h,
                         storage_gb=storage_gb, training_start=training_start, inference_start=inference_start,
                         utilization=utilization, redundancy=redundancy)
    rules = plan(shape)
    rows = evaluate(rules, inputs, h, rows=given_rows(rps, days, egress_gb))
    _check_priced(rows, opt.egress)
    zeros = np.zeros(h)
    wall = rows.get("train_hours", zeros)
    n_train = int(np.count_nonzero(wall))
    if opt.fleet == FleetMode.SHARED:
        train_paid = np.minimum(rows["fleet"], rows.get("train_servers", zeros))
        inf_paid = rows["fleet"] - train_paid
        tr_hours = train_paid * rows["hours"]
    else:
        train_paid = rows.get("train_paid", rows.get("train_servers", zeros))
        inf_paid = rows["inf_paid"]
        tr_hours = rows.get("tr_hours", zeros)
    notices: list[Notice] = []
    if training_on and training is not None:
        if training.wall_hours - wall.sum() > 1e-6:
            notices.append(Notice("training_past_horizon", params={"needed_hours": training.wall_hours,
                                                                   "fitted_hours": float(wall.sum())}))
        if "months_paid" in rows and n_train:
            term = opt.training.min_term_months  # type: ignore[union-attr]
            if rows["months_paid"][0] > n_train:
                notices.append(Notice("min_term_idle", params={"term": term, "busy": n_train}))
            if training_start - 1 + rows["months_paid"][0] > h:
                notices.append(Notice("min_term_past_horizon", params={"term": term}))
    lines = {k: rows[f"l_{k}"].copy() for k in LINES}
    lines["taxes"], comp, currency["taxes"], uplift, brl_credits, t_rules, t_rows = option_taxes(opt, lines, currency)
    if brl_credits is not None and np.any(brl_credits > 0):
        notices.append(Notice("hybrid_brl_credit", params={"amount": float(brl_credits.sum())}))
    brl_only = opt.inference.kind != FleetKind.CLOUD and (opt.training is None or opt.training.kind != FleetKind.CLOUD)
    if opt.tax.method != "none" and brl_only:
        notices.append(Notice("tax_on_brl_offer"))
    replicas_by_hour = inference_replicas_by_hour(rps, replica, utilization, redundancy)
    servers_by_hour = np.stack([rows[f"srv_{hr}"] for hr in range(24)], axis=1)
    return OptionCosts(lines, currency, train_paid, inf_paid, rows["server_hours"], tr_hours, replicas_by_hour,
                       servers_by_hour, wall, np.asarray(egress_gb, dtype=float), uplift, n_train, tuple(notices),
                       rows["stored"], rules, rows, inputs, comp, brl_credits, t_rules, t_rows)


class UnverifiedPriceError(ValueError):
    """A workload reaches a price the catalog does not know (an unpriced egress tier)."""
