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
from typing import TYPE_CHECKING

from tco import __version__
from tco.report import i18n
from tco.report.workbook import cells as workbook_cells
from tco.report.workbook import deps as workbook_deps
from tco.report.workbook.book import Book, make_formats
from tco.report.workbook.cells import install

if TYPE_CHECKING:
    from tco.findings import PlanSearch
    from tco.report.view import View
    from tco.results import Results

WB_OPTIONS = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False,
              "nan_inf_to_errors": True, "in_memory": True}


def write(res: Results, v: View, path: Path) -> None:
    """Write the workbook for `res` (engine Results) and `v` (its view, ``tco.report.view``) to `path`."""
    try:
        _write(res, v, path)
    finally:  # the memos hold this run's expressions: let them go
        workbook_cells.forget()
        workbook_deps.forget()


def _write(res: Results, v: View, path: Path) -> None:
    """The sheets in the order their cells are needed: inputs first, each sheet then reads the rows and names the
    ones before it placed (``Book.rows``, ``Book.outputs``, defined names)."""
    plans = v.analysis.plans
    keys = sheet_keys(len(res.options), _has_sensitivity(v), bool(plans))
    book = _new_book(res, path, keys)
    _write_model(book, res, v)
    _write_outputs(book, res, v, plans)
    _checks(book, res)
    _summary(book, res, v)
    _finish(book, res, keys)


def _has_sensitivity(v: View) -> bool:
    """The run computed a tornado (the Sensitivity sheet is written, though a pair may have no rows)."""
    return v.analysis.sensitivity is not None


def _new_book(res: Results, path: Path, keys: list[str]) -> Book:
    """An empty workbook at `path` with its formats, its sheets (named in the scenario's locale) and properties."""
    import xlsxwriter

    from tco.report.workbook.finance import finance_formats
    from tco.report.workbook.summary import summary_formats

    s = res.scenario
    wb = xlsxwriter.Workbook(str(path), WB_OPTIONS)
    book = Book(wb, i18n.locale_of(s.scenario.locale), s.scenario.horizon_months)
    book.fmts = make_formats(wb)
    finance_formats(book)
    summary_formats(book)
    for k in keys:
        name = book.t("sh_calc", i=k[4:]) if k.startswith("calc") else book.t("sh_" + k)
        book.sheets[k] = name
        install(wb.add_worksheet(name))  # plain formulas skip XlsxWriter's preparation (workbook_cells)
    import datetime as _dt

    from tco.report.words import document_date

    # dated by the document, not the clock: two runs of one scenario give the same bytes
    wb.set_properties({"title": s.scenario.name, "subject": "TCO", "author": f"tco {__version__}",
                       "comments": "Live model; Inputs sheet holds every input.",
                       "created": _dt.datetime.combine(document_date(s), _dt.time())})
    wb.set_calc_mode("auto")
    return book


def _write_model(book: Book, res: Results, v: View) -> None:
    """Inputs, Catalog, Timeline, Sizing and one Calc sheet per option."""
    from tco.report.workbook.calc import write_calc
    from tco.report.workbook.catalog import write_catalog
    from tco.report.workbook.inputs import write_inputs
    from tco.report.workbook.model import write_sizing, write_timeline

    write_inputs(book, res)
    write_catalog(book, v.catalog)
    write_timeline(book, res)
    write_sizing(book, res)
    for i, o in enumerate(res.options, start=1):
        write_calc(book, res, i, o)


def _write_outputs(book: Book, res: Results, v: View, plans: PlanSearch | None) -> None:
    """Comparison, Finance, Plans (when the run searched), FX risk and Sensitivity (when the engine ran it)."""
    from tco.report.workbook.finance import write_finance
    from tco.report.workbook.outputs import write_comparison, write_fx_risk
    from tco.report.workbook.plans import write_plans
    from tco.report.workbook.sensitivity import write_sensitivity

    write_comparison(book, res)
    write_finance(book, res)
    if plans:
        write_plans(book, res, plans, Path(v.source_path or f"{v.name}.toml").name)
    write_fx_risk(book, res)
    if v.analysis.sensitivity is not None:
        write_sensitivity(book, v.analysis.sensitivity, res)


def _finish(book: Book, res: Results, keys: list[str]) -> None:
    """The Index, the input cells unlocked, print settings, the Summary active; then the file is closed (written)."""
    from tco.report.workbook.index import write_index
    from tco.report.workbook.print import finish, unlock_inputs

    write_index(book, res, keys)
    unlock_inputs(book)
    finish(book, res, keys)
    book.wb.get_worksheet_by_name(book.sheets["summary"]).activate()
    book.wb.close()


def sheet_keys(n_options: int, sensitivity: bool, plans: bool) -> list[str]:
    """The sheets in order: Summary, Index, the model (inputs to calculation sheets), the outputs, Checks."""
    keys = ["summary", "index", "inputs", "catalog", "sizing", "timeline"]
    keys += [f"calc{i}" for i in range(1, n_options + 1)]
    keys += ["comparison", "finance"] + (["plans"] if plans else []) + ["fx"] + (["sensitivity"] if sensitivity else [])
    return keys + ["checks"]

# ---------------------------------------------------------------------------------------------


def _checks(book: Book, res: Results) -> None:
    """The Checks sheet: integrity (the master check) and reconciliation with the engine
    (tco.report.workbook.checks)."""
    from tco.report.workbook.checks import write_checks

    write_checks(book, res)


def summary_order(res: Results, v: View) -> list[int]:
    """Option indices in the engine's ranking (ascending deterministic TCO, ties in scenario order), then the options
    not ranked (infeasible, or breaking the client's constraints: shown, never ranked) in scenario order, as the
    Comparison's order column computes it."""
    names = [o.name for o in res.options]
    ranked = [n for n in v.ranked if n in names]
    ranking = ranked + [n for n in names if n not in ranked]
    if len(set(names)) == len(names) and len(set(ranked)) == len(ranked):
        return [names.index(n) for n in ranking]
    from tco.report.workbook.outputs import ranked_ok

    return sorted(range(len(names)), key=lambda j: (not ranked_ok(res.options[j]),
                                                    res.options[j].tco.deterministic if ranked_ok(res.options[j])
                                                    else j))


def _serial(month: str) -> float:
    from tco.report.workbook.inputs import excel_date

    return excel_date(month)


def _summary(book: Book, res: Results, v: View) -> None:
    from tco.report.workbook.summary import write_summary

    write_summary(book, res, v, summary_order(res, v))
