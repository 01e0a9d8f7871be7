"""The pipeline, as the story reads: load → check → size → demand → costs → fx → finance → results.

Pure: nothing here writes files or prints. ``run_scenario`` takes a validated scenario and a
catalog and returns frozen Results; every table in JSON, workbook and PDF derives from its ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tco import demand, finance, ledger as ledger_mod, sizing, timeline
from tco import fx as fxmod
from tco.catalog import Catalog
from tco.costs import OptionCosts, option_costs
from tco.domain import Dist, Notice, option_kind
from tco.errors import InputError, Problem
from tco.resolve import ResolvedOption, resolve
from tco.scenario import Scenario, plausibility

NO_NETWORK = " (the catalog has no cluster network for this offer: add it to interconnect.csv)"

HOURS_PER_MONTH = 730.0
"""Average hours in a month (8,760 / 12), used only to express monthly prices per GPU-hour."""


@dataclass(frozen=True)
class OptionResult:
    name: str
    kind: str
    """'dedicated' or 'cloud' when both fleets are of that kind, else 'hybrid'."""
    resolved: ResolvedOption
    costs: OptionCosts
    replica: sizing.ReplicaSize
    replica_candidates: list[dict]
    """Every tensor-parallel layout tried, with all its terms (sizing.replica_terms)."""
    lines_brl: dict[str, np.ndarray]
    total_brl: np.ndarray
    tco: Dist
    npv: Dist
    crossover_month: int | None
    cost_per_million_tokens_brl: float | None
    gpu_hour_brl: dict[str, dict]
    """Per role ('inference', 'training'): offer, pricing and the all-in BRL price per GPU-hour."""
    fan_brl: dict[str, np.ndarray] | None = None
    """Monthly P5/P50/P95 of total cost in BRL (Monte Carlo), else None."""
    tco_samples: np.ndarray | None = None
    prob_cheapest: float | None = None
    """Share of FX paths on which this option is the cheapest."""

    @property
    def feasible(self) -> bool:
        """The replica meets the workload's targets (per-user tokens/s); an infeasible option is shown with the
        speed it reaches but never ranked, recommended or compared."""
        return bool(self.replica.target_met)

    @property
    def achieved_tokens_per_second_per_user(self) -> float:
        """Decode speed each user sees on this option's replica [tokens/s]."""
        return float(self.replica.tokens_per_second_per_user)


def rankable(options: list[OptionResult]) -> list[OptionResult]:
    """The options that may be ranked, recommended or used as a comparator: the feasible ones, in the order
    given. Every ranking (terminal, JSON, workbook, proposal, break-evens, probability of being cheapest) uses this."""
    return [o for o in options if o.feasible]


def workload_problem(res: "Results", file: str, lines: dict | None) -> Problem | None:
    """A problem when an option costs nothing: the scenario has no workload to cost (no users or requests to
    serve and no training), and every comparison would divide by zero."""
    free = [o.name for o in res.options if not o.tco.deterministic > 0]
    if not free:
        return None
    return Problem(file, "inference.users", f"nothing to cost: {free[0]!r} costs R$ 0 over the horizon; the scenario "
                   "has no users or requests to serve and no training", (lines or {}).get(("inference", "users"))
                   or (lines or {}).get(("inference",)))


def infeasible_problem(res: "Results", file: str, lines: dict | None) -> Problem | None:
    """A problem when no option is feasible (there is nothing to recommend), naming the fastest option."""
    if not res.options or rankable(res.options):
        return None
    fastest = max(res.options, key=lambda o: o.achieved_tokens_per_second_per_user)
    target = res.scenario.inference.tokens_per_second_per_user
    return Problem(file, "inference.tokens_per_second_per_user",
                   f"no option meets the workload's targets ({target:g} tokens/s per user): the fastest, "
                   f"{fastest.name!r}, reaches {fastest.achieved_tokens_per_second_per_user:.1f} tokens/s per user at "
                   "batch 1; lower the target or add an option with faster GPUs",
                   (lines or {}).get(("inference", "tokens_per_second_per_user")) or (lines or {}).get(("inference",)))


