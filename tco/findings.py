"""The decision analysis of a run as typed values: ``Results.analysis`` (an ``Analysis``), built by
``tco.analysis.enrich`` and the plan search (``tco.api``), read by every renderer.

Each part is a frozen dataclass with keyword-only fields, defined here once: the break-evens (USD/BRL, users,
paybacks), the sensitivity (tornados), the fleet separation, the decomposition of the dedicated–cloud difference,
the hedging cost, the FX fan and the plan search. ``as_dict`` gives each part as the JSON document writes it
(DESIGN.md's keys: a key the engine left out before, such as a break-even's ``note`` when it has one, is left out
here too), so the JSON stays byte-identical to what the ``meta`` dicts gave.

The module sits beside ``tco.results`` rather than in ``tco/analysis/``: ``Results`` holds an ``Analysis``, and
the analysis package imports the engine, which builds ``Results``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from tco.plan_results import GroupPlans, OverallPlans, Plan, PlanSearch  # noqa: F401  (re-exported)


@dataclass(frozen=True, kw_only=True)
class FxBreakeven:
    """The USD/BRL spot at which `option` costs the same as the leader `versus` (None: no positive rate does)."""

    option: str
    versus: str
    usdbrl: float | None
    note: str | None = None

    def as_dict(self) -> dict:
        return {"option": self.option, "versus": self.versus, "usdbrl": self.usdbrl, "note": self.note}


@dataclass(frozen=True, kw_only=True)
class UsersBreakeven:
    """The scale of the growth curve at which the two leading options swap places (None: not in the range
    searched, with a `note`; otherwise the `direction` the users move)."""

    leader: str
    challenger: str
    users_scale: float | None
    peak_users: float | None
    base_peak_users: float
    direction: str | None = None
    note: str | None = None
    unflipped_scale: float | None = None
    """The other end of the bisection's last bracket, within 0.1 % of `users_scale`, where the leader still leads
    (the TCOs step with whole servers, so the difference can cross zero more than once near the flip); not in the
    JSON."""

    def as_dict(self) -> dict:
        out: dict[str, Any] = {"leader": self.leader, "challenger": self.challenger, "users_scale": self.users_scale,
                               "peak_users": self.peak_users, "base_peak_users": self.base_peak_users}
        if self.direction is not None:
            out["direction"] = self.direction
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, kw_only=True)
class Payback:
    """The month in which `option`'s upfront costs have paid for themselves against the cheapest cloud option."""

    option: str
    versus: str
    payback_month: int | None

    def as_dict(self) -> dict:
        return {"option": self.option, "versus": self.versus, "payback_month": self.payback_month}


@dataclass(frozen=True, kw_only=True)
class Breakevens:
    usdbrl: tuple[FxBreakeven, ...]
    users: UsersBreakeven | None
    payback: tuple[Payback, ...]

    def as_dict(self) -> dict:
        return {"usdbrl": [b.as_dict() for b in self.usdbrl], "users": self.users.as_dict() if self.users else None,
                "payback": [p.as_dict() for p in self.payback]}


@dataclass(frozen=True, kw_only=True)
class TornadoRow:
    """One input moved to both ends of its range: the challenger − leader difference of `metric` at each end."""

    input: str
    label: str
    low: float
    high: float
    unit: str
    metric: str
    """'tco', 'npv' (the discount rate) or 'tco_p95' (the volatility)."""
    base_diff_brl: float
    low_diff_brl: float
    high_diff_brl: float
    swing_brl: float

    def as_dict(self) -> dict:
        return {"input": self.input, "label": self.label, "low": self.low, "high": self.high, "unit": self.unit,
                "metric": self.metric, "base_diff_brl": self.base_diff_brl, "low_diff_brl": self.low_diff_brl,
                "high_diff_brl": self.high_diff_brl, "swing_brl": self.swing_brl}


@dataclass(frozen=True, kw_only=True)
class Tornado:
    """The sensitivity of the difference between two options, rows by swing (largest first); no challenger: no
    rows and no base difference."""

    leader: str | None
    challenger: str | None
    base_diff_brl: float | None = None
    rows: tuple[TornadoRow, ...] = ()

    def as_dict(self) -> dict:
        out: dict[str, Any] = {"leader": self.leader, "challenger": self.challenger}
        if self.challenger is not None:
            out["base_diff_brl"] = self.base_diff_brl
        return out | {"rows": [r.as_dict() for r in self.rows]}


@dataclass(frozen=True, kw_only=True)
class Sensitivity:
    """The tornado of the two leading options, and of the cheapest dedicated vs the cheapest cloud option when
    that is another pair."""

    leaders: Tornado
    dedicated_vs_cloud: Tornado | None = None

    def pairs(self) -> dict[str, Tornado]:
        """Name ('leaders', 'dedicated_vs_cloud') → tornado, for the pairs computed."""
        out = {"leaders": self.leaders}
        if self.dedicated_vs_cloud is not None:
            out["dedicated_vs_cloud"] = self.dedicated_vs_cloud
        return out

    def as_dict(self) -> dict:
        return {k: t.as_dict() for k, t in self.pairs().items()}


