"""Sensitivity of the decision: each input of ``SENSITIVITY`` moved to both ends of its range, the engine re-run on
the changed scenario (only the options compared), and the difference between two options at each end (the
tornado). Also the helpers every re-run of ``tco.analysis`` shares."""

from __future__ import annotations

from dataclasses import replace

from tco.domain import FleetKind, FxBasePath, FxModel, GrowthModel
from tco.engine import Results, rankable, run_scenario
from tco.findings import Tornado, TornadoRow


def totals(res: Results) -> dict[str, float]:
    """Option name → deterministic TCO [BRL]."""
    return {o.name: o.tco.deterministic for o in res.options}


def rerun(res: Results, s, names=None) -> Results:
    """The engine on scenario `s` (no Monte Carlo), costing only the options named in `names` (default all)."""
    return run_scenario(only(s, names), res.catalog, simulate=False)


def only(s, names):
    """The scenario with only the options named in `names` (all of them when `names` is None)."""
    if names is None:
        return s
    return s.model_copy(update={"options": [o for o in s.options if o.name in names]})


def scale_users(s, f: float):
    """The scenario with every user count of its growth curve multiplied by f."""
    g = s.inference.users
    upd = {GrowthModel.LINEAR: ("start_users", "end_users"), GrowthModel.COMPOUND: ("start_users", "max_users"),
           GrowthModel.LOGISTIC: ("start_users", "ceiling_users"), GrowthModel.LIST: ()}[g.model]
    new = {k: getattr(g, k) * f for k in upd if getattr(g, k) is not None}
    if g.model == GrowthModel.LIST:
        new = {"users": [u * f for u in g.users]}
    inf = s.inference.model_copy(update={"users": g.model_copy(update=new)})
    return s.model_copy(update={"inference": inf})


def leaders(res: Results):
    """(cheapest, second cheapest) of the options that can be ranked; None where there are not enough."""
    ranked = sorted(rankable(res.options), key=lambda o: o.tco.deterministic)
    return (ranked[0] if ranked else None), (ranked[1] if len(ranked) > 1 else None)


def scaled_prices(res: Results, kind: str, f: float):
    """The scenario with every price of fleets of `kind` × f (and a committed baseline's burst, for the cloud)."""
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


def scaled_taxes(res: Results, f: float):
    """The catalog with every tax rate × f (the reform's CBS and IBS too)."""
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
    from tco.fx.history import base_path
    from tco.timeline import fx_path

    upd: dict = {"usdbrl": s.fx.usdbrl * k}
    if base_path(s.fx) in (FxBasePath.FOCUS, FxBasePath.LIST):  # the survey's (or the user's) path moves as a whole, like the spot
        flat = fx_path(s.fx.model_copy(update={"drift": None}), s.scenario.horizon_months, s.scenario.start)
        upd |= {"base_path": FxBasePath.LIST, "path": [float(x) * k for x in flat], "focus_edition": None}
    return s.fx.model_copy(update=upd)


def variant(res: Results, key: str, v: float):
    """The scenario and catalog of one sensitivity row (``SENSITIVITY``) at the value `v`."""
    s, cat = res.scenario, res.catalog
    if key == "usdbrl":
        return s.model_copy(update={"fx": scaled_fx(s, v)}), cat
    if key == "volatility":
        return s.model_copy(update={"fx": s.fx.model_copy(update={"volatility": v, "model": FxModel.GBM})}), cat
    if key == "users":
        return scale_users(s, v), cat
    if key == "tokens":
        i = s.inference
        inf = i.model_copy(update={"input_tokens_per_request": i.input_tokens_per_request * v,
                                   "output_tokens_per_request": i.output_tokens_per_request * v})
        return s.model_copy(update={"inference": inf}), cat
    if key == "cloud_price":
        return scaled_prices(res, FleetKind.CLOUD, v), cat
    if key == "dedicated_price":
        return scaled_prices(res, FleetKind.DEDICATED, v), cat
    if key == "egress":
        inf = s.inference.model_copy(update={"egress_kb_per_request": s.inference.egress_kb_per_request * v})
        return s.model_copy(update={"inference": inf}), cat
    if key == "mfu":
        return s.model_copy(update={"training": s.training.model_copy(update={"mfu": v})}), cat
    if key == "discount_rate":
        return s.model_copy(update={"scenario": s.scenario.model_copy(update={"discount_rate": v})}), cat
    if key == "tax":
        return s, scaled_taxes(res, v)
    raise KeyError(key)


def kind_pair(res: Results):
    """(cheaper, dearer) of the cheapest dedicated and the cheapest cloud option (feasible ones), or None."""
    d, c = res.cheapest(FleetKind.DEDICATED), res.cheapest(FleetKind.CLOUD)
    if d is None or c is None:
        return None
    pair = sorted((d, c), key=lambda o: o.tco.deterministic)
    return pair[0], pair[1]


class Variants:
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
            s, cat = variant(self.res, key, v)
            if key == "volatility":
                r = run_scenario(s, cat, paths=self.paths, seed=self.res.scenario.fx.seed)
                t = {o.name: o.tco.p95 for o in r.options}
            else:
                r = run_scenario(only(s, self.names), cat, simulate=False)
                t = ({o.name: o.npv.deterministic for o in r.options} if key == "discount_rate" else totals(r))
            self.memo[(key, v)] = t
        return self.memo[(key, v)]


def tornado(res: Results, paths: int = 2000, pair=None, variants: Variants | None = None) -> Tornado:
    """TCO difference (challenger − leader) at each end of each input's range.

    `pair` = (leader, challenger); default the two leading options. `variants` shares the engine runs
    between calls (its options must include the pair's and its paths be `paths`)."""
    a, b = pair or leaders(res)
    if b is None:
        return Tornado(leader=a.name if a is not None else None, challenger=None)
    if variants is None:
        variants = Variants(res, {a.name, b.name}, paths)
    base = b.tco.deterministic - a.tco.deterministic
    rows = []
    for key, label, lo, hi, unit in SENSITIVITY:
        ends = []
        for v in (lo, hi):
            t = variants.figures(key, v)
            ends.append(t[b.name] - t[a.name])
        metric = "npv" if key == "discount_rate" else "tco_p95" if key == "volatility" else "tco"
        base_m = {"npv": b.npv.deterministic - a.npv.deterministic, "tco_p95": b.tco.p95 - a.tco.p95}.get(metric, base)
        rows.append(TornadoRow(input=key, label=label, low=lo, high=hi, unit=unit, metric=metric, base_diff_brl=base_m,
                               low_diff_brl=ends[0], high_diff_brl=ends[1], swing_brl=abs(ends[1] - ends[0])))
    rows.sort(key=lambda r: -r.swing_brl)
    return Tornado(leader=a.name, challenger=b.name, base_diff_brl=base, rows=tuple(rows))
