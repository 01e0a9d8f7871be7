"""A typed, frozen view of the results for the renderers: what the proposal reads.

The JSON document is an output for automation; the renderers read this instead, so a key renamed in
the JSON cannot silently blank a page, and a typo is an AttributeError, not a missing string. Every
value is taken from ``engine.Results`` as the engine computed it; the only arithmetic is bookkeeping on
those values (sums over months, a maximum over months, GPU-hours = server-hours × GPUs per server).

    v = view.build(res)
    v.recommended.label, v.recommended.tco_brl, v.plans[0].tco_brl
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from tco import constants
from tco.domain import Notice
from tco.findings import Analysis, PlanSearch
from tco.report.view_catalog import CatalogRows, catalog_rows

if TYPE_CHECKING:
    from tco.results import Results

HOURS_PER_MONTH = constants.HOURS_PER_MONTH.value
"""Hours in the month the catalog's monthly prices stand for [h] (tco.constants.HOURS_PER_MONTH)."""


@dataclass(frozen=True)
class FleetView:
    offer: str
    kind: str
    """'cloud' or 'dedicated'."""
    provider: str
    gpu: str
    gpus_per_server: int
    price: float
    """Per server, in `currency` per `price_unit` ('USD/h' or 'BRL/month')."""
    price_unit: str
    currency: str
    pricing: str
    setup_fee_brl: float
    min_term_months: int
    status: str
    source: str
    as_of: str
    region: str = ""
    """The catalog's region id ('us-east-1', 'br'…)."""

    @property
    def price_per_gpu_hour(self) -> float:
        """List price per GPU-hour in `currency` [USD/GPU-h or BRL/GPU-h]: a monthly price over 730 h."""
        per_hour = self.price if self.price_unit.endswith("/h") else self.price / HOURS_PER_MONTH
        return per_hour / self.gpus_per_server


@dataclass(frozen=True)
class OptionView:
    name: str
    label: str
    """The option's short `label`, else its name."""
    kind: str
    """'dedicated', 'cloud' or 'hybrid' (training and serving on different kinds)."""
    fleet: str
    feasible: bool
    tco_brl: float
    npv_brl: float
    p5_brl: float | None
    p95_brl: float | None
    lines_brl: Mapping[str, float]
    monthly_brl: tuple[float, ...]
    yearly_brl: tuple[float, ...]
    """Cash out per contract year (12-month blocks from the first month; the last may be shorter) [BRL]."""
    cost_per_million_tokens_brl: float | None
    gpu_hour_brl: Mapping[str, float]
    """Role ('inference', 'training') → all-in BRL per GPU-hour at the spot rate (engine)."""
    inference: FleetView
    training: FleetView | None
    peak_servers: int
    """Most inference servers paid in any month."""
    inference_gpu_hours: float
    training_gpu_hours: float
    training_servers: int
    tax_uplift_share: float
    tax_currency: str
    indexation_rate: float
    prob_cheapest: float | None
    tokens_per_second_per_user: float
    """Decode speed each user sees on this option's replica [tokens/s]."""
    fan_brl: Mapping[str, tuple[float, ...]] | None = None
    """Monthly P5/P50/P95 of the total cost [BRL] (Monte Carlo), else None."""
    serving_facts: Mapping[str, Any] | None = None
    """The replica as sized (issue 21): layout label, bounding regime, predicted TTFT and inter-token latency at the
    planned batch [s], calibration; None without a replica."""

    @property
    def peak_gpus(self) -> int:
        return self.peak_servers * self.inference.gpus_per_server

    def fleets(self) -> tuple[FleetView, ...]:
        return tuple(f for f in (self.training, self.inference) if f is not None)


@dataclass(frozen=True)
class PlanView:
    provider: str
    """The plan search's group: a provider id, or 'hybrid'."""
    tco_brl: float
    npv_brl: float
    serving_offer: str
    serving_kind: str
    serving_gpu: str
    serving_gpus_per_server: int
    serving_pricing: str
    serving_region: str
    peak_instances: int | None
    training_offer: str | None
    training_pricing: str | None


