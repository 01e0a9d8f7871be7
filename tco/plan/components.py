"""The plan's building blocks: catalog offers the search may use, sized and costed once each.

A component's cost is kept as the engine made it: its cost lines by month, each in its own currency (``Comp.lines``);
``pairs`` taxes, converts and adds them as the engine does.
"""

from __future__ import annotations

from dataclasses import field, replace

import numpy as np

from tco import finance, sizing
from tco.timeline import calendar as demand
from tco.fx import history as fxmod
from tco.catalog import Catalog
from tco.domain import (
    BRAZIL_REGIONS,
    ON_DEMAND,
    REFUSED_STATUSES,
    Currency,
    FleetKind,
    PlanMode,
    commitment_term_months,
    is_capacity_block,
    is_committed,
    is_spot,
    record,
)
from tco.engine import defaults_for, replica_for, training_for, workload
from tco.errors import InputError, Problem, closest
from tco.resolve import Fleet, ResolvedOption, resolve
from tco.resolve.fleet import fleet_of
from tco.scenario import Option, Plan, Scenario, Training
from tco.domain import TrainingMethod

SKIP_STATUSES = REFUSED_STATUSES
"""Catalog rows the search never uses (the rows the engine refuses)."""


@record
class Ctx:
    """The scenario's workload and money path, shared by every component."""

    s: Scenario
    cat: Catalog
    spec: Plan
    model: object
    dflt: dict
    eff: sizing.Calibration
    """The scenario's serving calibration (sizing.serving_calibration), as the engine uses it."""
    days: np.ndarray
    rps: np.ndarray
    egress: np.ndarray
    fx: np.ndarray
    disc: np.ndarray
    skipped: list = field(default_factory=list)
    replicas: dict = field(default_factory=dict)
    """Each server's replica, or why it has none, by what it depends on besides the scenario (``serving_size``):
    an offer under several pricings, or a server sold in several regions, is sized once."""

    @property
    def h(self) -> int:
        return self.s.scenario.horizon_months


def context(s: Scenario, cat: Catalog, file: str = "<scenario>") -> Ctx:
    model = cat.models.get(s.model.id)
    if model is None:  # resolve reports it with the line when the options are checked; here, plainly
        raise InputError([Problem(file, "model.id", f"unknown model {s.model.id!r}; "
                                  f"{closest(s.model.id, list(cat.models))}")])
    h = s.scenario.horizon_months
    days = demand.days_in_months(s.scenario.start, h)
    _, _, _, rps, egress = workload(s, days)
    eff = sizing.serving_calibration(s, cat, file, None)
    return Ctx(s, cat, s.plan or Plan(), model, defaults_for(cat), eff, days, rps, egress,
               fxmod.deterministic_path(s.fx, h, s.scenario.start),
               finance.discount_factors(h, s.scenario.discount_rate))


@record
class Comp:
    """One costed component: a training burst, a serving fleet in one mode, or a whole shared-fleet plan."""

    role: str  # 'training' | 'serving' | 'shared'
    fleet: Fleet
    mode: PlanMode
    lines: np.ndarray
    """Its cost lines by month in their own currencies, (line in ``LINES`` order, month): for a training burst or
    a serving fleet before taxes (the fleet rules' lines; the pair's taxes come from ``pairs``), for a shared
    fleet the whole plan's lines, taxes included [USD or BRL]."""
    currency: tuple[str, ...]
    """The currency of each line, in ``LINES`` order."""
    combos: int = 1
    """Candidate plans this component stands for (every level of a committed baseline)."""
    committed: tuple[int, ...] | None = None
    burst_pricing: str | None = None
    servers: int = 0
    peak: int = 0
    replica: sizing.ReplicaSize | None = None
    training: sizing.TrainingSize | None = None
    tax_profile: str = ""
    notes: tuple[str, ...] = ()


def allowed(spec: Plan, pricing: str) -> bool:
    if spec.include_pricings and pricing not in spec.include_pricings:
        return False
    return pricing not in spec.exclude_pricings


