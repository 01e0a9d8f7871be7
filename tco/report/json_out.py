"""The JSON for automation: the contract of DESIGN.md plus sizing, assumptions and sources.

Numbers are written as the engine computed them (float64, no rounding); keys are sorted so two
runs of the same scenario and seed give byte-identical files.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

import numpy as np

from tco import __version__
from tco.constants import HOURS_PER_MONTH
from tco.costs import LINES
from tco.engine import Results
from tco.errors import InternalError
from tco.report import notices
from tco.report.owned import owned_dict
from tco.domain import Currency


def _clean(x, path: str = ""):
    """Plain JSON values. A non-finite number is refused (InternalError naming its key path): the
    schema and the catalog admit only finite inputs, so NaN or infinity here is a bug, and a `null`
    TCO must never reach automation with exit 0."""
    if isinstance(x, dict):
        return {str(k): _clean(v, f"{path}.{k}" if path else str(k)) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v, f"{path}[{i}]") for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist(), path)
    if isinstance(x, (np.floating, float)):
        v = float(x)
        if math.isnan(v) or math.isinf(v):
            raise InternalError(f"the result {path} is {v} (not a finite number); nothing was written")
        return v
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    return x


def check_money(res: Results) -> None:
    """Refuse results whose money is not finite (InternalError naming the option and amount)."""
    for o in res.options:
        for label, d in (("tco_brl", o.tco), ("npv_brl", o.npv)):
            for k, v in d.as_dict().items():
                if v is None or not math.isfinite(v):
                    raise InternalError(f"option {o.name!r}: {label}.{k} is {v} (not a finite amount); "
                                        "nothing was written")
        if not np.isfinite(o.total_brl).all():
            raise InternalError(f"option {o.name!r}: a monthly total is not a finite amount; nothing was written")


def _catalog_file(path: str, catalog_dir: str | None) -> str:
    """Catalog file named without machine-specific folders: the shipped ones by package path, a
    scenario's own by its catalog_dir (as written in the scenario)."""
    from pathlib import Path

    from tco.catalog import DATA_DIR

    p = Path(path)
    if p.parent.resolve() == DATA_DIR.resolve():
        return f"tco/catalog/data/{p.name}"
    return f"{catalog_dir}/{p.name}" if catalog_dir else p.name


def _fleet_dict(f) -> dict | None:
    if f is None:
        return None
    return {"offer": f.offer_id, "kind": f.kind, "gpu": f.gpu.gpu, "gpus_per_server": f.gpus_per_server,
            "price": f.price, "price_unit": f.price_unit, "currency": f.currency, "pricing": f.pricing,
            "setup_fee_brl": f.setup_fee_brl, "min_term_months": f.min_term_months, "status": f.price_status,
            "source": f.price_source, "as_of": f.price_as_of}


def _components_brl(o, res: Results) -> dict:
    """Tax component → monthly amount in BRL (the taxes line's currency converted at the month's rate)."""
    comp = o.costs.tax_components or {}
    rate = res.fx_path if o.costs.currency["taxes"] == Currency.USD else 1.0
    return {k: np.asarray(v) * rate for k, v in comp.items()}


