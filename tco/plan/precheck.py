"""The plan search's input checks without the search: the ``[plan]`` section (``check``), whether any offer can
serve at all ("no plan fits"), and the size of the search against ``max_candidates``. ``validate`` runs these
instead of the search (tens of milliseconds); ``search`` runs them first.

What the limit bounds is what the search scores (``scored``): every training burst × every serving fleet in the
numpy grid, each level of each term of a committed baseline (the ladder finds each term's best level on its own:
the terms are separable, so their levels add, they do not multiply) and each shared fleet. The plans the search
stands for (``search.candidates`` in the JSON, the ladder's levels multiplied over its terms) may be far more.
"""

from __future__ import annotations

from tco.catalog import Catalog
from tco.costs_rules import inference_servers_by_hour
from tco.domain import FleetKind, PlanMode, TrainingMethod, commitment_term_months, is_capacity_block, is_committed
from tco.errors import InputError, Problem
from tco.plan.check import check
from tco.plan.components import Ctx, context, offers, serving_modes, serving_size
from tco.scenario import Scenario


def precheck(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None) -> int:
    """The number of plans the search would score (``scored``); raises InputError for a bad ``[plan]`` section,
    for a scenario no offer can serve, or for a search larger than ``plan.max_candidates``."""
    problems = check(s, cat, file, lines)
    if problems:
        raise InputError(problems)
    lines = lines or {}
    ctx = context(s, cat, file)
    n = scored(ctx)
    if n is None:
        raise InputError([Problem(file, "plan", "no plan fits: no offer within [plan] can serve the model at the "
                                  "per-user speed asked (see the skipped offers with `python -m tco plan`)",
                                  lines.get(("plan",)))])
    if n > ctx.spec.max_candidates:
        raise InputError([Problem(file, "plan.max_candidates", f"the search would score {n:,} plans (training × "
                                  f"serving pairs, committed levels, shared fleets), more than max_candidates "
                                  f"({ctx.spec.max_candidates:,}); narrow plan.providers or plan.gpus",
                                  lines.get(("plan", "max_candidates")) or lines.get(("plan",)))])
    return n


def scored(ctx: Ctx) -> int | None:
    """Plans the search scores: training bursts × serving fleets (each mode, a committed baseline once) + every
    level of every term of each committed baseline + shared fleets; None when no offer can serve. An upper bound:
    offers the engine then refuses (a price it cannot resolve, a training cluster across PCIe servers) drop out."""
    fleets = offers(ctx)
    with_training = ctx.s.training.method != TrainingMethod.NONE
    serving = levels = shared = 0
    servers_by_hour: dict = {}  # of each replica capacity: the offers of one hardware share them
    for f in fleets:
        modes = serving_modes(ctx, f)[0]
        if not modes:
            continue
        rep = serving_size(ctx, f)
        if isinstance(rep, str):
            continue
        serving += len(modes)
        shared += with_training
        if PlanMode.COMMITTED_BASELINE in modes:
            levels += ladder_levels(ctx, f, rep, servers_by_hour)
    if not serving:
        return None
    bursts = sum(1 for f in fleets if not (f.kind == FleetKind.CLOUD and is_committed(f.pricing)
                                           and not is_capacity_block(f.pricing))) if with_training else 1
    return bursts * serving + levels + shared


def ladder_levels(ctx: Ctx, f, rep, known: dict | None = None) -> int:
    """Levels the committed ladder on fleet `f` costs: Σ over its terms of (the term's peak servers + 1).
    ``known``: servers by hour already found, by (requests/s of a replica, replicas per server), all they depend
    on besides the scenario's demand, utilization and redundancy (``costs_rules.inference_servers_by_hour``)."""
    inf = ctx.s.inference
    known = {} if known is None else known
    key = (rep.requests_per_second, rep.replicas_per_server)
    if key not in known:
        known[key] = inference_servers_by_hour(ctx.rps, rep, inf.utilization_target_share, inf.redundancy)
    by_hour = known[key]
    term = commitment_term_months(f.pricing) or ctx.h
    return sum(int(by_hour[start:start + term].max(initial=0)) + 1 for start in range(inf.start_month - 1, ctx.h, term))

