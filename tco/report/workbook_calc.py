"""One calculation sheet per option: the deterministic cost model of tco.costs re-expressed as live
formulas, one formula per row, the same across the months, each cell caching the engine's value.

Rows: links to the timeline, price factors, servers needed in each hour of the day (24 rows),
peak, training hours spread over calendar days, the fleet (ratchet for dedicated/reserved fleets,
setup fees on increments), the six cost lines in the offer's currency, their BRL conversion,
total, cumulative and discounted cost; TCO and NPV in column C.
"""

from __future__ import annotations

import numpy as np

from tco import finance
from tco.costs import LINES, is_committed, ratchet, yearly_factor
from tco.report.workbook_book import FIRST_COL, Book, abs_cell, month_col, num, qs, row_range, write_row

CONST_ROWS = 8
"""Rows reserved at the top of a calc sheet for the option's constants (column C)."""


def write_calc(book: Book, res, i: int, o) -> None:
    s = res.scenario
    sheet = book.sheets[f"calc{i}"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    h = book.horizon
    tl = qs(book.sheets["timeline"])
    TR = book.rows
    r_opt = o.resolved
    inf, trf = r_opt.inference, r_opt.training
    oc = o.costs
    p = f"in_o{i}_"
    months = np.arange(1, h + 1, dtype=float)
    days = res.days
    hours = days * 24.0
    cloud = inf.kind == "cloud"

    ws.set_column(0, 0, 44)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2, 18)
    ws.set_column(3, 3, 2)
    ws.set_column(FIRST_COL, FIRST_COL + h - 1, 14)
    ws.write_string(0, 0, t("sh_calc", i=i), book.fmt("title"))
    ws.write_string(0, 2, o.name, book.fmt("bold_gen"))  # scenario text: a string, never a formula
    ws.freeze_panes(3, FIRST_COL)
    link = lambda key: (lambda c, pp: f"={tl}{c}{TR[key] + 1}")
    write_row(ws, book, 1, t("month"), "", link("date"), [_date(m) for m in res.months], "bold_date")
    write_row(ws, book, 2, t("t"), "", link("t"), months, "calc_int")

    # constants block (filled at the end, when the rows they read are known)
    ws.write_string(3, 0, t("consts"), book.fmt("h2"))
    const_at: dict[str, int] = {}
    r = 4 + CONST_ROWS + 1
    rows: dict[str, int] = {}

    def put(key, lab, unit, f, vals, fmt, total=None):
        nonlocal r
        rows[key] = write_row(ws, book, r, lab, unit, f, vals, fmt, total)
        r += 1
        return vals

    def ref(key):
        return lambda c: f"{c}{rows[key] + 1}"

    def K(key):  # an option constant (absolute)
        return f"$C${const_at[key] + 1}"

    # constants: names and positions
    consts = ["cap", "rps_server"]
    ts = res.training_by_option.get(o.name)
    training = ts is not None and ts.method != "none" and trf is not None
    if training:
        consts += ["tr_servers", "wall_hours", "n_train_months"]
        if r_opt.fleet == "separate" and trf.kind == "dedicated":
            consts.append("months_paid")
    storage_usd = oc.currency["storage"] == "USD"  # cloud options (and, in later engines, every option)
    if storage_usd:
        consts.append("first_use")
    consts.append("uplift")
    for j, k in enumerate(consts):
        const_at[k] = 4 + j

    ws.write_string(r - 1, 0, t("sec_fleet"), book.fmt("h2"))
    put("days", t("days"), "d", link("days"), days, "calc_int")
    put("hours", t("hours_month"), "h", link("hours"), hours, "calc_int")
    put("fx", t("fx"), "BRL/USD", link("fx"), res.fx_path, "calc_num4")
    disc = put("df", t("df"), "", link("df"), finance.discount_factors(h, s.scenario.discount_rate), "calc_num6")
    trend = put("trend", t("trend"), "", lambda c, pp: f"=(1+{p}trend)^{tl}{c}{TR['year'] + 1}",
                yearly_factor(months, r_opt.price_trend_rate), "calc_num6")
    index = put("index", t("index"), "", lambda c, pp: f"=(1+{p}index)^{tl}{c}{TR['year'] + 1}",
                yearly_factor(months, r_opt.indexation_rate), "calc_num6")

    # servers needed in each hour of a typical day
    inf_s = s.inference
    by_hour = o.costs.servers_by_hour
    cap, per_srv = K("cap"), K("rps_server")
    for hr in range(24):
        rr = TR[f"rps_{hr}"] + 1
        put(f"srv_{hr}", t("srv_hour", h=hr), "", lambda c, pp, rr=rr: (
            f"=ROUNDUP(IF({tl}{c}{rr}>0,MAX(ROUNDUP({tl}{c}{rr}/({cap}*in_utilization)-1E-9,0),1)+in_n1,0)"
            f"/{per_srv},0)"), by_hour[:, hr], "calc_int")
    first_h, last_h = rows["srv_0"] + 1, rows["srv_23"] + 1
    pr = o.costs.replicas_by_hour.max(axis=1)  # replicas at the peak hour (replicas grow with the load)
    rp = TR["peak_rps"] + 1
    put("peak_replicas", t("peak_replicas"), "", lambda c, pp: (
        f"=IF({tl}{c}{rp}>0,MAX(ROUNDUP({tl}{c}{rp}/({cap}*in_utilization)-1E-9,0),1)+in_n1,0)"), pr, "calc_int")
    peak = put("peak", t("peak_servers"), "", lambda c, pp: f"=MAX({c}{first_h}:{c}{last_h})",
               by_hour.max(axis=1), "calc_int")

    # training burst
    zeros = np.zeros(h)
    th = tsrv = zeros
    n_train = 0
    if training:
        th = o.costs.training_wall_hours
        n_train = int(np.count_nonzero(th))
        th = put("train_hours", t("train_hours"), "h", lambda c, pp: (
            f"=IF({c}$3<in_train_start,0,MAX(0,MIN({ref('hours')(c)},{K('wall_hours')}-SUM($D{r + 1}:{pp}{r + 1}))))"),
            th, "calc_num", "sum")
        tsrv = put("train_servers", t("train_servers"), "", lambda c, pp: f"=IF({ref('train_hours')(c)}>0,{K('tr_servers')},0)",
                   np.where(th > 0, float(ts.servers), 0.0), "calc_int")

    lf: dict[str, object] = {}  # line → formula function
    setup_f = None
    if r_opt.fleet == "shared":
        need = tsrv + peak
        fleet = ratchet(need)
        put("need", t("need"), "", (lambda c, pp: f"={ref('train_servers')(c)}+{ref('peak')(c)}") if training
            else (lambda c, pp: f"={ref('peak')(c)}"), need, "calc_int")
        put("fleet", t("fleet_servers"), "", lambda c, pp: f"=MAX({pp}{rows['need'] + 2},{ref('need')(c)})", fleet, "calc_int")
        if cloud:
            unit = inf.price * hours * trend
            uf = lambda c, pp: f"={p}inf_price*{ref('hours')(c)}*{ref('trend')(c)}"
        else:
            unit = inf.price * index
            uf = lambda c, pp: f"={p}inf_price*{ref('index')(c)}"
        put("unit", t("unit_cost"), inf.currency, uf, unit, "calc_usd" if cloud else "calc_brl")
        fl, un = ref("fleet"), ref("unit")
        if training:
            lf["training_compute"] = lambda c, pp: f"=MIN({fl(c)},{ref('train_servers')(c)})*{un(c)}"
            lf["inference_compute"] = lambda c, pp: f"={fl(c)}*{un(c)}-MIN({fl(c)},{ref('train_servers')(c)})*{un(c)}"
        else:
            lf["inference_compute"] = lambda c, pp: f"={fl(c)}*{un(c)}"
        if not cloud:
            setup_f = lambda c, pp: f"=MAX({fl(c)}-{pp}{rows['fleet'] + 1},0)*{p}setup"
        put("server_hours", t("server_hours"), "h", lambda c, pp: f"={fl(c)}*{ref('hours')(c)}", oc.instance_hours,
            "calc_int", "sum")
    else:
        setup_parts = []
        if training and trf.kind == "cloud":
            lf["training_compute"] = lambda c, pp: (f"={ref('train_servers')(c)}*{ref('train_hours')(c)}*{p}tr_price"
                                                    f"*{ref('trend')(c)}")
            tr_hours = put("tr_hours", t("tr_hours"), "h",
                           lambda c, pp: f"={ref('train_servers')(c)}*{ref('train_hours')(c)}", tsrv * th, "calc_num")
        elif training:
            first = s.training.start_month
            months_paid = max(trf.min_term_months, n_train)
            paid = np.where((months >= first) & (months < first + months_paid) & (n_train > 0), float(ts.servers), 0.0)
            put("train_paid", t("train_paid"), "", lambda c, pp: (
                f"=IF(AND({K('n_train_months')}>0,{c}$3>=in_train_start,{c}$3<in_train_start+{K('months_paid')}),"
                f"{K('tr_servers')},0)"), paid, "calc_int")
            lf["training_compute"] = lambda c, pp: f"={ref('train_paid')(c)}*{p}tr_price*{ref('index')(c)}"
            tset = np.where((months == first) & (n_train > 0), ts.servers * trf.setup_fee_brl, 0.0)
            put("train_setup", t("train_setup"), "R$", lambda c, pp: (
                f"=IF(AND({K('n_train_months')}>0,{c}$3=in_train_start),{K('tr_servers')}*{p}tr_setup,0)"),
                tset, "calc_brl")
            setup_parts.append("train_setup")
            tr_hours = put("tr_hours", t("tr_hours"), "h", lambda c, pp: f"={ref('train_paid')(c)}*{ref('hours')(c)}",
                           paid * hours, "calc_num")
        else:
            tr_hours = None
        pk = ref("peak")
        if cloud and r_opt.committed is not None:
            _committed_rows(put, ref, t, p, r_opt, oc, peak, hours, (first_h, last_h), inf_s.start_month)
        elif cloud and r_opt.autoscale:
            put("inf_paid", t("inf_paid"), "", lambda c, pp: f"={pk(c)}", peak, "calc_int")
            put("inf_hours", t("inf_hours"), "h", lambda c, pp: f"=SUM({c}{first_h}:{c}{last_h})*{ref('days')(c)}",
                by_hour.sum(axis=1) * days, "calc_num")
        else:
            ratch = (not cloud) or is_committed(inf.pricing)
            paid = ratchet(peak) if ratch else peak
            put("inf_paid", t("inf_paid"), "", (lambda c, pp: f"=MAX({pp}{r + 1},{pk(c)})") if ratch
                else (lambda c, pp: f"={pk(c)}"), paid, "calc_int")
            put("inf_hours", t("inf_hours"), "h", lambda c, pp: f"={ref('inf_paid')(c)}*{ref('hours')(c)}", paid * hours,
                "calc_num")
        if cloud and r_opt.committed is not None:
            lf["inference_compute"] = lambda c, pp: (f"=({ref('committed')(c)}*{ref('hours')(c)}*{p}inf_price"
                                                     f"+{ref('burst_hours')(c)}*{p}burst_price)*{ref('trend')(c)}")
        elif cloud:
            lf["inference_compute"] = lambda c, pp: f"={ref('inf_hours')(c)}*{p}inf_price*{ref('trend')(c)}"
        else:
            lf["inference_compute"] = lambda c, pp: f"={ref('inf_paid')(c)}*{p}inf_price*{ref('index')(c)}"
            ip = rows["inf_paid"] + 1
            put("inf_setup", t("inf_setup"), "R$", lambda c, pp: f"=MAX({c}{ip}-{pp}{ip},0)*{p}setup",
                np.clip(np.diff(np.concatenate([[0.0], oc.inference_servers])), 0, None) * inf.setup_fee_brl, "calc_brl")
            setup_parts.append("inf_setup")
        if setup_parts:
            setup_f = lambda c, pp: "=" + "+".join(ref(k)(c) for k in setup_parts)
        sh = (lambda c, pp: f"={ref('tr_hours')(c)}+{ref('inf_hours')(c)}") if tr_hours is not None \
            else (lambda c, pp: f"={ref('inf_hours')(c)}")
        put("server_hours", t("server_hours"), "h", sh, oc.instance_hours, "calc_int", "sum")
    if setup_f is not None:
        lf["setup"] = setup_f

    if storage_usd:
        first_use = min(s.training.start_month if n_train else h + 1, inf_s.start_month)
        ws_stored = np.where(months >= first_use, inf_s.storage_gb, 0.0)
        put("stored", t("stored_gb"), "GB", lambda c, pp: f"=IF({c}$3>={K('first_use')},in_storage_gb,0)", ws_stored, "calc_int")
        lf["storage"] = lambda c, pp: f"={ref('stored')(c)}*{p}storage"

    # tiered egress, tiers reset every month
    eg_terms = []
    gb = res.egress_gb
    for j, (lo, hi, price) in enumerate(r_opt.egress.tiers, start=1):
        lo_n, hi_n = f"{p}eg{j}_lo", f"{p}eg{j}_hi"
        eg = tl + "{c}" + str(TR["egress"] + 1)
        if hi is None:
            tmpl = f"=MAX({eg}-{lo_n},0)"
            v = np.clip(gb - lo, 0.0, None)
        else:
            tmpl = f"=MIN(MAX({eg}-{lo_n},0),{hi_n}-{lo_n})"
            v = np.clip(gb - lo, 0.0, hi - lo)
        put(f"eg_{j}", t("egress_in_tier", j=j), "GB", lambda c, pp, tmpl=tmpl: tmpl.replace("{c}", c), v, "calc_num")
        eg_terms.append((f"eg_{j}", f"{p}eg{j}_p"))
    lf["egress"] = lambda c, pp: "=" + "+".join(f"{ref(k)(c)}*{pn}" for k, pn in eg_terms)

    # the six lines in the offer's currency
    cur = oc.currency
    ws.write_string(r, 0, t("sec_lines"), book.fmt("h2"))
    r += 1
    usd_lines = [k for k in LINES if cur[k] == "USD" and k != "taxes"]
    if usd_lines:
        lf["taxes"] = lambda c, pp: f"={K('uplift')}*(" + "+".join(ref('l_' + k)(c) for k in usd_lines) + ")"
    for k in LINES:
        fmt = "calc_usd" if cur[k] == "USD" else "calc_brl"
        lab = t("line_" + k)
        if k in lf:
            put("l_" + k, lab, cur[k], lf[k], oc.lines[k], fmt, "sum")
        else:  # this line does not exist for this option: zeros, as values
            rows["l_" + k] = r
            ws.write_string(r, 0, lab)
            ws.write_string(r, 1, t("na"), book.fmt("small"))
            for m in range(h):
                ws.write_number(r, FIRST_COL + m, 0.0, book.fmt(fmt))
            ws.write_formula(r, 2, f"=SUM({month_col(1)}{r + 1}:{month_col(h)}{r + 1})", book.fmt(fmt.replace("calc", "bold")), 0.0)
            r += 1
    ws.write_string(r, 0, t("sec_brl"), book.fmt("h2"))
    r += 1
    for k in LINES:
        lab = t("line_" + k) + " (R$)"
        if cur[k] == "USD":
            put("b_" + k, lab, "BRL", lambda c, pp, k=k: f"={ref('l_' + k)(c)}*{ref('fx')(c)}", o.lines_brl[k], "calc_brl", "sum")
        else:
            put("b_" + k, lab, "BRL", lambda c, pp, k=k: f"={ref('l_' + k)(c)}", o.lines_brl[k], "calc_brl", "sum")
    put("total", t("total_brl"), "BRL", lambda c, pp: "=" + "+".join(ref("b_" + k)(c) for k in LINES), o.total_brl,
        "bold_brl", "sum")
    put("cum", t("cumulative"), "BRL", lambda c, pp: f"={pp}{r + 1}+{ref('total')(c)}", np.cumsum(o.total_brl), "calc_brl")
    put("disc", t("discounted"), "BRL", lambda c, pp: f"={ref('total')(c)}*{ref('df')(c)}", o.total_brl * disc, "calc_brl",
        "sum")
    r += 1
    tot = row_range(sheet, rows["total"], h)
    ws.write_string(r, 0, t("tco"), book.fmt("bold_gen"))
    ws.write_formula(r, 2, f"=SUM({tot})", book.fmt("bold_brl"), num(o.tco.deterministic))
    book.outputs[(i, "tco")] = abs_cell(sheet, r, 2)
    ws.write_string(r + 1, 0, t("npv"), book.fmt("bold_gen"))
    ws.write_formula(r + 1, 2, f"=SUMPRODUCT({tot},{row_range(book.sheets['timeline'], TR['df'], h)})",
                     book.fmt("bold_brl"), num(o.npv.deterministic))
    book.outputs[(i, "npv")] = abs_cell(sheet, r + 1, 2)
    for key, rr in (("total", rows["total"]), ("cum", rows["cum"])):
        book.outputs[(i, key)] = row_range(sheet, rr, h)
    book.outputs[(i, "lines_brl")] = (f"{qs(sheet)}${month_col(1)}${rows['b_' + LINES[0]] + 1}:"
                                      f"${month_col(h)}${rows['b_' + LINES[-1]] + 1}")
    book.outputs[(i, "lines")] = (f"{qs(sheet)}${month_col(1)}${rows['l_' + LINES[0]] + 1}:"
                                  f"${month_col(h)}${rows['l_' + LINES[-1]] + 1}")
    book.outputs[(i, "rows")] = rows
    book.name(f"out_o{i}_tco", book.outputs[(i, "tco")])
    book.name(f"out_o{i}_npv", book.outputs[(i, "npv")])
    book.name(f"out_o{i}_total", tot)

    # constants
    def const(key, lab, unit, f, v, fmt):
        rr = const_at[key]
        ws.write_string(rr, 0, lab)
        ws.write_string(rr, 1, unit, book.fmt("small"))
        ws.write_formula(rr, 2, f, book.fmt(fmt), num(v))

    const("cap", t("cap"), "req/s", "=" + book.sizing[(i, "cap")], o.replica.requests_per_second, "calc_num4")
    const("rps_server", t("rps_server"), "", "=" + book.sizing[(i, "rps_server")], o.replica.replicas_per_server, "calc_int")
    if training:
        const("tr_servers", t("tr_servers"), "", "=" + book.sizing[(i, "tr_servers")], ts.servers, "calc_int")
        const("wall_hours", t("wall_hours"), "h", "=" + book.sizing[(i, "wall_hours")], ts.wall_hours, "calc_num")
        const("n_train_months", t("n_train_months"), "", f'=COUNTIF({row_range(sheet, rows["train_hours"], h)},">0")',
              n_train, "calc_int")
        if "months_paid" in const_at:
            const("months_paid", t("months_paid"), "", f"=MAX({p}tr_min_term,{K('n_train_months')})",
                  max(trf.min_term_months, n_train), "calc_int")
    if storage_usd:
        f = (f"=MIN(IF({K('n_train_months')}>0,in_train_start,tl_h+1),in_inf_start)" if training
             else "=MIN(tl_h+1,in_inf_start)")
        const("first_use", t("first_use"), "t", f, first_use, "calc_int")
    const("uplift", t("uplift"), "", _uplift_formula(r_opt.tax.method, p), oc.tax_uplift, "calc_pct")