@dataclass(frozen=True)
class View:
    name: str
    client: str
    prepared_by: str
    locale: str
    start: str
    months: tuple[str, ...]
    horizon_months: int
    discount_rate: float
    usdbrl: float
    fx_model: str
    fx_base: str
    """The base path the costs are converted at (tco.timeline.fx_base: focus, spot, forward, list)."""
    fx_paths: int | None
    fx_volatility: float | None
    fx_path: tuple[float, ...]
    options: tuple[OptionView, ...]
    ranked: tuple[str, ...]
    """Feasible options, cheapest first (the engine's ranking)."""
    plans: tuple[PlanView, ...]
    """Each provider's best plan (plan search), cheapest first; empty when the search did not run."""
    notices: tuple[Notice, ...]
    total_tokens: float
    peak_rps: float
    users_first: float
    users_last: float
    redundancy: str
    target_tokens_per_second_per_user: float
    """The serving fleet's spare replicas ('none', 'n+1')."""
    catalog: CatalogRows
    """Every catalog row the run used, with its source (the workbook's Catalog sheet, the JSON's catalog_rows)."""
    source_path: str
    """The scenario file the run read ('' when the scenario was not read from a file)."""
    analysis: Analysis
    """The decision analysis (break-evens, sensitivity, decomposition, hedging, the plan search) as the engine
    computed it (``tco.findings``)."""

    def option(self, name: str) -> OptionView:
        return next(o for o in self.options if o.name == name)

    def __repr__(self) -> str:
        """One line (the generated repr printed every option, month and catalog row)."""
        return f"View({self.name!r}, {len(self.options)} options, ranked {list(self.ranked)!r}, {self.analysis!r})"

    @property
    def recommended(self) -> OptionView:
        """The option the proposal recommends: the cheapest ranked one a provider can offer (an owned option, the
        client's own purchase, is a competitor to beat: tco.report.owned.offerable)."""
        from tco.report.owned import offerable

        return offerable(self)

    @property
    def cheapest(self) -> str | None:
        """The name of the cheapest ranked option (``Results.cheapest``), None when none can be ranked."""
        return self.ranked[0] if self.ranked else None

    @property
    def ranked_options(self) -> tuple[OptionView, ...]:
        return tuple(self.option(n) for n in self.ranked)


def _fleet(f) -> FleetView:
    return FleetView(f.offer_id, f.kind, f.offer_id.split("/")[0], f.gpu.gpu, int(f.gpus_per_server), float(f.price),
                     f.price_unit, f.currency, f.pricing, float(f.setup_fee_brl or 0.0), int(f.min_term_months or 0),
                     f.price_status or "", f.price_source or "", str(f.price_as_of or ""), str(f.region or ""))


def yearly(monthly: np.ndarray) -> tuple[float, ...]:
    """Sums of 12-month blocks (the last block holds the months left)."""
    m = np.asarray(monthly, dtype=float)
    return tuple(float(m[i:i + 12].sum()) for i in range(0, len(m), 12))


def _option(o, labels: Mapping[str, str | None], res=None, spec: Mapping | None = None) -> OptionView:
    r, c = o.resolved, o.costs
    fan = o.tco.as_dict()
    train_h = np.asarray(c.training_hours, dtype=float).sum()
    inf_h = np.asarray(c.instance_hours, dtype=float).sum() - train_h
    tr_gpus = r.training.gpus_per_server if r.training is not None else 0
    return OptionView(
        name=o.name, label=labels.get(o.name) or o.name, kind=o.kind, fleet=r.fleet, feasible=o.feasible,
        tco_brl=float(o.tco.deterministic), npv_brl=float(o.npv.deterministic), p5_brl=fan.get("p5"),
        p95_brl=fan.get("p95"), lines_brl={k: float(np.sum(v)) for k, v in o.lines_brl.items()},
        monthly_brl=tuple(float(x) for x in o.total_brl), yearly_brl=yearly(o.total_brl),
        cost_per_million_tokens_brl=o.cost_per_million_tokens_brl,
        gpu_hour_brl={k: float(v["brl_per_gpu_hour"]) for k, v in o.gpu_hour_brl.items()},
        inference=_fleet(r.inference), training=_fleet(r.training) if r.training is not None else None,
        peak_servers=int(np.max(c.inference_servers)) if len(c.inference_servers) else 0,
        inference_gpu_hours=float(inf_h * r.inference.gpus_per_server), training_gpu_hours=float(train_h * tr_gpus),
        training_servers=int(np.max(c.training_servers)) if len(c.training_servers) else 0,
        tax_uplift_share=float(c.tax_uplift), tax_currency=c.currency["taxes"],
        indexation_rate=float(r.indexation_rate), prob_cheapest=o.prob_cheapest,
        tokens_per_second_per_user=float(o.achieved_tokens_per_second_per_user),
        fan_brl={k: tuple(float(x) for x in v) for k, v in o.fan_brl.items()} if o.fan_brl is not None else None,
        serving_facts=_serving_facts(o.replica, o.planned_load, spec))


