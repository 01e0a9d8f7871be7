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
from tco.costs import LINES
from tco.report import i18n
from tco.report.workbook_book import FIRST_COL, Book, abs_cell, make_formats, month_col, num, qs

WB_OPTIONS = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False,
              "nan_inf_to_errors": True, "in_memory": True}


def write(res, doc: dict, path: Path) -> None:
    """Write the workbook for `res` (engine Results) and `doc` (its JSON document) to `path`."""
    import xlsxwriter

    from tco.report.workbook_calc import write_calc
    from tco.report.workbook_inputs import write_catalog, write_inputs
    from tco.report.workbook_model import write_sizing, write_timeline
    from tco.report.workbook_finance import finance_formats, write_finance
    from tco.report.workbook_index import write_index
    from tco.report.workbook_outputs import write_comparison, write_fx_risk, write_sensitivity
    from tco.report.workbook_plans import write_plans
    from tco.report.workbook_print import finish, unlock_inputs
    from tco.report.workbook_summary import summary_formats

    s = res.scenario
    locale = i18n.locale_of(s.scenario.locale)
    wb = xlsxwriter.Workbook(str(path), WB_OPTIONS)
    book = Book(wb, locale, s.scenario.horizon_months)
    book.fmts = make_formats(wb)
    finance_formats(book)
    summary_formats(book)
    plans = doc.get("plans") or (res.meta or {}).get("plans")
    keys = sheet_keys(len(res.options), bool(doc.get("sensitivity")), bool(plans))
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
    write_finance(book, res)
    if plans:
        write_plans(book, res, plans, Path(doc.get("scenario", {}).get("file") or "FILE").name)
    write_fx_risk(book, res)
    if doc.get("sensitivity"):
        write_sensitivity(book, doc["sensitivity"], res)
    _checks(book, res)
    _summary(book, res, doc)
    write_index(book, res, keys)
    unlock_inputs(book)
    finish(book, res, keys)
    wb.get_worksheet_by_name(book.sheets["summary"]).activate()
    wb.close()


def sheet_keys(n_options: int, sensitivity: bool, plans: bool) -> list[str]:
    """The sheets in order: Summary, Index, the model (inputs to calculation sheets), the outputs, Checks."""
    keys = ["summary", "index", "inputs", "catalog", "sizing", "timeline"] + [f"calc{i}" for i in range(1, n_options + 1)]
    keys += ["comparison", "finance"] + (["plans"] if plans else []) + ["fx"] + (["sensitivity"] if sensitivity else [])
    return keys + ["checks"]

# ---------------------------------------------------------------------------------------------