def offers(ctx: Ctx) -> list[Fleet]:
    """Every (offer, pricing) the plan may use, as engine Fleets: priced, not skipped, within [plan]."""
    spec, cat = ctx.spec, ctx.cat
    out = []
    problems: list[Problem] = []
    for oid in cat.offer_ids:
        o = cat.offer(oid)
        if spec.providers and o.provider not in spec.providers:
            continue
        if (spec.gpus and o.gpu not in spec.gpus) or o.gpu not in cat.gpus:  # fleet_of refuses an unknown GPU
            continue
        if spec.brazil_only and o.region not in BRAZIL_REGIONS:
            continue
        if accepted(ctx) and o.provider not in accepted(ctx):
            continue
        if o.kind == FleetKind.DEDICATED:
            pricings = ["monthly"] if o.status not in SKIP_STATUSES else []
        else:
            pricings = [p for p, cp in sorted(o.prices.items()) if cp.usd_per_hour is not None
                        and cp.status not in SKIP_STATUSES and allowed(spec, p)]
        for p in pricings:
            f = fleet_of(cat, oid, p, None, None, None, None, "", problems, "", None)
            if f is not None and "anomal" in f.price_source.lower():  # as engine.price_warnings reads it
                skip(ctx, f, "any", "the catalog flags this price as anomalous")
            elif f is not None:
                out.append(f)
    return out


def constraints(ctx: Ctx):
    """The client's constraints ([proposal.constraints]) the search respects, or None."""
    p = ctx.s.proposal
    return p.constraints if p is not None else None


def accepted(ctx: Ctx) -> tuple[str, ...]:
    """The providers the client accepts (empty: any)."""
    c = constraints(ctx)
    return tuple(c.providers) if c is not None else ()


def residency_ok(ctx: Ctx, training_region: str | None, serving_region: str) -> bool:
    """True when a plan training in `training_region` (None: no separate training, or none at all) and serving in
    `serving_region` keeps the data where the client asks ([proposal.constraints] data_in_brazil)."""
    c = constraints(ctx)
    if c is None or c.data_in_brazil == "none":
        return True
    trains = ctx.s.training.method != TrainingMethod.NONE
    where_trained = training_region if training_region is not None else serving_region
    if c.data_in_brazil in ("training", "both") and trains and where_trained not in BRAZIL_REGIONS:
        return False
    return not (c.data_in_brazil in ("serving", "both") and serving_region not in BRAZIL_REGIONS)


def _option(f: Fleet, ctx: Ctx, **kw) -> Option:
    spec = ctx.spec
    extra: dict = {}
    if f.provider in spec.taxes:
        extra["taxes"] = spec.taxes[f.provider]
    if f.provider in spec.storage_usd_per_gb_month and f.kind == FleetKind.CLOUD:
        extra["storage_usd_per_gb_month"] = spec.storage_usd_per_gb_month[f.provider]
    return Option(**({"name": "plan", "inference_offer": f.offer_id} | extra | kw))


def resolved(ctx: Ctx, opt: Option, with_training: bool) -> ResolvedOption:
    """The engine's resolution of one option (egress, storage and tax look-ups); raises InputError."""
    s = ctx.s if with_training else ctx.s.model_copy(update={"training": Training(method="none")})
    return resolve(s.model_copy(update={"options": [opt]}), ctx.cat)[1][0]


def serving_size(ctx: Ctx, f: Fleet) -> sizing.ReplicaSize | str:
    """The engine's replica for this offer, or why the offer cannot serve (memory, per-user speed)."""
    key = _server(ctx, f)
    if key not in ctx.replicas:
        ctx.replicas[key] = _serving_size(ctx, f)
    return ctx.replicas[key]


