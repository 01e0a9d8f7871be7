"""Terminal table of the plan search (rich), in the run's locale: every word from the translation catalog (keys
``plan_tab_*``), plan names by ``tco.report.plan_names``, money, percentages and counts by ``tco.report.fmt``.
Ids stay ids (providers, offers, pricings: what the [[options]] table takes). Names are printed literally (rich
Text, never markup). The JSON of the search is not touched: its names and notes stay the English it has always had.

A plan's notes are what ``tco.plan`` wrote: a notice code, or one of a few English sentences; ``note_text`` words
both in the locale (``NOTE_SENTENCES`` reads a sentence's numbers back), and anything else stays as written.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Sequence

from tco.domain import FleetKind, FleetMode
from tco.report.i18n import locale_of, t, term

if TYPE_CHECKING:
    from tco.plan_results import Plan, PlanFleet, PlanSearch, SearchFacts, Skipped

COMMITTED_BASELINE = "committed_baseline"
"""The serving mode of a plan with committed instances and on-demand hours above them (tco/plan)."""

NOTE_SENTENCES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"the training burst runs on spot capacity, which can be reclaimed: the job must checkpoint, "
                r"and interruptions are not costed"), "plan_tab_note_spot"),
    (re.compile(r"the last (?P<term>\d+)-month term runs (?P<over>\d+) month\(s\) past the horizon; its upfront is "
                r"paid in full, its hours past the horizon are not costed"), "plan_tab_note_past_upfront"),
    (re.compile(r"the last (?P<term>\d+)-month term runs (?P<over>\d+) month\(s\) past the horizon; those months "
                r"are not costed"), "plan_tab_note_past"),
)
"""The English sentences ``tco.plan.costing`` writes as a plan's notes → the catalog key that words them (its
placeholders are the pattern's groups). A test feeds this table what tco.plan writes, so the two cannot drift."""

NOTE_CODES = frozenset({"min_term_idle", "min_term_past_horizon", "training_past_horizon"})
"""The notice codes ``tco.plan.costing`` keeps as a training fleet's notes (the code, not its numbers): each is worded
by ``plan_tab_note_<code>``, without the numbers."""


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return _toml_string(str(v))


def _toml_string(text: str) -> str:
    """A TOML basic string: backslash and quote escaped, and every control character but tab written \\uXXXX (TOML
    forbids them raw), so a name with a newline or an escape sequence still gives a snippet TOML can read."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(f"\\u{ord(c):04x}" if (ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F else c
                         for c in out) + '"'


def option_toml(opt: dict) -> str:
    """The [[options]] table that re-runs a plan through the engine."""
    keys = ["name"] + sorted(k for k in opt if k != "name")
    return "[[options]]\n" + "\n".join(f"{k} = {_toml_value(opt[k])}" for k in keys) + "\n"


def note_text(note: str, loc: str) -> str:
    """A plan's note in `loc`: a notice code or a sentence ``NOTE_SENTENCES`` knows, worded by the catalog; anything
    else as ``tco.plan`` wrote it."""
    from tco.report import fmt

    if note in NOTE_CODES:
        return t(f"plan_tab_note_{note}", loc)
    for pattern, key in NOTE_SENTENCES:
        m = pattern.fullmatch(note)
        if m:
            return t(key, loc, **{k: fmt.number(int(v), loc) for k, v in m.groupdict().items()})
    return note


def _fleet(f: PlanFleet) -> str:
    """The offer id, and its pricing id when it is a cloud fleet (a dedicated one is monthly)."""
    return f.offer + (f" {f.pricing}" if f.kind == FleetKind.CLOUD else "")


def _serving(p: Plan, loc: str) -> str:
    sv = p.serving
    if sv.mode == COMMITTED_BASELINE:
        mode = t("plan_tab_committed_baseline", loc, levels="/".join(str(k) for k in sv.committed_instances or ()),
                 burst=sv.burst_pricing, peak=sv.peak_instances)
    else:
        mode = term("plan_tab_mode", sv.mode, loc)
    return f"{_fleet(sv)}: {mode}"


def _training(p: Plan, loc: str) -> str:
    from tco.report import fmt

    tr = p.training
    if tr is None:
        return "—"
    if p.fleet == FleetMode.SHARED:
        return t("plan_tab_on_serving_fleet", loc)
    return f"{_fleet(tr)}: " + t("plan_tab_servers", loc, servers=fmt.number(tr.servers, loc),
                                      hours=fmt.number(tr.wall_hours, loc))


def _group(g: str, loc: str) -> str:
    """A row's group: the provider id, or the hybrids in the locale's word (the one plan names use)."""
    return t("plan_group_hybrid", loc) if g == "hybrid" else g


HEADS = (("plan_tab_col_provider", "left"), ("plan_tab_col_rank", "right"), ("plan_tab_col_tco", "right"),
         ("plan_tab_col_vs_best", "right"), ("plan_tab_col_training", "left"), ("plan_tab_col_serving", "left"))
"""The table's columns: catalog key and justification (the right-justified ones never wrap)."""


