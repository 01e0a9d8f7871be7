"""Combine components over every candidate with numpy, and describe the best plans (``tco.findings.Plan``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.catalog import Catalog
from tco.errors import InputError, Problem
from tco.plan_results import GroupPlans, OverallPlans, Plan, PlanSearch, ServingFleet, TrainingFleet
from tco.plan.precheck import no_fit, precheck
from tco.plan.components import (Comp, Ctx, accepted, constraints, context, offers, prime_serving, residency_ok,
                                 training_problem, training_size)
from tco.plan.costing import serving_comps, shared_comps, training_comps
from tco.plan.naming import CONTRACT_EN, of_plan, render
from tco.plan.pairs import Pairs, comp_month, pair_months, tax_provider, uplift_share
from tco.scenario import Scenario
from tco.domain import BRAZIL_REGIONS, FleetKind, FleetMode, PlanMode, Role, TrainingMethod

NO_TRAINING = None


def search(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None) -> PlanSearch:
    """Every plan the catalog allows for this scenario; the best per provider, the best hybrid and the
    best overall, with the runner-up and the margin. Raises InputError for a bad [plan] section, a scenario no
    offer can serve or a search too large (``precheck``, which runs first)."""
    precheck(s, cat, file=file, lines=lines)
    ctx = context(s, cat, file)
    fleets = offers(ctx)
    prime_serving(ctx, fleets)
    Tx, Iv, S = _components(ctx, fleets, file, lines)
    sc = _score(ctx, Tx, Iv, S)
    by_group = _best_by_group(ctx, sc)
    if not by_group:
        raise InputError([Problem(file, "plan", "no plan fits: every training or serving offer within [plan] was "
                                  "skipped (see `python -m tco plan`)", (lines or {}).get(("plan",)))])
    bests = sorted(by_group.values(), key=lambda v: v.best.tco_brl)
    runner = bests[1].best if len(bests) > 1 else None
    overall = OverallPlans(best=bests[0].best, runner_up=runner, **_margin(bests[0].best, runner))
    return PlanSearch(search={"candidates": sc.covered, "providers": sorted({f.provider for f in fleets}),
                       "coverage": coverage(ctx, fleets, by_group), "stand_ins": stand_ins(ctx, by_group),
                       "brazil_only": ctx.spec.brazil_only, "hybrids": ctx.spec.hybrids,
                       "spot_for_serving": ctx.spec.spot_for_serving,
                       "training_components": len(Tx) if s.training.method != TrainingMethod.NONE else 0,
                       "serving_components": len(Iv), "shared_plans": len(S),
                       "skipped": sorted(ctx.skipped, key=lambda d: (d["offer"], d["pricing"], d["role"]))},
                      by_provider=by_group, hybrid=by_group["hybrid"].best if "hybrid" in by_group else None,
                      overall=overall)


def coverage(ctx: Ctx, fleets, by_group: dict[str, GroupPlans]) -> list[dict]:
    """Every provider the catalog lists: its best plan's TCO, or why it has none (``reason``: 'plan_providers',
    'constraint_provider', 'constraint_residency', 'brazil_only', 'gpus', 'no_price', 'skipped'; ``detail``: the
    skipped offers' first reason)."""
    cat, spec = ctx.cat, ctx.spec
    c = constraints(ctx)
    every = sorted({o.provider for o in cat.cloud_offers.values()} | {o.provider for o in cat.dedicated_offers.values()})
    searched = {f.provider for f in fleets}
    out = []
    for p in every:
        row: dict = {"provider": p, "tco_brl": None, "reason": "", "detail": ""}
        if p in by_group:
            row["tco_brl"] = by_group[p].best.tco_brl
        elif spec.providers and p not in spec.providers:
            row["reason"] = "plan_providers"
        elif accepted(ctx) and p not in accepted(ctx):
            row["reason"] = "constraint_provider"
        elif p in searched and c is not None and c.data_in_brazil != "none" and not any(
                f.provider == p and f.region in BRAZIL_REGIONS for f in fleets):
            row["reason"] = "constraint_residency"
        elif p in searched:
            why = [d["reason"] for d in ctx.skipped if d["offer"].split("/")[0] == p]
            row["reason"], row["detail"] = "skipped", (why[0] if why else "")
        else:
            row["reason"] = "brazil_only" if spec.brazil_only else ("gpus" if spec.gpus else "no_price")
        out.append(row)
    return out


