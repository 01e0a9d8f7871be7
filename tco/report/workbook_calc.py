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
        if cloud and r_opt.autoscale:
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
        if cloud:
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

    # the taxes, tax by tax and month by month (tco.taxes), then the six lines in the offer's currency
    cur = oc.currency
    ws.write_string(r, 0, t("sec_taxes"), book.fmt("h2"))
    prof = r_opt.brl_tax if cur["taxes"] == "BRL" else r_opt.tax
    ws.write_string(r, 2, f"{prof.profile_id} · {r_opt.regime or '—'}", book.fmt("small"))
    r += 1
    _tax_block(book, res, o, i, r, rows, lf, put, ref)
    r = rows["tx_credits"] + 1
    ws.write_string(r, 0, t("sec_lines"), book.fmt("h2"))
    r += 1
    for k in LINES:
        fmt = "calc_usd" if cur[k] == "USD" else "calc_brl"
        lab = t("line_" + k)
        if k in lf:
            assert rows.get("l_" + k, r) == r  # where the tax block expected it
            put("l_" + k, lab, cur[k], lf[k], oc.lines[k], fmt, "sum")
        else:  # this line does not exist for this option: zeros, as values
            assert rows.get("l_" + k, r) == r
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
    base_sum, tax_sum = (row_range(sheet, rows[k], h) for k in ("tax_base", "l_taxes"))
    const("uplift", t("uplift"), "", f"=IF(SUM({base_sum})>0,SUM({tax_sum})/SUM({base_sum}),0)", oc.tax_uplift,
          "calc_pct")


def _tax_block(book: Book, res, o, i: int, r: int, rows: dict, lf: dict, put, ref) -> None:
    """Rows of the option's taxes (tco.taxes), from row r on: rates in force each month, the taxed amount, one
    row per tax, the credits; sets the formula of the taxes line.

    The rates read the option's inputs (in_o{i}_irrf …) and, in the reform's months, the reform inputs
    (in_rf{j}_…). An all-BRL option's price lines become the price net of the taxes moved to this block."""
    from tco.report.workbook_inputs import reform_periods

    t = book.t
    p = f"in_o{i}_"
    r_opt, oc = o.resolved, o.costs
    cur = oc.currency
    brl_taxed = cur["taxes"] == "BRL"
    prof = r_opt.brl_tax if brl_taxed else r_opt.tax
    method = prof.method
    taxed = [k for k in LINES if k != "taxes" and cur[k] == cur["taxes"] and k in lf]
    periods = reform_periods(res) if (method != "none" and prof.reform) else []
    rates = (r_opt.brl_tax_rates if brl_taxed else r_opt.tax_rates) or {}
    comps = {"import_gross_up": ("irrf", "cide", "iss", "pis_cofins", "cbs", "ibs", "iof"),
             "local_por_dentro": ("iss", "pis_cofins", "cbs", "ibs"),
             "local_inclusive": ("pis_cofins", "cbs", "ibs"), "none": ()}[method]
    used_rates = sorted({"irrf", "cide", "iss", "pis_cofins", "cbs", "ibs", "iof"} & set(
        comps + (("irrf",) if method == "import_gross_up" else ()) + (("iss",) if method == "local_por_dentro" else ())),
        key=("irrf", "cide", "iss", "pis_cofins", "cbs", "ibs", "iof").index)
    gross = [k for k in taxed] if method == "local_inclusive" else []
    hybrid = hybrid_brl_invoice(o)
    h_keys = [k for k in LINES if k != "taxes" and cur[k] == "BRL" and k in lf] if hybrid else []
    # rows the block will take, so that the lines that follow it are known in advance
    n = len(gross) + len(used_rates) + (1 if method == "local_inclusive" else 0) + 1 + len(comps) + 1
    n += (len(h_keys) + 4) if hybrid else 0
    for j, k in enumerate(LINES):
        rows["l_" + k] = r + n + 1 + j  # after the block and the lines' heading
    fmt = "calc_brl" if brl_taxed else "calc_usd"
    inside = oc.lines["taxes"] * 0.0
    if method == "local_inclusive":
        from tco.taxes import inside_share

        inside = inside_share(method, rates)
    for k in gross:  # the BRL price with its taxes inside; the line keeps it net of them
        f0 = lf[k]
        put("g_" + k, t("line_" + k) + " — " + t("gross_of_taxes"), cur[k], f0, oc.lines[k] / (1.0 - inside), fmt)
        lf[k] = lambda c, pp, k=k: f"={ref('g_' + k)(c)}*(1-{ref('tax_inside')(c)})"
    if hybrid:  # a hybrid's BRL invoice: its credit is netted from its BRL lines (the taxes line is in USD)
        bp, bt = p + "b_", r_opt.brl_tax
        brates = r_opt.brl_tax_rates or {}
        from tco.taxes import credit_share

        share = credit_share(bt, brates, r_opt.regime) if brates else inside * 0
        for k in h_keys:
            f0 = lf[k]
            put("g_" + k, t("line_" + k) + " — " + t("gross_of_taxes"), cur[k], f0, oc.lines[k] / (1.0 - share),
                "calc_brl")
            lf[k] = lambda c, pp, k=k: f"={ref('g_' + k)(c)}*(1-{ref('brl_credit_share')(c)})"
        BR = {}
        for k in ("pis_cofins", "cbs", "ibs"):
            put("brate_" + k, t("rate_of", tax=t(k)) + " — " + t("brl_invoice"), "",
                _rate_formula(k, bp, reform_periods(res) if bt.reform else []), brates.get(k + "_rate", inside * 0),
                "calc_pct")
            BR[k] = ref("brate_" + k)
        put("brl_credit_share", t("brl_credit_share"), "", lambda c, pp: (
            f"={_credit_flag('pis_cofins', p).replace(p + 'credit', bp + 'credit')}*{BR['pis_cofins'](c)}"
            f"+({p}cr_cbs*{BR['cbs'](c)}+{p}cr_ibs*{BR['ibs'](c)})/(1+{BR['cbs'](c)}+{BR['ibs'](c)})"),
            share, "calc_pct")
    R = {}
    for k in used_rates:
        key = k + "_rate"
        put("rate_" + k, t("rate_of", tax=t(k)), "", _rate_formula(k, p, periods), rates.get(key, inside * 0), "calc_pct")
        R[k] = ref("rate_" + k)
    if method == "local_inclusive":
        put("tax_inside", t("tax_inside"), "", lambda c, pp: (
            f"={R['pis_cofins'](c)}+({R['cbs'](c)}+{R['ibs'](c)})/(1+{R['cbs'](c)}+{R['ibs'](c)})"), inside, "calc_pct")
    src = ("g_" if gross else "l_")
    base_vals = sum((oc.lines[k] / (1.0 - inside) if gross else oc.lines[k] for k in taxed), inside * 0)
    put("tax_base", t("tax_base"), cur["taxes"], (lambda c, pp: "=" + "+".join(ref(src + k)(c) for k in taxed))
        if taxed else (lambda c, pp: "=0"), base_vals, fmt, "sum")
    b = ref("tax_base")
    comp = oc.tax_components or {}
    for k in comps:
        put("tx_" + k, t(k), cur["taxes"], _component_formula(method, k, R, b), comp.get(k, inside * 0), fmt, "sum")
    cr = [f"{_credit_flag(k, p)}*{{tx_{k}}}" for k in ("pis_cofins", "cbs", "ibs") if k in comps]
    put("tx_credits", t("credits"), cur["taxes"], (lambda c, pp: "=" + "+".join(
        x.replace("{tx_" + k + "}", ref("tx_" + k)(c)) for x, k in zip(cr, [k for k in ("pis_cofins", "cbs", "ibs")
                                                                          if k in comps]))) if cr
        else (lambda c, pp: "=0"), comp.get("credits", inside * 0), fmt, "sum")
    if comps:
        lf["taxes"] = lambda c, pp: "=" + "+".join(ref("tx_" + k)(c) for k in comps) + f"-{ref('tx_credits')(c)}"
    else:
        lf["taxes"] = lambda c, pp: f"=0*{b(c)}"


