"""The pipeline, as the story reads: load → check → size → demand → costs → fx → finance → results.

Pure: nothing here writes files or prints. ``run_scenario`` takes a validated scenario and a
catalog and returns frozen Results; every table in JSON, workbook and PDF derives from its ledger.
"""

from __future__ import annotations

import numpy as np

from tco import ledger as ledger_mod, sizing, timeline
from tco.timeline import calendar as demand
from tco.fx import history as fxmod
from tco.catalog import Catalog, ModelArch
from tco.costs import OptionCosts, option_costs, totals_rules
from tco.costs.single import UnverifiedPriceError
from tco.domain import FleetKind, Interconnect, Notice, Status, TaxMethod, TrainingMethod, is_monte_carlo, record
from tco.domain.run_info import Efficiencies, FxInfo
from tco.errors import InputError, Problem
from tco.resolve import Fleet, ResolvedOption, resolve
from tco.resolve.owned import contract_problem, owned_notices
from tco.resolve.unused import unused_keys
from tco.results import (HOURS_PER_MONTH, OptionResult, Results, infeasible_problem, option_result, rankable,
                         workload_problem)
from tco.scenario import Scenario, plausibility
from tco.sizing.queueing import PlannedLoad, at_planned_load

__all__ = ["HOURS_PER_MONTH", "OptionResult", "Results", "apply_fx_risk", "defaults_for", "infeasible_problem", "option_costs_for",
           "rankable", "replica_for", "run_scenario", "training_for", "workload", "workload_problem"]

NO_NETWORK = " (the catalog has no cluster network for this offer: add it to interconnect.csv)"

def defaults_for(cat: Catalog) -> dict:
    """The modelling defaults the engine uses, as the catalog's defaults.toml declares them (the shipped file is
    always loaded, a user's catalog_dir only overrides its keys; no second copy of the values here)."""
    d = cat.defaults
    return {
        "mfu": float(d["training"]["mfu"]),
        "bandwidth_efficiency_share": float(d["inference"]["bandwidth_efficiency_share"]),
        "flops_efficiency_share": float(d["inference"]["flops_efficiency_share"]),
        "scaling_efficiency": d["scaling_efficiency"],
        "training_mfu": training_mfu_table(d["training"]),
    }


def training_mfu_table(tr: dict) -> dict:
    """The training MFU tables of defaults.toml ``[training]``: base MFU by precision, factor by GPU generation and
    the mixture-of-experts coefficient, exponent and precision factor, the width factor's exponent and
    reference, the FP4 share (tco.sizing.training_mfu_base, tco.sizing.training_rules.MOE and WIDTH)."""
    moe, width = tr.get("moe", {}), tr.get("width", {})
    return {"base": {"bf16": float(tr["mfu"])} | {k: float(v) for k, v in tr.get("mfu_by_precision", {}).items()},
            "generation": {k: float(v) for k, v in tr.get("generation_factor", {}).items()},
            "moe_a": float(moe.get("a", 1.0)), "moe_k": float(moe.get("k", 0.0)),
            "moe_lowp": float(moe.get("low_precision", 1.0)),
            "width_k": float(width.get("k", 0.0)), "hidden_ref": float(width.get("reference", 8192)),
            **({"fp4_share": float(tr["fp4"]["share"])} if "fp4" in tr else {}),
            **({"sequence_length": int(tr["sequence_length"])} if "sequence_length" in tr else {}),
            "uncalibrated": [str(g) for g in tr.get("uncalibrated_generations", [])]}


