"""Terminal output (rich): the ranked summary, progress bars and catalog listings. Only the CLI calls this."""

from __future__ import annotations

import re
import sys

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text) -> str:
    """Text printed literally: control characters (escape sequences) shown as \\xNN, rich markup escaped."""
    from rich.markup import escape

    return escape(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text)))


def _brl(x: float) -> str:
    return f"R$ {x:,.0f}"


def summary(res, written) -> None:
    from rich.console import Console
    from rich.table import Table

    from tco.report import fmt

    loc = res.scenario.scenario.locale
    _brl = lambda x: fmt.money(x, loc, False)  # noqa: E731  (the scenario's locale, like the reports)

    console = Console(file=sys.stdout)
    console.width = max(console.width, 150)
    s = res.scenario
    from tco.engine import rankable

    ranked = sorted(rankable(res.options), key=lambda o: o.tco.deterministic)
    best = ranked[0].tco.deterministic if ranked else float("nan")
    path = res.fx_path
    fx = (f"USD/BRL {path[0]:.2f}" if abs(path[-1] - path[0]) < 5e-3
          else f"USD/BRL {path[0]:.2f} → {path[-1]:.2f} (base path)")
    t = Table(title=f"{plain(s.scenario.name)}: {s.scenario.horizon_months} months from {s.scenario.start}, "
                    f"spot {s.fx.usdbrl:g}, {fx}, FX model {res.fx_info.get('model')}")
    for col in ("#", "option", "TCO (BRL)", "vs best", "NPV (BRL)", "P5–P95 TCO (BRL)", "egress", "R$/M tokens"):
        t.add_column(col, justify="left" if col == "option" else "right", no_wrap=col != "option")
    for i, o in enumerate(ranked, 1):
        d = o.tco
        spread = "—" if d.p95 - d.p5 < 0.5 else f"{_brl(d.p5)} – {_brl(d.p95)}"
        cpm = o.cost_per_million_tokens_brl
        t.add_row(str(i), plain(o.name), _brl(d.deterministic),
                  "best" if i == 1 else "+" + fmt.percent(d.deterministic / best - 1, loc) if best > 0 else "—", _brl(o.npv.deterministic),
                  spread, _brl(float(o.lines_brl["egress"].sum())), "—" if cpm is None else fmt.money(cpm, loc))
    for o in res.options:  # shown, never ranked: the speed it reaches instead of a rank
        if not o.feasible:
            t.add_row("—", plain(o.name), _brl(o.tco.deterministic),
                      f"infeasible: {o.achieved_tokens_per_second_per_user:.1f} tok/s/user", "—", "—", "—", "—",
                      style="dim")
    console.print(t)
    for w in res.warnings:
        console.print(f"[yellow]warning:[/] {plain(w)}")
    for p in written:
        console.print(f"wrote {plain(p)}")


def progress_bar():
    """A callback(done, total) that drives a rich progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    prog = Progress(TextColumn("Monte Carlo"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} paths"),
                    TimeRemainingColumn(), console=Console(file=sys.stderr), transient=True)
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

    return Console(file=sys.stderr).status(message)


def offers_table(cat, gpu_filter: str | None) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="Catalog offers")
    for col in ("offer", "GPU", "GPUs", "pricing", "price", "status", "as of"):
        t.add_column(col, no_wrap=col != "as of")
    for oid in cat.offer_ids:
        o = cat.offer(oid)
        if gpu_filter and gpu_filter.lower() not in o.gpu.lower():
            continue
        if o.kind == "cloud":
            for k, p in sorted(o.prices.items()):
                t.add_row(plain(oid), plain(o.gpu), str(o.gpu_count), plain(k), "—" if p.usd_per_hour is None else f"US$ {p.usd_per_hour:,.4f}/h",
                          plain(p.status), plain(p.as_of))
        else:
            t.add_row(plain(oid), plain(o.gpu), str(o.gpu_count), "monthly", f"R$ {o.brl_per_month:,.0f}/month",
                      plain(o.status), plain(o.as_of))
    console = Console(file=sys.stdout)
    console.width = max(console.width, 170)
    if not t.row_count:
        gpus = sorted({cat.offer(oid).gpu for oid in cat.offer_ids})
        console.print(f"no offer uses a GPU matching {plain(repr(gpu_filter))}; GPUs in the catalog: "
                      f"{plain(', '.join(gpus))}")
        return
    console.print(t)


def tornado_table(t: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=sys.stdout)
    console.width = max(console.width, 130)
    if not t.get("challenger"):
        console.print("only one option: nothing to compare")
        return
    tab = Table(title=f"{plain(t['challenger'])} minus {plain(t['leader'])} (base: {_brl(t['base_diff_brl'])})")
    for col in ("input", "range", "metric", "at low", "at high", "swing"):
        tab.add_column(col, justify="left" if col in ("input", "range") else "right", no_wrap=True)
    for r in t["rows"]:
        tab.add_row(r["label"], f"{r['low']:g} – {r['high']:g} {r['unit']}", r["metric"], _brl(r["low_diff_brl"]),
                    _brl(r["high_diff_brl"]), _brl(r["swing_brl"]))
    console.print(tab)