def stand_ins(ctx: Ctx, by_group: dict[str, GroupPlans]) -> list[dict]:
    """The stand-in egress and storage prices (catalog rows whose source starts 'STAND-IN') under each provider's
    best plan: the serving fleet's region, as the engine looks them up (``tco.resolve``)."""
    from tco.resolve import EGRESS_BY_PROVIDER, STORAGE_BY_PROVIDER

    out = []
    for g, v in sorted(by_group.items()):
        sv = v.best.serving
        if sv.kind != FleetKind.CLOUD:
            continue
        prov, region = sv.provider, sv.region
        eid = f"{EGRESS_BY_PROVIDER.get(prov, prov)}/{region}"
        e = ctx.cat.egress.get(eid)
        if e is not None and e.source.startswith("STAND-IN"):
            out.append({"provider": prov, "group": g, "what": "egress", "id": eid, "source": e.source})
        sid = f"{STORAGE_BY_PROVIDER.get(prov, prov)}/{region}"
        st = ctx.cat.storage.get(sid)
        if (st is not None and st.source.startswith("STAND-IN") and prov not in ctx.spec.storage_usd_per_gb_month
                and ctx.s.inference.storage_gb > 0):
            out.append({"provider": prov, "group": g, "what": "storage", "id": sid, "source": st.source})
    return out


def _components(ctx: Ctx, fleets, file: str, lines: dict | None
                ) -> tuple[list[Comp | None], list[Comp], list[Comp]]:
    """(training bursts — [NO_TRAINING] when the scenario does not train —, serving fleets, shared fleets)."""
    with_training = ctx.s.training.method != TrainingMethod.NONE
    trainable = [f for f in fleets if training_problem(ctx, f) is None] if with_training else []
    tsize_any = training_size(ctx, trainable[0]) if trainable else None
    Iv, rep_any = serving_comps(ctx, fleets, tsize_any)
    T = training_comps(ctx, fleets, rep_any) if with_training and rep_any is not None else []
    S = shared_comps(ctx, fleets)
    if not Iv and not S:
        raise InputError([no_fit(ctx.s, file, lines)])
    if with_training and not T:
        Iv = []
    return (list(T) if with_training else [NO_TRAINING]), Iv, S


@dataclass(frozen=True)
class _Scores:
    """Every candidate plan, flattened: the training × serving pairs (row-major), then the shared fleets."""

    Tx: list[Comp | None]
    Iv: list[Comp]
    S: list[Comp]
    pairs: Pairs
    """Each pair's months, as the engine makes them, and the resolution its taxes come from."""
    whole: list[np.ndarray]
    """Each shared fleet's months [BRL]."""
    tco: np.ndarray
    """TCO of each candidate [BRL]; inf for a pair the [plan] does not allow (a hybrid when hybrids are off)."""
    group: np.ndarray
    """Provider of each candidate, or "hybrid"."""
    combos: np.ndarray
    """Candidate plans each one stands for (every level of a committed baseline; 0 when not allowed)."""
    covered: int
    """The plans covered (the limit bounds those scored: precheck)."""

    @property
    def n_pairs(self) -> int:
        return len(self.Tx) * len(self.Iv)


def _score(ctx: Ctx, Tx: list[Comp | None], Iv: list[Comp], S: list[Comp]) -> _Scores:
    """TCO of every (training, serving) pair, its months as the engine makes them (``pairs.pair_months``), and of
    every shared fleet. The NPV of the plans described is their months discounted (``_describe``)."""
    pm = pair_months(ctx, Tx, Iv)
    tco = pm.monthly.sum(axis=-1)  # each pair's months summed as the engine sums one option's (bit for bit)
    combos = np.array([i.combos for i in Iv], dtype=float)
    tprov = np.array([t.fleet.provider if t else "" for t in Tx], dtype=object)
    iprov = np.array([i.fleet.provider for i in Iv], dtype=object)
    same = (tprov[:, None] == iprov[None, :]) | (tprov[:, None] == "")
    kept = np.array([[residency_ok(ctx, t.fleet.region if t else None, i.fleet.region) for i in Iv] for t in Tx],
                    dtype=bool).reshape(len(Tx), len(Iv))
    valid = (same | ctx.spec.hybrids) & kept
    S = [c for c in S if residency_ok(ctx, None, c.fleet.region)]
    whole = [comp_month(ctx, c) for c in S]
    return _Scores(
        Tx, Iv, S, pm, whole,
        tco=np.concatenate([np.where(valid, tco, np.inf).ravel(), [float(m.sum()) for m in whole]]),
        group=np.concatenate([np.where(same, iprov[None, :], "hybrid").ravel(),
                              np.array([c.fleet.provider for c in S], dtype=object)]),
        combos=np.concatenate([np.broadcast_to(combos[None, :], tco.shape).ravel() * valid.ravel(), np.ones(len(S))]),
        covered=int((valid * combos[None, :]).sum()) + len(S))


