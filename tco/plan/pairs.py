"""Each (training, serving) pair's month as the engine makes it: the pair's lines, the engine's tax rules on them,
the lines converted and added in the ledger's order.

The engine costs an option in three steps: its fleet rules make its lines in their currencies
(``costs.option_costs``), its tax rules make the taxes line from them (``costs_taxes.option_taxes``, which also
nets a dedicated invoice's lines), and each line converted at the month's rate is added in ``LINES`` order
(``ledger.in_brl``, ``ledger.month_total``). A pair is an option whose training line comes from its training
component and every other line from its serving component (``costing``: each is costed by the engine with the
other fleet free, so each of the pair's lines is one component's line plus a zero, or the two setup fees added as
the setup rule adds them). ``pair_months`` adds the components' lines, then runs the engine's last two steps over
(pairs × months): the pairs with the same tax rules (``costs_taxes.tax_plan_of``) in one evaluation of those
rules (``costs_taxes.stacked_taxes``), each pair with the rates and credit flags of its own tax profile
(``costs_taxes.tax_block`` of the engine's resolution of the pair: one per provider, region and kind of each
fleet, as billing follows the provider's entity for a region). Each pair's month is the engine's to the bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.costs import taxes as taxmod
from tco.costs import line_currency
from tco.costs.option_taxes import TaxBlock, TaxPlan, net_lines, stacked_taxes, tax_block, tax_plan_of
from tco.domain import LINES, CostLine, FleetKind
from tco.ledger import in_brl, month_total
from tco.plan.components import Comp, Ctx, _option, resolved
from tco.resolve import Fleet, ResolvedOption


@dataclass(frozen=True)
class Pairs:
    """Every (training, serving) pair's months, and the engine's resolution its taxes come from."""

    monthly: np.ndarray
    """Each pair's monthly total, (training, serving, month) [BRL]."""
    probe: np.ndarray
    """Index in `probes` of each pair's resolution, (training, serving)."""
    probes: list[ResolvedOption]


def tax_provider(t: Comp | None, i: Comp) -> Fleet:
    """The fleet whose provider's tax profile an option uses: the serving fleet if it is cloud, else the training."""
    return i.fleet if i.fleet.kind == FleetKind.CLOUD or t is None else t.fleet


def probe(ctx: Ctx, t: Comp | None, i: Comp) -> ResolvedOption:
    """The engine's resolution of the pair's option, at unit prices: what its taxes need (profiles, regime, rates by
    month, the currency of each line), which depend only on the provider, region and kind of each fleet."""
    kw = {"usd_per_hour": 1.0, "storage_usd_per_gb_month": 0.0, "egress": "none/dedicated", "autoscale": False}
    if t is not None:
        kw |= {"training_offer": t.fleet.offer_id, "training_usd_per_hour": 1.0}
    opt = _option(i.fleet, ctx, **kw)
    tp = tax_provider(t, i)
    if tp.provider in ctx.spec.taxes:
        opt = opt.model_copy(update={"taxes": ctx.spec.taxes[tp.provider]})
    return resolved(ctx, opt, t is not None)


def uplift_share(ctx: Ctx, r: ResolvedOption) -> float:
    """Net taxes on one unit of USD taxed in the first month, by the pair's USD profile [-]: the plan's
    ``tax_uplift_share``, a description (the pair's taxes are those of ``pair_months``)."""
    rates = r.tax_rates or taxmod.rates_by_month(r.tax, [""] * ctx.h)
    return float(taxmod.total(taxmod.components(np.ones(ctx.h), r.tax, rates, r.regime))[0])


def comp_month(ctx: Ctx, c: Comp) -> np.ndarray:
    """A whole plan's monthly total (a shared fleet, its lines after taxes) as the engine adds them [BRL]."""
    return month_total((in_brl(c.lines[j], c.currency[j], ctx.fx) for j in range(len(LINES))), ctx.h)


def _fleet_key(c: Comp | None) -> tuple:
    return () if c is None else (c.fleet.provider, c.fleet.region, c.fleet.kind)


def _ids(keys: list[tuple]) -> tuple[np.ndarray, list[int]]:
    """Each item's group number, and the first item of each group."""
    seen: dict[tuple, int] = {}
    ids = np.array([seen.setdefault(k, len(seen)) for k in keys], dtype=int)
    return ids, [keys.index(k) for k in seen]


@dataclass(frozen=True)
class _Part:
    """The pairs of one resolution: their lines (pairs, line, month) and where they sit."""

    block: TaxBlock
    lines: np.ndarray
    a: np.ndarray
    b: np.ndarray


def pair_months(ctx: Ctx, T: list[Comp | None], Iv: list[Comp]) -> Pairs:
    """Every pair's month (``Pairs``): lines added, taxed by the engine's rules, converted and added."""
    h = ctx.h
    TL = np.stack([t.lines if t is not None else np.zeros((len(LINES), h)) for t in T])
    IL = np.stack([i.lines for i in Iv]) if Iv else np.zeros((0, len(LINES), h))
    t_ids, t_first = _ids([_fleet_key(t) for t in T])
    i_ids, i_first = _ids([_fleet_key(i) for i in Iv])
    probes: list[ResolvedOption] = []
    buckets: dict[tuple, list[_Part]] = {}
    for kt, ta in enumerate(t_first):
        for ki, ib in enumerate(i_first):
            A, B = np.nonzero(t_ids == kt)[0], np.nonzero(i_ids == ki)[0]
            a, b = np.repeat(A, len(B)), np.tile(B, len(A))
            r = probe(ctx, T[ta], Iv[ib])
            probes.append(r)
            lines = TL[a] + IL[b]
            currency = line_currency(r)
            live = tuple(k for j, k in enumerate(LINES) if k != CostLine.TAXES and np.any(lines[:, j] != 0))
            plan_ = tax_plan_of(r, live, currency)
            key = (plan_, tuple(currency[k] for k in LINES))
            buckets.setdefault(key, []).append(_Part(tax_block(r, plan_, h), lines, a, b))
    monthly = np.empty((len(T), len(Iv), h))
    for (plan_, currency), parts in buckets.items():
        monthly[np.concatenate([p.a for p in parts]), np.concatenate([p.b for p in parts])] = \
            _taxed_months(ctx, plan_, dict(zip(LINES, currency)), parts)
    probe_of = t_ids[:, None] * len(i_first) + i_ids[None, :]
    return Pairs(monthly, probe_of, probes)


def _taxed_months(ctx: Ctx, plan_: TaxPlan, currency: dict[str, str], parts: list[_Part]) -> np.ndarray:
    """The monthly totals of pairs with the same tax rules, (pairs, month) [BRL]: their taxes in one evaluation,
    their netted lines, every line converted and added as the engine does."""
    stacked = np.concatenate([p.lines for p in parts])
    lines = {k: np.ascontiguousarray(stacked[:, j]) for j, k in enumerate(LINES)}
    rows = stacked_taxes(plan_, [p.block for p in parts], [len(p.a) for p in parts], lines, ctx.h)
    lines[CostLine.TAXES] = rows["l_taxes"]
    net_lines(plan_, rows, lines)
    currency = currency | {CostLine.TAXES: plan_.currency}
    return month_total((in_brl(lines[k], currency[k], ctx.fx) for k in LINES), ctx.h)
