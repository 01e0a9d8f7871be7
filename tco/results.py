"""The results of a run: one OptionResult per option (sizing, costs, totals) and the Results of the
scenario (demand, FX path, the ledger, notices), with the rules every output ranks by."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tco import constants, finance, ledger as ledger_mod, sizing
from tco.catalog import Catalog, ModelArch
from tco.costs import OptionCosts
from tco.domain import Currency, Dist, FleetKind, Notice, Role, option_kind, record
from tco.domain.run_info import Efficiencies, FxInfo
from tco.errors import Problem
from tco.findings import Analysis
from tco.resolve import ResolvedOption
from tco.scenario import Scenario
from tco.sizing.queueing import PlannedLoad


@dataclass(frozen=True)
class OptionResult:
    name: str
    kind: str
    """'dedicated' or 'cloud' when both fleets are of that kind, else 'hybrid'."""
    resolved: ResolvedOption
    costs: OptionCosts
    replica: sizing.ReplicaSize
    replica_candidates: list[dict]
    """Every tensor-parallel layout tried, with all its terms (sizing.replica_terms)."""
    lines_brl: dict[str, np.ndarray]
    total_brl: np.ndarray
    tco: Dist
    npv: Dist
    crossover_month: int | None
    cost_per_million_tokens_brl: float | None
    gpu_hour_brl: dict[str, dict]
    """Per role ('inference', 'training'): offer, pricing and the all-in BRL price per GPU-hour."""
    fan_brl: dict[str, np.ndarray] | None = None
    """Monthly P5/P50/P95 of total cost in BRL (Monte Carlo), else None."""
    tco_samples: np.ndarray | None = None
    prob_cheapest: float | None = None
    """Share of FX paths on which this option is the cheapest."""
    planned_load: PlannedLoad | None = None
    """Time to first token with queueing at the planned peak load (tco.sizing.queueing), computed once here."""

    @property
    def feasible(self) -> bool:
        """The replica meets the workload's targets (per-user tokens/s); an infeasible option is shown with the
        speed it reaches but never ranked, recommended or compared."""
        return bool(self.replica.target_met)

    @property
    def achieved_tokens_per_second_per_user(self) -> float:
        """Decode speed each user sees on this option's replica [tokens/s]."""
        return float(self.replica.tokens_per_second_per_user)

    def __repr__(self) -> str:
        """One line (the generated repr printed every array and the resolved catalog rows: 93 kB)."""
        state = "" if self.feasible else ", infeasible"
        return f"OptionResult({self.name!r}, {self.kind}, TCO R$ {self.tco.deterministic:,.0f}{state})"


HOURS_PER_MONTH = constants.HOURS_PER_MONTH.value
"""Average hours in a month (8,760 / 12), used only to express monthly prices per GPU-hour."""


def _gpu_hour_prices(opt: ResolvedOption, oc: OptionCosts, usdbrl: float) -> dict[str, dict]:
    """Per role: offer, pricing and the all-in BRL price per GPU-hour [BRL/GPU·h]."""
    out: dict[str, dict] = {}
    uplift = oc.tax_uplift if oc.currency["taxes"] == Currency.USD else 0.0
    for role, f in ((Role.INFERENCE, opt.inference), (Role.TRAINING, opt.training)):
        if f is None:
            continue
        if f.kind == FleetKind.CLOUD:  # USD/h per server ÷ GPUs × (1 + taxes) × spot
            brl = f.price / f.gpus_per_server * (1.0 + uplift) * usdbrl
        else:  # BRL/month per server ÷ (GPUs × 730 h)
            brl = f.price / (f.gpus_per_server * HOURS_PER_MONTH)
        out[role] = {"offer": f.offer_id, "pricing": f.pricing, "brl_per_gpu_hour": brl}
    return out


