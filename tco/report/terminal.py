"""Terminal output (rich): the ranked summary, progress bars and catalog listings. Only the CLI calls this.

Every word comes from the shared catalog (tco.report.i18n) in the scenario's locale; listings that
have no scenario (the catalog's offers) take the locale they are given.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from tco.domain import FleetKind
from tco.errors import printable
from tco.report.i18n import t, term

if TYPE_CHECKING:  # annotations only: the CLI imports this module before any run
    from tco.findings import Tornado
    from tco.results import Results

literal = printable
"""Text printed literally by ``print``: control characters (escape sequences) shown as \\xNN (tco.errors.printable)."""


_RICH_TAG = re.compile(r"\[[a-z#/@][^[]*?]")
"""What rich's markup reads as a tag (``rich.markup.RE_TAGS`` without the backslashes before it)."""


def plain(text) -> str:
    """Text printed literally through rich: control characters shown as \\xNN and every ``[`` escaped. Rich reads
    k backslashes before a tag as k/2 of them (the tag escaped when k is odd), and before any other ``[`` as k − 1, so
    the backslashes before a tag are doubled plus one and those before another ``[`` get one more (rich's own
    ``escape`` handles tags only: a name with ``\\[`` printed as ``[``, and a trailing backslash came out doubled).
    Rich's emoji codes are off in every Console of the package."""

    def one(m: re.Match) -> str:
        run = m.group(1)
        return (run * 2 if _RICH_TAG.match(m.string, m.end() - 1) else run) + "\\["

    return re.sub(r"(\\*)\[", one, literal(text))



def summary(res: Results, written) -> None:
    """The ranked table (infeasible options shown, never ranked), then the notices and the files written."""
    from rich.console import Console

    from tco.report import notices

    loc = res.scenario.scenario.locale
    console = Console(file=sys.stdout, emoji=False)
    if not console.is_terminal:  # a log or a pipe: the whole table, unwrapped
        console.width = max(console.width, 150)
    console.print(_ranked_table(res, loc, console.width))
    for n in list(res.notices) + _proposal_notices(res):  # names printed literally: markup escaped, control characters shown as \xNN
        console.print(f"[yellow]{t('term_warning', loc)}[/] {plain(notices.line(n, loc))}")
    for p in written:
        console.print(plain(t("term_wrote", loc, path=p)))


def _title(res: Results, loc: str) -> str:
    """The table's title: the scenario, its horizon and start, the spot and the FX path and model."""
    from tco.report import fmt

    s, path = res.scenario, res.fx_path
    fx = (f"USD/BRL {fmt.number(path[0], loc, 2)}" if abs(path[-1] - path[0]) < 5e-3
          else t("term_fx_path", loc, first=fmt.number(path[0], loc, 2), last=fmt.number(path[-1], loc, 2)))
    fx += ", " + t("term_fx_base", loc, path=term("fxb", res.fx_info.base.path if res.fx_info else None, loc))
    return t("term_title", loc, name=plain(s.scenario.name), months=s.scenario.horizon_months,
             start=fmt.month_year(s.scenario.start, loc), spot=fmt.number_short(s.fx.usdbrl, loc, 4), fx=fx,
             model=term("fxm", res.fx_info.model if res.fx_info else None, loc))


RANKED_COLUMNS = ("col_rank", "col_option", "col_tco", "col_vs_best", "col_npv", "term_col_spread", "line_egress",
                  "col_per_mtok")
NARROW_DROPS = ("line_egress", "col_per_mtok", "term_col_spread", "col_vs_best", "col_npv")
"""The ranked table's columns left out, in this order, until it fits a narrow terminal (the names wrap)."""
MIN_NAME_WIDTH = 16


