"""Output sheets of the workbook: Comparison (live TCO, NPV, rank), FX risk (Monte Carlo values with
seed and paths, fan charts) and the native charts; the Sensitivity sheet is workbook_sensitivity."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tco.costs import LINES
from tco.domain import is_monte_carlo
from tco.report.workbook.book import FIRST_COL, Book, month_col, num, qs

if TYPE_CHECKING:
    from tco.domain.run_info import FxInfo
    from tco.results import Results


def ranks(values: list[float]) -> list[int]:
    """Excel RANK(x, range, 1): 1 + number of values strictly smaller."""
    return [1 + sum(1 for w in values if w < v) for v in values]


def ranked_ok(o) -> bool:
    """True for an option the workbook ranks: feasible, and breaking none of the client's constraints (the engine's
    ``results.rankable``); the others are shown with why, never ranked."""
    return o.feasible and not o.resolved.breaches


def unranked_word(book: Book, o) -> str:
    """The word in an unranked option's rank cells: 'infeasible', or the constraint it breaks."""
    return book.t("infeasible") if not o.feasible else book.t("wb_breaks")


def infeasible_text(book: Book, o) -> str:
    """'infeasible: 29,6 tokens/s per user' in the workbook's language and number format; for a feasible option that
    breaks the client's constraints, which ones."""
    from tco.report import fmt

    if o.feasible:
        from tco.report.words import breach_text

        return book.t("term_breaches", what=breach_text(o.resolved.breaches, book.locale))
    return book.t("infeasible_speed", tps=fmt.number(o.achieved_tokens_per_second_per_user, book.locale, 1))


def ranks_among(options) -> list[int | None]:
    """Rank of each ranked option among the ranked ones (Excel RANK, ascending); None for one not ranked."""
    vals = [o.tco.deterministic for o in options if ranked_ok(o)]
    return [1 + sum(1 for w in vals if w < o.tco.deterministic) if ranked_ok(o) else None for o in options]


def sort_order(options) -> list[int]:
    """Place (1-based) of each option in the sorted ranking: feasible options by TCO, ties in scenario order, then
    the infeasible ones in scenario order (Comparison's order column computes the same by formula)."""
    feasible = [j for j, o in enumerate(options) if ranked_ok(o)]
    ranked = sorted(feasible, key=lambda j: options[j].tco.deterministic) + [j for j, o in enumerate(options)
                                                                             if not ranked_ok(o)]
    place = [0] * len(options)
    for k, j in enumerate(ranked, start=1):
        place[j] = k
    return place


def write_comparison(book: Book, res: Results) -> None:
    """The Comparison sheet: one row per option (live TCO and NPV, rank, gap to the best, cost per million tokens,
    the Monte Carlo statistics, the place in the sorted ranking), the Monte Carlo note, then the charts.
    Infeasible options are shown but not ranked: column N holds the TCO of feasible options only, as the range
    that RANK and MIN read (text is ignored by both)."""
    ws = _comparison_head(book)
    t, n, r0 = book.t, len(res.options), 3
    tcos = [o.tco.deterministic for o in res.options if ranked_ok(o)]
    best = min(tcos) if tcos else float("nan")
    tco_rng = f"$N${r0 + 1}:$N${r0 + n}"
    rank_of, order = ranks_among(res.options), sort_order(res.options)
    for j, o in enumerate(res.options):
        _rank_cells(book, ws, r0 + j, o, tco_rng, best, rank_of[j])
        _option_cells(book, ws, r0 + j, j + 1, o)
        # the place of the option in the sorted ranking, ties in scenario order, infeasible options last (the
        # Summary lists the options by this order with INDEX/MATCH, so it reorders when the leader changes)
        r = r0 + j
        x, so_far = r + 1, f"N${r0 + 1}:N{r + 1}"
        ws.write_formula(r, 14, f"=IF(ISNUMBER(N{x}),RANK(N{x},{tco_rng},1)+COUNTIF({so_far},N{x})-1,"
                         f"COUNT({tco_rng})+COUNTA({so_far})-COUNT({so_far}))", book.fmt("calc_int"), order[j])
    ws.write_comment(2, 14, t("cmp_order_comment"), {"x_scale": 2.5, "y_scale": 1.6})
    book.rows["cmp_first"] = r0
    ws.write_string(r0 + n + 1, 1, t("mc_note") + f" — {t('seed')} {res.fx_info.seed if res.fx_info else None}, "
                    f"{t('paths')} {res.fx_info.paths if res.fx_info else None}", book.fmt("small"))
    _comparison_charts(book, ws, res, r0 + n + 3)


