"""The Excel workbook finance opens: a live model that recalculates to the engine's numbers.

Structure after the FAST standard: Summary, Inputs (input-styled, named), Catalog (sources),
Sizing, Timeline (months across the columns), one Calc sheet per option, Comparison, FX risk
(Monte Carlo values), Sensitivity (when the engine provides it) and Checks. Every formula cell
carries the engine's value as its cached result (XlsxWriter ``write_formula(..., value=)``), so a
viewer that does not recalculate still shows the right numbers.

Safety: scenario text is written with ``write_string`` only; the workbook is created with
``strings_to_formulas`` and ``strings_to_urls`` off, and chart titles and series names that come
from a scenario are cell references, never literal strings.

Labels: the shared catalog tco.report.i18n, in the scenario's locale (pt-BR by default).
"""

from __future__ import annotations

from pathlib import Path

from tco import __version__
from tco.report import i18n
from tco.report.workbook_book import Book, make_formats, num, qs
from tco.report.workbook_outputs import cumulative_chart, infeasible_text, ranks_among

WB_OPTIONS = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False,
              "nan_inf_to_errors": True, "in_memory": True}


def write(res, doc: dict, path: Path) -> None:
    """Write the workbook for `res` (engine Results) and `doc` (its JSON document) to `path`."""
    import xlsxwriter

    from tco.report.workbook_calc import write_calc
    from tco.report.workbook_inputs import write_catalog, write_inputs
    from tco.report.workbook_model import write_sizing, write_timeline
    from tco.report.workbook_outputs import write_comparison, write_fx_risk, write_sensitivity

    s = res.scenario
    locale = i18n.locale_of(s.scenario.locale)
    wb = xlsxwriter.Workbook(str(path), WB_OPTIONS)
    book = Book(wb, locale, s.scenario.horizon_months)
    book.fmts = make_formats(wb)
    keys = ["summary", "inputs", "catalog", "sizing", "timeline"] + [f"calc{i}" for i in range(1, len(res.options) + 1)]
    keys += ["comparison", "fx"] + (["sensitivity"] if doc.get("sensitivity") else []) + ["checks"]
    for k in keys:
        name = book.t("sh_calc", i=k[4:]) if k.startswith("calc") else book.t("sh_" + k)
        book.sheets[k] = name
        wb.add_worksheet(name)
    wb.set_properties({"title": s.scenario.name, "subject": "TCO", "author": f"tco {__version__}",
                       "comments": "Live model; Inputs sheet holds every input."})
    wb.set_calc_mode("auto")

    write_inputs(book, res)
    write_catalog(book, doc)
    write_timeline(book, res)
    write_sizing(book, res)
    for i, o in enumerate(res.options, start=1):
        write_calc(book, res, i, o)
    write_comparison(book, res)
    write_fx_risk(book, res)
    if doc.get("sensitivity"):
        write_sensitivity(book, doc["sensitivity"])
    _checks(book, res)
    _summary(book, res, doc)
    for k in keys:
        ws = wb.get_worksheet_by_name(book.sheets[k])
        ws.set_landscape()
        ws.set_paper(9)  # A4
        ws.hide_gridlines(2)
        if k in ("timeline", "fx") or k.startswith("calc"):
            # months across the columns: pages of months, labels and titles repeated on each
            ws.repeat_columns(0, 2)
            ws.repeat_rows(0, 2)
            ws.set_print_scale(55)
        else:
            ws.fit_to_pages(1, 0)
    wb.get_worksheet_by_name(book.sheets["summary"]).activate()
    wb.close()


# ---------------------------------------------------------------------------------------------


def _checks(book: Book, res) -> None:
    """The Checks sheet: integrity (the master check) and reconciliation with the engine (tco.report.workbook_checks)."""
    from tco.report.workbook_checks import write_checks

    write_checks(book, res)


def summary_order(res, doc: dict) -> list[int]:
    """Option indices in the engine's ranking (ascending deterministic TCO, ties in scenario order), then the
    infeasible options (shown, never ranked) in scenario order."""
    names = [o.name for o in res.options]
    ranking = list(doc.get("ranking") or []) + list(doc.get("infeasible") or [])
    if sorted(ranking) == sorted(names) and len(set(names)) == len(names):
        return [names.index(n) for n in ranking]
    return sorted(range(len(names)), key=lambda j: (not res.options[j].feasible, res.options[j].tco.deterministic))


def _decimal(book: Book, x: float) -> str:
    """A rate as typed (up to 6 decimals), with the locale's decimal sign."""
    from tco.report import fmt

    return fmt.number_short(x, book.locale, 6)


def _serial(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)


