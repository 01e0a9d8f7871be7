"""The proposal's sections: each builds, from the engine's Results and the JSON document, the
presentation values one part of the template shows (tables, charts, sentences in the locale).

Split from proposal.py so each module stays small; nothing here renders HTML or PDF.
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

import numpy as np

from tco.costs import LINES
from tco.report import charts, fmt
from tco.report.i18n import has, language, t

MONTE_CARLO = ("gbm", "bootstrap")


def _table(head, rows, num=(), wrap=(), highlight=(), name=None, notes=None, note_label="") -> dict:
    """A table for the template: header, rows of strings, a CSS class per column (num, wrap, name),
    rows to highlight, and an optional full-width note under each row (sources)."""
    cls = [" ".join(c for c, on in (("num", i in num), ("wrap", i in wrap), ("name", i == name)) if on)
           for i in range(len(head))]
    return {"head": head, "rows": rows, "cls": cls, "highlight": set(highlight), "notes": notes,
            "note_label": note_label}


def _saving(base: float, other: float) -> tuple[float, float]:
    """(other − base [BRL], (other − base)/other [-]) — what choosing `base` saves against `other`."""
    return other - base, (other - base) / other if other else float("nan")


def _label_or(key: str, loc: str, fallback: str) -> str:
    """The catalog's text for `key`, `fallback` when the catalog has none (an id it does not list)."""
    return t(key, loc) if has(key) else fallback


def _fx_model_text(doc: dict, loc: str) -> str:
    fx = doc["fx"]
    base = fx.get("base_path")
    around = f"; {t('term_fx_base', loc, path=_label_or(f'fxb_{base}', loc, base))}" if base else ""
    if fx["model"] == "gbm":
        return t("fx_model_gbm", loc, vol=fmt.percent_short(fx.get("volatility"), loc)) + around
    if fx["model"] == "bootstrap":
        return t("fx_model_bootstrap", loc, block=fx.get("block_months", "—")) + around
    return _label_or(f"fxb_{base}", loc, base) if base else _label_or(f"fxm_{fx['model']}", loc, fx["model"])


def _money_unit(loc):
    return lambda key: t("chart_money_axis", loc, unit=t(key, loc)).strip()


def _comparators(ranked: list) -> list[tuple[str, dict]]:
    """The options the recommended one is measured against, as (kind, option), cheapest first: the cheapest
    option of each pure kind ("cloud", "dedicated") other than the recommendation's own. A cloud recommendation
    meets the cheapest dedicated option, a dedicated one the cheapest cloud option, and a hybrid one (training
    and serving on different kinds) both."""
    rec = ranked[0]
    kinds = [k for k in ("cloud", "dedicated") if k != rec["kind"]]
    found = [(k, next((o for o in ranked[1:] if o["kind"] == k), None)) for k in kinds]
    return sorted(((k, o) for k, o in found if o is not None), key=lambda ko: ko[1]["tco_brl"]["deterministic"])