@dataclass(frozen=True)
class Results:
    scenario: Scenario
    months: list[str]
    days: np.ndarray
    fx_path: np.ndarray
    users: np.ndarray
    requests: np.ndarray
    tokens: np.ndarray
    egress_gb: np.ndarray
    peak_rps: np.ndarray
    hourly_rps: np.ndarray
    """Requests per second in each hour of a typical (active) day, month × 24 [req/s]."""
    training: sizing.TrainingSize | None
    training_by_option: dict[str, sizing.TrainingSize]
    options: list[OptionResult]
    model: object
    defaults: dict
    catalog: Catalog
    notices: tuple[Notice, ...] = ()
    """What a reader must know (estimates, unreachable targets, idle minimum terms…), as data."""
    fx_info: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    timeline: dict[str, np.ndarray] = field(default_factory=dict)
    """Every row of ``tco.timeline`` (demand, FX base path, discount factors…) by rule key."""
    ledger: ledger_mod.Ledger | None = None
    """Every cost, option × line × month, in its currency and in BRL: what every output reads."""
    source_path: str = ""
    """The scenario file this run read (set by ``tco.api.run``)."""
    source_sha256: str = ""
    """Hash of that file's bytes."""


def defaults_for(cat: Catalog) -> dict:
    d = cat.defaults
    return {
        "mfu": float(d.get("training", {}).get("mfu", 0.38)),
        "bandwidth_efficiency_share": float(d.get("inference", {}).get("bandwidth_efficiency_share", 0.7)),
        "flops_efficiency_share": float(d.get("inference", {}).get("flops_efficiency_share", 0.5)),
        "scaling_efficiency": d.get("scaling_efficiency", {"nvlink": 0.9, "nvlink_bridge": 0.9, "pcie": 0.5}),
    }


def price_notices(opt: ResolvedOption, last_month: str) -> list[Notice]:
    """What a reader must know about the prices an option uses: estimates, unverified rows, and tax
    profiles that stop before the horizon ends."""
    out: list[Notice] = []
    fleets = {}
    for f in (opt.inference, opt.training):
        if f is not None:
            fleets.setdefault((f.offer_id, f.pricing), f)
    for f in fleets.values():
        if f.price_status in ("estimate", "illustrative_estimate") and f.kind == "dedicated":
            out.append(Notice("price_estimate", opt.name, {"offer": f.offer_id}))
        elif f.price_status not in ("listed", "scenario_override", "quote"):
            out.append(Notice("price_status", opt.name, {"offer": f.offer_id, "status": f.price_status}))
        if "anomal" in f.price_source.lower():
            out.append(Notice("price_anomalous", opt.name, {"offer": f.offer_id, "pricing": f.pricing}))
    tax = opt.tax
    b = opt.billing
    if b is not None and b.status != "sourced" and tax.profile_id == b.profile:
        out.append(Notice("billing_unverified", opt.name, {"provider": b.provider, "mode": b.mode, "status": b.status,
                                                           "profile": b.profile}))
    if tax.valid_until and last_month > tax.valid_until and tax.method != "none" and not tax.reform:
        out.append(Notice("tax_horizon", opt.name, {"profile": tax.profile_id, "until": tax.valid_until,
                                                    "end": last_month, "year": "2027"}))
    return out


def workload(s: Scenario, days: np.ndarray) -> tuple[np.ndarray, ...]:
    """The scenario's demand month by month (the rules of ``tco.timeline``): users, requests, tokens, hourly
    requests/s (months × 24), egress GB."""
    rows = timeline.evaluate_timeline(s, days)
    return rows["users"], rows["requests"], rows["tokens"], timeline.hourly_rows(rows), rows["egress"]


def option_costs_for(opt: ResolvedOption, s: Scenario, tsize, rep, days, rps, egress) -> OptionCosts:
    """costs.option_costs with the scenario's serving and training inputs (the engine's and the plan's one call)."""
    inf = s.inference
    return option_costs(opt, training=tsize, replica=rep, rps=rps, days=days, egress_gb=egress,
                        storage_gb=inf.storage_gb, training_start=s.training.start_month,
                        inference_start=inf.start_month, utilization=inf.utilization_target_share,
                        redundancy=inf.redundancy)


def replica_for(fleet, s: Scenario, model, eff, cat: Catalog):
    """The replica the engine serves with on `fleet` (sizing.size_inference with the scenario's serving
    calibration); the plan search sizes each offer through this same call."""
    return sizing.size_inference(model, fleet, s, eff, cat.network_for(fleet.offer_id))[1]


