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
from tco.costs.single import inference_servers_by_hour
from tco.domain import FleetKind, PlanMode, TrainingMethod, commitment_term_months, is_capacity_block, is_committed
from tco.errors import InputError, Problem
from tco.plan.check import check
from tco.plan.components import Ctx, context, offers, prime_serving, serving_modes, serving_size
from tco.scenario import MAX_PLAN_CANDIDATES, Scenario


def no_fit(s: Scenario, file: str, lines: dict | None) -> Problem:
    """"No plan fits": no offer within [plan] serves the model at the targets asked, named with their values (the
    time to first token too, when the scenario sets one: it alone made a 405B scenario at 0.05 s fit nowhere, and the
    message spoke of the per-user speed and sent the user to `tco plan`, the command that said it)."""
    inf = s.inference
    ttft = getattr(inf, "time_to_first_token_seconds", None)
    targets = f"{inf.tokens_per_second_per_user:g} tokens/s per user" + (
        f" and a first token within {ttft:g} s" if ttft is not None else "")
    return Problem(file, "plan", f"no plan fits: no offer within [plan] can serve the model at {targets}; lower "
                   "the target" + ("s" if ttft is not None else "") + ", or widen plan.providers and plan.gpus",
                   (lines or {}).get(("plan",)))


def precheck(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None) -> int:
    """The number of plans the search would score (``scored``); raises InputError for a bad ``[plan]`` section,
    for a scenario no offer can serve, or for a search larger than ``plan.max_candidates``."""
    problems = check(s, cat, file, lines)
    if problems:
        raise InputError(problems)
    lines = lines or {}
    ctx = context(s, cat, file)
    parts = scored_parts(ctx)
    if parts is None:
        raise InputError([no_fit(s, file, lines)])
    n = sum(parts)
    if n > ctx.spec.max_candidates:
        raise InputError([_too_many(s, ctx.spec.max_candidates, parts, file, lines)])
    return n


def _too_many(s: Scenario, limit: int, parts: tuple[int, int, int], file: str, lines: dict) -> Problem:
    """The search is larger than max_candidates: what drove its size and what to do. Without a [plan] section the
    limit is a default the file does not show, so the problem names what to add and points at the users when the
    committed levels (which grow with the peak servers) are most of the count."""
    n = sum(parts)
    pairs, levels, _ = parts
    by_users = levels >= pairs
    why = (f"{levels:,} of them committed-baseline levels, which grow with the peak servers the users need"
           if by_users else f"{pairs:,} of them training × serving pairs of the catalog's offers")
    head = f"the plan search would score {n:,} plans ({why}), more than max_candidates ({limit:,})"
    raise_to = (f", or set max_candidates = {n:,} (at most {MAX_PLAN_CANDIDATES:,})" if n <= MAX_PLAN_CANDIDATES
                else f" (max_candidates is at most {MAX_PLAN_CANDIDATES:,})")
    narrow = "narrow it with providers = [...] or gpus = [...]"
    users = "; or reduce the users (inference.users)" if by_users else ""
    if s.plan is not None:
        return Problem(file, "plan.max_candidates", f"{head}; narrow plan.providers or plan.gpus{raise_to}{users}",
                       lines.get(("plan", "max_candidates")) or lines.get(("plan",)))
    key = ("inference", "users") if by_users else ("plan",)
    return Problem(file, ".".join(key), f"{head}, the default when the file has no [plan] section: add a [plan] "
                   f"section and {narrow}{raise_to}{users}", lines.get(key))


def scored(ctx: Ctx) -> int | None:
    """Plans the search scores (the sum of ``scored_parts``); None when no offer can serve."""
    parts = scored_parts(ctx)
    return None if parts is None else sum(parts)


def scored_parts(ctx: Ctx) -> tuple[int, int, int] | None:
    """Plans the search scores, in three parts: training bursts × serving fleets (each mode, a committed baseline
    once), every level of every term of each committed baseline, shared fleets; None when no offer can serve. An
    upper bound: offers the engine then refuses (a price it cannot resolve, a training cluster across PCIe servers)
    drop out."""
    fleets = offers(ctx)
    prime_serving(ctx, fleets)
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
    return bursts * serving, levels, shared


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

