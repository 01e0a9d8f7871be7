"""The Timeline sheet (demand, FX and discounting month by month, live formulas of the inputs) and
the Sizing sheet: the replica layout (each tensor-parallel degree as a candidate column, the best
one chosen by formula, its batch and capacity) and the training cluster (memory minimum, servers
for the target duration, wall-clock hours), all as formulas of the inputs."""

from __future__ import annotations

import numpy as np

from tco import demand, timeline, training_rules
from tco.domain import ParallelMode
from tco.sizing_rules import EP, TP
from tco.expr import XlContext
from tco.report import workbook_replica as replica
from tco.report.workbook_cells import by_letters
from tco.report.workbook_levers import levered
from tco.report.workbook_book import (
    FIRST_COL,
    Book,
    abs_cell,
    col,
    month_col,
    num,
    write_row,
)

SHOWN = {
    # rule key → (label key, unit, number format, whole-row total in column C)
    "year": ("contract_year", "", "calc_int", None),
    "k": ("inf_k", "", "calc_int", None),
    "users": ("users", "u_users", "calc_num", None),
    "requests": ("requests", "req", "calc_int", "sum"),
    "tokens": ("tokens", "tokens", "calc_int", "sum"),
    "egress": ("col_egress", "GB", "calc_num", "sum"),
    "fx": ("fx", "BRL/USD", "calc_num4", None),
    "df": ("df", "", "calc_num6", None),
    "peak_rps": ("peak_rps", "req/s", "calc_num4", None),
}
"""How the Timeline sheet shows each rule of ``tco.timeline`` (the hourly rows are shown alike)."""

FIRST_RULE_ROW = 6
"""0-based row of the first rule; rows 2–5 hold t, the date, days and hours (calendar, not rules)."""


def write_timeline(book: Book, res) -> None:
    """The Timeline sheet: the calendar rows, then every rule of ``tco.timeline`` as a live formula
    (text from the rule, cached value from the engine's evaluation of the same rule)."""
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
    rows = book.rows
    months = np.arange(1, h + 1, dtype=float)

    def put(key, r, lab, unit, f, vals, fmt, total=None, by_pattern=True):
        rows[key] = write_row(ws, book, r, lab, unit, f, vals, fmt, total, by_pattern=by_pattern)

    put("t", 2, t("t"), "", lambda c, p: f"={p}3+1", months, "calc_int")
    ws.write_formula(2, 2, f"=MAX({month_col(1)}3:{month_col(h)}3)", book.fmt("bold_int"), float(h))
    book.name("tl_h", abs_cell(sheet, 2, 2))
    ws.write_string(2, 1, "H =", book.fmt("small"))
    dates = [_serial(m) for m in res.months]
    put("date", 3, t("month"), "", lambda c, p: f"=EDATE(in_start_date,{c}3-1)", dates, "calc_date")
    put("days", 4, t("days"), "d", lambda c, p: f"=DAY(EOMONTH({c}4,0))", res.days, "calc_int")
    put("hours", 5, t("hours_month"), "h", lambda c, p: f"={c}5*c_h_per_day", res.days * 24.0, "calc_int")

    values = res.timeline
    layout = {}
    r = FIRST_RULE_ROW
    for rule in timeline.rules(s):
        if rule.key == "rps_0":
            ws.write_string(r, 2, t("profile_share"), book.fmt("small"))
            r += 1
        layout[rule.key] = r
        r += 1
    row_of = lambda key: (rows[key] if key in rows else layout[key]) + 1  # noqa: E731
    shares = demand.profile(s.inference.daily_profile)

    def name_of(name: str) -> str:
        if name.startswith("share_"):  # the hour's share sits in column C of its own row
            return f"$C${layout['rps_' + name.removeprefix('share_')] + 1}"
        return "tl_h" if name == "horizon" else f"in_{name}"

    for rule in timeline.rules(s):
        r = layout[rule.key]
        if rule.key.startswith("rps_"):
            hr = int(rule.key.removeprefix("rps_"))
            lab, unit, fmt, total = t("rps_hour", h=hr), "req/s", "calc_num4", None
            ws.write_formula(r, 2, f"=in_profile_{hr:02d}/SUM(in_profile)", book.fmt("calc_num6"), num(shares[hr]))
        else:
            key, unit, fmt, total = SHOWN[rule.key]
            lab, unit = t(key), (t(unit) if unit.startswith("u_") else unit)
        put(rule.key, r, lab, unit,
            lambda c, p, rule=rule: levered(rule.key, rule.formula(XlContext(col=c, prev=p, row_of=row_of,
                                                                             name_of=name_of))),
            values[rule.key], fmt, total, by_letters(rule.expr))


def _serial(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)


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
    ws.write_string(1, 0, t("col_option"), book.fmt("head"))
    ws.write_string(1, 1, t("unit"), book.fmt("head"))
    ws.freeze_panes(2, 2)
    eng = t("engine_result")
    rows: list[tuple[str, str, str, str | None]] = [
        ("gpu", t("col_gpu"), "", None), ("tp", t("tp"), "GPU", None), ("rps_server", t("rps_server"), "", None)]
    rows += [(k, t(k), u, None) for k, u in replica.ROWS]
    rows += [("bound", t("bound"), "", None), ("cap_engine", t("cap_engine"), "req/s", eng)]
    has_training = bool(res.training_by_option)
    cluster = _training_sheet_rules(s) if has_training else ()
    if has_training:
        rows += [("tr_gpu", t("col_gpu"), "", None)]
        rows += [(rule.key, t(rule.key), _unit(book, rule.unit), None) for rule in cluster]
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
            default = 1 if key == EP.key and best["mode"] == ParallelMode.EP else 0
            cached = book.term("bound", best["bound"]) if key == "bound" else (
                best[key] if isinstance(best.get(key), bool) else num(best.get(key, default)))
            fmt = "text" if key == "bound" else ("calc_int" if key == TP.key else replica.fmt_of(key))
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
            _training_cells(book, ws, at, ci, p, ts, cluster)
            for key in ("tr_servers", "wall_hours"):
                book.sizing[(i, key)] = abs_cell(sheet, at[key], ci)


TRAINING_FORMATS = {"FLOP": "calc_sci", "B": "calc_sci", "GPU": "calc_int", "servers": "calc_int",
                    "GPU·h": "calc_num", "h": "calc_num", "-": "calc_pct"}
"""Number format of a training rule's cell, by the rule's unit."""


def _training_sheet_rules(s) -> tuple:
    """The training cluster's rules the sheet writes, chosen as the engine chose them (tco.sizing.size_training)."""
    tr = s.training
    return training_rules.sheet_rules(tr.method, hours_given=tr.gpu_hours is not None,
                                      servers_given=tr.servers is not None)


def _unit(book: Book, unit: str) -> str:
    return {"-": "", "servers": book.t("u_servers")}.get(unit, unit)


def _training_cells(book: Book, ws, at: dict, ci: int, prefix: str, ts, cluster: tuple) -> None:
    """The training cluster in option column ``ci``: each rule of tco.training_rules as its formula, cached with the
    value the engine's evaluation of the same rule gave (``TrainingSize.rows``)."""
    ctx = XlContext(col=col(ci), prev=None, row_of=lambda key: at[key] + 1,
                    name_of=lambda name: training_rules.INPUTS[name].format(p=prefix))
    for rule in cluster:
        ws.write_formula(at[rule.key], ci, rule.formula(ctx), book.fmt(TRAINING_FORMATS[rule.unit]),
                         num(ts.rows[rule.key]))
