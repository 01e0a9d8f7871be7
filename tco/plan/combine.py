"""Combine components over every candidate with numpy, and describe the best plans as plain data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco import taxes as taxmod
from tco.catalog import Catalog
from tco.errors import InputError, Problem
from tco.plan.precheck import precheck
from tco.plan.components import (
    Comp,
    Ctx,
    _option,
    context,
    offers,
    resolved,
    training_size,
)
from tco.plan.costing import serving_comps, shared_comps, training_comps
from tco.scenario import Scenario
from tco.domain import FleetKind, FleetMode, PlanMode, Role, TaxMethod, TrainingMethod

NO_TRAINING = None


def _tax_provider(t: Comp | None, i: Comp):
    """The fleet whose provider's tax profile an option uses: the serving fleet if it is cloud, else the training."""
    return i.fleet if i.fleet.kind == FleetKind.CLOUD or t is None else t.fleet


def tax_shares(ctx: Ctx, r) -> tuple[np.ndarray, np.ndarray]:
    """(taxes on the USD lines, credit on the BRL lines) as shares of each, month by month [-], for the engine's
    resolution `r` of a pair (``costs.option_taxes``): the USD lines carry the net taxes of the cloud provider's
    profile (IRRF … IOF, less the regime's credits); a BRL invoice with its taxes inside costs its price less the
    credits the regime takes back."""
    ones = np.ones(ctx.h)
    usd = taxmod.total(taxmod.components(ones, r.tax, r.tax_rates or taxmod.rates_by_month(r.tax, [""] * ctx.h),
                                         r.regime))
    brl = np.zeros(ctx.h)
    if r.brl_tax is not None and r.brl_tax.method != TaxMethod.NONE:
        rates = r.brl_tax_rates or taxmod.rates_by_month(r.brl_tax, [""] * ctx.h)
        brl = np.broadcast_to(taxmod.credit_share(r.brl_tax, rates, r.regime), (ctx.h,)).astype(float)
    return usd, brl


def _pair_uplift(ctx: Ctx, T: list[Comp | None], Iv: list[Comp]) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
    """Tax shares by month of each (training, serving) pair (``tax_shares``), from the engine's resolution of a
    probe option (cached per provider, region and kind of each fleet: billing follows the provider's entity for a
    region). Shapes (training, serving, month)."""
    cache: dict = {}
    U = np.zeros((len(T), len(Iv), ctx.h))
    C = np.zeros((len(T), len(Iv), ctx.h))
    ids = [["" for _ in Iv] for _ in T]
    for a, t in enumerate(T):
        for b, i in enumerate(Iv):
            key = ((t.fleet.provider, t.fleet.region, t.fleet.kind) if t else ()) + (
                i.fleet.provider, i.fleet.region, i.fleet.kind)
            if key not in cache:
                kw = {"usd_per_hour": 1.0, "storage_usd_per_gb_month": 0.0, "egress": "none/dedicated",
                      "autoscale": False}
                if t is not None:
                    kw |= {"training_offer": t.fleet.offer_id, "training_usd_per_hour": 1.0}
                opt = _option(i.fleet, ctx, **kw)
                tp = _tax_provider(t, i)
                if tp.provider in ctx.spec.taxes:
                    opt = opt.model_copy(update={"taxes": ctx.spec.taxes[tp.provider]})
                r = resolved(ctx, opt, t is not None)
                cache[key] = (*tax_shares(ctx, r), r.tax.profile_id)
            U[a, b], C[a, b], ids[a][b] = cache[key]
    return U, C, ids