def option_result(opt: ResolvedOption, oc: OptionCosts, rep: sizing.ReplicaSize, cands: list[dict],
                  series: tuple[ledger_mod.Series, ...], usdbrl: float, rows: dict[str, np.ndarray],
                  totals: dict[str, np.ndarray], planned_load: PlannedLoad | None = None) -> OptionResult:
    """One option's result from its ledger series and the rows of its totals rules (``tco.costs.totals_rules``):
    total, TCO and NPV (deterministic until the FX risk fills the percentiles), crossover month, cost per million
    tokens, GPU-hour prices."""
    lines_brl = {x.line: x.amount_brl for x in series}
    total = totals["total"]
    tco_det, npv_det = float(totals["tco"][0]), float(totals["npv"][0])
    inf_spend = lines_brl["inference_compute"] + lines_brl["egress"] + lines_brl["storage"]
    train_total = float(lines_brl["training_compute"].sum())
    kind = FleetKind.OWNED if opt.owned is not None else option_kind(opt.kind, opt.training.kind if opt.training else None)
    return OptionResult(opt.name, kind, opt, oc, rep, cands, lines_brl, total, Dist.point(tco_det), Dist.point(npv_det),
                        finance.crossover_month(inf_spend, train_total),
                        finance.cost_per_million_tokens(tco_det, float(rows["tokens"].sum())),
                        _gpu_hour_prices(opt, oc, usdbrl), planned_load=planned_load)


def rankable(options: list[OptionResult]) -> list[OptionResult]:
    """The options that may be ranked, recommended or used as a comparator: the feasible ones that break none of the
    client's constraints ([proposal.constraints]), in the order given. Every ranking (terminal, JSON, workbook,
    proposal, break-evens, probability of being cheapest) uses this."""
    return [o for o in options if o.feasible and not o.resolved.breaches]


def constraint_problem(res: "Results", file: str, lines: dict | None) -> Problem | None:
    """A problem when feasible options exist but every one breaks the client's constraints: the constraint and the
    nearest options (the cheapest feasible ones, with what each breaks)."""
    feasible = [o for o in res.options if o.feasible]
    if not feasible or rankable(res.options):
        return None
    near = sorted(feasible, key=lambda o: o.tco.deterministic)[:3]
    what = "; ".join(f"{o.name!r} breaks {', '.join(o.resolved.breaches)}" for o in near)
    c = res.scenario.proposal.constraints if res.scenario.proposal else None
    asked = f"data_in_brazil = {c.data_in_brazil!r}" if c is not None else ""
    if c is not None and c.providers:
        asked += f", providers = {list(c.providers)}"
    return Problem(file, "proposal.constraints", f"no option meets the client's constraints ({asked}): {what}; add an "
                   "option that meets them (`python -m tco plan` searches the catalog under the same constraints) or "
                   "relax them", (lines or {}).get(("proposal", "constraints")) or (lines or {}).get(("proposal",)))


def workload_problem(res: Results, file: str, lines: dict | None) -> Problem | None:
    """A problem when an option costs nothing: the scenario has no workload to cost (no users or requests to
    serve and no training), and every comparison would divide by zero."""
    free = [o.name for o in res.options if not o.tco.deterministic > 0]
    if not free:
        return None
    return Problem(file, "inference.users", f"nothing to cost: {free[0]!r} costs R$ 0 over the horizon; the scenario "
                   "has no users or requests to serve and no training", (lines or {}).get(("inference", "users"))
                   or (lines or {}).get(("inference",)))


def infeasible_problem(res: Results, file: str, lines: dict | None) -> Problem | None:
    """A problem when no option is feasible (there is nothing to recommend), naming the fastest option."""
    if not res.options or any(o.feasible for o in res.options):  # the constraints are constraint_problem's
        return None
    fastest = max(res.options, key=lambda o: o.achieved_tokens_per_second_per_user)
    target = res.scenario.inference.tokens_per_second_per_user
    ttft = res.scenario.inference.time_to_first_token_seconds
    if ttft is not None and fastest.achieved_tokens_per_second_per_user >= target:  # the speed is met: the wait is not
        quickest = min(res.options, key=lambda o: o.replica.ttft_seconds)
        return Problem(file, "inference.time_to_first_token_seconds",
                       f"no option meets the time to first token of {ttft:g} s: the quickest, {quickest.name!r}, "
                       f"answers in {quickest.replica.ttft_seconds:.3g} s; raise the limit or add an option with "
                       "faster GPUs", (lines or {}).get(("inference", "time_to_first_token_seconds"))
                       or (lines or {}).get(("inference",)))
    return Problem(file, "inference.tokens_per_second_per_user",
                   f"no option meets the workload's targets ({target:g} tokens/s per user): the fastest, "
                   f"{fastest.name!r}, reaches {fastest.achieved_tokens_per_second_per_user:.1f} tokens/s per user at "
                   "batch 1; lower the target or add an option with faster GPUs",
                   (lines or {}).get(("inference", "tokens_per_second_per_user")) or (lines or {}).get(("inference",)))


