"""Monthly cost lines per option, in each offer's own currency.

Conventions: costs are positive amounts; a cost lands in the month it is incurred; month m runs
1..H. USD lines are converted to BRL later (tco.fx.history / tco.results), BRL lines at rate 1.

Taxes (tco.costs.taxes): the `taxes` line is the sum of its components, IRRF, CIDE, ISS, PIS/COFINS, CBS,
IBS and IOF, minus `credits`, all positive amounts in the line's currency (OptionCosts.tax_components).
Credits make the line smaller, never the month's total negative: on taxes added to a price they recover
at most what was charged; on a BRL invoice with its taxes inside (a dedicated offer) the line is
−credits, at most the taxes inside that price.
"""

from __future__ import annotations

import functools
from dataclasses import field, replace
from typing import TYPE_CHECKING

import numpy as np

from tco.costs.single import (UnverifiedPriceError, check_priced, egress_cost_usd, inference_replicas_by_hour,
                             inference_servers_by_hour, ratchet, spread_hours, tax_uplift, yearly_factor)
from tco.costs.option_taxes import TaxPlan, option_taxes, tax_plan  # noqa: F401  (re-exported)
from tco.domain import LINES, FleetKind, FleetMode, Notice, Redundancy, TaxMethod, TrainingMethod, is_committed, record
from tco.expr import Rule, Scalar, evaluate
from tco.expr.deps import needed
from tco.costs.fleet_rules import Shape, plan
from tco.sizing import ReplicaSize, TrainingSize

if TYPE_CHECKING:
    from tco.resolve import ResolvedOption

__all__ = ["LINES", "OptionCosts", "UnverifiedPriceError", "committed_levels", "egress_cost_usd",
           "inference_replicas_by_hour", "inference_servers_by_hour", "is_committed", "option_costs", "ratchet",
           "spread_hours", "tax_uplift", "yearly_factor"]


@record
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
    """Tax component (tco.costs.taxes.COMPONENTS) → monthly amount in currency['taxes']; taxes = Σ taxes − credits."""
    brl_price_credits: np.ndarray | None = None
    """A hybrid option's credit on its BRL invoice, netted from its BRL price lines [BRL/month] (None if none)."""
    tax_rules: tuple = ()
    """The option's tax rules (``tax_rules.option_rules``), in order."""
    tax_rows: dict[str, np.ndarray] = field(default_factory=dict)
    """Every row the tax rules computed (and the rate rows they read), by key; ``l_<line>`` here is a line after its
    taxes moved to the block, while `rows` keeps the fleet rules' lines before (``g_<line>`` of the tax rules)."""


def _shape(opt: ResolvedOption, training_on: bool) -> Shape:
    inf = opt.inference
    return Shape(
        shared=opt.fleet == FleetMode.SHARED, inference_cloud=inf.kind == FleetKind.CLOUD,
        training_cloud=(opt.training.kind == FleetKind.CLOUD) if training_on and opt.training is not None else None,
        autoscale=bool(opt.autoscale), committed=is_committed(inf.pricing),
        commit_terms=len(opt.committed) if inf.kind == FleetKind.CLOUD and opt.committed else 0,
        tiers=tuple((hi is not None, price is not None) for _, hi, price in opt.egress.tiers),
        upfront_term=inf.upfront_term_months if inf.kind == FleetKind.CLOUD and inf.upfront_usd > 0 else 0,
        owned=opt.owned.currency if opt.owned is not None else "")


def line_currency(opt: ResolvedOption) -> dict[str, str]:
    """Line → currency: compute in its fleet's currency, setup in BRL, storage, egress and taxes in USD."""
    if opt.fleet == FleetMode.SEPARATE:
        training_currency = opt.training.currency if opt.training is not None else "BRL"
    else:
        training_currency = opt.inference.currency
    out = {"training_compute": training_currency, "inference_compute": opt.inference.currency, "setup": "BRL",
           "storage": "USD", "egress": "USD", "taxes": "USD"}
    if opt.owned is not None:  # the purchases' cash part in the price's currency (tco.costs.owned_rules)
        out |= {"training_compute": "BRL", "inference_compute": "BRL", "setup": opt.owned.currency}
    return out