def search(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None) -> dict:
    """Every plan the catalog allows for this scenario; the best per provider, the best hybrid and the
    best overall, with the runner-up and the margin. Raises InputError for a bad [plan] section, a scenario no
    offer can serve or a search too large (``precheck``, which runs first)."""
    precheck(s, cat, file=file, lines=lines)
    ctx = context(s, cat, file)
    fleets = offers(ctx)
    Tx, Iv, S = _components(ctx, fleets, file, lines)
    sc = _score(ctx, Tx, Iv, S)
    by_group = _best_by_group(ctx, sc)
    if not by_group:
        raise InputError([Problem(file, "plan", "no plan fits: every training or serving offer within [plan] was "
                                  "skipped (see `python -m tco plan`)", (lines or {}).get(("plan",)))])
    bests = sorted(by_group.values(), key=lambda v: v["best"]["tco_brl"])
    overall = {"best": bests[0]["best"], **_margin(bests[0]["best"], bests[1]["best"] if len(bests) > 1 else None),
               "runner_up": bests[1]["best"] if len(bests) > 1 else None}
    return {"search": {"candidates": sc.covered, "providers": sorted({f.provider for f in fleets}),
                       "brazil_only": ctx.spec.brazil_only, "hybrids": ctx.spec.hybrids,
                       "spot_for_serving": ctx.spec.spot_for_serving,
                       "training_components": len(Tx) if s.training.method != TrainingMethod.NONE else 0,
                       "serving_components": len(Iv), "shared_plans": len(S),
                       "skipped": sorted(ctx.skipped, key=lambda d: (d["offer"], d["pricing"], d["role"]))},
            "by_provider": by_group, "hybrid": by_group.get("hybrid", {}).get("best"), "overall": overall}


def _components(ctx: Ctx, fleets, file: str, lines: dict | None
                ) -> tuple[list[Comp | None], list[Comp], list[Comp]]:
    """(training bursts — [NO_TRAINING] when the scenario does not train —, serving fleets, shared fleets)."""
    with_training = ctx.s.training.method != TrainingMethod.NONE
    tsize_any = training_size(ctx, fleets[0]) if with_training and fleets else None
    Iv, rep_any = serving_comps(ctx, fleets, tsize_any)
    T = training_comps(ctx, fleets, rep_any) if with_training and rep_any is not None else []
    S = shared_comps(ctx, fleets)
    if not Iv and not S:
        raise InputError([Problem(file, "plan", "no plan fits: no offer within [plan] can serve the model at the "
                                  "per-user speed asked (see the skipped offers with `python -m tco plan`)",
                                  (lines or {}).get(("plan",)))])
    if with_training and not T:
        Iv = []
    return (list(T) if with_training else [NO_TRAINING]), Iv, S


@dataclass(frozen=True)
class _Scores:
    """Every candidate plan, flattened: the training × serving pairs (row-major), then the shared fleets."""

    Tx: list[Comp | None]
    Iv: list[Comp]
    S: list[Comp]
    U: np.ndarray
    """Tax share on the USD lines of each pair, by month (training, serving, month) [-]."""
    tax_ids: list[list[str]]
    tco: np.ndarray
    """TCO of each candidate [BRL]; inf for a pair the [plan] does not allow (a hybrid when hybrids are off)."""
    npv: np.ndarray
    group: np.ndarray
    """Provider of each candidate, or "hybrid"."""
    combos: np.ndarray
    """Candidate plans each one stands for (every level of a committed baseline; 0 when not allowed)."""
    covered: int
    """The plans covered (the limit bounds those scored: precheck)."""

    @property
    def pairs(self) -> int:
        return len(self.Tx) * len(self.Iv)