def fitting(headers: dict[str, str], cells: list[list[str]], width: int) -> list[str]:
    """The column keys of the ranked table that fit `width` columns: each unwrapped column as wide as its widest
    text, the option's name at least MIN_NAME_WIDTH, three characters of frame per column and one more."""
    keys = list(headers)
    widest = {k: max([len(headers[k])] + [len(r[i]) for r in cells]) for i, k in enumerate(keys)}
    kept = list(keys)
    for drop in NARROW_DROPS:
        need = sum(MIN_NAME_WIDTH if k == "col_option" else widest[k] for k in kept) + 3 * len(kept) + 1
        if need <= width:
            break
        kept.remove(drop)
    return kept


def _ranked_table(res: Results, loc: str, width: int = 150):
    """Options by TCO: rank, name, TCO, above the best, NPV, P5–P95, egress, cost per million tokens; then the
    infeasible ones, dimmed, with the speed they reach instead of a rank. Columns are left out (NARROW_DROPS) until
    the table fits `width`."""
    from rich.table import Table

    rows, styles = _ranked_rows(res, loc)
    headers = {key: t(key, loc) for key in RANKED_COLUMNS}
    kept = fitting(headers, rows, width)
    table = Table(title=_title(res, loc))
    for key in kept:
        table.add_column(headers[key], justify="left" if key == "col_option" else "right", no_wrap=key != "col_option")
    at = [RANKED_COLUMNS.index(k) for k in kept]
    for row, style in zip(rows, styles):
        table.add_row(*(row[i] for i in at), style=style)
    return table


def _ranked_rows(res: Results, loc: str) -> tuple[list[list[str]], list[str | None]]:
    """The ranked table's cells (RANKED_COLUMNS order) and each row's style."""
    from tco.report import fmt

    def brl(x: float) -> str:
        return fmt.money(x, loc, False)

    rows: list[list[str]] = []
    styles: list[str | None] = []
    ranked = res.ranked()
    best = ranked[0].tco.deterministic if ranked else float("nan")
    for i, o in enumerate(ranked, 1):
        d, cpm = o.tco, o.cost_per_million_tokens_brl
        spread = "—" if d.p95 - d.p5 < 0.5 else f"{brl(d.p5)} – {brl(d.p95)}"
        above = "+" + fmt.percent(d.deterministic / best - 1, loc) if best > 0 else "—"
        rows.append([str(i), plain(o.name), brl(d.deterministic), t("best", loc) if i == 1 else above,
                     brl(o.npv.deterministic), spread, brl(float(o.lines_brl["egress"].sum())),
                     "—" if cpm is None else fmt.money(cpm, loc)])
        styles.append(None)
    for o in res.options:
        if not o.feasible:
            rows.append(["—", plain(o.name), brl(o.tco.deterministic),
                         t("term_infeasible", loc, tps=fmt.number(o.achieved_tokens_per_second_per_user, loc, 1)),
                         "—", "—", "—", "—"])
            styles.append("dim")
        elif o.resolved.breaches:  # costed and shown, never ranked: it breaks the client's constraints
            from tco.report.words import breach_text

            rows.append(["—", plain(o.name), brl(o.tco.deterministic),
                         t("term_breaches", loc, what=breach_text(o.resolved.breaches, loc)),
                         brl(o.npv.deterministic), "—", brl(float(o.lines_brl["egress"].sum())), "—"])
            styles.append("dim")
    return rows, styles


def _proposal_notices(res: Results) -> list:
    """The proposal's own checks (tco.report.offer_checks): items against the costed fleet, expired quotes,
    unverified prices under the recommendation or the best plan."""
    from tco.report import view
    from tco.report import offer_checks as proposal_checks

    return proposal_checks.notices(view.build(res), res.scenario)


