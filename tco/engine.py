"""The pipeline, as the story reads: load → check → size → demand → costs → fx → finance → results.

Pure: nothing here writes files or prints. ``run_scenario`` takes a validated scenario and a
catalog and returns frozen Results; every table in JSON, workbook and PDF derives from its ledger.
"""

from __future__ import annotations

import numpy as np

from tco import demand, finance, ledger as ledger_mod, sizing, timeline
from tco import fx as fxmod
from tco.catalog import Catalog
from tco.costs import OptionCosts, option_costs
from tco.domain import Currency, Dist, FleetKind, Notice, Role, is_monte_carlo, option_kind
from tco.errors import InputError, Problem
from tco.resolve import Fleet, ResolvedOption, resolve
from tco.results import OptionResult, Results, infeasible_problem, rankable, workload_problem
from tco.scenario import Scenario, plausibility

__all__ = ["OptionResult", "Results", "apply_fx_risk", "defaults_for", "infeasible_problem", "option_costs_for",
           "rankable", "replica_for", "run_scenario", "training_for", "workload", "workload_problem"]

NO_NETWORK = " (the catalog has no cluster network for this offer: add it to interconnect.csv)"

HOURS_PER_MONTH = 730.0
"""Average hours in a month (8,760 / 12), used only to express monthly prices per GPU-hour."""


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
    fleets: dict[tuple[str, str], Fleet] = {}
    for f in (opt.inference, opt.training):
        if f is not None:
            fleets.setdefault((f.offer_id, f.pricing), f)
    for f in fleets.values():
        if f.price_status in ("estimate", "illustrative_estimate") and f.kind == FleetKind.DEDICATED:
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
    serving = s.inference
    return option_costs(opt, training=tsize, replica=rep, rps=rps, days=days, egress_gb=egress,
                        storage_gb=serving.storage_gb, training_start=s.training.start_month,
                        inference_start=serving.start_month, utilization=serving.utilization_target_share,
                        redundancy=serving.redundancy)


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
    tr = s.training
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
    results: list[OptionResult] = []
    train_by_opt: dict[str, sizing.TrainingSize] = {}
    for opt in resolved:
        fleet = opt.inference
        cands, rep = sizing.size_inference(model, fleet, s, eff, cat.network_for(fleet.offer_id))
        if rep is None:
            problems.append(_fits_nowhere(opt, s, model, cat, file, lines))
            continue
        notices += _replica_notices(opt, rep, s, cat)
        tsize = None
        if tr.method != "none" and opt.training is not None:
            tsize = training_for(opt.training, s, model, mfu, dflt)
            train_by_opt[opt.name] = tsize
            notices += _training_notices(opt, tsize)
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
        results.append(_option_result(opt, oc, rep, cands, series, s, rows))
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
                   "scaling_efficiency": dflt["scaling_efficiency"],
                   "serving_calibration": sizing.calibration_dict(eff)},
                  cat, ledger_mod.Ledger(tuple(months), fx_path, all_series), tuple(notices), timeline=rows, meta=meta)
    if not simulate:
        return res
    return apply_fx_risk(res, paths=paths, seed=seed, progress=progress)


def _fits_nowhere(opt: ResolvedOption, s: Scenario, model, cat: Catalog, file: str, lines: dict | None) -> Problem:
    """The model fits on no layout of the option's serving offer, not even across 8 servers."""
    fleet = opt.inference
    need = model.params_b * 1e9 * sizing.BYTES_PER_PARAM[s.model.precision] / 1e9
    return Problem(file, f"options[{opt.index}].inference_offer",
                   f"model {model.model!r} ({need:,.0f} GB of {s.model.precision} weights plus KV "
                   f"cache) fits on no GPU count of {fleet.offer_id!r} ({fleet.gpus_per_server} × "
                   f"{fleet.gpu.gpu}, {fleet.gpu.memory_gb:g} GB each) nor across 8 such servers"
                   f"{'' if sizing.network_gbps(cat.network_for(fleet.offer_id)) else NO_NETWORK}"
                   f"; choose a larger server{' or model.precision = fp8' if s.model.precision != 'fp8' else ''}",
                   (lines or {}).get(("options", opt.index, "inference_offer")))