def _option_dict(o, res: Results) -> dict:
    """One option's entry of the JSON: totals, lines, taxes, offers, sizing and the monthly table."""
    r = o.resolved
    c = o.costs
    out = {
        "name": o.name,
        "kind": o.kind,
        "feasible": o.feasible,
        "breaches": list(o.resolved.breaches),
        "achieved_tokens_per_second_per_user": o.achieved_tokens_per_second_per_user,
        "fleet": r.fleet,
        "autoscale": r.autoscale,
        "tco_brl": o.tco.as_dict(),
        "npv_brl": o.npv.as_dict(),
        "egress_brl": float(o.lines_brl["egress"].sum()),
        "lines_brl": {k: float(v.sum()) for k, v in o.lines_brl.items()},
        "crossover_month": o.crossover_month,
        "cost_per_million_tokens_brl": o.cost_per_million_tokens_brl,
        "gpu_hour_all_in_brl": o.gpu_hour_brl,
        "tax_profile": r.tax.profile_id,
        "tax_uplift_share": c.tax_uplift,
        "tax_regime": r.regime,
        "tax_currency": c.currency["taxes"],
        "brl_tax_profile": r.brl_tax.profile_id if r.brl_tax else None,
        "br_billing": asdict(r.billing) if r.billing else None,
        "taxes_by_component_brl": {k: float(v.sum()) for k, v in _components_brl(o, res).items()},
        "tax_credits_in_brl_prices_brl": float(c.brl_price_credits.sum()) if c.brl_price_credits is not None
        else 0.0,
        "egress_table": r.egress.egress_id,
        "storage": {"id": r.storage_id, "usd_per_gb_month": r.storage_usd_per_gb_month, "source": r.storage_source},
        "indexation_rate": r.indexation_rate,
        "price_trend_rate": r.price_trend_rate,
        "training_offer": _fleet_dict(r.training),
        "inference_offer": _fleet_dict(r.inference),
        "sizing": _sizing_dict(o, res),
        "fan_brl": o.fan_brl,
        "probability_cheapest": o.prob_cheapest,
        "monthly": _monthly_rows(o, res),
    }
    if r.owned is not None:  # bought servers: their terms, totals and the cash and accounting views
        out["owned"] = owned_dict(o, res.months)
    return out


def _monthly_rows(o, res: Results) -> list[dict]:
    """The option's month-by-month table: total and each line [BRL]."""
    rows = []
    for i, month in enumerate(res.months):
        row = {"month": month, "total_brl": float(o.total_brl[i])}
        for k in LINES:
            row[f"{k}_brl"] = float(o.lines_brl[k][i])
        rows.append(row)
    return rows


def _inference_facts(rep, res: Results) -> dict:
    """Which model sized the serving fleet, the regime that bounds it and the latencies it predicts at the planned
    batch (issue 21): what a reader of the proposal asks first."""
    from tco.sizing import speculative_dict
    from tco.sizing.replica import Layout

    lay = Layout(rep.tensor_parallel, rep.nodes, rep.parallel_mode)
    return {"model": "tco.sizing.replica: per-operation roofline of one decode step (docs/calibration.md)",
            "calibration": rep.calibration, "framework": getattr(res.scenario.inference, "framework", "generic"),
            "layout": lay.label, "bound": rep.bound, "batch": rep.batch,
            "ttft_seconds": rep.ttft_seconds, "inter_token_seconds": rep.inter_token_seconds,
            "tokens_per_second_per_user": rep.tokens_per_second_per_user, "target_met": rep.target_met,
            "speculative": speculative_dict(res.scenario),
            **queued_facts(rep, res)}


def queued_facts(rep, res: Results) -> dict:
    """Time to first token at the planned load (tco.sizing.queueing.at_planned_load)."""
    from tco.sizing.queueing import at_planned_load

    return at_planned_load(rep, res.scenario.inference, res.peak_rps)


def _sizing_dict(o, res: Results) -> dict:
    """The option's sizing: the replica, the training plan, the servers and server-hours."""
    c = o.costs
    return {
        "replica": asdict(o.replica),
        "calibration": o.replica.calibration,
        "inference": _inference_facts(o.replica, res),
        "training": res.training_by_option[o.name].as_dict() if o.name in res.training_by_option else None,
        "training_servers": c.training_servers,
        "inference_servers": c.inference_servers,
        "inference_gpus": c.inference_servers * o.resolved.inference.gpus_per_server,
        "server_hours": c.instance_hours,
        "training_months": c.training_months,
    }


