"""The Timeline sheet (demand, FX and discounting month by month, live formulas of the inputs) and
the Sizing sheet (integer layouts chosen by the engine as values; replica capacity and training
duration as formulas)."""

from __future__ import annotations

import numpy as np

from tco import demand, finance, sizing
from tco.report.workbook_book import FIRST_COL, Book, abs_cell, col, month_col, num, write_row


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
    put("requests", 9, t("requests"), "req", lambda c, p: f"={c}9*in_rpud*{c}5", res.requests, "calc_int", "sum")
    put("tokens", 10, t("tokens"), "tokens", lambda c, p: f"={c}10*(in_in_tokens+in_out_tokens)", res.tokens, "calc_int",
        "sum")
    put("egress", 11, t("egress_gb"), "GB", lambda c, p: f"={c}10*in_egress_kb*1000/1000000000", res.egress_gb, "calc_num",
        "sum")
    put("fx", 12, t("fx"), "BRL/USD", _fx_formula(s.fx), res.fx_path, "calc_num4")
    disc = finance.discount_factors(h, s.scenario.discount_rate)
    put("df", 13, t("df"), "", lambda c, p: f"=(1+in_discount_rate)^(-{c}3/12)", disc, "calc_num6")
    shares = demand.profile(s.inference.daily_profile)
    rps = demand.hourly_rps(res.users, s.inference.requests_per_user_per_day, shares)
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
    s = res.scenario
    sheet = book.sheets["sizing"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    ws.set_column(0, 0, 62)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2 + len(res.options), 24)
    ws.write_string(0, 0, t("sh_sizing"), book.fmt("title"))
    ws.write_string(1, 0, t("option"), book.fmt("head"))
    ws.write_string(1, 1, t("unit"), book.fmt("head"))
    ws.freeze_panes(2, 2)
    inf = s.inference
    params = res.model.params_b * 1e9
    active = res.model.active_params_b * 1e9
    wbytes = sizing.BYTES_PER_PARAM[s.model.precision]
    eng = t("engine_result")
    rows = [
        ("gpu", t("gpu"), "", None), ("tp", t("tp"), "GPU", eng), ("rps_server", t("rps_server"), "", eng),
        ("tp_eff", t("tp_eff"), "", eng),
        ("weights_b", t("weights_b"), "B", None), ("kv_tok", t("kv_tok"), "B/token", None),
        ("kv_read", t("kv_read"), "B", None), ("bw", t("bw"), "B/s", None), ("fl", t("fl"), "FLOP/s", None),
        ("mem_b", t("mem_b"), "B", None), ("b_mem", t("b_mem"), "seq", None), ("b_bw", t("b_bw"), "seq", None),
        ("b_cmp", t("b_cmp"), "seq", None), ("batch", t("batch"), "seq", None), ("bound", t("bound"), "", eng),
        ("step", t("step"), "s", None), ("decode_tps", t("decode_tps"), "tokens/s", None),
        ("prefill", t("prefill"), "s", None), ("per_request", t("per_request"), "s", None),
        ("cap", t("cap"), "req/s", None), ("cap_engine", t("cap_engine"), "req/s", eng),
    ]
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
        ws.write_string(r, 1, unit, book.fmt("small"))
        r += 1
    ref = {k: lambda c, k=k: f"{c}{at[k] + 1}" for k in at}

    for i, o in enumerate(res.options, start=1):
        c = col(1 + i)
        ci = 1 + i
        ws.write_string(1, ci, o.name, book.fmt("head"))
        rep = o.replica
        fl = o.resolved.inference
        p = f"in_o{i}_"
        tp_eff = sizing.scaling_efficiency(rep.tensor_parallel, fl.gpu.interconnect, res.defaults)
        ws.write_string(at["gpu"], ci, f"{fl.gpus_per_server} × {fl.gpu.gpu}")
        ws.write_number(at["tp"], ci, rep.tensor_parallel, book.fmt("eng_int"))
        ws.write_number(at["rps_server"], ci, rep.replicas_per_server, book.fmt("eng_int"))
        ws.write_string(at["bound"], ci, rep.bound, book.fmt("eng_text"))
        ws.write_number(at["tp_eff"], ci, tp_eff, book.fmt("eng_pct"))
        # cached values follow the engine's expressions (tco.sizing.replica_at)
        weights_b = params * wbytes
        kv_tok = sizing.kv_bytes_per_token(res.model.layers, res.model.kv_heads, res.model.head_dim, s.model.kv_precision)
        kv_read = kv_tok * (inf.input_tokens_per_request + inf.output_tokens_per_request / 2.0)
        from tco.engine import _peak_tflops

        bw = rep.tensor_parallel * fl.gpu.bandwidth_tbs * 1e12 * (res.defaults["bandwidth_efficiency_share"] * tp_eff)
        flops = rep.tensor_parallel * _peak_tflops(fl.gpu, s.model.precision) * 1e12 * (
            res.defaults["flops_efficiency_share"] * tp_eff)
        step = sizing.step_seconds(rep.batch, weights_b, kv_read, bw, flops, active)
        decode = rep.batch / step
        prefill = 2.0 * active * inf.input_tokens_per_request / flops
        per_req = prefill + inf.output_tokens_per_request / decode
        ctx_max = inf.input_tokens_per_request + inf.output_tokens_per_request
        mem_b = rep.tensor_parallel * fl.gpu.memory_gb * 1e9 * inf.memory_usable_share
        target = inf.tokens_per_second_per_user
        b_mem = float(np.floor((mem_b - weights_b) / (kv_tok * ctx_max)))
        b_bw = (bw / target - weights_b) / kv_read
        b_cmp = flops / (2.0 * active * target)
        R = {k: ref[k](c) for k in ref}
        cells = [
            ("weights_b", "=in_params_b*1000000000*in_weight_bytes", weights_b, "calc_sci"),
            ("kv_tok", "=2*in_layers*in_kv_heads*in_head_dim*in_kv_bytes", kv_tok, "calc_int"),
            ("kv_read", f"={ref['kv_tok'](c)}*(in_in_tokens+in_out_tokens/2)", kv_read, "calc_sci"),
            ("bw", f"={ref['tp'](c)}*{p}inf_bw*1000000000000*(in_bw_eff*{ref['tp_eff'](c)})", bw, "calc_sci"),
            ("fl", f"={ref['tp'](c)}*{p}inf_tflops*1000000000000*(in_fl_eff*{ref['tp_eff'](c)})", flops, "calc_sci"),
            ("mem_b", f"={R['tp']}*{p}inf_mem*1000000000*in_mem_usable", mem_b, "calc_sci"),
            ("b_mem", f"=INT(({R['mem_b']}-{R['weights_b']})/({R['kv_tok']}*(in_in_tokens+in_out_tokens)))", b_mem,
             "calc_int"),
            ("b_bw", f"=({R['bw']}/in_target_tps-{R['weights_b']})/{R['kv_read']}", b_bw, "calc_num"),
            ("b_cmp", f"={R['fl']}/(2*(in_active_params_b*1000000000)*in_target_tps)", b_cmp, "calc_num"),
            ("batch", f"=MAX(1,INT(MIN({R['b_mem']},{R['b_bw']},{R['b_cmp']},in_max_batch)+1E-9))", rep.batch, "calc_int"),
            ("step", (f"=MAX(({ref['weights_b'](c)}+{ref['batch'](c)}*{ref['kv_read'](c)})/{ref['bw'](c)},"
                      f"2*(in_active_params_b*1000000000)*{ref['batch'](c)}/{ref['fl'](c)})"), step, "calc_num6"),
            ("decode_tps", f"={ref['batch'](c)}/{ref['step'](c)}", decode, "calc_num"),
            ("prefill", f"=2*(in_active_params_b*1000000000)*in_in_tokens/{ref['fl'](c)}", prefill, "calc_num6"),
            ("per_request", f"={ref['prefill'](c)}+in_out_tokens/{ref['decode_tps'](c)}", per_req, "calc_num6"),
            ("cap", f"=1/{ref['per_request'](c)}", 1.0 / per_req, "calc_num4"),
        ]
        for key, f, v, fmt in cells:
            ws.write_formula(at[key], ci, f, book.fmt(fmt), num(v))
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
    book.rows["sizing_cap"] = at["cap"]
    book.rows["sizing_cap_engine"] = at["cap_engine"]


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
