"""The Plans sheet: the plan search's best plan per group (each provider, and the hybrids), as the engine's
search results (values, labelled so), with what each plan is made of, its TCO and its multiple of the best
plan; and the best plan against the cheapest option the scenario wrote (live on that side).

The search is not redone by the workbook: ``python -m tco plan FILE`` reproduces it (and prints the
[[options]] table that puts a plan into the scenario, where the workbook then models it live).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.domain import FleetKind, FleetMode
from tco.report.workbook.book import Book, num, qs

if TYPE_CHECKING:
    from tco.plan_results import Plan, PlanFleet, PlanSearch, SearchFacts, ServingFleet, VersusOptions
    from tco.results import Results


def plan_rows(plans: PlanSearch) -> list[tuple[str, int, Plan]]:
    """(group, place, plan) of each group's plans, groups by their best TCO, best first in each."""
    groups = sorted(plans.by_provider.items(), key=lambda kv: kv[1].best.tco_brl)
    return [(g, n, p) for g, v in groups for n, p in enumerate((v.best, *v.runners_up), 1)]


def _part(book: Book, f: PlanFleet | None, extra: str = "") -> str:
    if f is None:
        return "—"
    pricing = f" · {book.term('pricing', f.pricing)}" if f.kind == FleetKind.CLOUD else ""
    return f"{f.offer}{pricing}{extra}"


def _serving(book: Book, sv: ServingFleet) -> str:
    mode = book.term("plan_mode", sv.mode)
    if sv.committed_instances:
        mode += " " + book.t("plan_committed", k="/".join(str(k) for k in sv.committed_instances),
                             burst=book.term("pricing", sv.burst_pricing or ""))
    return _part(book, sv, f" · {mode} · " + book.t("plan_peak", n=sv.peak_instances))


def _training(book: Book, p: Plan) -> str:
    tr = p.training
    if tr is None:
        return "—"
    if p.fleet == FleetMode.SHARED:
        return book.t("plan_on_serving_fleet")
    return _part(book, tr, " · " + book.t("plan_servers", n=tr.servers, h=f"{tr.wall_hours:,.0f}"))


def write_plans(book: Book, res: Results, plans: PlanSearch, source: str) -> None:
    """The Plans sheet: how the search ran, each group's plans ranked by TCO (the runners-up folded), then the best
    plan against the scenario's cheapest option."""
    ws = book.wb.get_worksheet_by_name(book.sheets["plans"])
    r = _plans_head(book, ws, plans.search, source)
    rows = plan_rows(plans)
    best = min(p.tco_brl for _, _, p in rows)
    r = _plan_table(book, ws, r, rows, best) + 1
    _vs_options(book, ws, r, res, plans.vs_options, best)
    ws.freeze_panes(0, 1)


def _plans_head(book: Book, ws, srch: SearchFacts, source: str) -> int:
    """Column widths, title, the note with the command, and the search's candidates, providers and switches;
    returns the next free row."""
    t = book.t
    for first, last, width in ((0, 0, 18), (1, 1, 6), (2, 4, 15), (5, 6, 60), (7, 8, 30)):
        ws.set_column(first, last, width)
    ws.write_string(0, 0, t("sh_plans"), book.fmt("title"))
    ws.merge_range(1, 0, 1, 8, t("plan_note", cmd=f"python -m tco plan {source}"), book.fmt("small_wrap"))
    ws.set_row(1, 30)
    info = ((t("plan_candidates"), srch.candidates), (t("plan_providers"), ", ".join(srch.providers)),
            (t("plan_brazil_only"), t("yes") if srch.brazil_only else t("no")),
            (t("plan_hybrids"), t("yes") if srch.hybrids else t("no")))
    r = 3
    for k, v in info:
        ws.write_string(r, 0, k)
        if isinstance(v, int):
            ws.write_number(r, 2, v, book.fmt("eng_int"))
        else:
            ws.write_string(r, 2, str(v), book.fmt("eng_text"))  # catalog ids
        r += 1
    return r + 1


def _plan_table(book: Book, ws, r: int, rows: list[tuple[str, int, Plan]], best: float) -> int:
    """The heads, then one row per plan (group, place, TCO, NPV, multiple of the best, training, serving, tax
    profile, notes); the runners-up of a group on an outline level. Returns the row after the table."""
    t = book.t
    heads = (t("plan_group"), "#", t("col_tco") + " (R$)", t("col_npv") + " (R$)", t("plan_vs_best"),
             t("plan_training"), t("plan_serving"), t("plan_tax"), t("note"))
    for c, hd in enumerate(heads):
        ws.write_string(r, c, hd, book.fmt("head"))
    ws.set_row(r, 30)
    r += 1
    first, last = r + 1, r + len(rows)
    for g, n, p in rows:
        label = book.term("kind", FleetKind.HYBRID) if g == FleetKind.HYBRID else g
        ws.write_string(r, 0, label if n == 1 else "", book.fmt("bold_gen") if n == 1 else book.fmt("text"))
        ws.write_number(r, 1, n, book.fmt("eng_int"))
        ws.write_number(r, 2, num(p.tco_brl), book.fmt("eng_brl"))
        ws.write_number(r, 3, num(p.npv_brl), book.fmt("eng_brl"))
        ws.write_formula(r, 4, f"=C{r + 1}/MIN($C${first}:$C${last})", book.fmt("fin_mult"), p.tco_brl / best)
        ws.write_string(r, 5, _training(book, p), book.fmt("small"))
        ws.write_string(r, 6, _serving(book, p.serving), book.fmt("small"))
        ws.write_string(r, 7, str(p.tax_profile or ""), book.fmt("small"))
        ws.write_string(r, 8, t("plan_has_notes", n=len(p.notes)) if p.notes else "", book.fmt("small"))
        if n > 1:
            ws.set_row(r, None, None, {"level": 1})
        r += 1
    return r


def _vs_options(book: Book, ws, r: int, res: Results, vs: VersusOptions | None, best: float) -> None:
    """The scenario's cheapest option (live, from the Comparison), the best plan, and what the plan saves."""
    t = book.t
    cmp_ = qs(book.sheets["comparison"])
    c0 = book.rows["cmp_first"] + 1
    tcos = f"{cmp_}$N${c0}:$N${c0 + len(res.options) - 1}"
    ws.write_string(r, 0, t("plan_vs_options"), book.fmt("h2"))
    ws.write_string(r + 1, 0, t("plan_cheapest_option"))
    lead = res.cheapest()  # the one ranking: feasible and within the client's constraints, as column N of the Comparison
    cheapest = lead.tco.deterministic if lead is not None else 0.0
    ws.write_formula(r + 1, 2, f"=MIN({tcos})", book.fmt("calc_brl"), num(cheapest))
    ws.write_string(r + 2, 0, t("plan_best_plan"))
    plan_tco = vs.best_plan_tco_brl if vs is not None else best
    ws.write_number(r + 2, 2, num(plan_tco), book.fmt("eng_brl"))
    ws.write_string(r + 3, 0, t("plan_saving"))
    ws.write_formula(r + 3, 2, f"=C{r + 2}-C{r + 3}", book.fmt("calc_brl"),
                     num(cheapest - plan_tco))
