"""The JSON for automation: the contract of DESIGN.md plus sizing, assumptions and sources.

Numbers are written as the engine computed them (float64, no rounding); keys are sorted so two
runs of the same scenario and seed give byte-identical files.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict

import numpy as np

from tco import __version__
from tco.costs import LINES
from tco.engine import Results


def _clean(x):
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_clean(v) for v in x.tolist()]
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


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


def build(res: Results, sha256: str = "", file: str = "") -> dict:
    """The JSON document as a dict."""
    s = res.scenario
    options = []
    for o in res.options:
        monthly = []
        for i, month in enumerate(res.months):
            row = {"month": month, "total_brl": float(o.total_brl[i])}
            for k in LINES:
                row[f"{k}_brl"] = float(o.lines_brl[k][i])
            monthly.append(row)
        r = o.resolved
        c = o.costs
        options.append({
            "name": o.name,
            "kind": o.kind,
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
            "egress_table": r.egress.egress_id,
            "storage": {"id": r.storage_id, "usd_per_gb_month": r.storage_usd_per_gb_month, "source": r.storage_source},
            "indexation_rate": r.indexation_rate,
            "price_trend_rate": r.price_trend_rate,
            "training_offer": _fleet_dict(r.training),
            "inference_offer": _fleet_dict(r.inference),
            "sizing": {
                "replica": asdict(o.replica),
                "training": asdict(res.training_by_option[o.name]) if o.name in res.training_by_option else None,
                "training_servers": c.training_servers,
                "inference_servers": c.inference_servers,
                "inference_gpus": c.inference_servers * r.inference.gpus_per_server,
                "server_hours": c.instance_hours,
                "training_months": c.training_months,
            },
            "fan_brl": o.fan_brl,
            "probability_cheapest": o.prob_cheapest,
            "monthly": monthly,
        })
    ranked = sorted(options, key=lambda x: x["tco_brl"]["deterministic"])
    used_gpus = sorted({o.resolved.inference.gpu.gpu for o in res.options}
                       | {o.resolved.training.gpu.gpu for o in res.options if o.resolved.training})
    cat = res.catalog
    doc = {
        "tool": {"name": "tco", "version": __version__},
        "scenario": {"name": s.scenario.name, "client": s.scenario.client, "start": s.scenario.start,
                     "horizon_months": s.scenario.horizon_months, "discount_rate": s.scenario.discount_rate,
                     "locale": s.scenario.locale, "file": file, "sha256": sha256},
        "fx": {"model": res.fx_info.get("model"), "paths": res.fx_info.get("paths"), "seed": res.fx_info.get("seed"),
               "usdbrl": s.fx.usdbrl, "path": res.fx_path, **{k: v for k, v in res.fx_info.items()
                                                              if k not in ("model", "paths", "seed", "usdbrl")}},
        "ranking": [o["name"] for o in ranked],
        "cheapest": ranked[0]["name"],
        "options": options,
        "demand": {"months": res.months, "users": res.users, "requests": res.requests, "tokens": res.tokens,
                   "egress_gb": res.egress_gb, "peak_requests_per_second": res.peak_rps,
                   "total_tokens": float(res.tokens.sum())},
        "model": asdict(res.model) | {"precision": s.model.precision, "kv_precision": s.model.kv_precision},
        "assumptions": {
            "defaults_used": res.defaults,
            "training": s.training.model_dump(),
            "inference": s.inference.model_dump(),
            "fx": s.fx.model_dump(),
            "conventions": {"cash_flow_timing": "month end", "discount": "(1 + r)^(-t/12), t = 1..H",
                            "costs": "positive amounts", "hours_per_month_for_unit_prices": 730},
        },
        "catalog_rows": {
            "gpus": [asdict(cat.gpus[g]) for g in used_gpus],
            "model": {"source": res.model.source, "as_of": res.model.as_of},
            "offers": sorted({json.dumps(_fleet_dict(f), sort_keys=True) for o in res.options
                              for f in (o.resolved.inference, o.resolved.training) if f is not None}),
            "egress": [asdict(t) for t in sorted({o.resolved.egress.egress_id: o.resolved.egress
                                                 for o in res.options}.values(), key=lambda t: t.egress_id)],
            "taxes": [asdict(t) for t in sorted({o.resolved.tax.profile_id: o.resolved.tax
                                                for o in res.options}.values(), key=lambda t: t.profile_id)],
            "files": [_catalog_file(f, s.scenario.catalog_dir) for f in cat.files],
        },
        "warnings": list(res.warnings),
    }
    doc["catalog_rows"]["offers"] = [json.loads(x) for x in doc["catalog_rows"]["offers"]]
    for extra in ("breakevens", "sensitivity", "decomposition", "separation", "probability_cheapest", "fx_fan",
                  "hedging", "plans"):
        if extra in res.meta:
            doc[extra] = res.meta[extra]
    return _clean(doc)


def dumps(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True, allow_nan=False) + "\n"
