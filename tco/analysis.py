"""Decision analysis on top of the engine: break-evens, sensitivity (tornado), savings
decomposition and the separation of training and inference fleets.

The figures read from one run (FX break-even, paybacks, decomposition, hedging) are ``tco.analysis_figures``;
everything here re-runs the pure engine on modified scenarios; nothing is approximated by a grid.
A re-run costs only the options it compares (the engine costs each option on its own, so an option's
figures do not depend on which others are in the scenario), and each sensitivity variant is run once
for both tornados (`_Variants`).
The FX break-even is exact: every USD/BRL path in the toolkit is proportional to the spot rate, so
an option's TCO is linear in it, TCO(S) = B + (S/S0)·U, and two options cross at
S* = S0·(B_d − B_c)/(U_c − U_d). The users break-even is bracketed on a scale factor of the growth
curve and bisected (costs are step functions of whole servers, so the answer is the smallest
scale at which the ranking has flipped, to 0.1 %).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco.domain import FleetKind, FleetMode, FxModel
from tco.analysis_figures import (  # noqa: F401  (re-exported: the figures of one run)
    EGRESS_CLAIM_RANGE, _split, decomposition, fx_breakevens, hedging, paybacks,
)
from tco.engine import Results, rankable, run_scenario

# ---------------------------------------------------------------------------------------------
# helpers


def _det(res: Results) -> dict[str, float]:
    return {o.name: o.tco.deterministic for o in res.options}


def _rerun(res: Results, s, names=None) -> Results:
    """The engine on scenario `s` (no Monte Carlo), costing only the options named in `names` (default all)."""
    return run_scenario(_only(s, names), res.catalog, simulate=False)


def _only(s, names):
    """The scenario with only the options named in `names` (all of them when `names` is None)."""
    if names is None:
        return s
    return s.model_copy(update={"options": [o for o in s.options if o.name in names]})


def scale_users(s, f: float):
    """The scenario with every user count of its growth curve multiplied by f."""
    g = s.inference.users
    upd = {"linear": ("start_users", "end_users"), "compound": ("start_users", "max_users"),
           "logistic": ("start_users", "ceiling_users"), "list": ()}[g.model]
    new = {k: getattr(g, k) * f for k in upd if getattr(g, k) is not None}
    if g.model == "list":
        new = {"users": [u * f for u in g.users]}
    inf = s.inference.model_copy(update={"users": g.model_copy(update=new)})
    return s.model_copy(update={"inference": inf})


def _leaders(res: Results):
    ranked = sorted(rankable(res.options), key=lambda o: o.tco.deterministic)
    return (ranked[0] if ranked else None), (ranked[1] if len(ranked) > 1 else None)


# ---------------------------------------------------------------------------------------------
# break-evens


def users_breakeven(res: Results, lo: float = 0.02, hi: float = 50.0) -> dict | None:
    """Scale of the growth curve at which the two leading options swap places."""
    a, b = _leaders(res)
    if b is None:
        return None
    s = res.scenario

    seen: dict[float, float] = {}

    def diff(f: float) -> float:  # memoised: the bisection asks again for its bracket's ends
        if f not in seen:
            t = _det(_rerun(res, scale_users(s, f), {a.name, b.name}))
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
                lo_f, hi_f = sorted((prev, f))
                for _ in range(40):
                    mid = (lo_f * hi_f) ** 0.5
                    if (diff(mid) > 0) == (diff(hi_f) > 0):
                        hi_f = mid
                    else:
                        lo_f = mid
                    if hi_f / lo_f < 1.001:
                        break
                f_star = hi_f if diff(hi_f) > 0 else lo_f
                base_users = float(res.users.max())
                return {"leader": a.name, "challenger": b.name, "users_scale": f_star,
                        "peak_users": base_users * f_star, "base_peak_users": base_users,
                        "direction": "more users" if f > 1 else "fewer users"}
            prev = f
    return {"leader": a.name, "challenger": b.name, "users_scale": None, "peak_users": None,
            "base_peak_users": float(res.users.max()),
            "note": f"the ranking does not flip between {lo:g}× and {hi:g}× the users"}


# ---------------------------------------------------------------------------------------------
# sensitivity


def _scaled_prices(res: Results, kind: str, f: float):
    s = res.scenario
    opts = []
    for o, r in zip(s.options, (x.resolved for x in res.options)):
        upd = {}
        for fleet, key_usd, key_brl in ((r.inference, "usd_per_hour", "brl_per_month"),
                                        (r.training, "training_usd_per_hour", "training_brl_per_month")):
            if fleet is None or fleet.kind != kind:
                continue
            upd[key_usd if kind == FleetKind.CLOUD else key_brl] = fleet.price * f
        if r.burst is not None and kind == FleetKind.CLOUD:  # the hours above a committed baseline move with the prices
            upd["burst_usd_per_hour"] = r.burst.price * f
        opts.append(o.model_copy(update=upd))
    return s.model_copy(update={"options": opts})


def _scaled_taxes(res: Results, f: float):
    cat = res.catalog
    taxes = {k: replace(t, rates={r: v * f for r, v in t.rates.items()}) for k, t in cat.taxes.items()}
    reform = tuple(replace(p, cbs_rate=p.cbs_rate * f, ibs_rate=p.ibs_rate * f) for p in cat.tax_reform)
    return replace(cat, taxes=taxes, tax_reform=reform)


SENSITIVITY = (
    # (key, label, low, high, unit)
    ("usdbrl", "USD/BRL spot", 0.8, 1.2, "× spot"),
    ("volatility", "FX volatility (P95)", 0.09, 0.15, "annual"),
    ("users", "Users", 0.5, 1.5, "× growth curve"),
    ("tokens", "Tokens per request", 0.75, 1.25, "× input and output"),
    ("cloud_price", "Cloud GPU prices", 0.8, 1.2, "× USD/h"),
    ("dedicated_price", "Dedicated prices", 0.8, 1.2, "× BRL/month"),
    ("egress", "Egress per response", 0.5, 2.0, "× kB/request"),
    ("mfu", "Training MFU", 0.30, 0.45, "share"),
    ("discount_rate", "Discount rate (NPV)", 0.10, 0.18, "annual"),
    ("tax", "Import tax rates", 0.8, 1.2, "× every rate"),
)


def scaled_fx(s, k: float):
    """The ``[fx]`` section with the whole base path × k (and the spot): a spot moves the spot and forward paths
    so; the Focus survey's (or a listed) path is written as the list it becomes."""
    from tco.fx import base_path
    from tco.timeline import fx_path

    upd: dict = {"usdbrl": s.fx.usdbrl * k}
    if base_path(s.fx) in ("focus", "list"):  # the survey's (or the user's) path moves as a whole, like the spot
        flat = fx_path(s.fx.model_copy(update={"drift": None}), s.scenario.horizon_months, s.scenario.start)
        upd |= {"base_path": "list", "path": [float(x) * k for x in flat], "focus_edition": None}
    return s.fx.model_copy(update=upd)