def _uplift_formula(method: str, p: str) -> str:
    """tco.costs.tax_uplift as a formula of the option's tax-rate inputs."""
    if method == "none":
        return f"=0*{p}irrf"
    if method == "local_por_dentro":
        return f"=1/(1-{p}pis_cofins-{p}iss)-1"
    v = f"(1/(1-{p}irrf))"
    pc = f"IF({p}credit=1,0,{p}pis_cofins*{v}*(1+{p}iss)/(1-{p}pis_cofins))"
    return f"=({v}-1)+{p}cide*{v}+{p}iss*{v}+{pc}+{p}iof"


def _date(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)



def _committed_rows(put, ref, t, p: str, r_opt, oc, peak, hours, hour_rows, inf_start: int) -> None:
    """Rows of a committed baseline (costs.committed_baseline_hours): the committed instances of each month
    (one input per term from the first serving month, the last holding), the hours above them, servers paid."""
    from tco.costs import committed_baseline_hours, committed_schedule

    first_h, last_h = hour_rows
    n = len(r_opt.committed)
    terms = ",".join(f"{p}commit_{j}" for j in range(1, n + 1))
    sched = committed_schedule(r_opt.committed, r_opt.commit_term_months, inf_start, len(hours))
    c_hours, b_hours = committed_baseline_hours(oc.servers_by_hour, hours / 24.0, sched)
    put("committed", t("committed"), "", lambda c, pp: (
        f"=IF({c}$3<in_inf_start,0,CHOOSE(MIN(INT(({c}$3-in_inf_start)/{p}commit_term)+1,{n}),{terms}))"),
        sched, "calc_int")
    put("burst_hours", t("burst_hours"), "h", lambda c, pp: (
        f"=SUMPRODUCT(({c}{first_h}:{c}{last_h}>{ref('committed')(c)})*({c}{first_h}:{c}{last_h}"
        f"-{ref('committed')(c)}))*{ref('days')(c)}"), b_hours, "calc_num")
    put("inf_paid", t("inf_paid"), "", lambda c, pp: f"=MAX({ref('committed')(c)},{ref('peak')(c)})",
        np.maximum(sched, peak), "calc_int")
    put("inf_hours", t("inf_hours"), "h", lambda c, pp: (
        f"={ref('committed')(c)}*{ref('hours')(c)}+{ref('burst_hours')(c)}"), c_hours + b_hours, "calc_num")
