"""One calculation sheet per option: the option's rules (``tco.fleet_rules.plan``) written as live
formulas, one rule per row, the same across the months; each cell caches the value the engine got by
evaluating the same rule (``OptionCosts.rows``), so the text and the number cannot disagree.

Rows: links to the timeline, price factors, servers needed in each hour of the day (24 rows), peak,
training hours spread over calendar days, the fleet (ratchet for dedicated/reserved fleets, setup
fees on increments), egress tiers, the six cost lines in the offer's currency, their BRL conversion,
total, cumulative and discounted cost; the option's constants in column C; TCO and NPV below.
"""

from __future__ import annotations

import numpy as np

from tco.costs import LINES
from tco.expr import Rule, Scalar, XlContext
from tco.fleet_rules import NOT_APPLICABLE
from tco.report.workbook_book import (FIRST_COL, Book, abs_cell, col, hybrid_brl_invoice, month_col, num, qs, row_range,
                                     write_row)

SHOWN: dict[str, tuple[str, str, str]] = {
    # rule key → (label key, unit, number format); hourly rows, egress tiers and lines are shown alike
    "trend": ("trend", "", "calc_num6"), "index": ("index", "", "calc_num6"),
    "peak_replicas": ("peak_replicas", "", "calc_int"), "peak": ("wl_peak_servers", "", "calc_int"),
    "train_hours": ("train_hours", "h", "calc_num"), "train_servers": ("train_servers", "", "calc_int"),
    "need": ("need", "", "calc_int"), "fleet": ("fleet_servers", "", "calc_int"),
    "unit": ("unit_cost", "", "calc_money"), "server_hours": ("server_hours", "h", "calc_int"),
    "tr_hours": ("tr_hours", "h", "calc_num"), "train_paid": ("train_paid", "", "calc_int"),
    "train_setup": ("train_setup", "R$", "calc_brl"), "inf_paid": ("inf_paid", "", "calc_int"),
    "inf_hours": ("inf_hours", "h", "calc_num"), "inf_setup": ("inf_setup", "R$", "calc_brl"),
    "stored": ("stored_gb", "GB", "calc_int"),
    "commit": ("committed", "", "calc_int"), "burst_hours": ("burst_hours", "h", "calc_num"),
    "new_inst": ("new_inst", "", "calc_int"), "upfronts": ("upfronts", "", "calc_int"),
}
CONSTANTS = {
    # constant → (label key, unit, number format)
    "cap": ("cap", "req/s", "calc_num4"), "rps_server": ("rps_server", "", "calc_num"),
    "tr_servers": ("tr_servers", "", "calc_int"), "wall_hours": ("wall_hours", "h", "calc_num"),
    "n_train_months": ("n_train_months", "", "calc_int"), "months_paid": ("months_paid", "", "calc_int"),
    "first_use": ("first_use", "t", "calc_int"), "uplift": ("uplift", "", "calc_pct"),
    "hourly_part": ("hourly_part", "US$/h", "calc_num4"),
}
SUMMED = {"train_hours", "server_hours"}
"""Rows with a whole-horizon total in column C."""


def _shown(rule: Rule, t, currency: str) -> tuple[str, str, str, str | None]:
    """(label, unit, format, total) of one rule's row."""
    key = rule.key
    if key.startswith("srv_"):
        return t("srv_hour", h=int(key[4:])), "", "calc_int", None
    if key.startswith("eg_"):
        return t("egress_in_tier", j=int(key[3:])), "GB", "calc_num", None
    if key.startswith("l_"):
        return t("line_" + key[2:]), currency, "calc_usd" if currency == "USD" else "calc_brl", "sum"
    label, unit, fmt = SHOWN[key]
    if fmt == "calc_money":
        unit, fmt = currency, "calc_usd" if currency == "USD" else "calc_brl"
    return t(label), unit, fmt, "sum" if key in SUMMED else None