def _comparison_head(book: Book):
    """Column widths, title and column heads of the Comparison sheet; returns the sheet."""
    ws = book.wb.get_worksheet_by_name(book.sheets["comparison"])
    t = book.t
    for first, last, width in ((0, 0, 6), (1, 1, 46), (2, 2, 38), (3, 14, 17)):
        ws.set_column(first, last, width)
    ws.write_string(0, 1, t("sh_comparison"), book.fmt("title"))
    mc = t("tco_mc") + " "
    heads = ["#", t("col_option"), t("col_kind"), t("col_tco"), t("col_npv"), t("rank"), t("col_vs_best"),
             t("per_mtok"), mc + t("mean"), mc + t("col_p5"), mc + t("col_p50"), mc + t("col_p95"),
             t("prob_cheapest"), t("ranked_tco"), t("cmp_order")]
    for c, hd in enumerate(heads):
        ws.write_string(2, c, hd, book.fmt("head"))
    ws.freeze_panes(3, 2)
    return ws


def _rank_cells(book: Book, ws, r: int, o, tco_rng: str, best: float, rank: int | None) -> None:
    """The ranked TCO (column N), the rank and the gap to the best of a feasible option; 'infeasible' otherwise."""
    if ranked_ok(o):
        ws.write_formula(r, 13, f"=D{r + 1}", book.fmt("calc_brl"), num(o.tco.deterministic))
        ws.write_formula(r, 5, f"=RANK(D{r + 1},{tco_rng},1)", book.fmt("calc_int"), rank)
        ws.write_formula(r, 6, f'=IF(MIN({tco_rng})>0,D{r + 1}/MIN({tco_rng})-1,"")', book.fmt("calc_pct"),
                         num(o.tco.deterministic / best - 1) if best > 0 else "")
    else:
        ws.write_string(r, 13, unranked_word(book, o))
        ws.write_string(r, 5, unranked_word(book, o))
        ws.write_string(r, 6, infeasible_text(book, o))


def _option_cells(book: Book, ws, r: int, i: int, o) -> None:
    """Number, name, kind, the live TCO and NPV, the cost per million tokens and the Monte Carlo statistics."""
    ws.write_number(r, 0, i, book.fmt("calc_int"))
    ws.write_string(r, 1, o.name)
    ws.write_string(r, 2, f"{book.term('kind', o.kind)} / {book.term('fleet', o.resolved.fleet)}")
    ws.write_formula(r, 3, "=" + book.outputs[(i, "tco")], book.fmt("calc_brl"), num(o.tco.deterministic))
    ws.write_formula(r, 4, "=" + book.outputs[(i, "npv")], book.fmt("calc_brl"), num(o.npv.deterministic))
    cpm = o.cost_per_million_tokens_brl
    # the Finance sheet's cell of the rule tco.costs.unit_rules.PER_MTOK (the JSON's figure, 0 without tokens)
    ws.write_formula(r, 7, f"=INDEX(fin_per_mtok,{i})", book.fmt("calc_brl"), num(cpm if cpm is not None else 0.0))
    for c, v in zip(range(8, 12), (o.tco.mean, o.tco.p5, o.tco.p50, o.tco.p95)):
        ws.write_number(r, c, num(v), book.fmt("eng_brl"))
    ws.write_number(r, 12, num(o.prob_cheapest or 0.0), book.fmt("eng_pct"))