def _summary(book: Book, res, doc: dict) -> None:
    s = res.scenario
    sheet = book.sheets["summary"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    ws.set_column(0, 0, 30)
    ws.set_column(1, 1, 50)
    ws.set_column(2, 4, 18)
    ws.write_string(0, 0, t("title"), book.fmt("title"))
    info = [(t("cover_scenario"), s.scenario.name), (t("cover_client"), s.scenario.client),
            (t("cover_prepared_by"), s.scenario.prepared_by),
            (t("start"), s.scenario.start), (t("cover_horizon"), f"{s.scenario.horizon_months} {t('months')}"),
            (t("fx_model"), f"{book.term('fxm', s.fx.model)}, USD/BRL {_decimal(book, s.fx.usdbrl)}")]
    r = 2
    for k, v in info:
        ws.write_string(r, 0, k, book.fmt("bold_gen"))
        ws.write_string(r, 1, v)  # scenario text: always a string, never a formula or link
        r += 1
    r += 1
    ws.write_string(r, 0, t("master_check"), book.fmt("bold_gen"))
    ws.write_formula(r, 1, "=" + book.outputs["master"], book.fmt("check"), book.outputs.get("master_ok", True))
    ws.conditional_format(r, 1, r, 1, {"type": "cell", "criteria": "==", "value": "TRUE",
                                       "format": book.wb.add_format({"bg_color": "#C6EFCE"})})
    ws.conditional_format(r, 1, r, 1, {"type": "cell", "criteria": "==", "value": "FALSE",
                                       "format": book.wb.add_format({"bg_color": "#FFC7CE"})})
    ws.merge_range(r + 1, 1, r + 1, 4, t("chk_note"), book.fmt("small_wrap"))
    ws.set_row(r + 1, 34)
    r += 3
    cmp_ = qs(book.sheets["comparison"])
    n = len(res.options)
    c0 = book.rows["cmp_first"] + 1
    names = f"{cmp_}$B${c0}:$B${c0 + n - 1}"
    tcos = f"{cmp_}$N${c0}:$N${c0 + n - 1}"  # TCO of the feasible options only
    ws.write_string(r, 0, t("cheapest"), book.fmt("bold_gen"))
    ws.write_formula(r, 1, f"=INDEX({names},MATCH(MIN({tcos}),{tcos},0))", book.fmt("bold_gen"), doc["cheapest"])
    r += 2
    for c, hd in enumerate((t("rank"), t("col_option"), t("col_tco"), t("col_npv"), t("col_vs_best"))):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    rank_of = ranks_among(res.options)
    best = min((o.tco.deterministic for o in res.options if o.feasible), default=float("nan"))
    for j in summary_order(res, doc):
        o = res.options[j]
        cr = c0 + j
        infeasible = infeasible_text(book, o)
        ws.write_formula(r, 0, f"={cmp_}F{cr}", book.fmt("calc_int"), rank_of[j] if o.feasible else t("infeasible"))
        ws.write_formula(r, 1, f"={cmp_}B{cr}", book.fmt("text"), o.name)
        ws.write_formula(r, 2, f"={cmp_}D{cr}", book.fmt("calc_brl"), num(o.tco.deterministic))
        ws.write_formula(r, 3, f"={cmp_}E{cr}", book.fmt("calc_brl"), num(o.npv.deterministic))
        ws.write_formula(r, 4, f"={cmp_}G{cr}", book.fmt("calc_pct"),
                         (num(o.tco.deterministic / best - 1) if best > 0 else "") if o.feasible else infeasible)
        r += 1
    r += 1
    ws.insert_chart(r, 0, cumulative_chart(book, res), {"x_scale": 1.7, "y_scale": 1.2})
    r += 20
    if s.scenario.notes:
        ws.write_string(r, 0, t("notes"), book.fmt("bold_gen"))
        ws.merge_range(r, 1, r, 4, s.scenario.notes, book.fmt("wrap"))
        ws.set_row(r, 15 * (1 + s.scenario.notes.count("\n") + len(s.scenario.notes) // 100))
        r += 1
    if res.notices:
        from tco.report import notices

        ws.write_string(r, 0, t("warnings"), book.fmt("bold_gen"))
        for n in res.notices:  # merged across the table's width, each row as tall as its wrapped text
            text = notices.line(n, book.locale)
            ws.merge_range(r, 1, r, 4, text, book.fmt("wrap"))
            ws.set_row(r, 15 * (1 + len(text) // 100))
            r += 1
    r += 1
    ws.write_string(r, 0, t("generated", v=__version__), book.fmt("small"))
    ws.set_column(5, 5, 2)
    ws.fit_to_pages(1, 0)  # no print area: LibreOffice fails to export a summary print area without a recalc