def _summary(ctx: dict, ranked: list, doc: dict, loc: str, has_usd: bool) -> dict:
    rec = ranked[0]
    months = doc["scenario"]["horizon_months"]
    tco = lambda o: o["tco_brl"]["deterministic"]  # noqa: E731
    money = lambda x: fmt.money(x, loc, False)  # noqa: E731
    sentences = [t("s_rec", loc, months=months, rec=rec["name"], tco=fmt.money(tco(rec), loc, False))]
    rows = []
    comps = _comparators(ranked)
    for other_kind, best_other in comps:
        diff, share = _saving(tco(rec), tco(best_other))
        key = "s_vs_cloud" if other_kind == "cloud" else "s_vs_dedicated"
        sentences.append(t(key, loc, saving=fmt.money(diff, loc, False), share=fmt.percent(share, loc),
                           other=best_other["name"], other_tco=fmt.money(tco(best_other), loc, False)))
        rows.append([t("cmp_best_cloud" if other_kind == "cloud" else "cmp_best_dedicated", loc), best_other["name"],
                     money(tco(best_other)), money(diff), fmt.percent(share, loc)])
        be = _breakeven_for(doc, best_other["name"], rec["name"])
        if be is not None:
            change = _signed_percent(be / doc["fx"]["usdbrl"] - 1.0, loc)
            if other_kind == "cloud":
                sentences.append(t("s_breakeven", loc, cloud=best_other["name"], rec=rec["name"],
                                   rate=fmt.money(be, loc), change=change))
            else:
                sentences.append(t("s_breakeven_cloud_rec", loc, rec=rec["name"], other=best_other["name"],
                                   rate=fmt.money(be, loc), change=change))
    if len(ranked) > 1:
        up = ranked[1]
        diff, share = _saving(tco(rec), tco(up))
        if not comps:  # otherwise the comparison table carries the runner-up
            sentences.append(t("s_runner_up", loc, other=up["name"], saving=fmt.money(diff, loc, False),
                               share=fmt.percent(share, loc)))
        if all(up is not o for _, o in comps):  # a runner-up already in the table is not repeated
            rows.append([t("cmp_runner_up", loc), up["name"], money(tco(up)), money(diff), fmt.percent(share, loc)])
    best_cloud = next((o for o in ranked if o["kind"] == "cloud"), None)
    fx = doc["fx"]
    fx_range = None
    if not has_usd:
        sentences.append(t("fx_only_brl", loc))
    elif fx["model"] in MONTE_CARLO and best_cloud is not None:
        sentences.append(t("s_fx_mc", loc, model=_fx_model_text(doc, loc), paths=fmt.number(fx["paths"], loc),
                           p5=fmt.money(best_cloud["tco_brl"]["p5"], loc, False),
                           p95=fmt.money(best_cloud["tco_brl"]["p95"], loc, False),
                           prob=fmt.percent(ctx["prob"][rec["name"]], loc, 0)))
        fx_range = (f"{t('fx_range_label', loc)} — {best_cloud['name']}",
                    f"{fmt.money(best_cloud['tco_brl']['p5'], loc, False)} – "
                    f"{fmt.money(best_cloud['tco_brl']['p95'], loc, False)}")
    elif fx["model"] == "fixed" and fx.get("base_path", "spot") == "spot":
        sentences.append(t("s_fx_fixed", loc, rate=fmt.money(fx["usdbrl"], loc)))
    else:
        sentences.append(t("s_fx_path", loc, rate=fmt.money(fx["usdbrl"], loc), model=_fx_model_text(doc, loc)))
    figures = [
        {"label": t("kf_tco", loc, months=months), "value": fmt.money(tco(rec), loc, False)},
        {"label": t("kf_npv", loc, rate=fmt.percent_short(doc["scenario"]["discount_rate"], loc)),
         "value": fmt.money(rec["npv_brl"]["deterministic"], loc, False)},
        {"label": t("kf_per_mtok", loc), "value": fmt.money(rec["cost_per_million_tokens_brl"], loc)},
    ]
    if fx["model"] in MONTE_CARLO and has_usd:
        figures.append({"label": t("kf_prob", loc), "value": fmt.percent(ctx["prob"][rec["name"]], loc, 0),
                        "sub": t("kf_prob_value", loc, share="").strip()})
    head = [t("cmp_vs", loc), t("cmp_other", loc), t("cmp_other_tco", loc), t("cmp_saving", loc),
            t("cmp_saving_share", loc)]
    mc = fx["model"] in MONTE_CARLO and has_usd
    bars = charts.tco_bars([o["name"] for o in ranked], [tco(o) for o in ranked],
                           [(o["tco_brl"]["p5"], o["tco_brl"]["p95"]) for o in ranked] if mc else None, loc,
                           _money_unit(loc), t("fan_band", loc), ctx["palette"])
    chart = {"title": t("chart_tco_title_mc" if mc else "chart_tco_title", loc, months=months), "svg": bars}
    return {"recommended": rec["name"], "figures": figures, "sentences": sentences, "chart": chart,
            "comparison": _table(head, rows, num=(2, 3, 4), name=1), "fx_range": fx_range}


def _signed_percent(share: float, loc: str) -> str:
    return ("+" if share > 0 else "") + fmt.percent(share, loc, 0)


def _breakeven_for(doc: dict, option: str, versus: str) -> float | None:
    """The engine's break-even USD/BRL between two options, if it computed one."""
    for row in (doc.get("breakevens") or {}).get("usdbrl") or []:
        if {row.get("option"), row.get("versus")} == {option, versus}:
            return row.get("usdbrl")
    return None