def _table(plans: PlanSearch, loc: str):
    """Each group cheapest first, its best plan then its runners-up with their margin over that best."""
    from rich.table import Table
    from rich.text import Text

    from tco.report import fmt

    srch = plans.search
    title = t("plan_tab_title", loc, candidates=fmt.number(srch.candidates, loc), providers=", ".join(
        srch.providers)) + (" " + t("plan_tab_brazil_only", loc) if srch.brazil_only else "")
    table = Table(title=Text(title))
    for key, justify in HEADS:
        table.add_column(t(key, loc), justify=justify, no_wrap=justify == "right")  # type: ignore[arg-type]
    for g, v in sorted(plans.by_provider.items(), key=lambda kv: kv[1].best.tco_brl):
        best = v.best.tco_brl
        for n, p in enumerate((v.best, *v.runners_up), 1):
            table.add_row(Text(_group(g, loc) if n == 1 else ""), str(n), fmt.money(p.tco_brl, loc, False),
                          t("plan_tab_best", loc) if n == 1 else "+" + fmt.percent(p.tco_brl / best - 1, loc),
                          Text(_training(p, loc)), Text(_serving(p, loc)))
        table.add_section()
    return table


def _closing(plans: PlanSearch, loc: str, show_skipped: bool = False) -> list[str]:
    """The lines under the table: the overall best and runner-up, the best plan's notes, the [[options]] snippet
    that re-runs it (named in `loc`, as a scenario of that locale would name it) and the count of skipped uses."""
    from tco.report import fmt
    from tco.report.plan_names import plan_label

    ov, srch = plans.overall, plans.search
    b = ov.best
    out = [t("plan_tab_best_overall", loc, name=plan_label(b, loc), tco=fmt.money(b.tco_brl, loc, False))]
    if ov.runner_up is not None:
        r = ov.runner_up
        out.append(t("plan_tab_runner_up", loc, name=plan_label(r, loc), tco=fmt.money(r.tco_brl, loc, False),
                     margin=fmt.money(ov.margin_brl, loc, False), share=fmt.percent(ov.margin_share, loc)))
    out += [t("plan_tab_note", loc, note=note_text(n, loc)) for n in b.notes]
    out += [t("plan_tab_rerun", loc), option_toml(dict(b.option) | {"name": plan_label(b, loc)})]
    out += coverage_lines(srch, loc)
    if srch.skipped:
        out.append(t("plan_tab_skipped", loc, n=fmt.number(len(srch.skipped), loc)))
        out += skipped_lines(srch.skipped, loc) if show_skipped else ["  " + t("plan_tab_skip_hint", loc)]
    return out


def coverage_lines(srch: SearchFacts, loc: str) -> list[str]:
    """Every catalog provider without a plan, with its reason; the stand-in prices under the plans shown."""
    by_why: dict[str, list[str]] = {}
    for c in srch.coverage:
        if c.tco_brl is None:
            why = t(f"pv_c_why_{c.reason}", loc)  # the skipped offers' own reasons: --show-skipped
            by_why.setdefault(why, []).append(c.provider)
    out = [t("plan_tab_no_plan", loc, provider=", ".join(ps), why=why) for why, ps in sorted(by_why.items())]
    whats: dict[str, list[str]] = {}
    for x in srch.stand_ins:
        whats.setdefault(x.provider, []).append(t(f"plan_tab_stand_in_{x.what}", loc, id=x.id))
    out += [t("plan_tab_stand_in", loc, provider=p, what=", ".join(w)) for p, w in sorted(whats.items())]
    return out


def skipped_lines(skipped: Sequence[Skipped], loc: str, limit: int | None = None) -> list[str]:
    """The skipped (offer, pricing, role) uses grouped by reason (the search's words), most frequent first: every
    offer when `limit` is None (``--show-skipped``), else the first `limit` reasons with a count."""
    by: dict[str, list[str]] = {}
    for d in skipped:
        by.setdefault(d.reason, []).append(f"{d.offer} {d.pricing} ({d.role})")
    order = sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    out = []
    for reason, uses in order if limit is None else order[:limit]:
        out.append("  " + t("plan_tab_skip_reason", loc, n=len(uses), reason=reason))
        if limit is None:
            out += [f"    {u}" for u in sorted(uses)]
    if limit is not None and len(order) > limit:
        out.append("  " + t("plan_tab_skip_more", loc, n=len(order) - limit))
    return out


def plan_table(plans: PlanSearch, locale: str = "en", file=None, show_skipped: bool = False) -> None:
    """Best plan per provider (and runners-up), the best hybrid and the overall best, with the margins, in
    `locale` (the scenario's)."""
    from rich.console import Console
    from rich.text import Text

    loc = locale_of(locale)
    console = Console(file=file or sys.stdout, emoji=False)
    console.width = max(console.width, 160)
    console.print(_table(plans, loc))
    for line in _closing(plans, loc, show_skipped):
        console.print(Text(line))