def write_calc(book: Book, res, i: int, o) -> None:
    sheet = book.sheets[f"calc{i}"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    h = book.horizon
    tl = qs(book.sheets["timeline"])
    oc = o.costs
    values = oc.rows
    rules = oc.rules
    prefix = f"in_o{i}_"

    ws.set_column(0, 0, 44)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2, 18)
    ws.set_column(3, 3, 2)
    ws.set_column(FIRST_COL, FIRST_COL + h - 1, 14)
    ws.write_string(0, 0, t("sh_calc", i=i), book.fmt("title"))
    ws.write_string(0, 2, o.name, book.fmt("bold_gen"))  # scenario text: a string, never a formula
    ws.freeze_panes(3, FIRST_COL)

    # layout: the rows before the tax block are placed first; the block and the lines after it in order
    rows: dict[str, int] = {}
    links = ("days", "hours", "fx", "df")
    scalars = [r for r in rules if isinstance(r, Scalar)]
    constants = [k for k in ("cap", "rps_server", "tr_servers", "wall_hours") if f"c.{k}" in oc.inputs]
    constants += [r.key for r in scalars] + ["uplift"]
    const_row = {k: 4 + j for j, k in enumerate(constants)}
    r = 4 + len(constants) + 1
    rows["t"] = 2
    for key in links:
        rows[key] = r
        r += 1
    body = [x for x in rules if isinstance(x, Rule) and not x.key.startswith("l_")]
    for x in body:
        rows[x.key] = r
        r += 1
    timeline_rows = book.rows

    def row_of(key: str):
        if key in rows:
            return rows[key] + 1
        return (tl, timeline_rows[key] + 1)

    def name_of(name: str) -> str:
        if name.startswith("o."):
            return prefix + name[2:]
        if name.startswith("c."):
            return f"$C${const_row[name[2:]] + 1}"
        return "tl_h" if name == "horizon" else f"in_{name}"

    def ctx(c: str, p: str) -> XlContext:
        return XlContext(col=c, prev=p, row_of=row_of, name_of=name_of,
                         row_range=lambda key: row_range(sheet, rows[key], h))

    def put(key: str, label: str, unit: str, formula, vals, fmt: str, total: str | None = None) -> None:
        write_row(ws, book, rows[key], label, unit, formula, vals, fmt, total)

    def link(key: str):
        return lambda c, p: f"={tl}{c}{timeline_rows[key] + 1}"

    write_row(ws, book, 1, t("month"), "", link("date"), [_date(m) for m in res.months], "bold_date")
    write_row(ws, book, 2, t("t"), "", link("t"), np.arange(1, h + 1, dtype=float), "calc_int")
    ws.write_string(3, 0, t("consts"), book.fmt("h2"))
    ws.write_string(rows["days"] - 1, 0, t("col_fleet"), book.fmt("h2"))
    for key, label, unit, fmt in (("days", "days", "d", "calc_int"), ("hours", "hours_month", "h", "calc_int"),
                                  ("fx", "fx", "BRL/USD", "calc_num4"), ("df", "df", "", "calc_num6")):
        put(key, t(label), unit, link(key), res.timeline[key] if key in res.timeline else values[key], fmt)
    for x in body:
        label, unit, fmt, total = _shown(x, t, o.resolved.inference.currency)
        put(x.key, label, unit, lambda c, p, x=x: x.formula(ctx(c, p)), values[x.key], fmt, total)

    # the taxes, tax by tax and month by month (tco.taxes), then the six lines in the offer's currency
    lf = {x.key[2:]: (lambda c, p, x=x: x.formula(ctx(c, p))) for x in rules
          if isinstance(x, Rule) and x.key.startswith("l_") and x.expr is not NOT_APPLICABLE}
    r = rows[body[-1].key] + 2
    cur = oc.currency
    r_opt = o.resolved
    ws.write_string(r, 0, t("sec_taxes"), book.fmt("h2"))
    prof = r_opt.brl_tax if cur["taxes"] == "BRL" else r_opt.tax
    ws.write_string(r, 2, f"{prof.profile_id} · {r_opt.regime or '—'}", book.fmt("small"))
    at = [r + 1]

    def put_next(key, label, unit, formula, vals, fmt, total=None):
        rows[key] = at[0]
        write_row(ws, book, at[0], label, unit, formula, vals, fmt, total)
        at[0] += 1
        return vals

    _tax_block(book, res, o, i, at[0], rows, lf, put_next, lambda key: (lambda c: f"{c}{rows[key] + 1}"))
    r = rows["tx_credits"] + 1
    ws.write_string(r, 0, t("sec_lines"), book.fmt("h2"))
    for k in LINES:
        label = t("line_" + k)
        fmt = "calc_usd" if cur[k] == "USD" else "calc_brl"
        rr = rows.setdefault("l_" + k, r + 1 + LINES.index(k))
        if k not in lf:  # a line this option does not have: zeros, as values
            ws.write_string(rr, 0, label)
            ws.write_string(rr, 1, t("na"), book.fmt("small"))
            for m in range(h):
                ws.write_number(rr, FIRST_COL + m, 0.0, book.fmt(fmt))
            ws.write_formula(rr, 2, f"=SUM({month_col(1)}{rr + 1}:{month_col(h)}{rr + 1})",
                             book.fmt(fmt.replace("calc", "bold")), 0.0)
        else:
            put("l_" + k, label, cur[k], lf[k], oc.lines[k], fmt, "sum")
    r = rows["l_" + LINES[-1]] + 2
    for k in LINES:
        rows["b_" + k] = r
        r += 1
    for k in ("total", "cum", "disc"):
        rows[k] = r
        r += 1
    ws.write_string(rows["b_" + LINES[0]] - 1, 0, t("sec_brl"), book.fmt("h2"))
    for k in LINES:
        fx = "*" + ("{c}" + str(rows["fx"] + 1)) if oc.currency[k] == "USD" else ""
        put("b_" + k, t("line_" + k) + " (R$)", "BRL",
            lambda c, p, k=k, fx=fx: f"={c}{rows['l_' + k] + 1}" + fx.replace("{c}", c), o.lines_brl[k], "calc_brl",
            "sum")
    put("total", t("total_brl"), "BRL", lambda c, p: "=" + "+".join(f"{c}{rows['b_' + k] + 1}" for k in LINES),
        o.total_brl, "bold_brl", "sum")
    put("cum", t("cumulative"), "BRL", lambda c, p: f"={p}{rows['cum'] + 1}+{c}{rows['total'] + 1}",
        np.cumsum(o.total_brl), "calc_brl")
    put("disc", t("discounted"), "BRL", lambda c, p: f"={c}{rows['total'] + 1}*{c}{rows['df'] + 1}",
        o.total_brl * res.timeline["df"], "calc_brl", "sum")

    r = rows["disc"] + 2
    tot = row_range(sheet, rows["total"], h)
    ws.write_string(r, 0, t("col_tco"), book.fmt("bold_gen"))
    ws.write_formula(r, 2, f"=SUM({tot})", book.fmt("bold_brl"), num(o.tco.deterministic))
    book.outputs[(i, "tco")] = abs_cell(sheet, r, 2)
    ws.write_string(r + 1, 0, t("col_npv"), book.fmt("bold_gen"))
    ws.write_formula(r + 1, 2, f"=SUMPRODUCT({tot},{row_range(book.sheets['timeline'], timeline_rows['df'], h)})",
                     book.fmt("bold_brl"), num(o.npv.deterministic))
    book.outputs[(i, "npv")] = abs_cell(sheet, r + 1, 2)
    for key in ("total", "cum"):
        book.outputs[(i, key)] = row_range(sheet, rows[key], h)
    book.outputs[(i, "lines_brl")] = (f"{qs(sheet)}${month_col(1)}${rows['b_' + LINES[0]] + 1}:"
                                      f"${month_col(h)}${rows['b_' + LINES[-1]] + 1}")
    book.outputs[(i, "lines")] = (f"{qs(sheet)}${month_col(1)}${rows['l_' + LINES[0]] + 1}:"
                                  f"${month_col(h)}${rows['l_' + LINES[-1]] + 1}")
    book.outputs[(i, "rows")] = rows
    book.name(f"out_o{i}_tco", book.outputs[(i, "tco")])
    book.name(f"out_o{i}_npv", book.outputs[(i, "npv")])
    book.name(f"out_o{i}_total", tot)

    # constants (column C): the sizing links, the option's scalars, the tax uplift
    for key in constants:
        label, unit, fmt = CONSTANTS[key]
        rr = const_row[key]
        ws.write_string(rr, 0, t(label))
        ws.write_string(rr, 1, unit, book.fmt("small"))
        scalar = next((x for x in scalars if x.key == key), None)
        if scalar is not None:
            text, value = scalar.formula(ctx(month_col(1), col(FIRST_COL - 1))), values[key][0]
        elif key == "uplift":
            base_sum, tax_sum = (row_range(sheet, rows[k], h) for k in ("tax_base", "l_taxes"))
            text, value = f"=IF(SUM({base_sum})>0,SUM({tax_sum})/SUM({base_sum}),0)", oc.tax_uplift
        else:
            text, value = "=" + book.sizing[(i, key)], oc.inputs[f"c.{key}"]
        ws.write_formula(rr, 2, text, book.fmt(fmt), num(float(value)))  # type: ignore[arg-type]