def _workload(res, doc: dict, ranked: list, loc: str, palette) -> dict:
    m = doc["model"]
    intro = t("wl_intro", loc, model=m["model"], params=fmt.number_short(m["params_b"], loc, 2),
              precision=m["precision"].upper())
    tr = doc["assumptions"]["training"]
    training, facts = None, []
    if res.training_by_option:
        first = next(iter(res.training_by_option.values()))
        facts = [(t("wl_method", loc), _label_or(f"method_{tr['method']}", loc, tr["method"])),
                 (t("wl_tokens", loc), f"{fmt.scientific(tr['tokens'], loc)} × {fmt.number_short(tr['epochs'], loc)}"),
                 (t("wl_flops", loc), fmt.scientific(first.flops, loc))]
        seen, rows = set(), []
        for o in ranked:
            ts = res.training_by_option.get(o["name"])
            offer = (o.get("training_offer") or {}).get("offer")
            if ts is None or offer in seen:
                continue
            seen.add(offer)
            rows.append([offer, fmt.number(ts.gpus, loc), fmt.number(ts.servers, loc), fmt.number(ts.gpu_hours, loc),
                         fmt.number(ts.billed_gpu_hours, loc), fmt.number(ts.wall_hours / 24.0, loc, 1)])
        training = _table([t("wl_offer", loc), t("wl_gpus", loc), t("wl_servers", loc), t("wl_gpu_hours", loc),
                           t("wl_billed_gpu_hours", loc), t("wl_wall", loc)], rows, num=(1, 2, 3, 4, 5), wrap=(0,))
    inf = doc["assumptions"]["inference"]
    d = doc["demand"]
    start = max(inf["start_month"] - 1, 0)
    inference_facts = [
        (t("wl_users_start", loc) + " → " + t("wl_users_end", loc).lower(),
         t("users_range", loc, start=fmt.number(d["users"][start], loc), end=fmt.number(d["users"][-1], loc))),
        (t("wl_requests", loc), fmt.number_short(inf["requests_per_user_per_day"], loc)),
        (t("wl_tokens_req", loc), f"{fmt.number(inf['input_tokens_per_request'], loc)} + "
                                  f"{fmt.number(inf['output_tokens_per_request'], loc)}"),
        (t("wl_tps", loc), fmt.number_short(inf["tokens_per_second_per_user"], loc)),
        (t("wl_total_tokens", loc), fmt.scientific(d["total_tokens"], loc)),
        (t("wl_peak_rps", loc), fmt.number_short(max(d["peak_requests_per_second"]), loc, 1)),
    ]
    rows = []
    for o in ranked:
        rep = o["sizing"]["replica"]
        gpus = rep.get("gpus_per_replica") or rep["tensor_parallel"]
        rows.append([o["name"], o["inference_offer"]["offer"], fmt.number(rep["batch"], loc),
                     fmt.number(gpus, loc), fmt.number_short(rep["requests_per_second"], loc, 2),
                     fmt.number(max(o["sizing"]["inference_servers"]), loc),
                     _label_or(f"bound_{rep['bound']}", loc, rep["bound"]),
                     f"{fmt.number_short(rep.get('inter_token_seconds', rep['step_seconds']), loc, 3)} / "
                     f"{fmt.number_short(rep.get('ttft_seconds', 0.0), loc, 2)}"])
    serving = _table([t("col_option", loc), t("wl_inf_offer", loc), t("wl_batch", loc), t("wl_tp", loc),
                      t("wl_rps_server", loc), t("wl_peak_servers", loc), t("wl_bound", loc), t("wl_itl_ttft", loc)],
                     rows, num=(2, 3, 4, 5), wrap=(1, 6), name=0)
    users = {"title": t("chart_users_title", loc),
             "svg": charts.users_chart(res.months, np.asarray(res.users), loc, t("u_users", loc), palette)}
    return {"intro": intro, "training": training, "training_facts": facts, "inference_facts": inference_facts,
            "users_chart": users, "serving": serving}


def _options(res, ranked: list, loc: str, palette) -> dict:
    best = ranked[0]["tco_brl"]["deterministic"]
    rows = []
    for i, o in enumerate(ranked):
        det = o["tco_brl"]["deterministic"]
        vs = t("best", loc) if i == 0 else "+" + fmt.percent((det - best) / best, loc) if best > 0 else "—"
        kind = f"{t('kind_' + o['kind'], loc)} · {t('fleet_' + o['fleet'], loc)}"
        rows.append([str(i + 1), {"main": o["name"], "sub": kind}, fmt.money(det, loc),
                     fmt.money(o["npv_brl"]["deterministic"], loc, False), vs,
                     fmt.money(o["cost_per_million_tokens_brl"], loc)])
    head = [t("col_rank", loc), t("col_option", loc), t("col_tco", loc), t("col_npv", loc), t("col_vs_best", loc),
            t("col_per_mtok", loc)]
    by_name = {o.name: o for o in res.options}
    series = [(o["name"], np.cumsum(by_name[o["name"]].total_brl)) for o in ranked]
    chart = {"title": t("chart_cum_title", loc),
             "svg": charts.cumulative_chart(res.months, series, loc, _money_unit(loc), palette)}
    return {"table": _table(head, rows, num=(0, 2, 3, 4, 5), highlight=(0,), name=1), "chart": chart}


def _lines(res, ranked: list, loc: str, palette) -> dict:
    rec = ranked[0]
    comps = _comparators(ranked)
    shown = [rec] + [o for _, o in comps]
    by_name = {o.name: o for o in res.options}
    out, rows = [], []
    for o in shown:
        lines = [(t(f"line_{k}", loc), np.asarray(by_name[o["name"]].lines_brl[k])) for k in LINES]
        out.append({"title": t("chart_lines_title", loc, option=o["name"]),
                    "svg": charts.stacked_chart(res.months, lines, loc, _money_unit(loc), palette,
                                                clip_label=lambda v: t("clipped", loc, value=fmt.money_compact(v, loc)))})
    for k in LINES:
        rows.append([t(f"line_{k}", loc)] + [fmt.money(o["lines_brl"][k], loc, False) for o in shown])
    rows.append([t("col_total", loc)] + [fmt.money(o["tco_brl"]["deterministic"], loc, False) for o in shown])
    table = _table([t("col_line", loc)] + [o["name"] for o in shown], rows, num=tuple(range(1, len(shown) + 1)),
                   highlight=(len(rows) - 1,), name=0)
    kinds = {k for k, _ in comps}
    intro = t("lines_intro_both" if len(kinds) > 1 else "lines_intro_dedicated" if kinds == {"dedicated"}
              else "lines_intro", loc)
    return {"charts": out, "table": table, "intro": intro}