def _score(ctx: Ctx, Tx: list[Comp | None], Iv: list[Comp], S: list[Comp]) -> _Scores:
    """TCO and NPV of every (training, serving) pair, month by month as the engine adds its lines (BRL less its
    credit + (1 + tax share) × USD converted), and of every shared fleet."""
    U, C, tax_ids = (_pair_uplift(ctx, Tx, Iv) if Iv
                     else (np.zeros((len(Tx), 0, ctx.h)), np.zeros((len(Tx), 0, ctx.h)), [[] for _ in Tx]))
    zero = np.zeros((1, ctx.h))
    trains = Tx != [NO_TRAINING]
    TB, TU = (np.array([getattr(t, k) for t in Tx]).reshape(len(Tx), ctx.h) if trains else zero for k in ("brl", "usd"))
    IB, IU = (np.array([getattr(i, k) for i in Iv]).reshape(len(Iv), ctx.h) for k in ("brl", "usd"))
    combos = np.array([i.combos for i in Iv], dtype=float)
    brl = TB[:, None, :] + IB[None, :, :]
    monthly = brl - C * brl + (1.0 + U) * (TU[:, None, :] + IU[None, :, :])
    tco, npv = monthly.sum(axis=-1), monthly @ ctx.disc
    tprov = np.array([t.fleet.provider if t else "" for t in Tx], dtype=object)
    iprov = np.array([i.fleet.provider for i in Iv], dtype=object)
    same = (tprov[:, None] == iprov[None, :]) | (tprov[:, None] == "")
    valid = same | ctx.spec.hybrids
    whole = [c.brl + c.usd + c.taxes for c in S]
    return _Scores(
        Tx, Iv, S, U, tax_ids,
        tco=np.concatenate([np.where(valid, tco, np.inf).ravel(), [float(m.sum()) for m in whole]]),
        npv=np.concatenate([npv.ravel(), [float(m @ ctx.disc) for m in whole]]),
        group=np.concatenate([np.where(same, iprov[None, :], "hybrid").ravel(),
                              np.array([c.fleet.provider for c in S], dtype=object)]),
        combos=np.concatenate([np.broadcast_to(combos[None, :], tco.shape).ravel() * valid.ravel(), np.ones(len(S))]),
        covered=int((valid * combos[None, :]).sum()) + len(S))


def _best_by_group(ctx: Ctx, sc: _Scores) -> dict:
    """Per provider (and "hybrid"): the best plan, the runners-up up to [plan] show, the plans covered, the margin."""
    by_group = {}
    for g in sorted(set(sc.group.tolist())):
        idx = np.nonzero((sc.group == g) & np.isfinite(sc.tco))[0]
        if not len(idx):
            continue
        order = idx[np.argsort(sc.tco[idx], kind="stable")]
        costs = np.round(sc.tco[order], 2)  # plans within a centavo are the same plan in other words
        keep = order[np.concatenate([[True], costs[1:] != costs[:-1]])]
        top = [_describe(ctx, sc, int(k)) for k in keep[:ctx.spec.show]]
        by_group[g] = {"best": top[0], "runners_up": top[1:], "candidates": int(sc.combos[idx].sum()),
                       **_margin(top[0], top[1] if len(top) > 1 else None)}
    return by_group


def _describe(ctx: Ctx, sc: _Scores, k: int) -> dict:
    """Candidate k as a plan (``_plan``)."""
    if k < sc.pairs:
        a, b = divmod(k, len(sc.Iv))
        return _plan(ctx, sc.Tx[a], sc.Iv[b], float(sc.tco[k]), float(sc.npv[k]), sc.tax_ids[a][b],
                     float(sc.U[a, b, 0]))
    c = sc.S[k - sc.pairs]
    return _plan(ctx, None, c, float(sc.tco[k]), float(sc.npv[k]), c.tax_profile, None)


def _margin(best: dict, runner: dict | None) -> dict:
    if runner is None:
        return {"margin_brl": None, "margin_share": None}
    m = runner["tco_brl"] - best["tco_brl"]
    return {"margin_brl": m, "margin_share": m / best["tco_brl"] if best["tco_brl"] else None}


def _fleet_dict(c: Comp) -> dict:
    f = c.fleet
    return {"offer": f.offer_id, "provider": f.provider, "region": f.region, "kind": f.kind, "gpu": f.gpu.gpu,
            "gpus_per_server": f.gpus_per_server, "pricing": f.pricing, "price": f.price, "price_unit": f.price_unit,
            "status": f.price_status, "as_of": f.price_as_of}