def _catalog_rows(res: Results, used_gpus: list[str]) -> dict:
    """The catalog rows the run used (GPUs, model, offers, egress, taxes, reform periods, files)."""
    s, cat = res.scenario, res.catalog
    rows: dict[str, Any] = {
        "gpus": [asdict(cat.gpus[g]) for g in used_gpus],
        "model": {"source": res.model.source, "as_of": res.model.as_of},
        "offers": sorted({json.dumps(_fleet_dict(f), sort_keys=True) for o in res.options
                          for f in (o.resolved.inference, o.resolved.training) if f is not None}),
        "egress": [asdict(t) for t in sorted({o.resolved.egress.egress_id: o.resolved.egress
                                             for o in res.options}.values(), key=lambda t: t.egress_id)],
        "taxes": [asdict(t) for t in sorted({t.profile_id: t for o in res.options
                                            for t in (o.resolved.tax, o.resolved.brl_tax) if t is not None
                                            }.values(), key=lambda t: t.profile_id)],
        "tax_reform": [asdict(p) for p in sorted({p.period_id: p for o in res.options
                                                 for p in o.resolved.tax_periods}.values(), key=lambda p: p.start)],
        "files": [_catalog_file(f, s.scenario.catalog_dir) for f in cat.files],
    }
    rows["offers"] = [json.loads(x) for x in rows["offers"]]
    return rows


def build(res: Results, sha256: str = "", file: str = "") -> dict:
    """The JSON document as a dict."""
    check_money(res)
    s = res.scenario
    options = [_option_dict(o, res) for o in res.options]
    ranked = [o.name for o in res.ranked()]
    used_gpus = sorted({o.resolved.inference.gpu.gpu for o in res.options}
                       | {o.resolved.training.gpu.gpu for o in res.options if o.resolved.training})
    doc: dict[str, Any] = {
        "tool": {"name": "tco", "version": __version__},
        "scenario": _scenario_dict(s, sha256, file),
        "fx": _fx_dict(res),
        "ranking": ranked,
        "cheapest": ranked[0] if ranked else None,
        "infeasible": [o["name"] for o in options if not o["feasible"]],
        "options": options,
        "demand": _demand_dict(res),
        "model": asdict(res.model) | {"precision": s.model.precision, "kv_precision": s.model.kv_precision},
        "assumptions": {
            "defaults_used": res.defaults,
            "training": s.training.model_dump(),
            "inference": s.inference.model_dump(),
            "fx": s.fx.model_dump() | {"base_path": res.fx_info.get("base_path")},
            "conventions": {"cash_flow_timing": "month end", "discount": "(1 + r)^(-t/12), t = 1..H",
                            "costs": "positive amounts", "hours_per_month_for_unit_prices": int(HOURS_PER_MONTH.value)},
        },
        "catalog_rows": _catalog_rows(res, used_gpus),
        "warnings": [notices.line(n, "en") for n in res.notices],
        "notices": [{"code": n.code, "option": n.option, "params": dict(n.params)} for n in res.notices],
    }
    for extra in ("breakevens", "sensitivity", "decomposition", "separation", "probability_cheapest", "fx_fan",
                  "hedging", "plans"):
        if extra in res.meta:
            doc[extra] = res.meta[extra]
    return _clean(doc)


def _scenario_dict(s, sha256: str, file: str) -> dict:
    """The scenario's identity: name, client, start, horizon, discount rate, locale, notes and the file's hash."""
    sc = s.scenario
    return {"name": sc.name, "client": sc.client, "start": sc.start, "horizon_months": sc.horizon_months,
            "discount_rate": sc.discount_rate, "locale": sc.locale, "notes": sc.notes, "file": file, "sha256": sha256}


def _fx_dict(res: Results) -> dict:
    """The FX model, the base path [BRL/USD by month] and what the model reports about itself."""
    info = res.fx_info
    return {"model": info.get("model"), "paths": info.get("paths"), "seed": info.get("seed"),
            "usdbrl": res.scenario.fx.usdbrl, "path": res.fx_path,
            **{k: v for k, v in info.items() if k not in ("model", "paths", "seed", "usdbrl")}}


def _demand_dict(res: Results) -> dict:
    """Demand by month: users, requests, tokens, egress [GB], the peak [requests/s] and total tokens."""
    return {"months": res.months, "users": res.users, "requests": res.requests, "tokens": res.tokens,
            "egress_gb": res.egress_gb, "peak_requests_per_second": res.peak_rps, "total_tokens": float(res.tokens.sum())}


def dumps(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True, allow_nan=False) + "\n"