def price_notices(opt: ResolvedOption, last_month: str) -> list[Notice]:
    """What a reader must know about the prices an option uses: estimates, unverified rows, and tax
    profiles that stop before the horizon ends."""
    out: list[Notice] = []
    fleets: dict[tuple[str, str], Fleet] = {}
    for f in (opt.inference, opt.training):
        if f is not None:
            fleets.setdefault((f.offer_id, f.pricing), f)
    for f in fleets.values():
        if f.price_status in (Status.ESTIMATE, Status.ILLUSTRATIVE_ESTIMATE) and f.kind == FleetKind.DEDICATED:
            out.append(Notice("price_estimate", opt.name, {"offer": f.offer_id}))
        elif f.price_status not in (Status.LISTED, Status.SCENARIO_OVERRIDE, Status.QUOTE):
            out.append(Notice("price_status", opt.name, {"offer": f.offer_id, "status": f.price_status}))
        if "anomal" in f.price_source.lower():
            out.append(Notice("price_anomalous", opt.name, {"offer": f.offer_id, "pricing": f.pricing}))
    out = [n for i, n in enumerate(out) if n not in out[:i]]  # one offer under two pricings: said once
    if opt.egress.source.startswith("STAND-IN"):
        out.append(Notice("price_stand_in_egress", opt.name, {"id": opt.egress.egress_id}))
    if opt.storage_source.startswith("STAND-IN") and opt.storage_usd_per_gb_month > 0:
        out.append(Notice("price_stand_in_storage", opt.name, {"id": opt.storage_id}))
    tax = opt.tax
    b = opt.billing
    if b is not None and b.status != Status.SOURCED and tax.profile_id == b.profile:
        out.append(Notice("billing_unverified", opt.name, {"provider": b.provider, "mode": b.mode, "status": b.status,
                                                           "profile": b.profile}))
    if tax.valid_until and last_month > tax.valid_until and tax.method != TaxMethod.NONE and not tax.reform:
        out.append(Notice("tax_horizon", opt.name, {"profile": tax.profile_id, "until": tax.valid_until,
                                                    "end": last_month, "year": "2027"}))
    return out


def workload(s: Scenario, days: np.ndarray) -> tuple[np.ndarray, ...]:
    """The scenario's demand month by month (the rules of ``tco.timeline``): users, requests, tokens, hourly
    requests/s (months × 24), egress GB."""
    rows = timeline.evaluate_timeline(s, days)
    return rows["users"], rows["requests"], rows["tokens"], timeline.hourly_rows(rows), rows["egress"]


def option_costs_for(opt: ResolvedOption, s: Scenario, tsize, rep, days, rps, egress, fx=None) -> OptionCosts:
    """costs.option_costs with the scenario's serving and training inputs (the engine's and the plan's one call);
    `fx`, the base path, for an owned option."""
    serving = s.inference
    return option_costs(opt, training=tsize, replica=rep, rps=rps, days=days, egress_gb=egress,
                        storage_gb=serving.storage_gb, training_start=s.training.start_month,
                        inference_start=serving.start_month, utilization=serving.utilization_target_share,
                        redundancy=serving.redundancy, fx=fx)


def replica_for(fleet, s: Scenario, model, eff, cat: Catalog):
    """The replica the engine serves with on `fleet` (sizing.size_inference with the scenario's serving
    calibration); the plan search sizes each offer through this same call."""
    return sizing.size_inference(model, fleet, s, eff, cat.network_for(fleet.offer_id))[1]


def training_for(tf, s: Scenario, model, mfu: float, dflt: dict) -> sizing.TrainingSize:
    """The training cluster on `tf`'s servers (sizing.size_training with the scenario's training inputs): at the
    training precision's dense peak, with the scenario's MFU (`mfu`) when it gives one, else the catalog's for the
    GPU's generation and the precision (raises ValueError when the GPU cannot train at that precision)."""
    tr = s.training
    given = tr.mfu is not None or tr.gpu_hours is not None
    base = 0.0 if given else sizing.training_mfu_base(tf.gpu, tr.precision, dflt["training_mfu"])
    return sizing.size_training(
        method=tr.method, params=model.params_b * 1e9, active_params=model.active_params_b * 1e9, tokens=tr.tokens,
        epochs=tr.epochs, gpu_hours=tr.gpu_hours, mfu=mfu if tr.mfu is not None else None,
        peak_tflops=sizing.dense_peak(tf.gpu, tr.precision) or tf.gpu.bf16_tflops, gpu_memory_gb=tf.gpu.memory_gb,
        memory_usable_share=s.inference.memory_usable_share, gpus_per_server=tf.gpus_per_server,
        interconnect=tf.gpu.interconnect, target_days=tr.target_days, servers=tr.servers,
        activation_share=tr.activation_memory_share, lora_share=tr.lora_trainable_share, defaults=dflt,
        mfu_base=base, layers=model.layers, experts=model.experts, precision=tr.precision,
        hidden=model.hidden_size or model.kv_heads * model.head_dim, sequence_length=tr.sequence_length or 0,
        attention_width=sizing.attention_width(model))



