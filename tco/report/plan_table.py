"""Terminal table of the plan search (rich). Names are printed literally (rich Text, never markup)."""

from __future__ import annotations

import sys

from tco.domain import FleetKind, FleetMode

COMMITTED_BASELINE = "committed_baseline"
"""The serving mode of a plan with committed instances and on-demand hours above them (tco/plan)."""


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


def _serving(p: dict) -> str:
    sv = p["serving"]
    mode = {"autoscaled": "autoscaled to the hourly load", "committed_all_month": "committed, peak kept all month",
            "dedicated": "dedicated servers", "shared": "one shared fleet"}.get(sv["mode"], sv["mode"])
    if sv["mode"] == COMMITTED_BASELINE:
        mode = (f"{'/'.join(str(k) for k in sv['committed_instances'])} committed per term, "
                f"hours above on {sv['burst_pricing']} (peak {sv['peak_instances']})")
    pricing = f" {sv['pricing']}" if sv["kind"] == FleetKind.CLOUD else ""
    return f"{sv['offer']}{pricing}: {mode}"


def _training(p: dict) -> str:
    tr = p["training"]
    if tr is None:
        return "—"
    if p["fleet"] == FleetMode.SHARED:
        return "on the serving fleet"
    pricing = f" {tr['pricing']}" if tr["kind"] == FleetKind.CLOUD else ""
    return f"{tr['offer']}{pricing}: {tr['servers']} server(s), {tr['wall_hours']:,.0f} h"


def plan_table(plans: dict, locale: str = "en", file=None) -> None:
    """Best plan per provider (and runners-up), the best hybrid and the overall best, with the margins."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from tco.report import fmt

    console = Console(file=file or sys.stdout, emoji=False)
    console.width = max(console.width, 160)
    srch = plans["search"]
    t = Table(title=Text(f"Plan search: {srch['candidates']:,} candidate plans over "
                         f"{', '.join(srch['providers'])}" + (" (Brazil only)" if srch["brazil_only"] else "")))
    for col in ("provider", "#", "TCO (BRL)", "vs best", "training", "serving"):
        t.add_column(col, justify="right" if col in ("#", "TCO (BRL)", "vs best") else "left",
                     no_wrap=col in ("#", "TCO (BRL)", "vs best"))
    groups = sorted(plans["by_provider"].items(), key=lambda kv: kv[1]["best"]["tco_brl"])
    for g, v in groups:
        best = v["best"]["tco_brl"]
        for n, p in enumerate([v["best"]] + v["runners_up"], 1):
            t.add_row(Text(g if n == 1 else ""), str(n), fmt.money(p["tco_brl"], locale, False),
                      "best" if n == 1 else "+" + fmt.percent(p["tco_brl"] / best - 1, locale),
                      Text(_training(p)), Text(_serving(p)))
        t.add_section()
    console.print(t)
    ov = plans["overall"]
    b = ov["best"]
    console.print(Text(f"Best plan overall: {b['name']} — {fmt.money(b['tco_brl'], locale, False)}"))
    if ov.get("runner_up"):
        r = ov["runner_up"]
        console.print(Text(f"Runner-up (best of another provider): {r['name']} — "
                           f"{fmt.money(r['tco_brl'], locale, False)}, +{fmt.money(ov['margin_brl'], locale, False)} "
                           f"({fmt.percent(ov['margin_share'], locale)})"))
    for note in b["notes"]:
        console.print(Text(f"note: {note}"))
    console.print(Text("Re-run it as an option (paste into the scenario):"))
    console.print(Text(option_toml(b["option"])))
    if srch["skipped"]:
        console.print(Text(f"{len(srch['skipped'])} offer/pricing uses skipped (see the JSON `plans.search.skipped`)"))