def _replica_notices(opt: ResolvedOption, rep: sizing.ReplicaSize, s: Scenario, cat: Catalog) -> list[Notice]:
    """A replica that spans servers; targets the fastest layout still misses."""
    out: list[Notice] = []
    fleet, serving = opt.inference, s.inference
    if rep.nodes > 1:
        net = cat.network_for(fleet.offer_id)
        assert net is not None, "a replica spans servers only over a known network (sizing.size_inference)"
        out.append(Notice("replica_spans_servers", opt.name, {
            "servers": rep.nodes, "offer": fleet.offer_id, "mode": rep.parallel_mode,
            "gbps": net.scale_out_gbps, "status": net.status}))
    if not rep.target_met:
        reach = {"gpu": fleet.gpu.gpu, "target": serving.tokens_per_second_per_user,
                 "reached": rep.tokens_per_second_per_user}
        if serving.time_to_first_token_seconds:
            reach |= {"ttft_target": serving.time_to_first_token_seconds, "ttft": rep.ttft_seconds}
            out.append(Notice("targets_unreachable", opt.name, reach))
        else:
            out.append(Notice("target_unreachable", opt.name, reach))
    return out


def _training_notices(opt: ResolvedOption, tsize: sizing.TrainingSize) -> list[Notice]:
    """A training job over several servers linked only by PCIe."""
    tf = opt.training
    if tf is None or not (tsize.servers > 1 and tf.gpu.interconnect == "pcie"):
        return []
    return [Notice("multi_server_pcie", opt.name, {"servers": tsize.servers, "ic": tf.gpu.interconnect,
                                                   "gpu": tf.gpu.gpu, "efficiency": tsize.scaling_efficiency})]


def _gpu_hour_prices(opt: ResolvedOption, oc: OptionCosts, usdbrl: float) -> dict[str, dict]:
    """Per role: offer, pricing and the all-in BRL price per GPU-hour [BRL/GPU·h]."""
    out: dict[str, dict] = {}
    uplift = oc.tax_uplift if oc.currency["taxes"] == Currency.USD else 0.0
    for role, f in ((Role.INFERENCE, opt.inference), (Role.TRAINING, opt.training)):
        if f is None:
            continue
        if f.kind == FleetKind.CLOUD:  # USD/h per server ÷ GPUs × (1 + taxes) × spot
            brl = f.price / f.gpus_per_server * (1.0 + uplift) * usdbrl
        else:  # BRL/month per server ÷ (GPUs × 730 h)
            brl = f.price / (f.gpus_per_server * HOURS_PER_MONTH)
        out[role] = {"offer": f.offer_id, "pricing": f.pricing, "brl_per_gpu_hour": brl}
    return out


def _option_result(opt: ResolvedOption, oc: OptionCosts, rep: sizing.ReplicaSize, cands: list[dict],
                   series: tuple[ledger_mod.Series, ...], s: Scenario, rows: dict[str, np.ndarray]) -> OptionResult:
    """One option's totals from its ledger series: TCO and NPV (deterministic until the FX risk fills
    the percentiles), crossover month, cost per million tokens, GPU-hour prices."""
    lines_brl = {x.line: x.amount_brl for x in series}
    total = sum(lines_brl.values(), np.zeros(len(rows["t"])))
    tco_det = float(total.sum())
    npv_det = float(total @ rows["df"])
    inf_spend = lines_brl["inference_compute"] + lines_brl["egress"] + lines_brl["storage"]
    train_total = float(lines_brl["training_compute"].sum())
    kind = option_kind(opt.kind, opt.training.kind if opt.training is not None else None)
    return OptionResult(opt.name, kind, opt, oc, rep, cands, lines_brl, total, Dist.point(tco_det), Dist.point(npv_det),
                        finance.crossover_month(inf_spend, train_total),
                        finance.cost_per_million_tokens(tco_det, float(rows["tokens"].sum())),
                        _gpu_hour_prices(opt, oc, s.fx.usdbrl))


def apply_fx_risk(res: Results, *, paths: int | None = None, seed: int | None = None, progress=None) -> Results:
    """Fill the percentile keys: Monte Carlo for gbm/bootstrap, equal to the deterministic value otherwise."""
    from dataclasses import replace

    s = res.scenario
    info = {"model": s.fx.model, "paths": paths or s.fx.paths, "seed": seed if seed is not None else s.fx.seed,
            "usdbrl": s.fx.usdbrl, "volatility": s.fx.volatility,
            "base_path_annual_change_rate": fxmod.base_annual_change(res.fx_path)}
    info |= fxmod.describe_base(s.fx, s.scenario.start, len(res.months))
    if not is_monte_carlo(s.fx.model):
        ok = [i for i, o in enumerate(res.options) if o.feasible]
        best = min(ok, key=lambda i: res.options[i].tco.deterministic) if ok else None
        opts = [replace(o, prob_cheapest=1.0 if i == best else 0.0) for i, o in enumerate(res.options)]
        return replace(res, options=opts, fx_info=info)
    from tco import risk

    opts = risk.simulate(res, paths=int(info["paths"]), seed=int(info["seed"]), progress=progress)
    return replace(res, options=opts, fx_info=info | risk.describe(res.scenario))
