"""The Timeline sheet (demand, FX and discounting month by month, live formulas of the inputs) and
the Sizing sheet: the replica layout (each tensor-parallel degree as a candidate column, the best
one chosen by formula, its batch and capacity) and the training cluster (memory minimum, servers
for the target duration, wall-clock hours), all as formulas of the inputs."""

from __future__ import annotations

import numpy as np

from tco import demand, finance
from tco.report import workbook_replica as replica
from tco.report.workbook_book import (
    FIRST_COL,
    Book,
    abs_cell,
    col,
    month_col,
    num,
    write_row,
)


def write_timeline(book: Book, res) -> None:
    s = res.scenario
    sheet = book.sheets["timeline"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    h = book.horizon
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2, 16)
    ws.set_column(3, 3, 2)
    ws.set_column(FIRST_COL, FIRST_COL + h - 1, 13)
    ws.write_string(0, 0, t("sh_timeline"), book.fmt("title"))
    ws.freeze_panes(4, FIRST_COL)
    R = book.rows
    months = np.arange(1, h + 1, dtype=float)

    def put(key, r, lab, unit, f, vals, fmt, total=None):
        R[key] = write_row(ws, book, r, lab, unit, f, vals, fmt, total)

    put("t", 2, t("t"), "", lambda c, p: f"={p}3+1", months, "calc_int")
    ws.write_formula(2, 2, f"=MAX({month_col(1)}3:{month_col(h)}3)", book.fmt("bold_int"), float(h))
    book.name("tl_h", abs_cell(sheet, 2, 2))
    ws.write_string(2, 1, "H =", book.fmt("small"))
    dates = [_serial(m) for m in res.months]
    put("date", 3, t("month"), "", lambda c, p: f"=EDATE(in_start_date,{c}3-1)", dates, "calc_date")
    put("days", 4, t("days"), "d", lambda c, p: f"=DAY(EOMONTH({c}4,0))", res.days, "calc_int")
    put("hours", 5, t("hours_month"), "h", lambda c, p: f"={c}5*24", res.days * 24.0, "calc_int")
    put("year", 6, t("contract_year"), "", lambda c, p: f"=INT(({c}3-1)/12)", np.floor((months - 1) / 12), "calc_int")
    k = months - s.inference.start_month + 1
    put("k", 7, t("inf_k"), "", lambda c, p: f"={c}3-in_inf_start+1", k, "calc_int")
    users_u = "usuários" if book.locale != "en" else "users"
    put("users", 8, t("users"), users_u, _users_formula(s.inference.users), res.users, "calc_num")
    put("requests", 9, t("requests"), "req", lambda c, p: f"={c}9*in_rpud*{c}5*in_adpw/7", res.requests, "calc_int", "sum")
    put("tokens", 10, t("tokens"), "tokens", lambda c, p: f"={c}10*(in_in_tokens+in_out_tokens)", res.tokens, "calc_int",
        "sum")
    put("egress", 11, t("egress_gb"), "GB", lambda c, p: f"={c}10*in_egress_kb*1000/1000000000", res.egress_gb, "calc_num",
        "sum")
    put("fx", 12, t("fx"), "BRL/USD", _fx_formula(s.fx), res.fx_path, "calc_num4")
    disc = finance.discount_factors(h, s.scenario.discount_rate)
    put("df", 13, t("df"), "", lambda c, p: f"=(1+in_discount_rate)^(-{c}3/12)", disc, "calc_num6")
    shares = demand.profile(s.inference.daily_profile)
    rps = res.hourly_rps
    first = 15
    ws.write_string(first - 1, 2, t("profile_share"), book.fmt("small"))
    for hr in range(24):
        r = first + hr
        put(f"rps_{hr}", r, t("rps_hour", h=hr), "req/s", lambda c, p, r=r: f"={c}$9*in_rpud*$C{r + 1}/3600",
            rps[:, hr], "calc_num4")
        ws.write_formula(r, 2, f"=in_profile_{hr:02d}/SUM(in_profile)", book.fmt("calc_num6"), num(shares[hr]))
    put("peak_rps", first + 24, t("peak_rps"), "req/s",
        lambda c, p: f"=MAX({c}{first + 1}:{c}{first + 24})", res.peak_rps, "calc_num4")


def _serial(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)