def _serving_facts(rep, load=None, spec: Mapping | None = None) -> dict | None:
    """The sizing facts of a replica the proposal's annex states (``OptionView.serving_facts``): with its planned
    load (``OptionResult.planned_load``), also the time to first token there (None if saturated)."""
    if rep is None:
        return None
    from tco.sizing.replica import Layout

    out = {"layout": Layout(rep.tensor_parallel, rep.nodes, rep.parallel_mode).label, "bound": rep.bound,
           "ttft_s": float(rep.ttft_seconds), "itl_s": float(rep.inter_token_seconds), "calibration": rep.calibration,
           "speculative": dict(spec) if spec else None}
    if load is not None:
        out |= {"ttft_mean_s": load.mean_seconds, "ttft_p95_s": load.p95_seconds}
    return out


def _plans(found: PlanSearch | None) -> tuple[PlanView, ...]:
    out = []
    for group, v in (found.by_provider if found is not None else {}).items():
        b = v.best
        sv, tr = b.serving, b.training
        out.append(PlanView(group, float(b.tco_brl), float(b.npv_brl), sv.offer, sv.kind, sv.gpu,
                            int(sv.gpus_per_server), sv.pricing or "", sv.region or "", sv.peak_instances,
                            tr.offer if tr else None, tr.pricing if tr else None))
    return tuple(sorted(out, key=lambda p: p.tco_brl))


def build(res: Results) -> View:
    """The view of `res` (an ``engine.Results``)."""
    from tco.sizing import speculative_dict

    s, fx = res.scenario, res.fx_info
    spec = speculative_dict(s)
    labels = {o.name: o.label for o in s.options}
    ranked = tuple(o.name for o in res.ranked())
    users = np.asarray(res.users, dtype=float)
    start = max(s.inference.start_month - 1, 0)
    return View(
        name=s.scenario.name, client=s.scenario.client, prepared_by=s.scenario.prepared_by, locale=s.scenario.locale,
        start=s.scenario.start, months=tuple(res.months), horizon_months=s.scenario.horizon_months,
        discount_rate=s.scenario.discount_rate, usdbrl=s.fx.usdbrl, fx_model=str(fx.model if fx else ""),
        fx_base=str(fx.base.path if fx else "spot"),
        fx_paths=fx.paths if fx else None, fx_volatility=fx.volatility if fx else None,
        fx_path=tuple(float(x) for x in res.fx_path), options=tuple(_option(o, labels, res, spec) for o in res.options),
        ranked=ranked, plans=_plans(res.analysis.plans), notices=tuple(res.notices),
        total_tokens=float(np.sum(res.tokens)), peak_rps=float(np.max(res.peak_rps)) if len(res.peak_rps) else 0.0,
        users_first=float(users[start]) if len(users) else 0.0, users_last=float(users[-1]) if len(users) else 0.0,
        redundancy=s.inference.redundancy, target_tokens_per_second_per_user=s.inference.tokens_per_second_per_user,
        catalog=catalog_rows(res), source_path=res.source_path, analysis=res.analysis)
