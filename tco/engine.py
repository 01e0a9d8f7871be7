"""The pipeline, as the story reads: load → check → size → demand → costs → fx → finance → results.

Pure: nothing here writes files or prints. ``run_scenario`` takes a validated scenario and a
catalog and returns frozen Results; every table in JSON, workbook and PDF derives from its ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tco import demand, finance, fx as fxmod, sizing
from tco.catalog import Catalog
from tco.costs import LINES, OptionCosts, option_costs, tax_uplift
from tco.errors import InputError, Problem
from tco.resolve import ResolvedOption, resolve
from tco.scenario import Scenario

HOURS_PER_MONTH = 730.0
"""Average hours in a month (8,760 / 12), used only to express monthly prices per GPU-hour."""


@dataclass(frozen=True)
class Dist:
    deterministic: float
    mean: float
    p5: float
    p50: float
    p95: float

    def as_dict(self) -> dict:
        return {"deterministic": self.deterministic, "mean": self.mean, "p5": self.p5, "p50": self.p50, "p95": self.p95}


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
    warnings: tuple[str, ...] = ()
    fx_info: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)


def defaults_for(cat: Catalog) -> dict:
    d = cat.defaults
    return {
        "mfu": float(d.get("training", {}).get("mfu", 0.38)),
        "bandwidth_efficiency_share": float(d.get("inference", {}).get("bandwidth_efficiency_share", 0.7)),
        "flops_efficiency_share": float(d.get("inference", {}).get("flops_efficiency_share", 0.5)),
        "scaling_efficiency": d.get("scaling_efficiency", {"nvlink": 0.9, "nvlink_bridge": 0.9, "pcie": 0.5}),
    }


def price_warnings(opt: ResolvedOption, last_month: str) -> list[str]:
    """What a reader must know about the prices an option uses: estimates, unverified rows, and tax
    profiles that stop before the horizon ends."""
    out = []
    fleets = {}
    for f in (opt.inference, opt.training):
        if f is not None:
            fleets.setdefault((f.offer_id, f.pricing), f)
    for f in fleets.values():
        if f.price_status == "illustrative_estimate":
            out.append(f"{opt.name}: the price of {f.offer_id!r} is an illustrative estimate, not a quote; "
                       "replace it with a provider's quote (brl_per_month)")
        elif f.price_status not in ("listed", "scenario_override"):
            out.append(f"{opt.name}: the price of {f.offer_id!r} is marked {f.price_status!r} in the catalog")
        if "anomal" in f.price_source.lower():
            out.append(f"{opt.name}: the catalog flags the price of {f.offer_id!r} ({f.pricing}) as anomalous: check it")
    t = opt.tax
    if t.valid_until and last_month > t.valid_until and t.method != "none":
        out.append(f"{opt.name}: tax profile {t.profile_id!r} describes taxes up to {t.valid_until}, but the horizon "
                   f"runs to {last_month} (the CBS/IBS reform changes PIS/COFINS from 2027): add a dated profile "
                   "for later months when the rates are known")
    return out


def workload(s: Scenario, days: np.ndarray) -> tuple[np.ndarray, ...]:
    """The scenario's demand month by month: users, requests, tokens, hourly requests/s (months × 24), egress GB."""
    inf, h = s.inference, s.scenario.horizon_months
    users = demand.users_timeline(inf.users, inf.start_month, h)
    requests = demand.requests_per_month(users, inf.requests_per_user_per_day, days, inf.active_days_per_week)
    tokens = requests * (inf.input_tokens_per_request + inf.output_tokens_per_request)
    shares = demand.profile(inf.daily_profile)
    rps = demand.hourly_rps(users, inf.requests_per_user_per_day, shares)
    return users, requests, tokens, rps, demand.egress_gb(requests, inf.egress_kb_per_request)


def option_costs_for(opt: ResolvedOption, s: Scenario, tsize, rep, days, rps, egress) -> OptionCosts:
    """costs.option_costs with the scenario's serving and training inputs (the engine's and the plan's one call)."""
    inf = s.inference
    return option_costs(opt, training=tsize, replica=rep, rps=rps, days=days, egress_gb=egress,
                        storage_gb=inf.storage_gb, training_start=s.training.start_month,
                        inference_start=inf.start_month, utilization=inf.utilization_target_share,
                        redundancy=inf.redundancy)


