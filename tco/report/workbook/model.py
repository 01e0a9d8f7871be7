"""The Timeline sheet (demand, FX and discounting month by month, live formulas of the inputs) and
the Sizing sheet: the replica layout (each tensor-parallel degree as a candidate column, the best
one chosen by formula, its batch and capacity) and the training cluster (memory minimum, servers
for the target duration, wall-clock hours), all as formulas of the inputs."""

from __future__ import annotations

import numpy as np

from tco import timeline
from tco.timeline import calendar as demand
from tco.sizing import training_rules
from tco.domain import ParallelMode
from tco.sizing.replica_rules import EP, TP
from tco.expr import XlContext
from tco.report.workbook import replica
from tco.report.workbook.cells import by_letters
from tco.report.workbook.levers import levered
from tco.report.workbook.book import (
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
    ws = _timeline_head(book)
    _calendar_rows(book, ws, res)
    rules = timeline.rules(res.scenario)
    layout = _rule_layout(book, ws, rules)
    ctx = _rule_context(book, layout)
    for rule in rules:
        _rule_row(book, ws, res, rule, layout[rule.key], ctx)


def _timeline_head(book: Book):
    """Column widths, title and frozen panes of the Timeline sheet; returns the sheet."""
    ws = book.wb.get_worksheet_by_name(book.sheets["timeline"])
    for first, last, width in ((0, 0, 40), (1, 1, 10), (2, 2, 16), (3, 3, 2),
                               (FIRST_COL, FIRST_COL + book.horizon - 1, 13)):
        ws.set_column(first, last, width)
    ws.write_string(0, 0, book.t("sh_timeline"), book.fmt("title"))
    ws.freeze_panes(4, FIRST_COL)
    return ws


def _put(book: Book, ws, key: str, r: int, lab: str, unit: str, f, vals, fmt: str, total=None,
         by_pattern=True) -> None:
    """Write a row of the Timeline and remember where it is (``book.rows[key]``)."""
    book.rows[key] = write_row(ws, book, r, lab, unit, f, vals, fmt, total, by_pattern=by_pattern)


def _calendar_rows(book: Book, ws, res) -> None:
    """Rows 2–5: the month number t (with H, the horizon, named tl_h), the date, the days and the hours."""
    t, h = book.t, book.horizon
    _put(book, ws, "t", 2, t("t"), "", lambda c, p: f"={p}3+1", np.arange(1, h + 1, dtype=float), "calc_int")
    ws.write_formula(2, 2, f"=MAX({month_col(1)}3:{month_col(h)}3)", book.fmt("bold_int"), float(h))
    book.name("tl_h", abs_cell(book.sheets["timeline"], 2, 2))
    ws.write_string(2, 1, "H =", book.fmt("small"))
    dates = [_serial(m) for m in res.months]
    _put(book, ws, "date", 3, t("month"), "", lambda c, p: f"=EDATE(in_start_date,{c}3-1)", dates, "calc_date")
    _put(book, ws, "days", 4, t("days"), "d", lambda c, p: f"=DAY(EOMONTH({c}4,0))", res.days, "calc_int")
    _put(book, ws, "hours", 5, t("hours_month"), "h", lambda c, p: f"={c}5*c_h_per_day", res.days * 24.0,
         "calc_int")


def _rule_layout(book: Book, ws, rules) -> dict[str, int]:
    """Row of each rule from FIRST_RULE_ROW down; a caption row above the hourly rows (their share in column C)."""
    layout = {}
    r = FIRST_RULE_ROW
    for rule in rules:
        if rule.key == "rps_0":
            ws.write_string(r, 2, book.t("profile_share"), book.fmt("small"))
            r += 1
        layout[rule.key] = r
        r += 1
    return layout


def _rule_row(book: Book, ws, res, rule, r: int, ctx) -> None:
    """One rule's row `r`: its label, unit and live formula rendered in `ctx` (an hourly row also gets its share of
    the day in column C)."""
    t = book.t
    if rule.key.startswith("rps_"):
        hr = int(rule.key.removeprefix("rps_"))
        lab, unit, fmt, total = t("rps_hour", h=hr), "req/s", "calc_num4", None
        share = demand.profile(res.scenario.inference.daily_profile)[hr]
        ws.write_formula(r, 2, f"=in_profile_{hr:02d}/SUM(in_profile)", book.fmt("calc_num6"), num(share))
    else:
        key, unit, fmt, total = SHOWN[rule.key]
        lab, unit = t(key), (t(unit) if unit.startswith("u_") else unit)
    _put(book, ws, rule.key, r, lab, unit, lambda c, p: levered(rule.key, rule.formula(ctx(c, p))),
         res.timeline[rule.key], fmt, total, by_letters(rule.expr))


def _rule_context(book: Book, layout: dict[str, int]):
    """(column, previous column) → the XlContext a Timeline rule renders in: rows by key (calendar rows and rules),
    an hour's share in column C of its row, the horizon as tl_h, every other name as its input (in_<name>)."""
    rows = book.rows

    def row_of(key: str) -> int:
        return (rows[key] if key in rows else layout[key]) + 1

    def name_of(name: str) -> str:
        if name.startswith("share_"):  # the hour's share sits in column C of its own row
            return f"$C${layout['rps_' + name.removeprefix('share_')] + 1}"
        return "tl_h" if name == "horizon" else f"in_{name}"

    return lambda c, p: XlContext(col=c, prev=p, row_of=row_of, name_of=name_of)


def _serial(month: str) -> float:
    from tco.report.workbook.inputs import excel_date

    return excel_date(month)


# ---------------------------------------------------------------------------------------------


def write_sizing(book: Book, res) -> None:
    """Inference replica (main table, one column per option) from the tensor-parallel degree the
    candidate blocks below choose; training cluster. Cached values mirror tco.sizing."""
    ws = _sizing_head(book, res)
    has_training = bool(res.training_by_option)
    cluster = _training_sheet_rules(res.scenario) if has_training else ()
    at, r = _sizing_rows(book, ws, _sizing_labels(book, cluster, has_training))
    r += 1
    for i, o in enumerate(res.options, start=1):
        ws.write_string(1, 1 + i, o.name, book.fmt("head"))
        ws.write_string(at["gpu"], 1 + i, f"{o.resolved.inference.gpus_per_server} × {o.resolved.inference.gpu.gpu}")
        load = o.planned_load
        r = _replica_column(book, ws, at, r, i, o, res.scenario.inference.framework,
                            (load.mean_seconds, load.p95_seconds) if load is not None else (None, None))
        ts = res.training_by_option.get(o.name)
        if has_training and ts is not None and o.resolved.training is not None:
            tf = o.resolved.training
            ws.write_string(at["tr_gpu"], 1 + i, f"{tf.gpus_per_server} × {tf.gpu.gpu}")
            _training_cells(book, ws, at, 1 + i, f"in_o{i}_", ts, cluster)
            for key in ("tr_servers", "wall_hours"):
                book.sizing[(i, key)] = abs_cell(book.sheets["sizing"], at[key], 1 + i)


def _sizing_head(book: Book, res):
    """Column widths, title and heads of the Sizing sheet; returns the sheet."""
    ws = book.wb.get_worksheet_by_name(book.sheets["sizing"])
    t = book.t
    ws.set_column(0, 0, 62)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2 + max(len(res.options), 5), 24)
    ws.write_string(0, 0, t("sh_sizing"), book.fmt("title"))
    ws.write_string(1, 0, t("col_option"), book.fmt("head"))
    ws.write_string(1, 1, t("unit"), book.fmt("head"))
    ws.freeze_panes(2, 2)
    return ws