def training_for(tf, s: Scenario, model, mfu: float, dflt: dict) -> sizing.TrainingSize:
    """The training cluster on `tf`'s servers (sizing.size_training with the scenario's training inputs)."""
    tr = s.training
    return sizing.size_training(
        method=tr.method, params=model.params_b * 1e9, active_params=model.active_params_b * 1e9, tokens=tr.tokens,
        epochs=tr.epochs, gpu_hours=tr.gpu_hours, mfu=mfu, peak_tflops=tf.gpu.bf16_tflops,
        gpu_memory_gb=tf.gpu.memory_gb, memory_usable_share=s.inference.memory_usable_share,
        gpus_per_server=tf.gpus_per_server, interconnect=tf.gpu.interconnect, target_days=tr.target_days,
        servers=tr.servers, activation_share=tr.activation_memory_share, lora_share=tr.lora_trainable_share,
        defaults=dflt)


def run_scenario(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None,
                 paths: int | None = None, seed: int | None = None, progress=None, simulate: bool = True) -> Results:
    """Size, cost and compare every option of a scenario. Raises InputError for problems that only
    show up against the catalog (unknown offers, a model that fits on no GPU, …)."""
    model, resolved = resolve(s, cat, file, lines)
    dflt = defaults_for(cat)
    h = s.scenario.horizon_months
    months = demand.month_labels(s.scenario.start, h)
    days = demand.days_in_months(s.scenario.start, h)
    inf = s.inference
    tr = s.training
    params = model.params_b * 1e9
    mfu = tr.mfu if tr.mfu is not None else dflt["mfu"]
    eff = sizing.serving_calibration(s, cat, file, lines)
    bw_eff, fl_eff = eff.bandwidth_share, eff.flops_share

    # demand
    rows = timeline.evaluate_timeline(s, days)
    users, requests, tokens, egress = rows["users"], rows["requests"], rows["tokens"], rows["egress"]
    rps = timeline.hourly_rows(rows)

    # sizing and costs, option by option
    problems: list[Problem] = []
    notices: list[Notice] = plausibility(s)
    if cat.empty_dir:
        notices.append(Notice("catalog_dir_empty", None, {"folder": cat.empty_dir}))
    all_series: tuple[ledger_mod.Series, ...] = ()
    fx_path = rows["fx"]
    disc = rows["df"]
    results: list[OptionResult] = []
    train_by_opt: dict[str, sizing.TrainingSize] = {}
    for opt in resolved:
        fleet = opt.inference
        cands, rep = sizing.size_inference(model, fleet, s, eff, cat.network_for(fleet.offer_id))
        key = f"options[{opt.index}].inference_offer"
        if rep is None:
            need = params * sizing.BYTES_PER_PARAM[s.model.precision] / 1e9
            problems.append(Problem(file, key, f"model {model.model!r} ({need:,.0f} GB of {s.model.precision} weights plus KV "
                                    f"cache) fits on no GPU count of {fleet.offer_id!r} ({fleet.gpus_per_server} × "
                                    f"{fleet.gpu.gpu}, {fleet.gpu.memory_gb:g} GB each) nor across 8 such servers"
                                    f"{'' if sizing.network_gbps(cat.network_for(fleet.offer_id)) else NO_NETWORK}"
                                    f"; choose a larger server{' or model.precision = fp8' if s.model.precision != 'fp8' else ''}",
                                    (lines or {}).get(("options", opt.index, "inference_offer"))))
            continue
        if rep.nodes > 1:
            net = cat.network_for(fleet.offer_id)
            notices.append(Notice("replica_spans_servers", opt.name, {
                "servers": rep.nodes, "offer": fleet.offer_id, "mode": rep.parallel_mode,
                "gbps": net.scale_out_gbps, "status": net.status}))
        if not rep.target_met:
            reach = {"gpu": fleet.gpu.gpu, "target": inf.tokens_per_second_per_user,
                     "reached": rep.tokens_per_second_per_user}
            if inf.time_to_first_token_seconds:
                reach |= {"ttft_target": inf.time_to_first_token_seconds, "ttft": rep.ttft_seconds}
                notices.append(Notice("targets_unreachable", opt.name, reach))
            else:
                notices.append(Notice("target_unreachable", opt.name, reach))
        tsize = None
        if tr.method != "none" and opt.training is not None:
            tf = opt.training
            tsize = training_for(tf, s, model, mfu, dflt)
            train_by_opt[opt.name] = tsize
            if tsize.servers > 1 and tf.gpu.interconnect == "pcie":
                notices.append(Notice("multi_server_pcie", opt.name, {"servers": tsize.servers, "ic": tf.gpu.interconnect,
                                                                       "gpu": tf.gpu.gpu,
                                                                       "efficiency": tsize.scaling_efficiency}))
        try:
            oc = option_costs_for(opt, s, tsize, rep, days, rps, egress)
        except ValueError as exc:
            problems.append(Problem(file, f"options[{opt.index}].egress", str(exc),
                                    (lines or {}).get(("options", opt.index))))
            continue
        notices += [Notice(n.code, opt.name, n.params) for n in oc.notices]
        notices += price_notices(opt, months[-1])
        series = ledger_mod.option_series(opt, oc, fx_path, oc.storage_gb)
        all_series += series
        lines_brl = {x.line: x.amount_brl for x in series}
        total = sum(lines_brl.values())
        tco_det = float(total.sum())
        npv_det = float(total @ disc)
        inf_spend = lines_brl["inference_compute"] + lines_brl["egress"] + lines_brl["storage"]
        train_total = float(lines_brl["training_compute"].sum())
        gph = {}
        uplift = oc.tax_uplift if oc.currency["taxes"] == "USD" else 0.0
        for role, f in (("inference", opt.inference), ("training", opt.training)):
            if f is None:
                continue
            if f.kind == "cloud":  # USD/h per server ÷ GPUs × (1 + taxes) × spot
                brl = f.price / f.gpus_per_server * (1.0 + uplift) * s.fx.usdbrl
            else:  # BRL/month per server ÷ (GPUs × 730 h)
                brl = f.price / (f.gpus_per_server * HOURS_PER_MONTH)
            gph[role] = {"offer": f.offer_id, "pricing": f.pricing, "brl_per_gpu_hour": brl}
        det = Dist.point(tco_det)
        ndet = Dist.point(npv_det)
        kind = option_kind(opt.kind, opt.training.kind if opt.training is not None else None)
        results.append(OptionResult(opt.name, kind, opt, oc, rep, cands, lines_brl, total, det, ndet,
                                    finance.crossover_month(inf_spend, train_total),
                                    finance.cost_per_million_tokens(tco_det, float(tokens.sum())), gph))
    if problems:
        raise InputError(problems)
    est = sorted({p.period_id: p for o in resolved for p in o.tax_periods if p.status != "sourced"}.values(),
                 key=lambda p: p.start)
    if est:
        notices.append(Notice("tax_rates_estimate", None, {"start": est[0].start, "status": est[0].status,
                                                            "periods": ", ".join(p.period_id for p in est)}))
    meta: dict = {}

    res = Results(s, months, days, fx_path, users, requests, tokens, egress, rps.max(axis=1), rps,
                  next(iter(train_by_opt.values()), None), train_by_opt, results, model,
                  {"mfu": mfu, "bandwidth_efficiency_share": bw_eff, "flops_efficiency_share": fl_eff,
                   "scaling_efficiency": dflt["scaling_efficiency"], "serving_calibration": sizing.calibration_dict(eff)},
                  cat, tuple(notices), ledger=ledger_mod.Ledger(tuple(months), fx_path, all_series), timeline=rows, meta=meta)
    if not simulate:
        return res
    return apply_fx_risk(res, paths=paths, seed=seed, progress=progress)


def apply_fx_risk(res: Results, *, paths: int | None = None, seed: int | None = None, progress=None) -> Results:
    """Fill the percentile keys: Monte Carlo for gbm/bootstrap, equal to the deterministic value otherwise."""
    from dataclasses import replace

    s = res.scenario
    info = {"model": s.fx.model, "paths": paths or s.fx.paths, "seed": seed if seed is not None else s.fx.seed,
            "usdbrl": s.fx.usdbrl, "volatility": s.fx.volatility,
            "base_path_annual_change_rate": fxmod.base_annual_change(s.fx, res.fx_path)}
    info |= fxmod.describe_base(s.fx, s.scenario.start, len(res.months))
    if s.fx.model not in ("gbm", "bootstrap"):
        ok = [i for i, o in enumerate(res.options) if o.feasible]
        best = min(ok, key=lambda i: res.options[i].tco.deterministic) if ok else None
        opts = [replace(o, prob_cheapest=1.0 if i == best else 0.0) for i, o in enumerate(res.options)]
        return replace(res, options=opts, fx_info=info)
    from tco import risk

    opts = risk.simulate(res, paths=info["paths"], seed=info["seed"], progress=progress)
    return replace(res, options=opts, fx_info=info | risk.describe(res.scenario))
