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
from tco.report import notices, view
from tco.report.view import View
from tco.report.view_catalog import fleet_row, plain, storage_row
from tco.report.owned import owned_dict
from tco.domain import Currency


_clean = plain
"""Plain JSON values, a non-finite number refused (``tco.report.view_catalog.plain``)."""


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


_fleet_dict = fleet_row


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
        "storage": storage_row(o),
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


def _inference_facts(rep, res: Results, load) -> dict:
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
            **(load.as_dict() if load is not None else {})}


def _sizing_dict(o, res: Results) -> dict:
    """The option's sizing: the replica, the training plan, the servers and server-hours."""
    c = o.costs
    return {
        "replica": asdict(o.replica),
        "calibration": o.replica.calibration,
        "inference": _inference_facts(o.replica, res, o.planned_load),
        "training": res.training_by_option[o.name].as_dict() if o.name in res.training_by_option else None,
        "training_servers": c.training_servers,
        "inference_servers": c.inference_servers,
        "inference_gpus": c.inference_servers * o.resolved.inference.gpus_per_server,
        "server_hours": c.instance_hours,
        "training_months": c.training_months,
    }


def build(res: Results, sha256: str = "", file: str = "", v: View | None = None) -> dict:
    """The JSON document as a dict: one renderer of the results and their view (`v`, built here when not given:
    the catalog rows)."""
    check_money(res)
    if v is None:
        v = view.build(res)
    s = res.scenario
    options = [_option_dict(o, res) for o in res.options]
    ranked = list(v.ranked)
    doc: dict[str, Any] = {
        "tool": {"name": "tco", "version": __version__},
        "scenario": _scenario_dict(s, sha256, file),
        "fx": _fx_dict(res),
        "ranking": ranked,
        "cheapest": ranked[0] if ranked else None,
        "infeasible": [o["name"] for o in options if not o["feasible"]],
        "options": options,
        "demand": _demand_dict(res),
        "model": dict(v.catalog.model),
        "assumptions": {
            "defaults_used": res.efficiencies.as_dict(),
            "training": s.training.model_dump(),
            "inference": s.inference.model_dump(),
            "fx": s.fx.model_dump() | {"base_path": res.fx_info.base.path if res.fx_info else None},
            "conventions": {"cash_flow_timing": "month end", "discount": "(1 + r)^(-t/12), t = 1..H",
                            "costs": "positive amounts", "hours_per_month_for_unit_prices": int(HOURS_PER_MONTH.value)},
        },
        "catalog_rows": v.catalog.as_dict(),
        "warnings": [notices.line(n, "en") for n in res.notices],
        "notices": [{"code": n.code, "option": n.option, "params": dict(n.params)} for n in res.notices],
    }
    doc |= v.analysis.as_dict()  # the parts the analysis and the plan search computed (tco.findings)
    return _clean(doc)


def _scenario_dict(s, sha256: str, file: str) -> dict:
    """The scenario's identity: name, client, start, horizon, discount rate, locale, notes and the file's hash."""
    sc = s.scenario
    return {"name": sc.name, "client": sc.client, "start": sc.start, "horizon_months": sc.horizon_months,
            "discount_rate": sc.discount_rate, "locale": sc.locale, "notes": sc.notes, "file": file, "sha256": sha256}


def _fx_dict(res: Results) -> dict:
    """The FX model, the base path [BRL/USD by month] and what the model reports about itself."""
    info = res.fx_info.as_dict() if res.fx_info else {}
    return {"model": info.get("model"), "paths": info.get("paths"), "seed": info.get("seed"),
            "usdbrl": res.scenario.fx.usdbrl, "path": res.fx_path,
            **{k: v for k, v in info.items() if k not in ("model", "paths", "seed", "usdbrl")}}


def _demand_dict(res: Results) -> dict:
    """Demand by month: users, requests, tokens, egress [GB], the peak [requests/s] and total tokens."""
    return {"months": res.months, "users": res.users, "requests": res.requests, "tokens": res.tokens,
            "egress_gb": res.egress_gb, "peak_requests_per_second": res.peak_rps, "total_tokens": float(res.tokens.sum())}


def dumps(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True, allow_nan=False) + "\n"