def _serving_size(ctx: Ctx, f: Fleet) -> sizing.ReplicaSize | str:
    why = sizing.serving_precision_problem(f.gpu, ctx.s.model.precision, ctx.s.model.kv_precision,
                                           ctx.cat.gpus.values())
    if why is not None:
        return why
    rep = replica_for(f, ctx.s, ctx.model, ctx.eff, ctx.cat)
    if rep is None:
        return f"the model does not fit on {f.gpus_per_server} × {f.gpu.gpu}"
    if not rep.target_met:
        return (f"{f.gpu.gpu} reaches {rep.tokens_per_second_per_user:.1f} tokens/s per user, below the "
                f"{ctx.s.inference.tokens_per_second_per_user:g} asked")
    return rep


def _server(ctx: Ctx, f: Fleet) -> tuple:
    """What a fleet's replica depends on besides the scenario (engine.replica_for): the GPU, the GPUs of a server and
    the network between servers (the catalog's rows, which the context holds)."""
    return id(f.gpu), f.gpus_per_server, id(ctx.cat.network_for(f.offer_id))


def prime_serving(ctx: Ctx, fleets: list[Fleet]) -> None:
    """Size the single-server layouts of every server not sized yet in one evaluation (sizing.prime_inference),
    before ``serving_size`` asks for them one by one: the same values, from the cache."""
    first: dict = {}
    for f in fleets:
        first.setdefault(_server(ctx, f), f)
    todo = [f for key, f in first.items() if key not in ctx.replicas]
    sizing.prime_inference(ctx.model, [(f, ctx.cat.network_for(f.offer_id)) for f in todo], ctx.s, ctx.eff)


def training_problem(ctx: Ctx, f: Fleet) -> str | None:
    """Why the offer cannot train at the scenario's precision (no such tensor cores, no catalog MFU), or None."""
    tr = ctx.s.training
    if tr.gpu_hours is not None:
        return None
    return sizing.training_problem(f.gpu, tr.precision, ctx.dflt["training_mfu"], ctx.cat.gpus.values(),
                                   tr.mfu is not None)


def training_size(ctx: Ctx, f: Fleet) -> sizing.TrainingSize:
    mfu = ctx.s.training.mfu if ctx.s.training.mfu is not None else ctx.dflt["mfu"]
    return training_for(f, ctx.s, ctx.model, mfu, ctx.dflt)


def zero_cloud(f: Fleet) -> Fleet:
    """A free cloud fleet on the same hardware: costs nothing, so a component carries only the other fleet."""
    return replace(f, kind=FleetKind.CLOUD, currency=Currency.USD, price=0.0, pricing=ON_DEMAND, setup_fee_brl=0.0,
                   min_term_months=0, upfront_usd=0.0, upfront_term_months=0)


def skip(ctx: Ctx, f: Fleet, role: str, reason: str) -> None:
    ctx.skipped.append({"offer": f.offer_id, "pricing": f.pricing, "role": role, "reason": reason})


def serving_modes(ctx: Ctx, f: Fleet) -> tuple[list[PlanMode], str]:
    """How the serving fleet may run on this (offer, pricing): the modes the search tries, and why it tries none
    when that needs telling ("" otherwise). Records nothing: ``costing.serving_comps`` records the reason once."""
    if f.kind == FleetKind.DEDICATED:
        return [PlanMode.DEDICATED], ""
    if is_capacity_block(f.pricing):
        return [], ""
    if is_spot(f.pricing):
        return ([PlanMode.AUTOSCALED] if ctx.spec.spot_for_serving else []), ""
    if f.pricing == ON_DEMAND:
        return [PlanMode.AUTOSCALED], ""
    if is_committed(f.pricing):
        term = commitment_term_months(f.pricing)
        if term is not None and term > ctx.h:
            return [], f"a {term}-month commitment is longer than the {ctx.h}-month horizon"
        return [PlanMode.COMMITTED_ALL_MONTH, PlanMode.COMMITTED_BASELINE], ""
    return [], ""


def check_resolves(ctx: Ctx, f: Fleet, role: str, opt: Option, with_training: bool) -> ResolvedOption | None:
    try:
        return resolved(ctx, opt, with_training)
    except InputError as exc:
        skip(ctx, f, role, "; ".join(p.message for p in exc.problems))
        return None