def efficiencies(s: Scenario, dflt: dict) -> tuple[float, float, float]:
    """(bandwidth efficiency, FLOPS efficiency, MFU): the scenario's values, else the catalog defaults."""
    inf, tr = s.inference, s.training
    bw_eff = inf.bandwidth_efficiency_share if inf.bandwidth_efficiency_share is not None else dflt["bandwidth_efficiency_share"]
    fl_eff = inf.flops_efficiency_share if inf.flops_efficiency_share is not None else dflt["flops_efficiency_share"]
    return bw_eff, fl_eff, tr.mfu if tr.mfu is not None else dflt["mfu"]


def replica_candidates_for(fleet, s: Scenario, model, bw_eff: float, fl_eff: float, dflt: dict) -> list[dict]:
    """Every tensor-parallel layout of the model on one server of `fleet` (sizing.replica_candidates with the
    scenario's serving inputs); the plan search sizes each offer through this same call."""
    inf = s.inference
    return sizing.replica_candidates(
        params=model.params_b * 1e9, active_params=model.active_params_b * 1e9, layers=model.layers,
        kv_heads=model.kv_heads, head_dim=model.head_dim,
        precision=s.model.precision, kv_precision=s.model.kv_precision, gpu_memory_gb=fleet.gpu.memory_gb,
        bandwidth_tbs=fleet.gpu.bandwidth_tbs, peak_tflops=sizing.peak_tflops(fleet.gpu, s.model.precision),
        gpus_per_server=fleet.gpus_per_server, input_tokens=inf.input_tokens_per_request,
        output_tokens=inf.output_tokens_per_request, target_tps=inf.tokens_per_second_per_user,
        bw_eff=bw_eff, flops_eff=fl_eff, memory_usable_share=inf.memory_usable_share,
        max_batch=inf.max_batch_sequences,
        tp_efficiency={tp: sizing.scaling_efficiency(tp, fleet.gpu.interconnect, dflt) for tp in (2 ** k for k in range(8))})


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
                 paths: int | None = None, seed: int | None = None, progress=None, simulate: bool = True,
                 plans: bool = False) -> Results:
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
    bw_eff, fl_eff, mfu = efficiencies(s, dflt)

    # demand
    users, requests, tokens, rps, egress = workload(s, days)

    # sizing and costs, option by option
    problems: list[Problem] = []
    warnings: list[str] = []
    fx_path = fxmod.deterministic_path(s.fx, h)
    disc = finance.discount_factors(h, s.scenario.discount_rate)
    results: list[OptionResult] = []
    train_by_opt: dict[str, sizing.TrainingSize] = {}
    for opt in resolved:
        fleet = opt.inference
        cands = replica_candidates_for(fleet, s, model, bw_eff, fl_eff, dflt)
        rep = sizing.choose_replica(cands, fleet.gpus_per_server)
        key = f"options[{opt.index}].inference_offer"
        if rep is None:
            need = params * sizing.BYTES_PER_PARAM[s.model.precision] / 1e9
            problems.append(Problem(file, key, f"model {model.model!r} ({need:,.0f} GB of {s.model.precision} weights plus KV "
                                    f"cache) fits on no GPU count of {fleet.offer_id!r} ({fleet.gpus_per_server} × "
                                    f"{fleet.gpu.gpu}, {fleet.gpu.memory_gb:g} GB each); choose a larger server or "
                                    "model.precision = 'fp8'", (lines or {}).get(("options", opt.index, "inference_offer"))))
            continue
        if not rep.target_met:
            warnings.append(f"{opt.name}: {fleet.gpu.gpu} cannot reach {inf.tokens_per_second_per_user:g} tokens/s per "
                            f"user even at batch 1 ({rep.tokens_per_second_per_user:.1f} tokens/s); sized at batch 1")
        tsize = None
        if tr.method != "none" and opt.training is not None:
            tf = opt.training
            tsize = training_for(tf, s, model, mfu, dflt)
            train_by_opt[opt.name] = tsize
            if tsize.servers > 1 and tf.gpu.interconnect == "pcie":
                warnings.append(f"{opt.name}: training spans {tsize.servers} PCIe servers of {tf.gpu.gpu}; the network "
                                f"between servers is not modelled (scaling efficiency {tsize.scaling_efficiency:g} "
                                "assumed): check such a cluster is practical")
        try:
            oc = option_costs_for(opt, s, tsize, rep, days, rps, egress)
        except ValueError as exc:
            problems.append(Problem(file, f"options[{opt.index}].egress", str(exc),
                                    (lines or {}).get(("options", opt.index))))
            continue
        warnings += [f"{opt.name}: {w}" for w in oc.warnings]
        warnings += price_warnings(opt, months[-1])
        lines_brl = {k: oc.lines[k] * (fx_path if oc.currency[k] == "USD" else 1.0) for k in LINES}
        total = sum(lines_brl.values())
        tco_det = float(total.sum())
        npv_det = float(total @ disc)
        inf_spend = lines_brl["inference_compute"] + lines_brl["egress"] + lines_brl["storage"]
        train_total = float(lines_brl["training_compute"].sum())
        gph = {}
        uplift = tax_uplift(opt.tax)
        for role, f in (("inference", opt.inference), ("training", opt.training)):
            if f is None:
                continue
            if f.kind == "cloud":  # USD/h per server ÷ GPUs × (1 + taxes) × spot
                brl = f.price / f.gpus_per_server * (1.0 + uplift) * s.fx.usdbrl
            else:  # BRL/month per server ÷ (GPUs × 730 h)
                brl = f.price / (f.gpus_per_server * HOURS_PER_MONTH)
            gph[role] = {"offer": f.offer_id, "pricing": f.pricing, "brl_per_gpu_hour": brl}
        det = Dist(tco_det, tco_det, tco_det, tco_det, tco_det)
        ndet = Dist(npv_det, npv_det, npv_det, npv_det, npv_det)
        kind = opt.kind if opt.training is None or opt.training.kind == opt.kind else "hybrid"
        results.append(OptionResult(opt.name, kind, opt, oc, rep, cands, lines_brl, total, det, ndet,
                                    finance.crossover_month(inf_spend, train_total),
                                    finance.cost_per_million_tokens(tco_det, float(tokens.sum())), gph))
    if problems:
        raise InputError(problems)
    meta = {}
    if plans:  # each provider at its best plan, beside the options the user wrote
        from tco import plan

        meta["plans"] = plan.search(s, cat, file=file, lines=lines)
        meta["plans"]["vs_options"] = plan.versus(meta["plans"], [(o.name, o.tco.deterministic) for o in results])

    res = Results(s, months, days, fx_path, users, requests, tokens, egress, rps.max(axis=1), rps,
                  next(iter(train_by_opt.values()), None), train_by_opt, results, model,
                  {"mfu": mfu, "bandwidth_efficiency_share": bw_eff, "flops_efficiency_share": fl_eff,
                   "scaling_efficiency": dflt["scaling_efficiency"]}, cat, tuple(warnings), meta=meta)
    if not simulate:
        return res
    return apply_fx_risk(res, paths=paths, seed=seed, progress=progress)


def apply_fx_risk(res: Results, *, paths: int | None = None, seed: int | None = None, progress=None) -> Results:
    """Fill the percentile keys: Monte Carlo for gbm/bootstrap, equal to the deterministic value otherwise."""
    from dataclasses import replace

    s = res.scenario
    info = {"model": s.fx.model, "paths": paths or s.fx.paths, "seed": seed if seed is not None else s.fx.seed,
            "usdbrl": s.fx.usdbrl, "volatility": s.fx.volatility,
            "base_path_annual_change_rate": fxmod.base_annual_change(s.fx)}
    if s.fx.model not in ("gbm", "bootstrap"):
        best = min(range(len(res.options)), key=lambda i: res.options[i].tco.deterministic)
        opts = [replace(o, prob_cheapest=1.0 if i == best else 0.0) for i, o in enumerate(res.options)]
        return replace(res, options=opts, fx_info=info)
    from tco import risk

    opts = risk.simulate(res, paths=info["paths"], seed=info["seed"], progress=progress)
    return replace(res, options=opts, fx_info=info | risk.describe(res.scenario))