@dataclass(frozen=True, kw_only=True)
class SeparationRow:
    """One shared fleet vs separate training and inference fleets for `option` (amounts None with a `note` where
    the fleets are separate or shared by design)."""

    option: str
    shared_brl: float | None
    separate_brl: float | None
    saving_brl: float | None
    chosen: str | None = None
    note: str | None = None

    def as_dict(self) -> dict:
        out: dict[str, Any] = {"option": self.option, "shared_brl": self.shared_brl,
                               "separate_brl": self.separate_brl, "saving_brl": self.saving_brl}
        if self.chosen is not None:
            out["chosen"] = self.chosen
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, kw_only=True)
class EgressClaim:
    range: tuple[float, float]
    verdict: str
    """'inside', 'below' or 'above' the range."""
    statement: str

    def as_dict(self) -> dict:
        return {"range": list(self.range), "verdict": self.verdict, "statement": self.statement}


@dataclass(frozen=True, kw_only=True)
class Decomposition:
    """Where the difference between the cheapest dedicated and the cheapest cloud option comes from (cloud −
    dedicated, by line) [BRL]."""

    dedicated: str
    cloud: str
    difference_brl: float
    parts_brl: Mapping[str, float]
    parts_share_of_cloud_tco: Mapping[str, float | None]
    check_sum_brl: float
    fx_risk_premium_brl: float
    fx_risk_premium_note: str
    egress_share_of_cloud_tco: float
    egress_claim: EgressClaim
    fleet_separation_brl: Mapping[str, float | None] | None = None
    """Side ('dedicated', 'cloud') → the saving of separate fleets over one shared fleet (None where it has none)."""
    fleet_separation_note: str | None = None

    def as_dict(self) -> dict:
        out: dict[str, Any] = {
            "dedicated": self.dedicated, "cloud": self.cloud, "difference_brl": self.difference_brl,
            "parts_brl": dict(self.parts_brl), "parts_share_of_cloud_tco": dict(self.parts_share_of_cloud_tco),
            "check_sum_brl": self.check_sum_brl, "fx_risk_premium_brl": self.fx_risk_premium_brl,
            "fx_risk_premium_note": self.fx_risk_premium_note,
            "egress_share_of_cloud_tco": self.egress_share_of_cloud_tco, "egress_claim": self.egress_claim.as_dict()}
        if self.fleet_separation_brl is not None:
            out["fleet_separation_brl"] = dict(self.fleet_separation_brl)
            out["fleet_separation_note"] = self.fleet_separation_note
        return out


@dataclass(frozen=True, kw_only=True)
class HedgeRow:
    option: str
    hedged_tco_brl: float
    unhedged_p95_brl: float | None
    hedge_cost_vs_deterministic_brl: float

    def as_dict(self) -> dict:
        return {"option": self.option, "hedged_tco_brl": self.hedged_tco_brl,
                "unhedged_p95_brl": self.unhedged_p95_brl,
                "hedge_cost_vs_deterministic_brl": self.hedge_cost_vs_deterministic_brl}


@dataclass(frozen=True, kw_only=True)
class Hedging:
    """The USD costs locked at the interest-parity forward of each month: the forward curve's ends, the rates and
    each option's hedged TCO."""

    forward_first: float
    forward_last: float
    brl_rate: float
    usd_rate: float
    options: tuple[HedgeRow, ...]
    note: str

    def as_dict(self) -> dict:
        return {"forward_first": self.forward_first, "forward_last": self.forward_last, "brl_rate": self.brl_rate,
                "usd_rate": self.usd_rate, "options": [r.as_dict() for r in self.options], "note": self.note}


@dataclass(frozen=True, kw_only=True)
class Analysis:
    """What the decision analysis found; a part the run did not compute is None (``analysis=False``, no
    sensitivity, a deterministic FX model, no plan search). The break-evens, separation, decomposition,
    probabilities and hedging are computed together (``tco.analysis.enrich``): ``ran`` says they were."""

    breakevens: Breakevens | None = None
    sensitivity: Sensitivity | None = None
    separation: tuple[SeparationRow, ...] = ()
    decomposition: Decomposition | None = None
    """None also when there is no dedicated or no cloud option to compare."""
    probability_cheapest: Mapping[str, float | None] = field(default_factory=dict)
    hedging: Hedging | None = None
    fx_fan: Mapping[str, np.ndarray] | None = None
    """The USD/BRL rate's P5/P50/P95 by month (Monte Carlo models only)."""
    plans: PlanSearch | None = None

    @property
    def ran(self) -> bool:
        """The decision analysis ran (``tco.analysis.enrich``)."""
        return self.breakevens is not None

    def __repr__(self) -> str:
        """One line naming the parts computed (the generated repr printed the FX fan's arrays and every plan)."""
        parts = [k for k in ("breakevens", "sensitivity", "decomposition", "hedging", "fx_fan", "plans")
                 if getattr(self, k) is not None]
        return f"Analysis({', '.join(parts) or 'empty'})"

    def as_dict(self) -> dict:
        """The JSON document's analysis keys (present only for the parts computed; the decomposition as null when
        the analysis ran without one)."""
        out: dict[str, Any] = {}
        if self.breakevens is not None:
            out["breakevens"] = self.breakevens.as_dict()
        if self.sensitivity is not None:
            out["sensitivity"] = self.sensitivity.as_dict()
        if self.ran:
            out["decomposition"] = self.decomposition.as_dict() if self.decomposition is not None else None
            out["separation"] = [r.as_dict() for r in self.separation]
            out["probability_cheapest"] = dict(self.probability_cheapest)
            out["hedging"] = self.hedging.as_dict() if self.hedging is not None else None
        if self.fx_fan is not None:
            out["fx_fan"] = dict(self.fx_fan)
        if self.plans is not None:
            out["plans"] = self.plans.as_dict()
        return out
