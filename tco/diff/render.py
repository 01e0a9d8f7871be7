"""A diff (``tco.diff.compare.diff``) as people read it: tables for a terminal (fitted to its width, names
shortened rather than the box drawing broken), Markdown for a pull request or an e-mail, or JSON.

Amounts are BRL, rounded to whole reais for display only; a difference is B − A (positive: B costs more).
"""

from __future__ import annotations

import json


def _money(v: float | None) -> str:
    return "—" if v is None else f"{v:,.0f}"


def _signed(v: float | None) -> str:
    return "—" if v is None else f"{v:+,.0f}"


def _share(v: float | None) -> str:
    return "" if v is None else f"{v:+.1%}"


def _value(v) -> str:
    if v is None:
        return "(unset)"
    if isinstance(v, float):
        return f"{v:,.6g}"
    return json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v)


def headline(d: dict) -> list[str]:
    """The sentences a reader needs first: the recommendation and the ranking, changed or not."""
    out = []
    c = d["cheapest"]
    if c["changed"]:
        out.append(f"The cheapest option changed: {c['a']} → {c['b']}.")
    else:
        out.append(f"The cheapest option is the same: {c['b']}.")
    out.append("The ranking changed." if d["ranking"]["changed"] else "The ranking is the same.")
    moved = [o for o in d["options"] if o["delta"]]
    out.append(f"{len(d['inputs'])} input(s) changed; {len(moved)} option(s) changed TCO.")
    return out


def markdown(d: dict) -> str:
    """The diff as Markdown (a pipe in a name is escaped, so it never breaks a table; <, > and & are written as
    entities, so a name never becomes HTML where the Markdown is rendered; a backtick never closes a code span)."""
    def cell(x) -> str:
        text = str(x).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")

    out = [f"## tco diff: `{cell(d['a'])}` → `{cell(d['b'])}`", ""]
    out += [f"- {cell(s)}" for s in headline(d)]
    out += ["", "### Inputs", "", "| key | A | B | unit |", "|---|---|---|---|"]
    out += [f"| {cell(r['key'])} | {cell(_value(r['a']))} | {cell(_value(r['b']))} | {r['unit']} |"
            for r in d["inputs"]] or ["| (none) | | | |"]
    out += ["", "### TCO by option (BRL, deterministic)", "", "| option | A | B | B − A | % | rank A → B |",
            "|---|---:|---:|---:|---:|---|"]
    for o in d["options"]:
        out.append(f"| {cell(o['name'])} | {_money(o['tco_a'])} | {_money(o['tco_b'])} | {_signed(o['delta'])} | "
                   f"{_share(o['delta_share'])} | {o['rank_a'] or '—'} → {o['rank_b'] or '—'} |")
    lines = [(o["name"], ln) for o in d["options"] for ln in o["lines"]]
    if lines:
        out += ["", "### Cost lines that moved (BRL)", "", "| option | line | A | B | B − A |", "|---|---|---:|---:|---:|"]
        out += [f"| {cell(n)} | {cell(ln['line'])} | {_money(ln['a'])} | {_money(ln['b'])} | {_signed(ln['delta'])} |"
                for n, ln in lines]
    return "\n".join(out) + "\n"


def to_json(d: dict) -> str:
    return json.dumps(d, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def tables(d: dict, width: int) -> list:
    """Rich renderables for a terminal `width` columns wide: names folded, never the frame."""
    from rich.table import Table
    from rich.text import Text

    name_w = max(18, width - 58)
    out: list = [Text(s) for s in headline(d)]
    t = Table(title="Inputs", expand=False)
    t.add_column("key", overflow="fold", max_width=max(20, width // 3))
    for c in ("A", "B"):
        t.add_column(c, overflow="fold", max_width=max(12, width // 5))
    t.add_column("unit", overflow="fold")
    for r in d["inputs"]:
        t.add_row(Text(r["key"]), Text(_value(r["a"])), Text(_value(r["b"])), Text(r["unit"]))
    out.append(t)
    t = Table(title="TCO by option (BRL, deterministic)")
    t.add_column("option", overflow="ellipsis", max_width=name_w, no_wrap=True)
    for c in ("A", "B", "B − A", "%", "rank"):
        t.add_column(c, justify="right", no_wrap=True)
    for o in d["options"]:
        style = "red" if (o["delta"] or 0) > 0 else "green" if (o["delta"] or 0) < 0 else ""
        t.add_row(Text(o["name"]), _money(o["tco_a"]), _money(o["tco_b"]), Text(_signed(o["delta"]), style=style),
                  _share(o["delta_share"]), f"{o['rank_a'] or '—'}→{o['rank_b'] or '—'}")
    out.append(t)
    moved = [(o["name"], ln) for o in d["options"] for ln in o["lines"]]
    if moved:
        t = Table(title="Cost lines that moved (BRL)")
        t.add_column("option", overflow="ellipsis", max_width=name_w, no_wrap=True)
        t.add_column("line", no_wrap=True)
        for c in ("A", "B", "B − A"):
            t.add_column(c, justify="right", no_wrap=True)
        for name, ln in moved:
            t.add_row(Text(name), Text(ln["line"]), _money(ln["a"]), _money(ln["b"]), _signed(ln["delta"]))
        out.append(t)
    return out