def _plan(ctx: Ctx, t: Comp | None, i: Comp, tco: float, npv: float, tax_id: str, uplift: float | None) -> dict:
    """One plan as data, with the [[options]] table that re-runs it through the engine."""
    shared = i.role == Role.SHARED
    f = i.fleet
    opt: dict = {"inference_offer": f.offer_id, "fleet": FleetMode.SHARED if shared else FleetMode.SEPARATE,
                 "autoscale": i.mode == PlanMode.AUTOSCALED}
    if f.kind == FleetKind.CLOUD:
        opt["pricing"] = f.pricing
    if i.committed is not None:
        opt |= {"committed_instances": list(i.committed), "burst_pricing": i.burst_pricing}
    if shared and ctx.s.training.method != TrainingMethod.NONE:
        opt["training_offer"] = f.offer_id
        if f.kind == FleetKind.CLOUD:
            opt["training_pricing"] = f.pricing
    if t is not None:
        opt["training_offer"] = t.fleet.offer_id
        if t.fleet.kind == FleetKind.CLOUD:
            opt["training_pricing"] = t.fleet.pricing
    tp = i.fleet if shared else _tax_provider(t, i)
    if tp.provider in ctx.spec.taxes:
        opt["taxes"] = ctx.spec.taxes[tp.provider]
    if f.kind == FleetKind.CLOUD and f.provider in ctx.spec.storage_usd_per_gb_month:
        opt["storage_usd_per_gb_month"] = ctx.spec.storage_usd_per_gb_month[f.provider]
    group = f.provider if t is None or t.fleet.provider == f.provider else "hybrid"
    opt["name"] = _name(group, t, i)
    train = t if t is not None else (i if shared else None)
    return {
        "name": opt["name"], "group": group, "fleet": opt["fleet"], "tco_brl": tco, "npv_brl": npv,
        "tax_profile": tax_id, "tax_uplift_share": uplift,
        "training": None if train is None or train.training is None else _fleet_dict(train) | {
            "servers": train.training.servers, "wall_hours": train.training.wall_hours},
        "serving": _fleet_dict(i) | {"mode": i.mode, "committed_instances": list(i.committed) if i.committed else None,
                                     "burst_pricing": i.burst_pricing, "peak_instances": i.peak,
                                     "tensor_parallel": i.replica.tensor_parallel if i.replica else None,
                                     "tokens_per_second_per_user": i.replica.tokens_per_second_per_user
                                     if i.replica else None},
        "notes": sorted(set((t.notes if t else ()) + i.notes)),
        "option": opt,
    }


def _name(group: str, t: Comp | None, i: Comp) -> str:
    f = i.fleet
    serve = f.offer_id.split("/")[-1] + (f" {f.pricing}" if f.kind == FleetKind.CLOUD else "")
    if i.committed is not None:
        serve += f" × {'/'.join(str(k) for k in i.committed)} + {i.burst_pricing}"
    elif i.mode == PlanMode.AUTOSCALED:
        serve += " autoscaled"
    if i.role == Role.SHARED:
        return f"Plan {group}: shared {serve} ({f.region})"
    if t is None:
        return f"Plan {group}: serve {serve} ({f.region})"
    tf = t.fleet
    train = tf.offer_id.split("/")[-1] + (f" {tf.pricing}" if tf.kind == FleetKind.CLOUD else "")
    return f"Plan {group}: train {train} ({tf.region}), serve {serve} ({f.region})"


def versus(plans: dict, options: list[tuple[str, float]]) -> dict:
    """The best plan against the cheapest option the user wrote (deterministic TCOs) [BRL]."""
    name, tco = min(options, key=lambda o: o[1])
    best = plans["overall"]["best"]
    return {"cheapest_option": name, "cheapest_option_tco_brl": tco, "best_plan": best["name"],
            "best_plan_tco_brl": best["tco_brl"], "best_plan_saving_brl": tco - best["tco_brl"]}