def _comparison_charts(book: Book, ws, res, at: int) -> None:
    """The cumulative cost per option, then the monthly cost by line of each option, two per row."""
    ws.insert_chart(at, 1, cumulative_chart(book, res), {"x_scale": 1.6, "y_scale": 1.3})
    at += 22
    for i, o in enumerate(res.options, start=1):
        ws.insert_chart(at + 20 * ((i - 1) // 2), 1 + 3 * ((i - 1) % 2), _lines_chart(book, i),
                        {"x_scale": 1.2, "y_scale": 1.3})


MONTH_AXIS = {"date_axis": True, "base_unit": "months", "num_format": "mmm/yy", "num_font": {"rotation": -45}}
"""Category axis of the charts over the months: the Timeline's dates, shown as months (not date serials)."""


def _dates_ref(book: Book) -> list:
    tl = book.sheets["timeline"]
    r = book.rows["date"]
    return [tl, r, FIRST_COL, r, FIRST_COL + book.horizon - 1]


def cumulative_chart(book: Book, res):
    ch = book.wb.add_chart({"type": "line"})
    for i in range(1, len(res.options) + 1):
        sheet = book.sheets[f"calc{i}"]
        r = book.outputs[(i, "rows")]["cum"]
        ch.add_series({"name": [sheet, 0, 2], "categories": _dates_ref(book),
                       "values": [sheet, r, FIRST_COL, r, FIRST_COL + book.horizon - 1], "line": {"width": 2}})
    ch.set_title({"name": book.t("chart_cum"), "name_font": {"size": 11}})
    ch.set_x_axis(MONTH_AXIS)
    ch.set_y_axis({"num_format": '"R$" #,##0'})
    ch.set_legend({"position": "bottom"})
    return ch


def _lines_chart(book: Book, i: int):
    sheet = book.sheets[f"calc{i}"]
    rows = book.outputs[(i, "rows")]
    ch = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    for k in LINES:
        r = rows["b_" + k]
        ch.add_series({"name": [sheet, r, 0], "categories": _dates_ref(book),
                       "values": [sheet, r, FIRST_COL, r, FIRST_COL + book.horizon - 1], "gap": 30})
    # the title is the option name by reference (scenario text never becomes chart markup)
    ch.set_title({"name": [sheet, 0, 2], "name_font": {"size": 10}})
    ch.set_x_axis(MONTH_AXIS)
    ch.set_y_axis({"num_format": '"R$" #,##0'})
    ch.set_legend({"position": "bottom", "font": {"size": 8}})
    return ch


def write_fx_risk(book: Book, res: Results) -> None:
    """The FX sheet: the FX model's parameters, each option's TCO and NPV under FX uncertainty, then month by month
    the USD/BRL fan and each option's cost fan, with a fan chart for each that moves with the dollar."""
    sheet = book.sheets["fx"]
    ws = book.wb.get_worksheet_by_name(sheet)
    r = _fx_parameters(book, ws, res.fx_info)
    r = _fx_totals(book, ws, r, res.options) + 1
    ws.write_string(r, 0, book.t("month"), book.fmt("head"))
    for m, label in enumerate(res.months):
        ws.write_string(r, FIRST_COL + m, label, book.fmt("head"))
    hdr = r
    r, charts = _rate_fan(book, ws, sheet, hdr, r + 1, res)
    r = _option_fans(book, ws, sheet, hdr, r, res.options, charts) + 1
    for n, ch in enumerate(charts):
        ws.insert_chart(r + 20 * (n // 2), 5 * (n % 2), ch, {"x_scale": 1.3, "y_scale": 1.2})
    ws.freeze_panes(0, 2)


def _fx_parameters(book: Book, ws, info: FxInfo | None) -> int:
    """Column widths, title, the Monte Carlo note and the FX model's parameters; returns the next free row."""
    t = book.t
    ws.set_column(0, 0, 46)
    ws.set_column(1, 2, 14)
    ws.set_column(3, FIRST_COL + book.horizon, 14)
    ws.write_string(0, 0, t("sh_fx"), book.fmt("title"))
    ws.write_string(1, 0, t("mc_note"), book.fmt("small"))
    r = 3
    model = info.model if info else None
    for k, v in ((t("fx_model"), book.term("fxm", model)), (t("seed"), info.seed if info else None),
                 (t("paths"), info.paths if info else None),
                 (t("usdbrl"), info.usdbrl if info else None), (t("volatility"), info.volatility if info else None)):
        ws.write_string(r, 0, k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            ws.write_number(r, 1, float(v), book.fmt("eng_gen"))
        else:
            ws.write_string(r, 1, str(v), book.fmt("eng_text"))
        r += 1
    if not is_monte_carlo(str(model)):
        ws.write_string(r, 0, t("no_mc", model=book.term("fxm", model)), book.fmt("small"))
    return r + 1


def _fx_totals(book: Book, ws, r: int, options) -> int:
    """Each option's TCO and NPV, deterministic and Monte Carlo (mean, P5, P50, P95), and its chance of being the
    cheapest; returns the row after the table."""
    t = book.t
    heads = [t("col_option"), t("col_tco") + " det.", t("tco_mc") + " " + t("mean"), t("col_p5"), t("col_p50"),
             t("col_p95"),
             t("col_npv") + " det.", t("npv_mc") + " " + t("mean"), t("col_p5"), t("col_p50"), t("col_p95"),
             t("prob_cheapest")]
    for c, hd in enumerate(heads):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    for o in options:
        ws.write_string(r, 0, o.name)
        vals = [o.tco.deterministic, o.tco.mean, o.tco.p5, o.tco.p50, o.tco.p95,
                o.npv.deterministic, o.npv.mean, o.npv.p5, o.npv.p50, o.npv.p95]
        for c, v in enumerate(vals, start=1):
            ws.write_number(r, c, num(v), book.fmt("eng_brl"))
        ws.write_number(r, 11, num(o.prob_cheapest or 0.0), book.fmt("eng_pct"))
        r += 1
    return r


def _rate_fan(book: Book, ws, sheet: str, hdr: int, r: int, res) -> tuple[int, list]:
    """The USD/BRL rate itself when it was simulated: the deterministic path (live, from the Timeline) and the
    simulated percentiles, with their chart; returns the next free row and the charts so far."""
    rate_fan = res.analysis.fx_fan
    if rate_fan is None:
        return r, []
    t, first = book.t, r
    ws.write_string(r, 0, t("fx_det"))
    ws.write_string(r, 1, "BRL/USD", book.fmt("small"))
    tl = qs(book.sheets["timeline"])
    for m in range(book.horizon):
        ws.write_formula(r, FIRST_COL + m, f"={tl}{month_col(m + 1)}{book.rows['fx'] + 1}", book.fmt("calc_num4"),
                         num(res.fx_path[m]))
    r += 1
    for q in ("p5", "p50", "p95"):
        ws.write_string(r, 0, "USD/BRL")
        ws.write_string(r, 1, t("col_" + q))
        for m, v in enumerate(rate_fan[q]):
            ws.write_number(r, FIRST_COL + m, num(v), book.fmt("eng_num4"))
        r += 1
    return r, [_rate_fan_chart(book, sheet, hdr, first)]


def _rate_fan_chart(book: Book, sheet: str, hdr: int, first: int):
    """P5/P50/P95 of the USD/BRL rate (rows first+1..first+3) and its deterministic path (row first)."""
    ch = book.wb.add_chart({"type": "line"})
    for rr, color, dash, name in ((first + 1, "#9DC3E6", "dash", [sheet, first + 1, 1]),
                                  (first + 2, "#1F3864", "solid", [sheet, first + 2, 1]),
                                  (first + 3, "#C00000", "dash", [sheet, first + 3, 1]),
                                  (first, "#7F7F7F", "round_dot", [sheet, first, 0])):
        ch.add_series({"name": name, "categories": [sheet, hdr, FIRST_COL, hdr, FIRST_COL + book.horizon - 1],
                       "values": [sheet, rr, FIRST_COL, rr, FIRST_COL + book.horizon - 1],
                       "line": {"color": color, "dash_type": dash, "width": 1.75}})
    ch.set_title({"name": book.t("fx_fan_title"), "name_font": {"size": 10}})
    ch.set_y_axis({"num_format": "0.00"})
    ch.set_legend({"position": "bottom"})
    return ch


def _option_fans(book: Book, ws, sheet: str, hdr: int, r: int, options, charts: list) -> int:
    """Each option's monthly cost P5/P50/P95 [BRL]; a fan chart (added to `charts`) for each option whose cost
    moves with the dollar. Returns the next free row."""
    for o in options:
        if o.fan_brl is None:
            continue
        first = r
        for q in ("p5", "p50", "p95"):
            ws.write_string(r, 0, o.name)  # scenario text
            ws.write_string(r, 1, book.t("col_" + q))
            for m, v in enumerate(o.fan_brl[q]):
                ws.write_number(r, FIRST_COL + m, num(v), book.fmt("eng_brl"))
            r += 1
        if np.any(np.abs(o.fan_brl["p95"] - o.fan_brl["p5"]) > 0.005):
            charts.append(_fan_chart(book, sheet, hdr, first))
    return r


def _fan_chart(book: Book, sheet: str, hdr: int, first: int):
    """P5/P50/P95 of one option's monthly cost (rows first..first+2 of the FX sheet)."""
    ch = book.wb.add_chart({"type": "line"})
    for rr, color, dash in ((first, "#9DC3E6", "dash"), (first + 1, "#1F3864", "solid"),
                            (first + 2, "#C00000", "dash")):
        ch.add_series({"name": [sheet, rr, 1], "categories": [sheet, hdr, FIRST_COL, hdr, FIRST_COL + book.horizon - 1],
                       "values": [sheet, rr, FIRST_COL, rr, FIRST_COL + book.horizon - 1],
                       "line": {"color": color, "dash_type": dash, "width": 1.75}})
    ch.set_title({"name": [sheet, first, 0], "name_font": {"size": 10}})
    ch.set_y_axis({"num_format": '"R$" #,##0'})
    ch.set_legend({"position": "bottom"})
    return ch