@record
class Results:
    scenario: Scenario
    months: list[str]
    days: np.ndarray
    fx_path: np.ndarray
    users: np.ndarray
    requests: np.ndarray
    tokens: np.ndarray
    egress_gb: np.ndarray
    peak_rps: np.ndarray
    hourly_rps: np.ndarray
    """Requests per second in each hour of a typical (active) day, month × 24 [req/s]."""
    training: sizing.TrainingSize | None
    training_by_option: dict[str, sizing.TrainingSize]
    options: list[OptionResult]
    model: ModelArch
    efficiencies: Efficiencies
    """The modelling efficiencies the engine used (the JSON's ``assumptions.defaults_used``)."""
    catalog: Catalog
    ledger: ledger_mod.Ledger
    """Every cost, option × line × month, in its currency and in BRL: what every output reads."""
    notices: tuple[Notice, ...] = ()
    """What a reader must know (estimates, unreachable targets, idle minimum terms…), as data."""
    fx_info: FxInfo | None = None
    """The FX model, its base path and Monte Carlo parameters; None until ``tco.engine.apply_fx_risk`` fills it."""
    analysis: Analysis = field(default_factory=Analysis)
    """The decision analysis (break-evens, sensitivity, decomposition, separation, hedging, the plan search), typed
    (``tco.findings``); empty until ``tco.analysis.enrich`` and the plan search fill it."""
    timeline: dict[str, np.ndarray] = field(default_factory=dict)
    """Every row of ``tco.timeline`` (demand, FX base path, discount factors…) by rule key."""
    source_path: str = ""
    """The scenario file this run read (set by ``tco.api.run``)."""
    source_sha256: str = ""
    """Hash of that file's bytes."""

    def option(self, name: str) -> OptionResult:
        """The option named `name` (KeyError naming the options otherwise)."""
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(f"no option named {name!r}; the options are {', '.join(repr(o.name) for o in self.options)}")

    def ranked(self) -> list[OptionResult]:
        """The feasible options, cheapest deterministic TCO first (ties in the scenario's order): the one ranking
        the terminal, the JSON, the view and the analysis read."""
        return sorted(rankable(self.options), key=lambda o: o.tco.deterministic)

    def cheapest(self, kind: str | None = None) -> OptionResult | None:
        """The cheapest feasible option, of `kind` ('dedicated', 'cloud', 'hybrid') when given; None if there is
        none."""
        return next((o for o in self.ranked() if kind is None or o.kind == kind), None)

    def __repr__(self) -> str:
        """A few lines (the generated repr printed the catalog and every array: 1.28 MB)."""
        s = self.scenario.scenario
        best = self.cheapest()
        lines = [f"Results({s.name!r}, {len(self.options)} options, {s.horizon_months} months from {self.months[0]}"
                 if self.months else f"Results({s.name!r}, {len(self.options)} options"]
        lines += [f"  {i}. {o!r}" for i, o in enumerate(self.ranked(), 1)]
        lines += [f"  x. {o!r} breaks {', '.join(o.resolved.breaches)}" for o in self.options
                  if o.feasible and o.resolved.breaches]  # shown, never ranked (the client's constraints)
        lines += [f"  -. {o!r}" for o in self.options if not o.feasible]
        lines.append(f"  cheapest: {best.name!r})" if best else "  no feasible option)")
        return "\n".join(lines)

