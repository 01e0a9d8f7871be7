"""Decision analysis on top of the engine: break-evens, sensitivity (tornado), savings
decomposition and the separation of training and inference fleets.

The figures read from one run (FX break-even, paybacks, decomposition, hedging) are ``tco.analysis.figures``, the
sensitivity (tornado) ``tco.analysis.sensitivity``;
everything here re-runs the pure engine on modified scenarios; nothing is approximated by a grid.
A re-run costs only the options it compares (the engine costs each option on its own, so an option's
figures do not depend on which others are in the scenario), and each sensitivity variant is run once
for both tornados (``analysis_sensitivity.Variants``).
The FX break-even is exact: every USD/BRL path in the toolkit is proportional to the spot rate, so
an option's TCO is linear in it, TCO(S) = B + (S/S0)·U, and two options cross at
S* = S0·(B_d − B_c)/(U_c − U_d). The users break-even is bracketed on a scale factor of the growth
curve and bisected (costs are step functions of whole servers, so the answer is the smallest
scale at which the ranking has flipped, to 0.1 %).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco.analysis.figures import (  # noqa: F401  (re-exported: the figures of one run)
    EGRESS_CLAIM_RANGE, _split, decomposition, fx_breakevens, hedging, paybacks,
)
from tco.analysis.sensitivity import (  # noqa: F401  (re-exported: the sensitivity and the re-run helpers)
    SENSITIVITY, Variants, kind_pair, leaders, only, rerun, scale_users, scaled_fx, scaled_prices, scaled_taxes,
    tornado, totals, variant,
)
from tco.domain import FleetKind, FleetMode, FxModel, TrainingMethod
from tco.engine import Results
from tco.findings import Analysis, Breakevens, SeparationRow, Sensitivity, UsersBreakeven

# ---------------------------------------------------------------------------------------------
# break-evens


def users_breakeven(res: Results, lo: float = 0.02, hi: float = 50.0) -> UsersBreakeven | None:
    """Scale of the growth curve at which the two leading options swap places."""
    a, b = leaders(res)
    if b is None:
        return None
    s = res.scenario

    seen: dict[float, float] = {}

    def diff(f: float) -> float:  # memoised: the bisection asks again for its bracket's ends
        if f not in seen:
            t = totals(rerun(res, scale_users(s, f), {a.name, b.name}))
            seen[f] = t[a.name] - t[b.name]
        return seen[f]

    # bracket: the leader is cheaper at f = 1 (diff <= 0); look for a scale where it is not
    grid = np.geomspace(lo, hi, 25)
    below = [f for f in grid if f < 1][::-1]
    above = [f for f in grid if f > 1]
    for side in (above, below):
        prev = 1.0
        for f in side:
            if diff(f) > 0:
                f_star, f_not = _flip_bracket(diff, *sorted((prev, f)))
                base_users = float(res.users.max())
                return UsersBreakeven(leader=a.name, challenger=b.name, users_scale=f_star,
                                      peak_users=base_users * f_star, base_peak_users=base_users,
                                      direction="more users" if f > 1 else "fewer users", unflipped_scale=f_not)
            prev = f
    return UsersBreakeven(leader=a.name, challenger=b.name, users_scale=None, peak_users=None,
                          base_peak_users=float(res.users.max()),
                          note=f"the ranking does not flip between {lo:g}× and {hi:g}× the users")


def _flip_bracket(diff, lo_f: float, hi_f: float) -> tuple[float, float]:
    """The scale in [lo_f, hi_f] where diff changes sign, bisected geometrically to 0.1 %: (the end on the flipped
    side (diff > 0), the other end)."""
    for _ in range(40):
        mid = (lo_f * hi_f) ** 0.5
        if (diff(mid) > 0) == (diff(hi_f) > 0):
            hi_f = mid
        else:
            lo_f = mid
        if hi_f / lo_f < 1.001:
            break
    return (hi_f, lo_f) if diff(hi_f) > 0 else (lo_f, hi_f)


# ---------------------------------------------------------------------------------------------
# decomposition and separation


def separation(res: Results) -> list[SeparationRow]:
    """Cost of the same workload on one shared fleet vs separate training and inference fleets."""
    s = res.scenario
    if s.training.method == TrainingMethod.NONE:
        return []
    out: list[SeparationRow] = []
    for i, o in enumerate(s.options):
        if o.training_offer != o.inference_offer:
            out.append(SeparationRow(option=o.name, shared_brl=None, separate_brl=None, saving_brl=None,
                                     note="training and inference use different offers: the fleets are separate by design"))
            continue
        if o.owned is not None:  # bought servers train where they serve (tco.resolve.owned)
            out.append(SeparationRow(option=o.name, shared_brl=None, separate_brl=None, saving_brl=None,
                                     note="an owned option trains on the servers it buys: one shared fleet by design"))
            continue
        if o.committed_instances is not None:  # a committed baseline is a separate serving fleet by definition
            out.append(SeparationRow(option=o.name, shared_brl=None, separate_brl=None, saving_brl=None,
                                     note="a committed baseline (committed_instances) applies to a separate serving fleet"))
            continue
        by_fleet = {}
        for fleet in (FleetMode.SHARED, FleetMode.SEPARATE):
            opts = list(s.options)
            opts[i] = o.model_copy(update={"fleet": fleet})
            by_fleet[fleet] = totals(rerun(res, s.model_copy(update={"options": opts}), {o.name}))[o.name]
        shared, separate = by_fleet[FleetMode.SHARED], by_fleet[FleetMode.SEPARATE]
        out.append(SeparationRow(option=o.name, chosen=o.fleet, shared_brl=shared, separate_brl=separate,
                                 saving_brl=shared - separate))
    return out


def enrich(res: Results, sensitivity: bool = True) -> Results:
    """Results whose ``analysis`` holds the break-evens, tornado, decomposition, separation, probabilities of being
    cheapest, hedging and (Monte Carlo models) the FX fan; the plan search already there is kept."""
    breakevens = Breakevens(usdbrl=tuple(fx_breakevens(res)), users=users_breakeven(res), payback=tuple(paybacks(res)))
    tornados = None
    if sensitivity:
        leader_names = {o.name for o in leaders(res) if o is not None}
        pair = kind_pair(res)
        pair_names = {pair[0].name, pair[1].name} if pair is not None else set()
        variants = Variants(res, leader_names | pair_names, 2000)
        tornados = Sensitivity(leaders=tornado(res, variants=variants),
                               dedicated_vs_cloud=tornado(res, pair=pair, variants=variants)
                               if pair is not None and pair_names != leader_names else None)
    sep = tuple(separation(res))
    dec = decomposition(res)
    if dec is not None:  # what each side's fleet arrangement is worth, beside the line split
        by = {r.option: r for r in sep}
        dec = replace(dec, fleet_separation_brl={
            side: r.saving_brl if (r := by.get(getattr(dec, side))) is not None else None
            for side in (FleetKind.DEDICATED, FleetKind.CLOUD)},
            fleet_separation_note="saving of a separate training fleet over one shared fleet (shared − separate) "
                                  "for each of the two options; None where the two fleets use different offers")
    hedge = hedging(res)
    fan = None
    if res.scenario.fx.model in (FxModel.GBM, FxModel.BOOTSTRAP):
        from tco.fx import risk

        info = res.fx_info
        assert info is not None, "the FX risk (engine.apply_fx_risk) runs before the analysis"
        fan = risk.fx_fan(res, info.paths, info.seed)
    found = Analysis(breakevens=breakevens, sensitivity=tornados, separation=sep, decomposition=dec,
                     probability_cheapest={o.name: o.prob_cheapest for o in res.options}, hedging=hedge, fx_fan=fan,
                     plans=res.analysis.plans)
    return replace(res, analysis=found)