def _fx(res, doc: dict, ranked: list, loc: str, palette, has_usd: bool, prob: dict) -> dict:
    fx = doc["fx"]
    out = {"paragraphs": [], "table": None, "chart": None, "rate_chart": None, "notes": []}
    if not has_usd:
        out["paragraphs"].append(t("fx_only_brl", loc))
        return out
    if fx["model"] not in MONTE_CARLO:
        key = "s_fx_fixed" if fx["model"] == "fixed" and fx.get("base_path", "spot") == "spot" else "s_fx_path"
        out["paragraphs"].append(t(key, loc, rate=fmt.money(fx["usdbrl"], loc), model=_fx_model_text(doc, loc)))
        if not (doc.get("breakevens") or {}).get("usdbrl"):
            out["notes"].append(t("fx_breakeven_missing", loc))
        return out
    out["paragraphs"].append(t("fx_intro_mc", loc, model=_fx_model_text(doc, loc), paths=fmt.number(fx["paths"], loc),
                               rate=fmt.money(fx["usdbrl"], loc), seed=fx["seed"]))
    path = fx.get("path") or []
    if path and abs(path[-1] - path[0]) > 0.005 and "base_path_annual_change_rate" in fx:
        drift = fx["base_path_annual_change_rate"]
        out["paragraphs"].append(t("fx_base_path", loc, first=fmt.money(path[0], loc), last=fmt.money(path[-1], loc),
                                   drift=_signed_percent(drift, loc)))
    rows = [[o["name"], fmt.money(o["tco_brl"]["deterministic"], loc, False), fmt.money(o["tco_brl"]["p5"], loc, False),
             fmt.money(o["tco_brl"]["p50"], loc, False), fmt.money(o["tco_brl"]["p95"], loc, False),
             fmt.percent(prob[o["name"]], loc, 0)] for o in ranked]
    out["table"] = _table([t("col_option", loc), t("col_tco", loc), t("col_p5", loc), t("col_p50", loc),
                           t("col_p95", loc), t("kf_prob", loc)], rows, num=(1, 2, 3, 4, 5), highlight=(0,), name=0)
    by_name = {o.name: o for o in res.options}
    cloud = next((o for o in ranked if o["kind"] == "cloud" and by_name[o["name"]].fan_brl is not None), None)
    if cloud is not None:
        rec = ranked[0]
        ref = None if rec is cloud else (t("fan_recommended", loc, option=rec["name"]), by_name[rec["name"]].total_brl)
        svg = charts.fan_chart(res.months, by_name[cloud["name"]].fan_brl, t("fan_band", loc), t("fan_median", loc),
                               loc, _money_unit(loc), ref, palette,
                               clip_label=lambda v: t("clipped", loc, value=fmt.money_compact(v, loc)))
        out["chart"] = {"title": t("chart_fan_title", loc, option=cloud["name"]), "svg": svg}
    if doc.get("fx_fan"):
        rec = ranked[0]
        best_cloud = cloud or next((o for o in ranked if o["kind"] == "cloud"), None)
        be = _breakeven_for(doc, best_cloud["name"], rec["name"]) if best_cloud and best_cloud is not rec else None
        line = (t("rate_breakeven", loc, cloud=best_cloud["name"], rec=rec["name"]), be) if be else None
        svg = charts.rate_fan_chart(res.months, doc["fx_fan"], t("fan_band", loc), t("fan_median", loc), loc,
                                    t("rate_axis", loc), line, palette)
        out["rate_chart"] = {"title": t("chart_rate_title", loc), "svg": svg}
    return out


def _other_breakevens(doc: dict, loc: str) -> list[str]:
    """Sentences for the users break-even and the payback months (engine figures, formatted here)."""
    be = doc.get("breakevens") or {}
    out = []
    u = be.get("users")
    if u and u.get("challenger"):
        if u.get("users_scale"):
            out.append(t("be_users", loc, leader=u["leader"], challenger=u["challenger"],
                         scale=fmt.number_short(u["users_scale"], loc, 2) + "×",
                         users=fmt.number(u["peak_users"], loc), base=fmt.number(u["base_peak_users"], loc)))
        else:
            out.append(t("be_users_none", loc, leader=u["leader"], challenger=u["challenger"]))
    months = doc["demand"]["months"]
    for p in be.get("payback") or []:
        m = p.get("payback_month")
        if m and m > 1:
            out.append(t("be_payback", loc, option=p["option"], versus=p["versus"], month=m,
                         period=fmt.month_year(months[m - 1], loc)))
    return out


def _breakevens(doc: dict, loc: str) -> dict | None:
    rows = (doc.get("breakevens") or {}).get("usdbrl") or []
    if not rows:
        return None
    spot = doc["fx"]["usdbrl"]
    body = [[r["option"], r["versus"], fmt.money(r["usdbrl"], loc) if r.get("usdbrl") else t("no_breakeven", loc),
             _signed_percent(r["usdbrl"] / spot - 1.0, loc) if r.get("usdbrl") else "—"] for r in rows]
    return {"intro": t("be_intro", loc, rate=fmt.money(spot, loc)),
            "table": _table([t("col_option", loc), t("col_versus", loc), t("col_breakeven", loc), t("col_vs_spot", loc)],
                            body, num=(2, 3), name=0)}