def _users_formula(g):
    k = "{c}8"
    if g.model == "linear":
        body = ("IF(tl_h-in_inf_start+1=1,in_start_users,"
                f"in_start_users+(in_end_users-in_start_users)*({k}-1)/(tl_h-in_inf_start))")
    elif g.model == "compound":
        body = f"in_start_users*(1+in_growth_rate)^({k}-1)"
        if g.max_users is not None:
            body = f"MIN({body},in_max_users)"
    elif g.model == "logistic":
        body = f"in_ceiling_users/(1+(in_ceiling_users/in_start_users-1)*EXP(-in_steepness*({k}-1)))"
    else:
        body = f"INDEX(in_users_list,MIN({k},ROWS(in_users_list)))"
    tmpl = f"=IF({k}<1,0,{body})"
    return lambda c, p: tmpl.replace("{c}", c)


def _fx_formula(fx):
    if fx.model == "parity":
        return lambda c, p: f"=in_usdbrl*((1+in_brl_rate)/(1+in_usd_rate))^({c}3/12)"
    if fx.model == "gbm":
        mu = "in_fx_drift" if fx.drift is not None else "LN((1+in_brl_rate)/(1+in_usd_rate))"
        return lambda c, p: f"=in_usdbrl*EXP({mu}*{c}3/12)"
    return lambda c, p: "=in_usdbrl"


# ---------------------------------------------------------------------------------------------


def write_sizing(book: Book, res) -> None:
    """Inference replica (main table, one column per option) from the tensor-parallel degree the
    candidate blocks below choose; training cluster. Cached values mirror tco.sizing."""
    s = res.scenario
    sheet = book.sheets["sizing"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    ws.set_column(0, 0, 62)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2 + max(len(res.options), 5), 24)
    ws.write_string(0, 0, t("sh_sizing"), book.fmt("title"))
    ws.write_string(1, 0, t("option"), book.fmt("head"))
    ws.write_string(1, 1, t("unit"), book.fmt("head"))
    ws.freeze_panes(2, 2)
    eng = t("engine_result")
    rows = [("gpu", t("gpu"), "", None), ("tp", t("tp"), "GPU", None), ("rps_server", t("rps_server"), "", None)]
    rows += [(k, t(k), u, None) for k, u in replica.ROWS]
    rows += [("bound", t("bound"), "", None), ("cap_engine", t("cap_engine"), "req/s", eng)]
    has_training = bool(res.training_by_option)
    if has_training:
        rows += [("tr_gpu", t("gpu"), "", None), ("tr_mem_b", t("tr_mem_b"), "B", None),
                 ("tr_min_gpus", t("tr_min_gpus"), "GPU", None), ("tr_min_servers", t("tr_min_servers"), "", None),
                 ("gpu_hours", t("gpu_hours"), "GPU·h", None), ("tr_wanted", t("tr_wanted"), "", None),
                 ("tr_servers", t("tr_servers"), "", None), ("tr_gpus", t("tr_gpus"), "GPU", None),
                 ("scaling_eff", t("scaling_eff"), "", None), ("wall_hours", t("wall_hours"), "h", None)]
    r0 = 3
    ws.write_string(r0 - 1, 0, t("sz_inference"), book.fmt("h2"))
    at = {}
    r = r0
    for key, lab, unit, note in rows:
        if key == "tr_gpu":
            r += 1
            ws.write_string(r - 1, 0, t("sz_training"), book.fmt("h2"))
        at[key] = r
        ws.write_string(r, 0, lab + (f" — {note}" if note else ""), book.fmt("text"))
        if unit:
            ws.write_string(r, 1, unit, book.fmt("small"))
        r += 1
    ref = {k: lambda c, k=k: f"{c}{at[k] + 1}" for k in at}
    r += 1
    for i, o in enumerate(res.options, start=1):
        c = col(1 + i)
        ci = 1 + i
        ws.write_string(1, ci, o.name, book.fmt("head"))
        rep = o.replica
        fl = o.resolved.inference
        p = f"in_o{i}_"
        ws.write_string(at["gpu"], ci, f"{fl.gpus_per_server} × {fl.gpu.gpu}")
        # the candidate layouts (one column per layout) and the choice among them: the highest score
        vals = o.replica_candidates  # every layout the engine tried, with its terms
        r, crow, last = replica.candidate_block(book, ws, r, i, o, vals)
        best = next(v for v in vals if (v["tp"], v["nodes"], v["mode"]) == (rep.tensor_parallel, rep.nodes,
                                                                          rep.parallel_mode))
        score = f"$C${crow['score'] + 1}:${last}${crow['score'] + 1}"
        pick = f"MATCH(MAX({score}),{score},0)"
        for key in ("tp",) + tuple(k for k, _ in replica.ROWS) + ("bound",):
            rng = f"$C${crow[key] + 1}:${last}${crow[key] + 1}"
            cached = book.term("bound", best["bound"]) if key == "bound" else (
                best[key] if isinstance(best.get(key), bool) else num(best.get(key, 1 if key == "ep" and best["mode"] == "ep" else 0)))
            fmt = "text" if key == "bound" else ("calc_int" if key == "tp" else replica.fmt_of(key))
            ws.write_formula(at[key], ci, f"=INDEX({rng},{pick})", book.fmt(fmt), cached)
        R = {k: ref[k](c) for k in ref}
        ws.write_formula(at["rps_server"], ci, f"=IF({R['nodes']}>1,1/{R['nodes']},{p}inf_gps/{R['tp']})",
                         book.fmt("calc_num"), rep.replicas_per_server)
        ws.write_number(at["cap_engine"], ci, rep.requests_per_second, book.fmt("eng_num4"))
        for key in ("cap", "rps_server", "cap_engine"):
            book.sizing[(i, key)] = abs_cell(sheet, at[key], ci)
        ts = res.training_by_option.get(o.name)
        if has_training and ts is not None and o.resolved.training is not None:
            tf = o.resolved.training
            ws.write_string(at["tr_gpu"], ci, f"{tf.gpus_per_server} × {tf.gpu.gpu}")
            _training_cells(book, ws, at, ref, c, ci, p, s, ts, tf, res)
            for key in ("tr_servers", "wall_hours"):
                book.sizing[(i, key)] = abs_cell(sheet, at[key], ci)