def run_scenario(s: Scenario, cat: Catalog, *, file: str = "<scenario>", lines: dict | None = None,
                 paths: int | None = None, seed: int | None = None, progress=None, simulate: bool = True) -> Results:
    """Size, cost and compare every option of a scenario. Raises InputError for problems that only
    show up against the catalog (unknown offers, a model that fits on no GPU, …)."""
    model, resolved = resolve(s, cat, file, lines)
    unused = unused_keys(s, resolved, file, lines)
    if unused:
        raise InputError(unused)
    dflt = defaults_for(cat)
    months = demand.month_labels(s.scenario.start, s.scenario.horizon_months)
    days = demand.days_in_months(s.scenario.start, s.scenario.horizon_months)
    rows = timeline.evaluate_timeline(s, days)  # demand
    ctx = _Run(s, cat, model, sizing.serving_calibration(s, cat, file, lines),
               s.training.mfu if s.training.mfu is not None else dflt["mfu"], dflt, days, timeline.hourly_rows(rows),
               rows, months[-1], file, lines)
    problems: list[Problem] = []
    notices: list[Notice] = _scenario_notices(s, cat)
    done: list[_Costed] = []
    for opt in resolved:  # sizing and costs, option by option
        costed = _cost_option(ctx, opt)
        if isinstance(costed, Problem):
            problems.append(costed)
            continue
        done.append(costed)
        notices += costed.notices
    if problems:
        raise InputError(problems)
    notices += _tax_period_notices(resolved)
    res = _results(ctx, months, done, tuple(notices))
    if not simulate:
        return res
    return apply_fx_risk(res, paths=paths, seed=seed, progress=progress)


@record
class _Run:
    """What costing one option of a scenario reads."""

    s: Scenario
    cat: Catalog
    model: ModelArch
    eff: sizing.Calibration
    """The scenario's serving calibration (``sizing.serving_calibration``)."""
    mfu: float
    dflt: dict
    days: np.ndarray
    rps: np.ndarray
    """Requests/s by month × hour of day."""
    rows: dict[str, np.ndarray]
    """The timeline's rows (``timeline.evaluate_timeline``)."""
    last_month: str
    file: str
    lines: dict | None


@record
class _Costed:
    """One option sized and costed: its result, ledger series, training cluster and notices."""

    result: OptionResult
    series: tuple[ledger_mod.Series, ...]
    training: sizing.TrainingSize | None
    notices: list[Notice]