def _best_by_group(ctx: Ctx, sc: _Scores) -> dict[str, GroupPlans]:
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
        by_group[g] = GroupPlans(best=top[0], runners_up=tuple(top[1:]), candidates=int(sc.combos[idx].sum()),
                                 **_margin(top[0], top[1] if len(top) > 1 else None))
    return by_group


def _describe(ctx: Ctx, sc: _Scores, k: int) -> Plan:
    """Candidate k as a plan (``_plan``); its NPV is its months discounted, as the engine discounts an option's."""
    if k < sc.n_pairs:
        a, b = divmod(k, len(sc.Iv))
        r = sc.pairs.probes[int(sc.pairs.probe[a, b])]
        return _plan(ctx, sc.Tx[a], sc.Iv[b], float(sc.tco[k]), float(sc.pairs.monthly[a, b] @ ctx.disc),
                     r.tax.profile_id, uplift_share(ctx, r))
    c = sc.S[k - sc.n_pairs]
    return _plan(ctx, None, c, float(sc.tco[k]), float(sc.whole[k - sc.n_pairs] @ ctx.disc), c.tax_profile, None)


def _margin(best: Plan, runner: Plan | None) -> dict[str, float | None]:
    """The runner-up's extra cost over the best plan [BRL, share of the best's TCO]; None without a runner-up."""
    if runner is None:
        return {"margin_brl": None, "margin_share": None}
    m = runner.tco_brl - best.tco_brl
    return {"margin_brl": m, "margin_share": m / best.tco_brl if best.tco_brl else None}


def _fleet_fields(c: Comp) -> dict:
    """The fields of a plan's fleet (``PlanFleet``) from its component's fleet."""
    f = c.fleet
    return {"offer": f.offer_id, "provider": f.provider, "region": f.region, "kind": f.kind, "gpu": f.gpu.gpu,
            "gpus_per_server": f.gpus_per_server, "pricing": f.pricing, "price": f.price, "price_unit": f.price_unit,
            "status": f.price_status, "as_of": f.price_as_of}


def _plan(ctx: Ctx, t: Comp | None, i: Comp, tco: float, npv: float, tax_id: str, uplift: float | None) -> Plan:
    """One plan as data, with the [[options]] table that re-runs it through the engine; its name is its parts
    (``naming.of_plan``: its group, fleets and serving mode) in the JSON's English."""
    shared = i.role == Role.SHARED
    f = i.fleet
    group = f.provider if t is None or t.fleet.provider == f.provider else "hybrid"
    train = t if t is not None else (i if shared else None)
    mode = FleetMode.SHARED if shared else FleetMode.SEPARATE
    training = None if train is None or train.training is None else TrainingFleet(
        **_fleet_fields(train), servers=train.training.servers, wall_hours=train.training.wall_hours)
    serving = ServingFleet(**_fleet_fields(i), mode=i.mode, committed_instances=tuple(i.committed) if i.committed else None,
                           burst_pricing=i.burst_pricing, peak_instances=i.peak,
                           tensor_parallel=i.replica.tensor_parallel if i.replica else None,
                           tokens_per_second_per_user=i.replica.tokens_per_second_per_user if i.replica else None)
    name = render(of_plan({"group": group, "fleet": mode, "training": training.as_dict() if training else None,
                           "serving": serving.as_dict()}), CONTRACT_EN)
    return Plan(name=name, group=group, fleet=mode, tco_brl=tco, npv_brl=npv, tax_profile=tax_id,
                tax_uplift_share=uplift, training=training, serving=serving,
                notes=tuple(sorted(set((t.notes if t else ()) + i.notes))),
                option=_option_table(ctx, t, i) | {"name": name})


def _option_table(ctx: Ctx, t: Comp | None, i: Comp) -> dict:
    """The [[options]] table of a plan, but its name."""
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
    tp = i.fleet if shared else tax_provider(t, i)
    if tp.provider in ctx.spec.taxes:
        opt["taxes"] = ctx.spec.taxes[tp.provider]
    if f.kind == FleetKind.CLOUD and f.provider in ctx.spec.storage_usd_per_gb_month:
        opt["storage_usd_per_gb_month"] = ctx.spec.storage_usd_per_gb_month[f.provider]
    return opt


def versus(best: Plan, options: list[tuple[str, float]]) -> dict:
    """The best plan against the cheapest option the user wrote (deterministic TCOs) [BRL]."""
    name, tco = min(options, key=lambda o: o[1])
    return {"cheapest_option": name, "cheapest_option_tco_brl": tco, "best_plan": best.name,
            "best_plan_tco_brl": best.tco_brl, "best_plan_saving_brl": tco - best.tco_brl}