def hybrid_brl_invoice(o) -> bool:
    """A hybrid option whose BRL invoice earns credits netted from its BRL lines (tco.costs.option_taxes)."""
    r = o.resolved
    return (o.costs.currency["taxes"] == "USD" and r.brl_tax is not None and r.brl_tax.method == "local_inclusive"
            and o.costs.brl_price_credits is not None)


def _credit_flag(k: str, p: str) -> str:
    """Whether the buyer credits tax k (1/0): its regime, or the profile's own PIS/COFINS flag."""
    return f"MAX({p}credit,{p}cr_pis_cofins)" if k == "pis_cofins" else f"{p}cr_{k}"


def _rate_formula(k: str, p: str, periods: list) -> object:
    """A month's rate of tax k: the option's input, replaced (CBS, IBS) or scaled (PIS/COFINS, ISS) in the reform's
    periods (in_rf{j}_…), as tco.taxes.rates_by_month does."""
    field = {"pis_cofins": "pc", "iss": "iss", "cbs": "cbs", "ibs": "ibs"}.get(k)

    def f(c, pp):
        if field is None or not periods:
            return f"={p}{k}"
        expr = "1" if k in ("pis_cofins", "iss") else f"{p}{k}"
        for j in reversed(range(1, len(periods) + 1)):
            cond = f"AND({c}$2>=in_rf{j}_from,{c}$2<=in_rf{j}_until)"
            expr = f"IF({cond},in_rf{j}_{field},{expr})"
        return f"={p}{k}*{expr}" if k in ("pis_cofins", "iss") else f"={expr}"
    return f


def _component_formula(method: str, k: str, R: dict, b) -> object:
    """Tax k on the taxed amount, as tco.taxes.factors computes it."""
    def f(c, pp):
        r = {x: fn(c) for x, fn in R.items()}
        if method == "import_gross_up":
            v = f"(1/(1-{r['irrf']}))"
            expr = {"irrf": f"({v}-1)", "cide": f"{r['cide']}*{v}", "iss": f"{r['iss']}*{v}",
                    "pis_cofins": f"{r['pis_cofins']}*{v}*(1+{r['iss']})/(1-{r['pis_cofins']})",
                    "cbs": f"{r['cbs']}*{v}", "ibs": f"{r['ibs']}*{v}", "iof": r["iof"]}[k]
        elif method == "local_por_dentro":
            expr = f"{r[k]}/(1-{r['pis_cofins']}-{r['iss']})"
        else:  # local_inclusive
            expr = r[k] if k == "pis_cofins" else f"{r[k]}/(1+{r['cbs']}+{r['ibs']})"
        return f"={expr}*{b(c)}"
    return f


def _date(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)