def _sizing_labels(book: Book, cluster: tuple, has_training: bool) -> list[tuple[str, str, str, str | None]]:
    """(key, label, unit, note) of the main table's rows: the replica, then (with training) the training cluster."""
    t = book.t
    rows: list[tuple[str, str, str, str | None]] = [
        ("gpu", t("col_gpu"), "", None), ("tp", t("tp"), "GPU", None), ("rps_server", t("rps_server"), "", None)]
    rows += [(k, t(k), u, None) for k, u in replica.ROWS]
    rows += [("bound", t("bound"), "", None), ("sv_layout", t("sv_layout"), "", None),
             ("sv_sized_by", t("sv_sized_by"), "", None),
             ("sv_ttft_queued", t("sv_ttft_queued"), "s", t("engine_result")),
             ("cap_engine", t("cap_engine"), "req/s", t("engine_result"))]
    if has_training:
        rows += [("tr_gpu", t("col_gpu"), "", None)]
        rows += [(rule.key, t(rule.key), _unit(book, rule.unit), None) for rule in cluster]
    return rows


def _sizing_rows(book: Book, ws, rows) -> tuple[dict[str, int], int]:
    """The main table's labels and units under the inference (and training) captions; returns the row of each key
    and the next free row."""
    r = 3
    ws.write_string(r - 1, 0, book.t("sz_inference"), book.fmt("h2"))
    at = {}
    for key, lab, unit, note in rows:
        if key == "tr_gpu":
            r += 1
            ws.write_string(r - 1, 0, book.t("sz_training"), book.fmt("h2"))
        at[key] = r
        ws.write_string(r, 0, lab + (f" — {note}" if note else ""), book.fmt("text"))
        if unit:
            ws.write_string(r, 1, unit, book.fmt("small"))
        r += 1
    return at, r