def _sensitivity(doc: dict, loc: str, palette) -> dict | None:
    sens = (doc.get("sensitivity") or {}).get("dedicated_vs_cloud")
    if not sens or not sens.get("rows"):
        return None
    rows = sorted(sens["rows"], key=lambda r: -abs(r.get("swing_brl") or 0.0))
    label = lambda r: _label_or(f"sens_in_{r['input']}", loc, r.get("label") or r["input"])  # noqa: E731

    def level(r, v):
        if str(r.get("unit", "")).startswith("×"):
            return fmt.number_short(v, loc, 2) + "×"
        return fmt.percent(v, loc)

    metric = lambda r: _label_or(f"metric_{r.get('metric', 'tco')}", loc, r.get("metric", ""))  # noqa: E731
    body = [[label(r), metric(r), level(r, r["low"]), level(r, r["high"]), fmt.money(r["low_diff_brl"], loc, False),
             fmt.money(r["high_diff_brl"], loc, False)] for r in rows]
    # the chart keeps the inputs measured on the deterministic TCO, so every bar shares one base
    on_tco = [r for r in rows if r.get("metric", "tco") == "tco"]
    svg = charts.tornado([label(r) for r in on_tco], [r["low_diff_brl"] for r in on_tco],
                         [r["high_diff_brl"] for r in on_tco], sens["base_diff_brl"], t("sens_low", loc),
                         t("sens_high", loc), loc, _money_unit(loc), palette)
    return {"intro": t("sens_intro", loc, leader=sens["leader"], challenger=sens["challenger"],
                       base=fmt.money(sens["base_diff_brl"], loc, False)),
            "chart": {"title": t("chart_sens_title", loc), "svg": svg},
            "table": _table([t("col_input", loc), t("col_metric", loc), t("col_low", loc), t("col_high", loc),
                             t("col_diff_low", loc), t("col_diff_high", loc)], body, num=(2, 3, 4, 5), name=0)}


def _egress(doc: dict, ranked: list, loc: str) -> dict:
    taxes = {x["profile_id"]: x for x in doc["catalog_rows"]["taxes"]}
    label_key = "label_" + language(loc)
    rows = []
    for o in ranked:
        tco = o["tco_brl"]["deterministic"]
        pid = o.get("brl_tax_profile") if o.get("tax_currency") == "BRL" else o["tax_profile"]
        prof = taxes.get(pid, {})
        rows.append([o["name"], fmt.money(o["egress_brl"], loc, False), fmt.percent(o["egress_brl"] / tco, loc, 2),
                     prof.get(label_key) or pid, fmt.percent(o["tax_uplift_share"], loc),
                     fmt.money(o["lines_brl"]["taxes"], loc, False)])
    head = [t("col_option", loc), t("col_egress", loc), t("col_egress_share", loc), t("col_tax_profile", loc),
            t("col_uplift", loc), t("line_taxes", loc)]
    return {"volume": t("et_volume", loc, gb=fmt.number(sum(doc["demand"]["egress_gb"]), loc)),
            "table": _table(head, rows, num=(1, 2, 4, 5), wrap=(3,), name=0), "decomposition": _decomposition(doc, loc)}


def _decomposition(doc: dict, loc: str) -> dict | None:
    dc = doc.get("decomposition")
    if not dc or not dc.get("parts_brl"):
        return None
    shares = dc.get("parts_share_of_cloud_tco") or {}
    rows = [[_label_or(f"line_{k}", loc, _label_or(f"part_{k}", loc, k)), fmt.money(v, loc, False), fmt.percent(shares.get(k), loc)]
            for k, v in dc["parts_brl"].items()]
    rows.append([t("dc_total", loc), fmt.money(dc["difference_brl"], loc, False), "—"])
    if dc.get("fx_risk_premium_brl"):
        rows.append([t("dc_fx_premium", loc), fmt.money(dc["fx_risk_premium_brl"], loc, False), "—"])
    claim = dc.get("egress_claim") or {}
    verdict = claim.get("verdict")
    claim_text = (t("dc_claim", loc, share=fmt.percent(dc["egress_share_of_cloud_tco"], loc, 2), cloud=dc["cloud"],
                    verdict=t(f"dc_verdict_{verdict}", loc)) if verdict in ("below", "inside", "above") else None)
    return {"intro": t("dc_intro", loc, cloud=dc["cloud"], dedicated=dc["dedicated"]), "claim": claim_text,
            "table": _table([t("col_line", loc), t("col_value", loc), t("col_share_cloud", loc)], rows, num=(1, 2),
                            highlight=(len(dc["parts_brl"]),), name=0)}


