"""``python -m tco diff A B`` (what changed between two scenarios or results, ``tco.diff``) and
``python -m tco render RESULT.json`` (the terminal table of a saved result, without running anything)."""

from __future__ import annotations

import sys

DIFF_EPILOG = """\
examples:
  python -m tco diff scenarios/seed_70b_h200.toml my_copy.toml                # inputs, TCO by option, ranking
  python -m tco diff output/last_month.json output/this_month.json --format markdown > diff.md

A and B are scenario files (each is run, without the analysis and the plan search) or JSON results of
`tco run`; a difference is B − A in BRL. exit codes: 0 ok, 2 bad input (either file, or results written by
two tco versions).
"""


def add_parsers(sub) -> None:
    import argparse

    d = sub.add_parser("diff", help="what changed between two scenarios or two JSON results: inputs, TCO by option "
                       "and line, ranking", epilog=DIFF_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("a", metavar="A", help="scenario TOML or result JSON (the before)")
    d.add_argument("b", metavar="B", help="scenario TOML or result JSON (the after)")
    d.add_argument("--format", choices=("table", "json", "markdown"), default="table",
                   help="table (terminal, default), json or markdown")
    d.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    d.add_argument("--quiet", action="store_true", help="print nothing; the exit code is 0 when nothing changed "
                   "and 3 when something did")
    r = sub.add_parser("render", help="print a saved JSON result's table again, without running anything")
    r.add_argument("result", metavar="RESULT.json", help="a JSON result of `tco run`")
    r.add_argument("--json", action="store_true", help="print the result's summary as JSON")
    r.add_argument("--quiet", action="store_true", help="check the file only")


def diff_command(args) -> int:
    from tco.diff import compare, render

    d = compare.diff(compare.load_side(args.a), compare.load_side(args.b))
    changed = bool(d["inputs"] or any(o["delta"] for o in d["options"]) or d["ranking"]["changed"])
    if args.quiet:
        return 3 if changed else 0
    if args.format == "json":
        sys.stdout.write(render.to_json(d))
    elif args.format == "markdown":
        sys.stdout.write(render.markdown(d))
    else:
        console = _console()
        for part in render.tables(d, console.width):
            console.print(part)
    return 0


def _console():
    from rich.console import Console

    return Console(file=sys.stdout, emoji=False, highlight=False)


def summary(doc: dict) -> dict:
    """A saved result's headline: each option's TCO (deterministic, P5, P95), NPV and rank, the cheapest."""
    rank = {n: i + 1 for i, n in enumerate(doc.get("ranking", []))}
    return {"scenario": doc.get("scenario", {}).get("name"), "cheapest": doc.get("cheapest"),
            "options": [{"name": o["name"], "kind": o.get("kind"), "rank": rank.get(o["name"]),
                         "tco_brl": o["tco_brl"]["deterministic"], "tco_p5_brl": o["tco_brl"].get("p5"),
                         "tco_p95_brl": o["tco_brl"].get("p95"), "npv_brl": o["npv_brl"]["deterministic"]}
                        for o in doc.get("options", [])]}


def render_command(args) -> int:
    import json

    from rich.table import Table
    from rich.text import Text

    from tco.diff.compare import load_side

    if not args.result.lower().endswith(".json"):
        from tco.errors import printable

        print(printable(f"error: {args.result}: render reads a JSON result of `tco run` (RESULT.json)"), file=sys.stderr)
        return 2
    doc = load_side(args.result).doc
    from tco import __version__

    if str(doc.get("tool", {}).get("version")) != __version__:  # diff refuses two versions; render shows, and says
        from tco.errors import printable

        print(printable(f"note: {args.result} was written by tco {doc.get('tool', {}).get('version')}, this is tco "
                        f"{__version__}: a key it names differently is shown as missing"), file=sys.stderr)
    s = summary(doc)
    if args.quiet:
        return 0
    if args.json:
        print(json.dumps(s, ensure_ascii=False, indent=1))
        return 0
    console = _console()
    t = Table(title=Text(str(s["scenario"] or args.result)))
    t.add_column("#", justify="right")
    t.add_column("option", overflow="ellipsis", no_wrap=True, max_width=max(16, console.width - 66))
    for c in ("TCO (BRL)", "P5", "P95", "NPV (BRL)"):
        t.add_column(c, justify="right", no_wrap=True)
    for o in sorted(s["options"], key=lambda o: (o["rank"] is None, o["rank"] or 0)):
        t.add_row(str(o["rank"] or "—"), Text(o["name"]), *(f"{o[k]:,.0f}" if o[k] is not None else "—"
                                                              for k in ("tco_brl", "tco_p5_brl", "tco_p95_brl",
                                                                        "npv_brl")))
    console.print(t)
    if s["cheapest"]:
        console.print(Text(f"cheapest: {s['cheapest']}"))
    return 0