def _cost_option(ctx: _Run, opt: ResolvedOption) -> _Costed | Problem:
    """Size one option's serving replica and training cluster and cost it; a Problem when it cannot be costed."""
    s, fleet = ctx.s, opt.inference
    bad = _precision_problem(ctx, opt)
    if bad is not None:
        return bad
    cands, rep = sizing.size_inference(ctx.model, fleet, s, ctx.eff, ctx.cat.network_for(fleet.offer_id))
    if rep is None:
        return _fits_nowhere(opt, s, ctx.model, ctx.cat, ctx.file, ctx.lines)
    load = at_planned_load(rep, s.inference, ctx.rps)
    notices = _replica_notices(opt, rep, s, ctx.cat) + _queue_notices(opt, rep, s, load)
    tsize = None
    if s.training.method != TrainingMethod.NONE and opt.training is not None:
        tsize = training_for(opt.training, s, ctx.model, ctx.mfu, ctx.dflt)
        derived = s.training.mfu is None and s.training.gpu_hours is None
        notices += _training_notices(opt, tsize, ctx.dflt["training_mfu"], derived)
    try:
        oc = option_costs_for(opt, s, tsize, rep, ctx.days, ctx.rps, ctx.rows["egress"], ctx.rows["fx"])
    except UnverifiedPriceError as exc:
        return Problem(ctx.file, f"options[{opt.index}].egress", str(exc), (ctx.lines or {}).get(("options", opt.index)))
    if opt.owned is not None and (over := contract_problem(opt, oc.rows, ctx.file, ctx.lines)) is not None:
        return over
    notices += [Notice(n.code, opt.name, n.params) for n in oc.notices]
    notices += owned_notices(opt, oc.rows) if opt.owned is not None else price_notices(opt, ctx.last_month)
    totals = totals_rules.totals(oc.lines, oc.currency, ctx.rows["fx"], ctx.rows["df"])
    series = ledger_mod.option_series(opt, oc, totals, oc.storage_gb)
    return _Costed(option_result(opt, oc, rep, cands, series, s.fx.usdbrl, ctx.rows, totals, load), series, tsize,
                   notices)


def _precision_problem(ctx: _Run, opt: ResolvedOption) -> Problem | None:
    """A serving or training fleet whose GPU cannot run the scenario's number format (fp4 without FP4 tensor
    cores, fp8 training without FP8), or has no training MFU in the catalog: what is missing and what would cover
    it."""
    s, gpus, lines = ctx.s, ctx.cat.gpus.values(), ctx.lines or {}
    why = sizing.serving_precision_problem(opt.inference.gpu, s.model.precision, s.model.kv_precision, gpus)
    if why is not None:
        return Problem(ctx.file, f"options[{opt.index}].inference_offer", f"{opt.inference.offer_id!r}: {why}",
                       lines.get(("options", opt.index, "inference_offer")))
    tf, tr = opt.training, s.training
    if tf is None or tr.method == TrainingMethod.NONE or tr.gpu_hours is not None:
        return None
    why = sizing.training_problem(tf.gpu, tr.precision, ctx.dflt["training_mfu"], gpus, tr.mfu is not None)
    if why is not None:
        return Problem(ctx.file, f"options[{opt.index}].training_offer", f"{tf.offer_id!r}: {why}",
                       lines.get(("options", opt.index, "training_offer")))
    return None


def _scenario_notices(s: Scenario, cat: Catalog) -> list[Notice]:
    """Notices about the scenario as a whole: implausible inputs, an empty catalog folder."""
    from tco.timeline.fx_base import focus_notices

    out: list[Notice] = plausibility(s) + focus_notices(s.fx, s.scenario.start, s.scenario.horizon_months)
    if cat.empty_dir:
        out.append(Notice("catalog_dir_empty", None, {"folder": cat.empty_dir}))
    return out


def _tax_period_notices(resolved: list[ResolvedOption]) -> list[Notice]:
    """Tax-reform periods the options fall in whose rates are estimates, named once (the earliest first)."""
    est = sorted({p.period_id: p for o in resolved for p in o.tax_periods if p.status != Status.SOURCED}.values(),
                 key=lambda p: p.start)
    if not est:
        return []
    return [Notice("tax_rates_estimate", None, {"start": est[0].start, "status": est[0].status,
                                                "periods": ", ".join(p.period_id for p in est)})]


