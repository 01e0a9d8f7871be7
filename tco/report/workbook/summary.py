"""The Summary sheet: a one-screen dashboard, every number a live formula.

What the scenario says (its name, client, author: text, never formulas), the live settings (start, horizon,
USD/BRL read from the Inputs), the master check, the KPIs of the leader (the feasible option of lowest TCO,
found by formula), where the leader changes (break-evens of the Finance sheet), the ranking sorted by
formula (Comparison's order column, INDEX/MATCH: it reorders when an edit changes the leader), a chart of
the ranked TCOs, the cumulative cost chart, the scenario's notes and the engine's warnings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco import __version__
from tco.costs import finance_rules, unit_rules
from tco.report.workbook.book import Book, num, qs
from tco.report.workbook.breakeven import breakevens
from tco.report.workbook.finance import calendar_years
from tco.report.workbook.outputs import cumulative_chart, infeasible_text, ranked_ok, ranks_among, unranked_word

if TYPE_CHECKING:
    from tco.report.view import View
    from tco.results import Results


def write_summary(book: Book, res: Results, v: View, order: list[int]) -> None:
    """The Summary sheet: the cover facts, the master check, the leader's KPIs, the ranking (sorted by formula) with
    its chart, the cumulative cost chart, then the scenario's notes and the warnings."""
    ws = book.wb.get_worksheet_by_name(book.sheets["summary"])
    r = _cover(book, ws, res.scenario) + 1
    _master_check(book, ws, r)
    r = _kpis(book, res, v, ws, r + 3)
    first = r + 2
    r = _ranking(book, res, ws, r + 1, order)
    _chart_series(book, first, r - 1)
    ws.insert_chart(r + 1, 0, cumulative_chart(book, res), {"x_scale": 1.7, "y_scale": 1.2})
    r = _notes_and_warnings(book, ws, r + 21, res)
    ws.write_string(r + 1, 0, book.t("generated", v=__version__), book.fmt("small"))


def _cover(book: Book, ws, s) -> int:
    """Column widths, title, the scenario's name, client and author, its start, horizon and spot rate (live), and
    the FX model; returns the last row written."""
    from tco.report.workbook.inputs import excel_date

    t = book.t
    for first, last, width in ((0, 0, 50), (1, 1, 50), (2, 4, 16), (5, 5, 6)):
        ws.set_column(first, last, width)
    ws.write_string(0, 0, t("title"), book.fmt("title"))
    r = 2
    for k, v in ((t("cover_scenario"), s.scenario.name), (t("cover_client"), s.scenario.client),
                 (t("cover_prepared_by"), s.scenario.prepared_by)):
        ws.write_string(r, 0, k, book.fmt("bold_gen"))
        ws.write_string(r, 1, v)  # scenario text: always a string, never a formula or link
        r += 1
    live = ((t("start"), "=in_start_date", excel_date(s.scenario.start), "sum_month"),
            (t("cover_horizon"), "=tl_h", float(s.scenario.horizon_months), "sum_months"),
            (t("usdbrl"), "=in_usdbrl", float(s.fx.usdbrl), "sum_rate"))
    for k, f, v, fmt in live:
        ws.write_string(r, 0, k, book.fmt("bold_gen"))
        ws.write_formula(r, 1, f, book.fmt(fmt), v)
        r += 1
    ws.write_string(r, 0, t("fx_model"), book.fmt("bold_gen"))
    ws.write_string(r, 1, book.term("fxm", s.fx.model) + " — " + t("sum_engine_setting"))
    return r + 1


def _master_check(book: Book, ws, r: int) -> None:
    """The master check (green when every check of the Checks sheet passes) and the note under it."""
    t = book.t
    ws.write_string(r, 0, t("master_check"), book.fmt("bold_gen"))
    ws.write_formula(r, 1, "=" + book.outputs["master"], book.fmt("check"), book.outputs.get("master_ok", True))
    for crit, color in (("TRUE", "#C6EFCE"), ("FALSE", "#FFC7CE")):
        ws.conditional_format(r, 1, r, 1, {"type": "cell", "criteria": "==", "value": crit,
                                           "format": book.wb.add_format({"bg_color": color})})
    ws.merge_range(r + 1, 1, r + 1, 4, t("chk_note"), book.fmt("small_wrap"))
    ws.set_row(r + 1, 34)
    if "chk_inputs_changed" in {n[0] for n in book.wb.defined_names}:  # the inputs-changed flag beside the master
        text = t("sum_inputs_changed").replace('"', "'")
        ws.write_formula(r, 2, f'=IF(chk_inputs_changed>0,"{text}: "&chk_inputs_changed,"")',
                         book.wb.add_format({"bold": True, "font_color": "#C00000"}), "")