def _fleets(doc: dict, ranked: list, loc: str) -> dict:
    rows, pairs = [], []
    for o in ranked:
        rows.append([o["name"], t(f"fleet_{o['fleet']}", loc), fmt.money(o["lines_brl"]["training_compute"], loc, False),
                     fmt.money(o["lines_brl"]["inference_compute"], loc, False),
                     fmt.money(o["tco_brl"]["deterministic"], loc, False)])
    for sep in (o for o in ranked if o["fleet"] == "separate"):
        for sh in (o for o in ranked if o["fleet"] == "shared"):
            if sep["kind"] == sh["kind"] and sep.get("training_offer") == sh.get("training_offer"):
                diff, share = _saving(sep["tco_brl"]["deterministic"], sh["tco_brl"]["deterministic"])
                pairs.append(t("fl_pair", loc, separate=sep["name"], shared=sh["name"],
                               diff=fmt.money(abs(diff), loc, False), share=fmt.percent(abs(share), loc),
                               direction=t("fl_less" if diff >= 0 else "fl_more", loc)))
    head = [t("col_option", loc), t("col_fleet", loc), t("col_training_cost", loc), t("col_inference_cost", loc),
            t("col_tco", loc)]
    out = {"pairs": pairs or [t("fl_no_pair", loc)], "table": _table(head, rows, num=(2, 3, 4), name=0)}
    sep = doc.get("separation")
    if sep:
        order = {o["name"]: i for i, o in enumerate(ranked)}
        sep = sorted(sep, key=lambda r: order.get(r["option"], len(order)))
        body = [[r["option"], t(f"fleet_{r['chosen']}", loc) if r.get("chosen") else t("sep_by_design", loc),
                 fmt.money(r.get("shared_brl"), loc, False), fmt.money(r.get("separate_brl"), loc, False),
                 fmt.money(r.get("saving_brl"), loc, False)] for r in sep]
        out["table"] = _table([t("col_option", loc), t("col_chosen", loc), t("col_shared_tco", loc),
                               t("col_separate_tco", loc), t("col_sep_saving", loc)], body, num=(2, 3, 4), name=0)
        out["pairs"] = _separation_sentences(sep, ranked, loc)
    return out


def _separation_sentences(sep: list, ranked: list, loc: str) -> list[str]:
    """What separating the fleets is worth for the options that matter: the recommended one, then the cheapest
    option of each other kind (`_comparators`). Nothing when none of them has a shared/separate comparison."""
    by_option = {r["option"]: r for r in sep}
    who = [("rec", ranked[0])] + list(_comparators(ranked))
    out = []
    for role, o in who:
        r = by_option.get(o["name"])
        if r is None:
            continue
        saving, shared, separate = r.get("saving_brl"), r.get("shared_brl"), r.get("separate_brl")
        prefix = (t("sep_for_rec", loc, option=o["name"]) if role == "rec"
                  else t(f"sep_for_{role}", loc, option=o["name"]))
        if saving is None or not shared or not separate:
            if role == "rec" and not r.get("chosen"):
                out.append(t("sep_by_design_sentence", loc, prefix=prefix))
            continue
        if saving > 0:
            out.append(t("sep_saves", loc, prefix=prefix, saving=fmt.money(saving, loc, False),
                         share=fmt.percent(saving / shared, loc)))
        elif saving < 0:
            out.append(t("sep_costs", loc, prefix=prefix, saving=fmt.money(-saving, loc, False),
                         share=fmt.percent(-saving / separate, loc)))
        else:
            out.append(t("sep_even", loc, prefix=prefix))
    return out


def _price(offer: dict, loc: str) -> str:
    from babel.numbers import format_currency

    value = format_currency(offer["price"], offer["currency"], locale=fmt.babel_locale(loc))
    if offer["currency"] == "USD" and value.startswith("$"):
        value = "US" + value  # English CLDR writes "$": say which dollar beside R$
    per = t("per_hour", loc) if offer["price_unit"].endswith("/h") else t("per_month", loc)
    return value + per


_URL = re.compile(r"https?://([^/\s)\]'\"<>]+)((?:/[^\s)\]'\";,<>]*)?)")
_DOMAIN = re.compile(r"(?<![\w@./:-])((?:[a-z0-9-]+\.)+(?:com|org|net|io|ai|dev|sh|to|gov|edu|co|cloud)(?:\.br)?)"
                     r"(?![\w-])", re.IGNORECASE)
_ISO = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
SOURCE_CAP = 64
"""Longest concise source shown [characters]; longer ones end in an ellipsis (the full text is in the JSON)."""


def _hosts(text: str) -> list[str]:
    """The web hosts a catalog source names, in order, once each (github.com/owner/repo for GitHub links)."""
    found = []
    for m in _URL.finditer(text):
        host = m.group(1).lower().removeprefix("www.")
        parts = [x for x in m.group(2).split("/") if x]
        if host == "github.com" and len(parts) >= 2:
            host = f"github.com/{parts[0]}/{parts[1]}"
        found.append((m.start(), host))
    blanked = _URL.sub(lambda m: " " * len(m.group(0)), text)
    found += [(m.start(), m.group(1).lower().removeprefix("www.")) for m in _DOMAIN.finditer(blanked)]
    out = []
    for _, h in sorted(found):
        if h not in out:
            out.append(h)
    return out