def progress_bar(loc: str = "pt-BR"):
    """A callback(done, total) that drives a rich progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    paths = t("term_paths", loc).replace("[", r"\[")  # plain text in rich markup
    prog = Progress(TextColumn(t("g_mc", loc)), BarColumn(), TextColumn("{task.completed}/{task.total} " + paths),
                    TimeRemainingColumn(), console=Console(file=sys.stderr, emoji=False), transient=True)
    state = {}

    def update(done: int, total: int) -> None:
        if "task" not in state:
            prog.start()
            state["task"] = prog.add_task("mc", total=total)
        prog.update(state["task"], completed=done)
        if done >= total:
            prog.stop()

    return update


def status(message: str):
    """A spinner on stderr while a step runs (used for the analysis after the Monte Carlo)."""
    from rich.console import Console

    return Console(file=sys.stderr, emoji=False).status(message)


def offers_table(cat, gpu_filter: str | None, loc: str = "en") -> None:
    """The catalog's offers (no scenario, so in `loc`: English, like the CLI's own messages, unless asked)."""
    from rich.console import Console
    from rich.table import Table

    from tco.report import fmt

    rows = []
    for oid in cat.offer_ids:
        o = cat.offer(oid)
        if gpu_filter and gpu_filter.lower() not in o.gpu.lower():
            continue
        spec = o.gpu in cat.gpus  # review L12: an offer whose GPU has no gpus.csv row cannot size anything yet
        if o.kind == FleetKind.CLOUD:
            for k, p in sorted(o.prices.items()):
                price = ("—" if p.usd_per_hour is None
                         else f"US$ {fmt.number(p.usd_per_hour, loc, 4)}{t('per_hour', loc)}")
                rows.append((plain(oid), plain(o.gpu), str(o.gpu_count), term("pricing", k, loc), price,
                             term("status", p.status, loc) if spec else t("term_no_gpu_spec", loc), p.as_of))
        else:
            rows.append((plain(oid), plain(o.gpu), str(o.gpu_count), term("pricing", "monthly", loc),
                         fmt.money(o.brl_per_month, loc, False) + t("per_month", loc), term("status", o.status, loc),
                         o.as_of))
    table = Table(title=t("term_offers_title", loc))
    keys = ("col_offer", "col_gpu", "col_gpus_per_server", "col_pricing", "col_price", "col_status", "col_as_of")
    for j, key in enumerate(keys):
        # ids, numbers and dates are never cut (a reader copies them): their columns keep their widest cell; the
        # pricing and status words wrap instead
        whole = key not in ("col_pricing", "col_status")
        width = max((len(r[j]) for r in rows), default=0) if whole else None
        table.add_column(t(key, loc), no_wrap=whole, min_width=width, overflow="fold" if whole else "ellipsis")
    for r in rows:
        table.add_row(*r)
    console = Console(file=sys.stdout, emoji=False)
    console.width = max(console.width, 170)
    if not table.row_count:
        gpus = sorted({cat.offer(oid).gpu for oid in cat.offer_ids} & set(cat.gpus))  # those a scenario can use
        console.print(plain(t("term_no_offer", loc, gpu=repr(gpu_filter), gpus=", ".join(gpus))))
        return
    console.print(table)


def tornado_table(tornado: Tornado, loc: str = "pt-BR") -> None:
    """The engine's tornado (tco.analysis.tornado) as a table in the scenario's locale."""
    from rich.console import Console
    from rich.table import Table

    from tco.report import fmt

    console = Console(file=sys.stdout, emoji=False)
    console.width = max(console.width, 130)
    if not tornado.challenger:
        console.print(t("term_one_option", loc))
        return
    def brl(x: float) -> str:
        return fmt.money(x, loc, False)

    tab = Table(title=t("term_tornado_title", loc, challenger=plain(tornado.challenger),
                        leader=plain(tornado.leader), base=brl(tornado.base_diff_brl or 0.0)))
    for key in ("col_input", "term_col_range", "col_metric", "col_diff_low", "col_diff_high", "sens_swing"):
        tab.add_column(t(key, loc), justify="left" if key in ("col_input", "term_col_range") else "right", no_wrap=True)
    for r in tornado.rows:
        unit = term("sens_unit", r.input, loc, r.unit)
        tab.add_row(term("sens_in", r.input, loc, r.label),
                    f"{fmt.number_short(r.low, loc, 4)} – {fmt.number_short(r.high, loc, 4)} {unit}",
                    term("metric", r.metric, loc, r.metric), brl(r.low_diff_brl), brl(r.high_diff_brl),
                    brl(r.swing_brl))
    console.print(tab)