def _training_cells(book: Book, ws, at: dict, ref: dict, c: str, ci: int, p: str, s, ts, tf, res) -> None:
    """Training cluster as formulas (tco.sizing.size_training): memory → minimum servers; GPU-hours and
    the target duration → servers; servers → wall-clock hours."""
    tr = s.training
    gps = tf.gpus_per_server
    table = res.defaults.get("scaling_efficiency", {})
    multi = float(table.get(tf.gpu.interconnect, table.get("pcie", 0.5)))
    if tr.method == "lora":
        fm = "=(2*in_params_b*1000000000+16*in_lora_share*in_params_b*1000000000)*(1+in_act_share)"
    else:
        fm = "=16*in_params_b*1000000000*(1+in_act_share)"
    min_servers = -(-ts.min_gpus // gps)
    if tr.servers is None:
        wanted = float(np.ceil(ts.gpu_hours / (multi * gps * tr.target_days * 24.0))) if ts.gpu_hours > 0 else 1.0
        fw = (f"=IF({ref['gpu_hours'](c)}>0,ROUNDUP({ref['gpu_hours'](c)}/({p}tr_scaling*{p}tr_gps*in_target_days*24),0),1)")
        fs = f"=MAX({ref['tr_min_servers'](c)},{ref['tr_wanted'](c)},1)"
    else:
        wanted, fw = float(tr.servers), "=in_train_servers"  # never below the memory minimum
        fs = f"=MAX({ref['tr_min_servers'](c)},{ref['tr_wanted'](c)})"
    if tr.gpu_hours is not None:
        fh = "=in_gpu_hours"
    else:
        fh = f"=6*(in_active_params_b*1000000000)*in_train_tokens*in_epochs/({p}tr_tflops*1000000000000*in_mfu*3600)"
    cells = [
        ("tr_mem_b", fm, ts.memory_gb * 1e9, "calc_sci"),
        ("tr_min_gpus", f"=MAX(1,ROUNDUP({ref['tr_mem_b'](c)}/({p}tr_mem*1000000000*in_mem_usable),0))", ts.min_gpus,
         "calc_int"),
        ("tr_min_servers", f"=ROUNDUP({ref['tr_min_gpus'](c)}/{p}tr_gps,0)", min_servers, "calc_int"),
        ("gpu_hours", fh, ts.gpu_hours, "calc_num"),
        ("tr_wanted", fw, wanted, "calc_int"),
        ("tr_servers", fs, ts.servers, "calc_int"),
        ("tr_gpus", f"={ref['tr_servers'](c)}*{p}tr_gps", ts.gpus, "calc_int"),
        ("scaling_eff", f"=IF({ref['tr_gpus'](c)}<=1,1,{p}tr_scaling)", ts.scaling_efficiency, "calc_pct"),
        ("wall_hours", f"=IF({ref['gpu_hours'](c)}>0,{ref['gpu_hours'](c)}/({ref['tr_gpus'](c)}*{ref['scaling_eff'](c)}),0)",
         ts.wall_hours, "calc_num"),
    ]
    for key, f, v, fmt in cells:
        ws.write_formula(at[key], ci, f, book.fmt(fmt), num(v))