def _replica_column(book: Book, ws, at: dict[str, int], r: int, i: int, o, framework: str = "generic",
                    queued: tuple | None = None) -> int:
    """Option i's replica: its candidate layouts below the table (one column per layout), the one with the highest
    score picked by formula into the main table, the replicas per server and the engine's capacity. Returns the
    next free row."""
    rep, ci, p = o.replica, 1 + i, f"in_o{i}_"
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
    R = {k: f"{col(ci)}{at[k] + 1}" for k in at}
    ws.write_formula(at["rps_server"], ci, f"=IF({R['nodes']}>1,1/{R['nodes']},{p}inf_gps/{R['tp']})",
                     book.fmt("calc_num"), rep.replicas_per_server)
    ws.write_number(at["cap_engine"], ci, rep.requests_per_second, book.fmt("eng_num4"))
    ws.write_string(at["sv_layout"], ci, best.get("layout", ""), book.fmt("text"))  # the engine's choice, a label
    ws.write_string(at["sv_sized_by"], ci, f"{rep.calibration}; {book.t('sv_framework')}: {framework}",
                    book.fmt("text"))  # names the calibration file and the framework, never a formula
    if queued:  # the engine's queued TTFT at the planned load (tco.sizing.queueing), a label: mean / p95
        ws.write_string(at["sv_ttft_queued"], ci, " / ".join("—" if x is None else f"{x:.3f}" for x in queued),
                        book.fmt("text"))
    for key in ("cap", "rps_server", "cap_engine"):
        book.sizing[(i, key)] = abs_cell(book.sheets["sizing"], at[key], ci)
    return r


TRAINING_FORMATS = {"FLOP": "calc_sci", "B": "calc_sci", "GPU": "calc_int", "servers": "calc_int",
                    "GPU·h": "calc_num", "h": "calc_num", "-": "calc_pct", "1e9": "calc_num4"}
"""Number format of a training rule's cell, by the rule's unit."""


def _training_sheet_rules(s) -> tuple:
    """The training cluster's rules the sheet writes, chosen as the engine chose them (tco.sizing.size_training)."""
    tr = s.training
    return training_rules.sheet_rules(tr.method, hours_given=tr.gpu_hours is not None,
                                      servers_given=tr.servers is not None, mfu_given=tr.mfu is not None)


def _unit(book: Book, unit: str) -> str:
    return {"-": "", "servers": book.t("u_servers")}.get(unit, unit)


def _training_cells(book: Book, ws, at: dict, ci: int, prefix: str, ts, cluster: tuple) -> None:
    """The training cluster in option column ``ci``: each rule of tco.sizing.training_rules as its formula, cached with the
    value the engine's evaluation of the same rule gave (``TrainingSize.rows``)."""
    ctx = XlContext(col=col(ci), prev=None, row_of=lambda key: at[key] + 1,
                    name_of=lambda name: training_rules.INPUTS[name].format(p=prefix))
    for rule in cluster:
        ws.write_formula(at[rule.key], ci, rule.formula(ctx), book.fmt(TRAINING_FORMATS[rule.unit]),
                         num(ts.rows[rule.key]))
