"""Cost each component once, with the engine's own cost function, and the committed-baseline ladder
over every level (in chunks of LADDER_CHUNK levels at once)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from tco.costs import committed_levels
from tco.domain import (
    LINES,
    ON_DEMAND,
    CostLine,
    FleetKind,
    FleetMode,
    Interconnect,
    PlanMode,
    TrainingMethod,
    commitment_term_months,
    is_capacity_block,
    is_committed,
    is_spot,
)
from tco.engine import option_costs_for
from tco.plan.components import (
    Comp,
    SKIP_STATUSES,
    Ctx,
    _option,
    allowed,
    check_resolves,
    serving_modes,
    serving_size,
    skip,
    training_problem,
    training_size,
    zero_cloud,
)
from tco.resolve.fleet import fleet_of

FREE_EGRESS = "none/dedicated"


def gross(oc) -> dict:
    """An option's lines before taxes (the rows of ``fleet_rules.plan``): a dedicated invoice's lines still hold
    the taxes inside its price, which the pair's tax rules (``pairs``) then move out, as the engine's do."""
    return {k: oc.rows[f"l_{k}"] for k in oc.lines}


def stacked(by_line: dict, currency: dict) -> tuple[np.ndarray, tuple[str, ...]]:
    """(lines by month in ``LINES`` order, (line, month), each in its currency; the currency of each line)."""
    return np.stack([np.asarray(by_line[k], dtype=float) for k in LINES]), tuple(currency[k] for k in LINES)


def training_comps(ctx: Ctx, fleets, rep_any) -> list[Comp]:
    """A training burst on each offer: cloud on demand, spot or a capacity block; dedicated for its term."""
    out = []
    for f in fleets:
        if f.kind == FleetKind.CLOUD and is_committed(f.pricing) and not is_capacity_block(f.pricing):
            continue  # a 1- or 3-year commitment for a burst is rejected by the engine
        kw = {"training_offer": f.offer_id, "egress": FREE_EGRESS, "storage_usd_per_gb_month": 0.0,
              "usd_per_hour": 1.0, "autoscale": False}
        if f.kind == FleetKind.CLOUD:
            kw["training_pricing"] = f.pricing
        r = check_resolves(ctx, f, "training", _option(f, ctx, **kw), True)
        if r is None:
            continue
        why = training_problem(ctx, f)
        if why is not None:
            skip(ctx, f, "training", why)
            continue
        tsize = training_size(ctx, f)
        if tsize.servers > 1 and f.gpu.interconnect != Interconnect.NVLINK:
            skip(ctx, f, "training", f"the job would span {tsize.servers} servers linked by {f.gpu.interconnect}; "
                 "the network between servers is not modelled (see the engine's warning)")
            continue
        oc = option_costs_for(replace(r, inference=zero_cloud(r.inference)), ctx.s, tsize, rep_any, ctx.days,
                              ctx.rps, ctx.egress)
        notes = tuple(n.code for n in oc.notices if n.code in ("min_term_idle", "min_term_past_horizon",
                                                                  "training_past_horizon"))
        if is_spot(f.pricing):
            notes += (("the training burst runs on spot capacity, which can be reclaimed: the job must checkpoint, "
                       "and interruptions are not costed"),)
        out.append(Comp("training", f, PlanMode.BURST, *stacked(gross(oc), oc.currency), servers=tsize.servers,
                        training=tsize, notes=notes))
    return out


def _serving_option(ctx: Ctx, f, mode: str):
    kw: dict = {"autoscale": mode == PlanMode.AUTOSCALED}
    if f.kind == FleetKind.CLOUD:
        kw["pricing"] = f.pricing
    if _trains(ctx):
        kw |= {"training_offer": f.offer_id, "training_usd_per_hour": 1.0, "training_brl_per_month": 1.0}
    return _option(f, ctx, **kw)


def serving_comps(ctx: Ctx, fleets, tsize_any) -> tuple[list[Comp], object]:
    """A serving fleet on each offer in each mode it allows; (components, a replica for burst-only costing)."""
    out, rep_any = [], None
    for f in fleets:
        modes, why_none = serving_modes(ctx, f)
        if why_none:
            skip(ctx, f, "serving", why_none)
        if not modes:
            continue
        rep = serving_size(ctx, f)
        if isinstance(rep, str):
            skip(ctx, f, "serving", rep)
            continue
        rep_any = rep_any or rep
        out += _serving_modes_of(ctx, f, modes, rep, tsize_any)
    return out, rep_any


def _serving_modes_of(ctx: Ctx, f, modes: list[PlanMode], rep, tsize_any) -> list[Comp]:
    """The serving components of one offer, mode by mode (a committed baseline after the commitment it ladders)."""
    out = []
    base = None
    for mode in modes:
        if mode == PlanMode.COMMITTED_BASELINE:
            comp = _ladder(ctx, f, base, rep)
            out += [comp] if comp is not None else []
            continue
        r = check_resolves(ctx, f, "serving", _serving_option(ctx, f, mode), _trains(ctx))
        if r is None:
            break
        if r.training is not None:
            r = replace(r, training=zero_cloud(r.training))
        oc = option_costs_for(r, ctx.s, tsize_any, rep, ctx.days, ctx.rps, ctx.egress)
        base = (r, oc)
        out.append(Comp("serving", f, mode, *stacked(gross(oc), oc.currency),
                        peak=int(oc.inference_servers.max(initial=0)), replica=rep))
    return out


def _trains(ctx: Ctx) -> bool:
    return ctx.s.training.method != TrainingMethod.NONE


def _ladder(ctx: Ctx, f, base, rep) -> Comp | None:
    """The committed baseline: k instances per term at the commitment, hours above k at on demand. Every
    level k is costed at once by the baseline's own rules (``costs.committed_levels``); the best level of each term
    is kept (the terms are separable: a term's level changes only that term's months)."""
    if base is None:
        return None
    burst = fleet_of(ctx.cat, f.offer_id, ON_DEMAND, None, None, None, None, "", [], "", None)
    if burst is None or burst.price_status in SKIP_STATUSES or not allowed(ctx.spec, ON_DEMAND):
        return None
    r, oc = base
    h, first = ctx.h, ctx.s.inference.start_month
    by_hour = oc.servers_by_hour
    term = commitment_term_months(f.pricing) or h
    baseline = replace(r, committed=(0,), burst=burst, commit_term_months=term)
    blocks = [slice(start, min(start + term, h)) for start in range(first - 1, h, term)]
    tops = [int(by_hour[b].max(initial=0)) for b in blocks]
    best = _best_levels(lambda lv: committed_levels(baseline, oc, lv[:, None]) * ctx.fx, blocks, tops)
    combos = math.prod(top + 1 for top in tops)
    committed = tuple(best)
    line = committed_levels(baseline, oc, np.array([committed], dtype=float))[0]
    by_line = gross(oc) | {CostLine.INFERENCE_COMPUTE: line}
    return Comp("serving", f, PlanMode.COMMITTED_BASELINE, *stacked(by_line, oc.currency), combos=combos,
                committed=committed, burst_pricing=ON_DEMAND, peak=int(by_hour.max(initial=0)), replica=rep,
                notes=_past_horizon(first, term, h, best, f.upfront_usd))


LADDER_CHUNK = 50_000
"""Levels of a committed baseline costed in one numpy evaluation [levels]: the rules' arrays are levels × months (and
more per hour of the day), so the ladder is costed in chunks of this many levels and its memory stays flat (about
0.2 kB a level, 10 MB a chunk) however many servers the peak needs; the schema's max_candidates of 10^8 needed over
16 GB in one evaluation (review M4)."""


def _best_levels(cost, blocks: list[slice], tops: list[int]) -> list[int]:
    """Each term's cheapest level, 0 to its top: `cost(levels)` gives levels × months [BRL], evaluated LADDER_CHUNK
    levels at a time; the first of equal levels is kept, as np.argmin over all levels at once would."""
    best = [0] * len(blocks)
    low = [math.inf] * len(blocks)
    for a in range(0, max(tops, default=0) + 1, LADDER_CHUNK):
        b = min(a + LADDER_CHUNK, max(tops) + 1)
        chunk = cost(np.arange(a, b, dtype=float))
        for j, (block, top) in enumerate(zip(blocks, tops, strict=True)):
            if a > top:
                continue
            sums = chunk[:top + 1 - a, block].sum(axis=1)
            k = int(np.argmin(sums))
            if sums[k] < low[j]:
                best[j], low[j] = a + k, float(sums[k])
    return best


def _past_horizon(first: int, term: int, h: int, best: list[int], upfront: float) -> tuple[str, ...]:
    """A note when the last term of a baseline that commits something runs past the horizon."""
    over = (first - 1 + len(best) * term) - h
    if over <= 0 or best[-1] == 0:
        return ()
    past = ("its upfront is paid in full, its hours past the horizon are not costed" if upfront
            else "those months are not costed")
    return (f"the last {term}-month term runs {over} month(s) past the horizon; {past}",)


def shared_comps(ctx: Ctx, fleets) -> list[Comp]:
    """One fleet that trains and serves, kept all horizon, on each offer (whole plans, taxes included)."""
    if not _trains(ctx):
        return []
    out = []
    for f in fleets:
        if not [m for m in serving_modes(ctx, f)[0] if m != PlanMode.COMMITTED_BASELINE]:
            continue
        rep = serving_size(ctx, f)
        if isinstance(rep, str):
            continue
        kw = {"training_offer": f.offer_id, "fleet": FleetMode.SHARED, "autoscale": False}
        if f.kind == FleetKind.CLOUD:
            kw |= {"pricing": f.pricing, "training_pricing": f.pricing}
        r = check_resolves(ctx, f, "shared", _option(f, ctx, **kw), True)
        if r is None:
            continue
        why = training_problem(ctx, f)
        if why is not None:
            skip(ctx, f, "shared", why)
            continue
        tsize = training_size(ctx, f)
        oc = option_costs_for(r, ctx.s, tsize, rep, ctx.days, ctx.rps, ctx.egress)
        out.append(Comp("shared", f, PlanMode.SHARED, *stacked(oc.lines, oc.currency), servers=tsize.servers,
                        peak=int(oc.inference_servers.max(initial=0)), replica=rep, training=tsize,
                        tax_profile=r.tax.profile_id,
                        notes=tuple(n.code for n in oc.notices)))
    return out