def _tax_block(book: Book, res, o, i: int, r: int, rows: dict, lf: dict, put, ref) -> None:
    """Rows of the option's taxes (tco.taxes), from row r on: rates in force each month, the taxed amount, one
    row per tax, the credits; sets the formula of the taxes line.

    The rates read the option's inputs (in_o{i}_irrf …) and, in the reform's months, the reform inputs
    (in_rf{j}_…). An all-BRL option's price lines become the price net of the taxes moved to this block."""
    from tco.report.workbook_book import reform_periods

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
            put("brate_" + k, t("rate_of", tax=book.term("col", k + "_rate")) + " — " + t("brl_invoice"), "",
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
        put("rate_" + k, t("rate_of", tax=book.term("col", k + "_rate")), "", _rate_formula(k, p, periods),
            rates.get(key, inside * 0), "calc_pct")
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
        put("tx_" + k, book.term("col", k + "_rate"), cur["taxes"], _component_formula(method, k, R, b),
            comp.get(k, inside * 0), fmt, "sum")
    cr = [f"{_credit_flag(k, p)}*{{tx_{k}}}" for k in ("pis_cofins", "cbs", "ibs") if k in comps]
    put("tx_credits", t("credits"), cur["taxes"], (lambda c, pp: "=" + "+".join(
        x.replace("{tx_" + k + "}", ref("tx_" + k)(c)) for x, k in zip(cr, [k for k in ("pis_cofins", "cbs", "ibs")
                                                                          if k in comps]))) if cr
        else (lambda c, pp: "=0"), comp.get("credits", inside * 0), fmt, "sum")
    if comps:
        lf["taxes"] = lambda c, pp: "=" + "+".join(ref("tx_" + k)(c) for k in comps) + f"-{ref('tx_credits')(c)}"
    else:
        lf["taxes"] = lambda c, pp: f"=0*{b(c)}"




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