def _clip(text: str, cap: int = SOURCE_CAP) -> str:
    text = " ".join(text.split())
    if len(text) <= cap:
        return text
    cut = text[:cap - 1].rsplit(" ", 1)[0] if " " in text[:cap - 1] else text[:cap - 1]
    return cut.rstrip(" ,:;.-") + "…"


def _first_clause(text: str, cap: int = SOURCE_CAP) -> str:
    """The text up to its first ';', '(', ": '" or sentence end, capped at `cap` characters."""
    text = re.sub(r"@[0-9a-f]{7,40}\b", "", text)  # commit hashes: in the JSON, not for a reader
    text = re.sub(r"^(?:reference|derived|provisional)\b:?\s*", "", text.strip(), flags=re.IGNORECASE)
    head = re.split(r";|\s?\(|: '|\.\s", text, maxsplit=1)[0].strip().rstrip(":,")
    return _clip(head or text, cap)


def _short_source(text: str | None, loc: str, estimate: bool = False, max_hosts: int = 3) -> str:
    """A catalog source as a client reads it: the hosts it cites (at most `max_hosts`, then "+ N"), or its
    first clause when it cites none. The full text stays in the JSON and the workbook."""
    if not text:
        return "—"
    hosts = _hosts(text)
    if not hosts:
        return _first_clause(text)
    shown = ", ".join(hosts[:max_hosts])
    if len(hosts) > max_hosts:
        shown += t("src_more", loc, n=len(hosts) - max_hosts)
    return t("src_estimate_from", loc, hosts=shown) if estimate else shown


def _as_of(text: str | None, loc: str) -> str:
    """A catalog date in the locale ("2025-11-30" → "30/11/2025"); "undated …" → "sem data", with the date it
    was checked on when the note gives one."""
    if not text:
        return t("as_of_undated", loc)
    s = str(text).strip()
    m = _ISO.match(s)
    if m:
        return fmt.iso_date(m.group(0), loc)
    if s.lower().startswith("undated"):
        later = _ISO.search(s)
        return (t("as_of_undated_checked", loc, date=fmt.iso_date(later.group(0), loc)) if later
                else t("as_of_undated", loc))
    return _first_clause(s, 32)


def _storage_as_of(store: dict, loc: str) -> str:
    """Storage rows carry no date field: the latest date their source names, else "sem data"."""
    if store.get("id") == "scenario":
        return t("as_of_scenario", loc)
    if not store.get("usd_per_gb_month"):
        return "—"
    dates = _ISO.findall(store.get("source") or "")
    return fmt.iso_date(max(dates), loc) if dates else t("as_of_undated", loc)