def _notes_and_warnings(book: Book, ws, r: int, res) -> int:
    """The scenario's notes and the run's warnings (in the workbook's language), each row as tall as its wrapped
    text; returns the next free row."""
    t, notes = book.t, res.scenario.scenario.notes
    if notes:
        ws.write_string(r, 0, t("notes"), book.fmt("bold_gen"))
        ws.merge_range(r, 1, r, 4, notes, book.fmt("wrap"))
        ws.set_row(r, 15 * (1 + notes.count("\n") + len(notes) // 100))
        r += 1
    if res.notices:
        from tco.report import notices

        ws.write_string(r, 0, t("warnings"), book.fmt("bold_gen"))
        if "chk_inputs_changed" in {d[0] for d in book.wb.defined_names}:  # the warnings are the engine's run's
            text = t("stale_banner").replace('"', "'")
            ws.merge_range(r, 1, r, 4, "", book.wb.add_format({"bold": True, "font_color": "#C00000",
                                                               "text_wrap": True}))
            ws.write_formula(r, 1, f'=IF(chk_inputs_changed>0,"{text}","")',
                             book.wb.add_format({"bold": True, "font_color": "#C00000", "text_wrap": True}), "")
            r += 1
        for n in res.notices:  # merged across the table's width, each row as tall as its wrapped text
            text = notices.line(n, book.locale)
            ws.merge_range(r, 1, r, 4, text, book.fmt("wrap"))
            ws.set_row(r, 15 * (1 + len(text) // 90))
            r += 1
    return r


def summary_formats(book: Book) -> None:
    wb = book.wb
    book.fmts.update({
        "sum_month": wb.add_format({"font_color": "#00703C", "num_format": "mmm/yy", "align": "left"}),
        "sum_months": wb.add_format({"font_color": "#00703C", "num_format": '0 "' + book.t("months") + '"',
                                     "align": "left"}),
        "sum_rate": wb.add_format({"font_color": "#00703C", "num_format": "0.00##", "align": "left"}),
        "kpi": wb.add_format({"bold": True, "font_size": 12, "font_color": "#1F3864", "num_format": "#,##0,",
                              "align": "left"}),
        "kpi_brl": wb.add_format({"bold": True, "font_size": 12, "font_color": "#1F3864", "num_format": '"R$" #,##0.00',
                                  "align": "left"}),
        "kpi_text": wb.add_format({"bold": True, "font_size": 12, "font_color": "#1F3864", "align": "left"}),
        "kpi_mult": wb.add_format({"bold": True, "font_size": 12, "font_color": "#1F3864", "num_format": '0.00"×"',
                                   "align": "left"}),
        "kpi_rate": wb.add_format({"bold": True, "font_size": 12, "font_color": "#1F3864", "num_format": "0.00",
                                   "align": "left"}),
    })


def _kpis(book: Book, res: Results, v: View, ws, r: int) -> int:
    """The leader's KPIs, its cash out by year, and where it stops leading (break-evens); a chart beside them."""
    t = book.t
    b = breakevens(res)
    o = res.options[b["lead"]] if b["lead"] is not None else None
    ws.write_string(r, 0, t("sum_dashboard"), book.fmt("h1"))
    ws.write_string(r, 1, "", book.fmt("h1"))
    ws.write_string(r, 2, t("unit"), book.fmt("h1"))
    r += 1
    rows = _leader_kpis(book, res, v, b, o) + _cash_out_kpis(book, res, o) + _breakeven_kpis(book, res, b)
    top = r
    for label, f, cached, fmt, unit in rows:
        ws.write_string(r, 0, label)
        ws.write_formula(r, 1, f, book.fmt(fmt), cached)
        if unit:
            ws.write_string(r, 2, unit, book.fmt("small"))
        r += 1
    ws.insert_chart(top - 1, 6, _ranking_chart(book), {"x_scale": 1.25, "y_scale": 1.15})
    return max(r, top + 17)


def _comparison_column(book: Book, res, c: str) -> str:
    """The Comparison sheet's column c over the options."""
    c0 = book.rows["cmp_first"] + 1
    return f"{qs(book.sheets['comparison'])}${c}${c0}:${c}${c0 + len(res.options) - 1}"


def _leader_kpis(book: Book, res: Results, v: View, b: dict, o) -> list[tuple]:
    """(label, formula, cached, format, unit) of the leader, its TCO and NPV, its margin over the second, and its
    cost per user-month, per GPU-hour and per million tokens."""
    t = book.t
    tco = o.tco.deterministic if o else 0.0
    unit = unit_rules.unit_costs(o, res.users, res.tokens) if o else {}  # the Finance sheet's rules, for the leader

    def col(c: str) -> str:
        return _comparison_column(book, res, c)

    return [
        (t("cheapest"), f"=INDEX({col('B')},MATCH(MIN({col('N')}),{col('N')},0))", v.cheapest or "",
         "kpi_text", ""),
        (t("sum_lead_tco"), f"=MIN({col('N')})", num(tco), "kpi", t("fin_kbrl")),
        (t("sum_lead_npv"), f"=INDEX({col('E')},be_leader_pos)", num(o.npv.deterministic) if o else 0.0, "kpi",
         t("fin_kbrl")),
        (t("sum_margin"), f'=IF(COUNT({col("N")})>1,SMALL({col("N")},2)-MIN({col("N")}),"")',
         "" if b["margin"] is None else num(b["margin"]), "kpi", t("fin_kbrl")),
        (t("fin_per_user_month"), "=INDEX(fin_per_user,be_leader_pos)", unit.get("per_user", 0.0), "kpi_brl", ""),
        (t("fin_per_gpu_hour"), "=INDEX(fin_per_gpu_h,be_leader_pos)", unit.get("per_gpu_hour", 0.0), "kpi_brl", ""),
        (t("per_mtok"), "=INDEX(fin_per_mtok,be_leader_pos)", unit.get("per_mtok", 0.0), "kpi_brl", ""),
    ]


def _cash_out_kpis(book: Book, res, o) -> list[tuple]:
    """The leader's cash out in each contract year, then each calendar year (the Finance sheet's rows)."""
    t, n = book.t, len(res.options)
    fin = qs(book.sheets["finance"])
    first_fin, _, ny, nc = book.outputs["fin_years"]
    by_c, by_cal, _ = finance_rules.yearly(o.total_brl if o else [0.0] * book.horizon, res.months)
    years = [t("fin_year") + f" {y + 1}" for y in range(ny)] + [str(y) for y in calendar_years(res.months)]
    out = []
    for j, (label, v) in enumerate(zip(years, by_c + by_cal)):
        c = _col(2 + j)
        out.append((t("sum_cash_out_year", y=label),
                    f"=INDEX({fin}${c}${first_fin + 1}:${c}${first_fin + n},be_leader_pos)", num(v), "kpi",
                    t("fin_kbrl")))
    return out


def _breakeven_kpis(book: Book, res, b: dict) -> list[tuple]:
    """The rate at which the dollar's fall ends the lead, and the cloud price multiples that end it."""
    t, s0 = book.t, res.scenario.fx.usdbrl
    return [
        (t("be_fx_down_rate"), "=be_fx_down_rate", "" if b["fx_down"] is None else b["fx_down"] * s0, "kpi_rate",
         "BRL/USD"),
        (t("be_cloud_down"), "=be_cloud_down", "" if b["cloud_down"] is None else b["cloud_down"], "kpi_mult", ""),
        (t("be_cloud_up"), "=be_cloud_up", "" if b["cloud_up"] is None else b["cloud_up"], "kpi_mult", ""),
    ]


def _col(c: int) -> str:
    from tco.report.workbook.book import col

    return col(c)


def _ranking(book: Book, res, ws, r: int, order: list[int]) -> int:
    """The options in rank order, sorted by formula: row k shows the option whose Comparison order is k."""
    t = book.t
    cmp_ = qs(book.sheets["comparison"])
    n = len(res.options)
    c0 = book.rows["cmp_first"] + 1

    def rng(c: str) -> str:
        return f"{cmp_}${c}${c0}:${c}${c0 + n - 1}"

    kbrl = f" ({t('fin_kbrl')})"
    for c, hd in enumerate((t("rank"), t("col_option"), t("col_tco") + kbrl, t("col_npv") + kbrl, t("col_vs_best"),
                            "#")):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    rank_of = ranks_among(res.options)
    best = min((o.tco.deterministic for o in res.options if ranked_ok(o)), default=float("nan"))
    book.outputs["sum_rank_first"] = r
    for k, j in enumerate(order, start=1):
        o = res.options[j]
        x = r + 1
        ws.write_formula(r, 5, f"=MATCH({k},{rng('O')},0)", book.fmt("small"), j + 1)
        ws.write_formula(r, 0, f"=INDEX({rng('F')},F{x})", book.fmt("calc_int"),
                         rank_of[j] if ranked_ok(o) else unranked_word(book, o))
        ws.write_formula(r, 1, f"=INDEX({rng('B')},F{x})", book.fmt("text"), o.name)
        ws.write_formula(r, 2, f"=INDEX({rng('D')},F{x})", book.fmt("fin_kbrl"), num(o.tco.deterministic))
        ws.write_formula(r, 3, f"=INDEX({rng('E')},F{x})", book.fmt("fin_kbrl"), num(o.npv.deterministic))
        ws.write_formula(r, 4, f"=INDEX({rng('G')},F{x})", book.fmt("calc_pct"),
                         (num(o.tco.deterministic / best - 1) if best > 0 else "") if ranked_ok(o)
                         else infeasible_text(book, o))
        r += 1
    return r


def _ranking_chart(book: Book):
    """TCO of the options in rank order (the sorted ranking's cells, series added by ``_chart_series``),
    R$ thousands."""
    ch = book.wb.add_chart({"type": "bar"})
    ch.set_title({"name": book.t("sum_chart"), "name_font": {"size": 11}})
    ch.set_x_axis({"num_format": "#,##0,", "name": book.t("fin_kbrl")})
    ch.set_y_axis({"reverse": True})
    ch.set_legend({"none": True})
    ch.set_size({"width": 620, "height": 340})
    book.outputs["sum_chart"] = ch
    return ch


def _chart_series(book: Book, first: int, last: int) -> None:
    sheet = book.sheets["summary"]
    book.outputs["sum_chart"].add_series({"categories": [sheet, first, 1, last, 1],
                                          "values": [sheet, first, 2, last, 2],
                                          "fill": {"color": "#1F3864"}, "gap": 60})