def _checks(book: Book, res) -> None:
    sheet = book.sheets["checks"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    h = book.horizon
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 54)
    ws.set_column(2, 3, 18)
    ws.set_column(4, 4, 16)
    ws.write_string(0, 0, t("sh_checks"), book.fmt("title"))
    ws.merge_range(1, 0, 1, 4, t("chk_note"), book.fmt("small_wrap"))
    ws.set_row(1, 26)
    for c, hd in enumerate((t("col_option"), t("chk"), t("workbook_value"), t("engine_value"), t("result"))):
        ws.write_string(2, c, hd, book.fmt("head"))
    n = len(res.options)
    # engine monthly totals, stored as values, at the bottom
    eng_r0 = 4 + 6 * n + 4
    ws.write_string(eng_r0 - 1, 0, t("engine_monthly"), book.fmt("h2"))
    for m in range(h):
        ws.write_formula(eng_r0 - 1, FIRST_COL + m, f"={qs(book.sheets['timeline'])}{month_col(m + 1)}{book.rows['date'] + 1}",
                         book.fmt("head_date"), _serial(res.months[m]))
    r = 3
    all_ok = True
    for i, o in enumerate(res.options, start=1):
        er = eng_r0 + i - 1
        ws.write_string(er, 0, o.name)
        for m in range(h):
            ws.write_number(er, FIRST_COL + m, float(o.total_brl[m]), book.fmt("eng_brl"))
        eng_row = f"${month_col(1)}${er + 1}:${month_col(h)}${er + 1}"
        tot = book.outputs[(i, "total")]
        lines_neg = float(min(o.costs.lines[k].min() for k in LINES))
        lines_sum = float(sum(o.lines_brl[k].sum() for k in LINES))
        checks = [
            ("chk_tco", "=" + book.outputs[(i, "tco")], o.tco.deterministic, "brl",
             lambda rr: f"=ABS(C{rr}-D{rr})<0.01"),
            ("chk_npv", "=" + book.outputs[(i, "npv")], o.npv.deterministic, "brl",
             lambda rr: f"=ABS(C{rr}-D{rr})<0.01"),
            ("chk_monthly", f"=SUMPRODUCT(--(ABS({tot}-{eng_row})<0.01))", h, "int",
             lambda rr: f"=C{rr}=D{rr}"),
            ("chk_sum", f"=SUM({book.outputs[(i, 'lines_brl')]})", lines_sum, "brl",
             lambda rr, tot=tot: f"=ABS(C{rr}-SUM({tot}))<0.01"),
            ("chk_neg", f"=MIN({book.outputs[(i, 'lines')]})", lines_neg, "num", lambda rr: f"=C{rr}>=-0.000001"),
            ("chk_cap", "=" + book.sizing[(i, "cap")], o.replica.requests_per_second, "num4",
             lambda rr: f"=ABS(C{rr}/D{rr}-1)<0.000001"),
        ]
        for key, f, engine_v, fmt, test in checks:
            ws.write_string(r, 0, o.name)
            ws.write_string(r, 1, t(key))
            ws.write_formula(r, 2, f, book.fmt("calc_" + fmt), num(engine_v if fmt != "num" else lines_neg))
            if key == "chk_monthly":
                ws.write_number(r, 3, h, book.fmt("eng_int"))
            elif key == "chk_sum":
                ws.write_formula(r, 3, f"=SUM({tot})", book.fmt("calc_brl"), num(o.total_brl.sum()))
            elif key == "chk_neg":
                ws.write_number(r, 3, 0, book.fmt("eng_num"))
            else:
                ws.write_number(r, 3, num(engine_v), book.fmt("eng_" + fmt))
            # cached result = the check evaluated on the cached values (C and D hold the engine's numbers, so only
            # the sign check can fail here); readers that do not recalculate see the truth, not a hard-coded TRUE
            ok = bool(lines_neg >= -0.000001) if key == "chk_neg" else True
            all_ok = all_ok and ok
            ws.write_formula(r, 4, test(r + 1), book.fmt("check"), ok)
            r += 1
    first, last = 4, r
    ws.conditional_format(first - 1, 4, last - 1, 4, {"type": "cell", "criteria": "==", "value": "TRUE",
                                                      "format": book.wb.add_format({"bg_color": "#C6EFCE"})})
    ws.conditional_format(first - 1, 4, last - 1, 4, {"type": "cell", "criteria": "==", "value": "FALSE",
                                                      "format": book.wb.add_format({"bg_color": "#FFC7CE"})})
    r += 1
    ws.write_string(r, 1, t("master_check"), book.fmt("bold_gen"))
    ws.write_formula(r, 4, f"=AND(E{first}:E{last})", book.fmt("check"), all_ok)
    book.outputs["master_ok"] = all_ok
    book.outputs["master"] = abs_cell(sheet, r, 4)
    ws.set_column(FIRST_COL + 1, FIRST_COL + h - 1, 15)
    ws.print_area(0, 0, r, 4)
    book.name("chk_master", book.outputs["master"])
    ws.freeze_panes(3, 0)


def summary_order(res, doc: dict) -> list[int]:
    """Option indices in the engine's ranking (ascending deterministic TCO, ties in scenario order), then the
    infeasible options (shown, never ranked) in scenario order."""
    names = [o.name for o in res.options]
    ranking = list(doc.get("ranking") or []) + list(doc.get("infeasible") or [])
    if sorted(ranking) == sorted(names) and len(set(names)) == len(names):
        return [names.index(n) for n in ranking]
    return sorted(range(len(names)), key=lambda j: (not res.options[j].feasible, res.options[j].tco.deterministic))


def _serial(month: str) -> float:
    from tco.report.workbook_inputs import excel_date

    return excel_date(month)


def _summary(book: Book, res, doc: dict) -> None:
    from tco.report.workbook_summary import write_summary

    write_summary(book, res, doc, summary_order(res, doc))