def _sources(res, doc: dict, ranked: list, loc: str, attachments: list[Path], today: _dt.date) -> dict:
    sc, fx, cr = doc["scenario"], doc["fx"], doc["catalog_rows"]
    general = [
        (t("src_tool", loc), f"{doc['tool']['name']} {doc['tool']['version']}"),
        (t("src_file", loc), Path(sc.get("file") or "").name or "—"),
        (t("src_sha", loc), sc.get("sha256") or "—"),
        (t("src_generated", loc), fmt.long_date(today, loc)),
        (t("src_discount", loc), fmt.percent_short(sc["discount_rate"], loc)),
        (t("src_fx", loc), t("src_fx_value", loc, rate=fmt.money(fx["usdbrl"], loc), model=_fx_model_text(doc, loc))),
        (t("src_conventions", loc), t("src_conventions_value", loc)),
    ]
    att = "; ".join(f"{_attachment_label(p, loc)}: {p.name}" for p in attachments if p.exists())
    if att:
        general.append((t("src_attached", loc), att))
    used = doc["assumptions"]["defaults_used"]
    inf = doc["assumptions"]["inference"]
    eff = [(t("eff_mfu", loc), fmt.percent(used["mfu"], loc)),
           (t("eff_bw", loc), fmt.percent(used["bandwidth_efficiency_share"], loc)),
           (t("eff_flops", loc), fmt.percent(used["flops_efficiency_share"], loc))]
    cal = used.get("serving_calibration")
    if cal:
        eff += [(t("eff_calibration", loc), cal["name"]), (t("eff_link", loc), fmt.percent(cal["interconnect_share"], loc)),
                (t("eff_overhead", loc), f"{fmt.number_short(cal['step_overhead_seconds'] * 1e3, loc, 1)} ms")]
    eff += [(t("eff_scaling", loc, ic=_label_or(f"ic_{ic}", loc, ic)), fmt.percent(v, loc))
            for ic, v in sorted(used["scaling_efficiency"].items())]
    eff += [(t("eff_memory", loc), fmt.percent(inf["memory_usable_share"], loc)),
            (t("eff_utilization", loc), fmt.percent(inf["utilization_target_share"], loc)),
            (t("eff_redundancy", loc), _label_or(f"redundancy_{inf['redundancy']}", loc, inf["redundancy"]))]
    src = t("col_source", loc)
    offers = _table([t("col_offer", loc), t("col_price", loc), t("col_pricing", loc), t("col_setup", loc),
                     t("col_min_term", loc), t("col_status", loc), t("col_as_of", loc)],
                    [[x["offer"], _price(x, loc), _label_or(f"pricing_{x['pricing']}", loc, x["pricing"]),
                      fmt.money(x["setup_fee_brl"], loc, False) if x["setup_fee_brl"] else "—",
                      fmt.number(x["min_term_months"], loc) if x["min_term_months"] else "—",
                      _label_or(f"status_{x['status']}", loc, x["status"] or "—"), _as_of(x["as_of"], loc)]
                     for x in cr["offers"]], num=(1, 3, 4), wrap=(0,), name=0,
                    notes=[_short_source(x["source"], loc, x["status"] in ("estimate", "illustrative_estimate"))
                           for x in cr["offers"]], note_label=src)
    gpus = _table([t("col_gpu", loc), t("col_memory_gb", loc), t("col_bandwidth", loc), t("col_bf16", loc),
                   t("col_fp8", loc), t("col_as_of", loc)],
                  [[g["gpu"], fmt.number_short(g["memory_gb"], loc), fmt.number_short(g["bandwidth_tbs"], loc),
                    fmt.number_short(g["bf16_tflops"], loc, 1), fmt.number_short(g.get("fp8_tflops"), loc, 1),
                    _as_of(g["as_of"], loc)] for g in cr["gpus"]], num=(1, 2, 3, 4), name=0,
                  notes=[_short_source(g["source"], loc) for g in cr["gpus"]], note_label=src)
    m = doc["model"]
    model = _table([t("src_model", loc), t("col_as_of", loc)], [[m["model"], _as_of(cr["model"]["as_of"], loc)]],
                   name=0, notes=[_short_source(cr["model"]["source"], loc)], note_label=src)
    tiers = lambda e: "; ".join(  # noqa: E731
        f"{fmt.number(lo, loc)}–{fmt.number(hi, loc) if hi is not None else '∞'}: "
        f"{fmt.number_short(p, loc, 4) if p is not None else '—'}" for lo, hi, p in e.get("tiers", []))
    egress = _table([t("col_table", loc), t("col_tiers", loc), t("col_as_of", loc)],
                    [[_label_or(f"egress_{e['egress_id']}", loc, e["egress_id"]), tiers(e) or "—",
                      _as_of(e.get("as_of"), loc)] for e in cr["egress"]], name=0,
                    notes=[t("src_no_egress", loc) if all(not p for _, _, p in e.get("tiers", []))
                           and not _hosts(e.get("source") or "") else _short_source(e.get("source"), loc)
                           for e in cr["egress"]], note_label=src)
    storage = {o["storage"]["id"]: o["storage"] for o in ranked}
    storage_src = lambda k, v: (t("src_scenario_price", loc) if k == "scenario"  # noqa: E731
                                else t("src_included", loc) if k == "included" else _short_source(v["source"], loc))
    storage_t = _table([t("col_table", loc), t("col_storage_price", loc), t("col_as_of", loc)],
                       [[_label_or(f"storage_{k}", loc, k), fmt.number_short(v["usd_per_gb_month"], loc, 4),
                         _storage_as_of(v, loc)] for k, v in storage.items()],
                       num=(1,), name=0, notes=[storage_src(k, v) for k, v in storage.items()], note_label=src)
    uplift = {o["tax_profile"]: o["tax_uplift_share"] for o in ranked}
    label_key = "label_" + language(loc)
    taxes = _table([t("col_tax_profile", loc), t("col_rates", loc), t("col_uplift", loc), t("col_as_of", loc)],
                   [[x.get(label_key) or x["profile_id"],
                     ", ".join(f"{k.removesuffix('_rate').upper().replace('_', '/')} {fmt.percent_short(v, loc)}"
                               for k, v in (x.get("rates") or {}).items()) or "—",
                     fmt.percent(uplift.get(x["profile_id"]), loc), _as_of(x.get("as_of"), loc)]
                    for x in cr["taxes"]], num=(2,), name=0,
                   notes=[_short_source(x.get("source"), loc) for x in cr["taxes"]], note_label=src)
    return {"general": general, "efficiencies": eff, "offers": offers, "gpus": gpus, "model": model,
            "egress": egress, "storage": storage_t, "taxes": taxes, "warnings": _warnings(doc, loc),
            "files": ", ".join(Path(f).name for f in cr["files"]),
            "tool": f"{doc['tool']['name']} {doc['tool']['version']}"}


def _warnings(doc: dict, loc: str) -> list[str]:
    """The engine's notices in the locale, one line per sentence with every option it concerns."""
    from tco.domain import Notice
    from tco.report import notices

    found = [Notice(n["code"], n["option"], n["params"]) for n in doc.get("notices") or []]
    return notices.grouped(found, loc, t("and_last", loc))


def _join(items: list[str], loc: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + t("and_last", loc) + items[-1]


def _attachment_label(p: Path, loc: str) -> str:
    return t({".toml": "attach_scenario", ".xlsx": "attach_workbook"}.get(p.suffix, "attach_other"), loc)


GLOSSARY = ("tco", "npv", "pct", "mc", "gpu_hour", "mfu", "tokens", "egress", "fleet", "pricing", "taxes")