def _variant(res: Results, key: str, v: float):
    s, cat = res.scenario, res.catalog
    if key == "usdbrl":
        return s.model_copy(update={"fx": scaled_fx(s, v)}), cat
    if key == "volatility":
        return s.model_copy(update={"fx": s.fx.model_copy(update={"volatility": v, "model": "gbm"})}), cat
    if key == "users":
        return scale_users(s, v), cat
    if key == "tokens":
        i = s.inference
        inf = i.model_copy(update={"input_tokens_per_request": i.input_tokens_per_request * v,
                                   "output_tokens_per_request": i.output_tokens_per_request * v})
        return s.model_copy(update={"inference": inf}), cat
    if key == "cloud_price":
        return _scaled_prices(res, FleetKind.CLOUD, v), cat
    if key == "dedicated_price":
        return _scaled_prices(res, FleetKind.DEDICATED, v), cat
    if key == "egress":
        inf = s.inference.model_copy(update={"egress_kb_per_request": s.inference.egress_kb_per_request * v})
        return s.model_copy(update={"inference": inf}), cat
    if key == "mfu":
        return s.model_copy(update={"training": s.training.model_copy(update={"mfu": v})}), cat
    if key == "discount_rate":
        return s.model_copy(update={"scenario": s.scenario.model_copy(update={"discount_rate": v})}), cat
    if key == "tax":
        return s, _scaled_taxes(res, v)
    raise KeyError(key)


def kind_pair(res: Results):
    """(cheaper, dearer) of the cheapest dedicated and the cheapest cloud option (feasible ones), or None."""
    ded = [o for o in rankable(res.options) if o.kind == FleetKind.DEDICATED]
    cloud = [o for o in rankable(res.options) if o.kind == FleetKind.CLOUD]
    if not ded or not cloud:
        return None
    pair = sorted((min(ded, key=lambda o: o.tco.deterministic), min(cloud, key=lambda o: o.tco.deterministic)),
                  key=lambda o: o.tco.deterministic)
    return pair[0], pair[1]


class _Variants:
    """The engine's figures for each sensitivity variant, computed once (both tornados ask for the same
    variants) and only for the options compared (`names`).

    The volatility variant keeps every option: its figure is a Monte Carlo percentile, and the paths'
    matrix product is not guaranteed to give the same last bits with fewer columns."""

    def __init__(self, res: Results, names: set[str], paths: int):
        self.res, self.names, self.paths = res, names, paths
        self.memo: dict[tuple[str, float], dict[str, float]] = {}

    def figures(self, key: str, v: float) -> dict[str, float]:
        """Option name → the row's metric (TCO, NPV for the discount rate, TCO P95 for the volatility)."""
        if (key, v) not in self.memo:
            s, cat = _variant(self.res, key, v)
            if key == "volatility":
                r = run_scenario(s, cat, paths=self.paths, seed=self.res.scenario.fx.seed)
                t = {o.name: o.tco.p95 for o in r.options}
            else:
                r = run_scenario(_only(s, self.names), cat, simulate=False)
                t = ({o.name: o.npv.deterministic for o in r.options} if key == "discount_rate" else _det(r))
            self.memo[(key, v)] = t
        return self.memo[(key, v)]