def rule_inputs(opt: ResolvedOption, *, training: TrainingSize | None, replica: ReplicaSize, horizon: int,
                storage_gb: float, training_start: int, inference_start: int, utilization: float,
                redundancy: str) -> dict[str, object]:
    """The inputs of ``fleet_rules.plan`` for one option, by rule input name."""
    inf, tr = opt.inference, opt.training
    out: dict[str, object] = {
        "c.cap": replica.requests_per_second, "c.rps_server": float(replica.replicas_per_server),
        "utilization": utilization, "n1": 1.0 if redundancy == Redundancy.N_PLUS_1 else 0.0, "horizon": float(horizon),
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
    if opt.owned is not None:
        out |= opt.owned.inputs
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
    trains = "train_hours" in oc.rows  # the option's costs were made with its training rules
    shape = replace(_shape(opt, trains), commit_terms=terms)
    inputs = oc.inputs | {"o.burst_price": opt.burst.price, "o.commit_term": float(opt.commit_term_months)}
    inputs |= {f"o.commit_{j}": levels[:, j - 1:j] for j in range(1, terms + 1)}
    h = len(oc.rows["days"])
    rows = evaluate(_serving_line_rules(shape), inputs, h, rows={k: oc.rows[k] for k in _LADDER_GIVEN})
    return np.broadcast_to(rows["l_inference_compute"], (n, h))


_LADDER_GIVEN = (*GIVEN_ROWS, "trend", *(f"srv_{hr}" for hr in range(24)))
"""What the ladder reads from the option's costs at its pricing: the timeline rows, and the rows of the rules every
shape begins with (``fleet_rules._sizing_rules``: the price trend, the servers needed at each hour)."""


@functools.lru_cache(maxsize=256)
def _serving_line_rules(shape: Shape) -> tuple[Rule | Scalar, ...]:
    """The rules of ``plan(shape)`` the serving line depends on, past the rows the ladder is given."""
    return needed(plan(shape), ("l_inference_compute",), given=_LADDER_GIVEN)


def option_costs(opt: ResolvedOption, *, training: TrainingSize | None, replica: ReplicaSize, rps: np.ndarray,
                 days: np.ndarray, egress_gb: np.ndarray, storage_gb: float, training_start: int,
                 inference_start: int, utilization: float, redundancy: str, fx: np.ndarray | None = None
                 ) -> OptionCosts:
    """All cost lines of one option, month by month, in the offer's currency: the rules of
    ``fleet_rules.plan`` evaluated with numpy (the workbook writes the same rules as formulas). An owned option's
    rules read the month's USD/BRL `fx` (its purchases' BRL value)."""
    h = len(days)
    training_on = training is not None and training.method != TrainingMethod.NONE and opt.training is not None
    currency = line_currency(opt)
    inputs = rule_inputs(opt, training=training if training_on else None, replica=replica, horizon=h,
                         storage_gb=storage_gb, training_start=training_start, inference_start=inference_start,
                         utilization=utilization, redundancy=redundancy)
    rules = plan(_shape(opt, training_on))
    given = given_rows(rps, days, egress_gb)
    if opt.owned is not None:
        assert fx is not None, "an owned option's rules read the month's USD/BRL"
        given["fx"] = np.asarray(fx, dtype=float)
    rows = evaluate(rules, inputs, h, rows=given)
    check_priced(rows, opt.egress)
    wall = rows.get("train_hours", np.zeros(h))
    train_paid, inf_paid, tr_hours = _paid(opt, rows)
    notices = _training_notices(opt, training if training_on else None, rows, training_start)
    lines = {k: rows[f"l_{k}"].copy() for k in LINES}
    lines["taxes"], comp, currency["taxes"], uplift, brl_credits, t_rules, t_rows = option_taxes(opt, lines, currency)
    notices += _tax_notices(opt, brl_credits)
    replicas_by_hour = inference_replicas_by_hour(rps, replica, utilization, redundancy)
    servers_by_hour = np.stack([rows[f"srv_{hr}"] for hr in range(24)], axis=1)
    return OptionCosts(lines, currency, train_paid, inf_paid, rows["server_hours"], tr_hours, replicas_by_hour,
                       servers_by_hour, wall, np.asarray(egress_gb, dtype=float), uplift, int(np.count_nonzero(wall)),
                       tuple(notices), rows["stored"], rules, rows, inputs, comp, brl_credits, t_rules, t_rows)


def _paid(opt: ResolvedOption, rows: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(training servers, serving servers, training server-hours) paid each month; a shared fleet's training share
    is the training servers it holds."""
    zeros = np.zeros(len(rows["t"]))
    if opt.fleet == FleetMode.SHARED:
        train_paid = np.minimum(rows["fleet"], rows.get("train_servers", zeros))
        return train_paid, rows["fleet"] - train_paid, train_paid * rows["hours"]
    return rows.get("train_paid", rows.get("train_servers", zeros)), rows["inf_paid"], rows.get("tr_hours", zeros)


def _training_notices(opt: ResolvedOption, training: TrainingSize | None, rows: dict[str, np.ndarray],
                      training_start: int) -> list[Notice]:
    """A job that does not fit in the horizon; a minimum term longer than the job, or past the horizon."""
    if training is None:
        return []
    out: list[Notice] = []
    wall = rows.get("train_hours", np.zeros(len(rows["t"])))
    n_train = int(np.count_nonzero(wall))
    if training.wall_hours - wall.sum() > 1e-6:
        out.append(Notice("training_past_horizon", params={"needed_hours": training.wall_hours,
                                                           "fitted_hours": float(wall.sum())}))
    if "months_paid" in rows and n_train:
        term = opt.training.min_term_months  # type: ignore[union-attr]
        if rows["months_paid"][0] > n_train:
            out.append(Notice("min_term_idle", params={"term": term, "busy": n_train}))
        if training_start - 1 + rows["months_paid"][0] > len(rows["t"]):
            out.append(Notice("min_term_past_horizon", params={"term": term}))
    return out


def _tax_notices(opt: ResolvedOption, brl_credits: np.ndarray | None) -> list[Notice]:
    """A hybrid's credit on its BRL invoice; a tax profile on an offer billed in BRL only."""
    out: list[Notice] = []
    if brl_credits is not None and np.any(brl_credits > 0):
        out.append(Notice("hybrid_brl_credit", params={"amount": float(brl_credits.sum())}))
    brl_only = opt.inference.kind != FleetKind.CLOUD and (opt.training is None or opt.training.kind != FleetKind.CLOUD)
    if opt.tax.method != TaxMethod.NONE and brl_only:
        out.append(Notice("tax_on_brl_offer"))
    return out