def _results(ctx: _Run, months: list[str], done: list[_Costed], notices: tuple[Notice, ...]) -> Results:
    """The deterministic Results of the options costed (the FX risk fills their percentiles later)."""
    rows, rps, fx_path = ctx.rows, ctx.rps, ctx.rows["fx"]
    train_by_opt = {c.result.name: c.training for c in done if c.training is not None}
    efficiencies = Efficiencies(mfu=ctx.mfu, bandwidth_efficiency_share=ctx.eff.bandwidth_share,
                                flops_efficiency_share=ctx.eff.flops_share,
                                scaling_efficiency=ctx.dflt["scaling_efficiency"],
                                serving_calibration=sizing.calibration_dict(ctx.eff),
                                training_mfu=ctx.dflt["training_mfu"])
    ledger = ledger_mod.Ledger(tuple(months), fx_path, tuple(x for c in done for x in c.series))
    return Results(ctx.s, months, ctx.days, fx_path, rows["users"], rows["requests"], rows["tokens"], rows["egress"],
                   rps.max(axis=1), rps, next(iter(train_by_opt.values()), None), train_by_opt,
                   [c.result for c in done], ctx.model, efficiencies, ctx.cat, ledger, notices, timeline=rows)


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


MAX_TTFT_SHOWN = 3600.0
"""The p95 a notice shows for a replica with no steady state (ρ = 1) [s]: the largest target a scenario may set."""


def _queue_notices(opt: ResolvedOption, rep: sizing.ReplicaSize, s: Scenario, load: PlannedLoad) -> list[Notice]:
    """A time-to-first-token target that the bare TTFT meets but the 95th percentile with queueing at the planned
    peak load (`load`, tco.sizing.queueing) misses: the fleet is sized for throughput at the utilisation target, so
    the notice says so and what lowers it (a lower utilisation target adds replicas)."""
    target = s.inference.time_to_first_token_seconds
    if not target or not rep.ttft_target_met or load.target_met:
        return []
    p95 = load.p95_seconds if load.p95_seconds is not None else MAX_TTFT_SHOWN  # saturated: no steady state
    return [Notice("ttft_queued_over_target", opt.name, {"target": target, "p95": p95,
                                                          "utilisation": load.queued.utilisation,
                                                          "planned": s.inference.utilization_target_share})]


def _training_notices(opt: ResolvedOption, tsize: sizing.TrainingSize, table: dict, derived: bool) -> list[Notice]:
    """A training job over several servers linked only by PCIe; an MFU taken from a GPU generation no public run
    calibrates (defaults.toml [training] uncalibrated_generations)."""
    tf = opt.training
    if tf is None:
        return []
    out = []
    if tsize.servers > 1 and tf.gpu.interconnect == Interconnect.PCIE:
        out.append(Notice("multi_server_pcie", opt.name, {"servers": tsize.servers, "ic": tf.gpu.interconnect,
                                                          "gpu": tf.gpu.gpu, "efficiency": tsize.scaling_efficiency}))
    if derived and tf.gpu.generation in table.get("uncalibrated", ()):
        out.append(Notice("training_mfu_uncalibrated", opt.name, {"gpu": tf.gpu.gpu, "generation": tf.gpu.generation,
                                                                  "mfu": tsize.mfu}))
    return out


def apply_fx_risk(res: Results, *, paths: int | None = None, seed: int | None = None, progress=None) -> Results:
    """Fill the percentile keys: Monte Carlo for gbm/bootstrap, equal to the deterministic value otherwise."""
    from dataclasses import replace

    s = res.scenario
    info = FxInfo(model=s.fx.model, paths=paths or s.fx.paths, seed=seed if seed is not None else s.fx.seed,
                  usdbrl=s.fx.usdbrl, volatility=s.fx.volatility,
                  base_path_annual_change_rate=fxmod.base_annual_change(res.fx_path),
                  base=fxmod.describe_base(s.fx, s.scenario.start, len(res.months)))
    if not is_monte_carlo(s.fx.model):
        ok = [i for i, o in enumerate(res.options) if o.feasible]
        best = min(ok, key=lambda i: res.options[i].tco.deterministic) if ok else None
        opts = [replace(o, prob_cheapest=1.0 if i == best else 0.0) for i, o in enumerate(res.options)]
        return replace(res, options=opts, fx_info=info)
    from tco.fx import risk

    opts = risk.simulate(res, paths=int(info.paths), seed=int(info.seed), progress=progress)
    return replace(res, options=opts, fx_info=replace(info, monte_carlo=risk.describe(res.scenario)))