def tornado(res: Results, paths: int = 2000, pair=None, variants: _Variants | None = None) -> dict:
    """TCO difference (challenger − leader) at each end of each input's range.

    `pair` = (leader, challenger); default the two leading options. `variants` shares the engine runs
    between calls (its options must include the pair's and its paths be `paths`)."""
    a, b = pair or _leaders(res)
    if b is None:
        return {"leader": a.name if a is not None else None, "challenger": None, "rows": []}
    if variants is None:
        variants = _Variants(res, {a.name, b.name}, paths)
    base = b.tco.deterministic - a.tco.deterministic
    rows = []
    for key, label, lo, hi, unit in SENSITIVITY:
        ends = []
        for v in (lo, hi):
            t = variants.figures(key, v)
            ends.append(t[b.name] - t[a.name])
        metric = "npv" if key == "discount_rate" else "tco_p95" if key == "volatility" else "tco"
        base_m = {"npv": b.npv.deterministic - a.npv.deterministic, "tco_p95": b.tco.p95 - a.tco.p95}.get(metric, base)
        rows.append({"input": key, "label": label, "low": lo, "high": hi, "unit": unit, "metric": metric,
                     "base_diff_brl": base_m, "low_diff_brl": ends[0], "high_diff_brl": ends[1],
                     "swing_brl": abs(ends[1] - ends[0])})
    rows.sort(key=lambda r: -r["swing_brl"])
    return {"leader": a.name, "challenger": b.name, "base_diff_brl": base, "rows": rows}


# ---------------------------------------------------------------------------------------------
# decomposition and separation


def separation(res: Results) -> list[dict]:
    """Cost of the same workload on one shared fleet vs separate training and inference fleets."""
    s = res.scenario
    if s.training.method == "none":
        return []
    out: list[dict] = []
    for i, o in enumerate(s.options):
        if o.training_offer != o.inference_offer:
            out.append({"option": o.name, "shared_brl": None, "separate_brl": None, "saving_brl": None,
                        "note": "training and inference use different offers: the fleets are separate by design"})
            continue
        if o.committed_instances is not None:  # a committed baseline is a separate serving fleet by definition
            out.append({"option": o.name, "shared_brl": None, "separate_brl": None, "saving_brl": None,
                        "note": "a committed baseline (committed_instances) applies to a separate serving fleet"})
            continue
        totals = {}
        for fleet in (FleetMode.SHARED, FleetMode.SEPARATE):
            opts = list(s.options)
            opts[i] = o.model_copy(update={"fleet": fleet})
            totals[fleet] = _det(_rerun(res, s.model_copy(update={"options": opts}), {o.name}))[o.name]
        shared, separate = totals[FleetMode.SHARED], totals[FleetMode.SEPARATE]
        out.append({"option": o.name, "chosen": o.fleet, "shared_brl": shared,
                    "separate_brl": separate, "saving_brl": shared - separate})
    return out


def enrich(res: Results, sensitivity: bool = True) -> Results:
    """Results with break-evens, tornado, decomposition and separation in ``meta``."""
    meta = dict(res.meta)
    meta["breakevens"] = {"usdbrl": fx_breakevens(res), "users": users_breakeven(res), "payback": paybacks(res)}
    if sensitivity:
        leaders = {o.name for o in _leaders(res) if o is not None}
        pair = kind_pair(res)
        pair_names = {pair[0].name, pair[1].name} if pair is not None else set()
        variants = _Variants(res, leaders | pair_names, 2000)
        meta["sensitivity"] = {"leaders": tornado(res, variants=variants)}
        if pair is not None and pair_names != leaders:
            meta["sensitivity"]["dedicated_vs_cloud"] = tornado(res, pair=pair, variants=variants)
    meta["separation"] = separation(res)
    meta["decomposition"] = decomposition(res)
    if meta["decomposition"] is not None:  # what each side's fleet arrangement is worth, beside the line split
        by = {r["option"]: r for r in meta["separation"]}
        meta["decomposition"]["fleet_separation_brl"] = {
            side: (by.get(meta["decomposition"][side]) or {}).get("saving_brl") for side in ("dedicated", "cloud")}
        meta["decomposition"]["fleet_separation_note"] = (
            "saving of a separate training fleet over one shared fleet (shared − separate) for each of the two "
            "options; "
            "None where the two fleets use different offers")
    meta["probability_cheapest"] = {o.name: o.prob_cheapest for o in res.options}
    meta["hedging"] = hedging(res)
    if res.scenario.fx.model in (FxModel.GBM, FxModel.BOOTSTRAP):
        from tco import risk

        meta["fx_fan"] = risk.fx_fan(res, res.fx_info["paths"], res.fx_info["seed"])
    return replace(res, meta=meta)
