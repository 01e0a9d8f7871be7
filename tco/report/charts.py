"""Charts of the proposal: matplotlib figures returned as SVG text, inlined in the HTML.

Presentation only: every series arrives computed (from the Results/JSON), every label arrives
translated (i18n) and every tick is formatted by `fmt` in the scenario's locale. One palette (the
theme's) is used in every chart, and each line series also gets a marker and line style, so the
charts stay readable printed in grey. Text stays text in the SVG (``svg.fonttype = none``), set in
DejaVu Sans like the document, and matplotlib escapes it, so a name can never become markup.

Built for speed (the PDF renderer draws every SVG node in Python): see `chart_svg` for how a figure
is made, drawn once and written as lean SVG.
"""

from __future__ import annotations

import numpy as np

from tco.report import fmt
from tco.report.chart_svg import WIDTH_IN, _bars, _chart, _subplots, _svg  # noqa: F401  (WIDTH_IN: public)

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1)), "-", "--")
DEFAULT_PALETTE = ("#1f3b63", "#e07b39", "#3a9e8f", "#9bb7d4", "#8c2d3c", "#d4b13f", "#5b5b5b", "#b07cc6")


def plain(text: str) -> str:
    """A label safe from matplotlib's mathtext ("$x$" shown as typed)."""
    return str(text).replace("$", r"\$")


def wrapped(text: str, width: int = 34) -> str:
    """A long category label on up to a few lines, mathtext-safe."""
    import textwrap

    return "\n".join(textwrap.wrap(plain(text), width)) or plain(text)


def _scale(vmax: float) -> tuple[float, str]:
    """(divisor, unit key) for a money axis whose largest value is vmax [BRL]."""
    for div, key in ((1e9, "unit_billion"), (1e6, "unit_million"), (1e3, "unit_thousand")):
        if vmax >= div:
            return div, key
    return 1.0, "unit_one"


def _clipped_runs(values: np.ndarray, clipped: np.ndarray) -> list[tuple[int, float]]:
    """(first month, highest value) of each run of consecutive clipped months: one label per run (a training
    cluster paid for a 12-month term would otherwise print 12 overlapping labels)."""
    out: list[tuple[int, float]] = []
    for i in np.flatnonzero(clipped):
        if i > 0 and clipped[i - 1] and out:
            out[-1] = (out[-1][0], max(out[-1][1], float(values[i])))
        else:
            out.append((int(i), float(values[i])))
    return out


_CLIP_BOX = {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85}


def _money_axis(ax, vmax: float, locale: str, unit_label) -> None:
    """Y ticks in the locale's number format, in thousands/millions; `unit_label(key)` names the unit."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    div, key = _scale(vmax)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number_short(v / div, locale, 2)))
    ax.set_ylabel(unit_label(key))
    ax.set_ylim(bottom=0)


def _month_axis(ax, months: list[str], locale: str) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter

    n = len(months)
    step = next(s for s in (1, 2, 3, 4, 6, 12, 24, 60) if n / s <= 10)
    ticks = list(range(0, n, step))
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.month_tick(months[int(v)], locale)
                                               if 0 <= int(v) < n else ""))
    ax.set_xlim(-0.6, n - 0.4)


@_chart
def users_chart(months: list[str], users: np.ndarray, locale: str, axis_label: str,
                palette=DEFAULT_PALETTE) -> str:
    """Active users per month: a filled line with markers."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig, ax = _subplots(2.3)
    x = np.arange(len(months))
    ax.fill_between(x, users, color=palette[3], alpha=0.35, linewidth=0)
    ax.plot(x, users, color=palette[0], marker="o", markersize=3, linewidth=1.6)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number(v, locale)))
    ax.set_ylabel(plain(axis_label))
    ax.set_ylim(bottom=0)
    _month_axis(ax, months, locale)
    return _svg(fig)


@_chart
def cumulative_chart(months: list[str], series: list[tuple[str, np.ndarray]], locale: str, unit_label,
                     palette=DEFAULT_PALETTE) -> str:
    """Cumulative cost per option [BRL]; the first series (the recommended option) is drawn heaviest."""
    fig, ax = _subplots(3.0)
    x = np.arange(len(months))
    every = max(1, len(months) // 8)
    for i, (name, cum) in enumerate(series):
        ax.plot(x, cum, label=plain(name), color=palette[i % len(palette)], linestyle=LINESTYLES[i % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], markevery=(i % every, every), markersize=4,
                linewidth=2.4 if i == 0 else 1.4, zorder=10 - i)
    _money_axis(ax, max(float(c.max()) for _, c in series), locale, unit_label)
    _month_axis(ax, months, locale)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, handlelength=3.2)
    return _svg(fig)


@_chart
def stacked_chart(months: list[str], lines: list[tuple[str, np.ndarray]], locale: str, unit_label,
                  palette=DEFAULT_PALETTE, vmax: float | None = None, clip_label=None) -> str:
    """Monthly cost stacked by line [BRL]; lines that are zero throughout are left out of the legend.

    With `clip_label`, months far above the rest (a training burst) go off the scale, as in `fan_chart`."""
    fig, ax = _subplots(2.25)
    x = np.arange(len(months))
    bottom = np.zeros(len(months))
    for i, (label, values) in enumerate(lines):
        if not np.any(values):
            continue
        _bars(ax, x - 0.4, bottom, x + 0.4, bottom + values, label=plain(label), facecolor=palette[i % len(palette)],
              edgecolor="white", linewidth=0.4)
        bottom = bottom + values
    top = vmax if vmax is not None else float(bottom.max())
    tail = float(bottom[len(months) // 3:].max()) if len(months) >= 3 else top
    if clip_label is not None and vmax is None and tail > 0 and top > 3 * tail:
        _money_axis(ax, 1.3 * tail, locale, unit_label)
        ax.set_ylim(0, 1.3 * tail)
        for i, v in _clipped_runs(bottom, bottom > 1.3 * tail):
            ax.annotate(plain(clip_label(v)), (i, 1.3 * tail), xytext=(6, -10), textcoords="offset points",
                        fontsize=7, color="#333333", bbox=_CLIP_BOX)
    else:
        _money_axis(ax, top, locale, unit_label)
    if vmax is not None:
        ax.set_ylim(0, vmax * 1.04)
    _month_axis(ax, months, locale)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    return _svg(fig)


@_chart
def fan_chart(months: list[str], fan: dict[str, np.ndarray], band_label: str, median_label: str, locale: str,
              unit_label, reference: tuple[str, np.ndarray] | None = None, palette=DEFAULT_PALETTE,
              clip_label=None) -> str:
    """Monthly cost P5–P95 band and median [BRL], with an optional reference line (the recommended option).

    A few months far above the rest (a training burst) would flatten the band: when the top exceeds 3× the
    P95 of the last two thirds of the horizon, the axis stops above that level and `clip_label(value)`
    marks each month that goes off the scale."""
    fig, ax = _subplots(2.8)
    x = np.arange(len(months))
    ax.fill_between(x, fan["p5"], fan["p95"], color=palette[1], alpha=0.3, linewidth=0, label=plain(band_label))
    ax.plot(x, fan["p5"], color=palette[1], linewidth=0.8, linestyle=":")
    ax.plot(x, fan["p95"], color=palette[1], linewidth=0.8, linestyle=":")
    ax.plot(x, fan["p50"], color=palette[1], linewidth=1.8, marker="s", markersize=3, label=plain(median_label))
    vmax = float(np.max(fan["p95"]))
    if reference is not None:
        ax.plot(x, reference[1], color=palette[0], linewidth=2.0, linestyle="--", marker="o", markersize=3,
                label=plain(reference[0]))
        vmax = max(vmax, float(np.max(reference[1])))
    tail = float(np.max(fan["p95"][len(months) // 3:])) if len(months) >= 3 else vmax
    clip = clip_label is not None and tail > 0 and vmax > 3 * tail
    _money_axis(ax, 1.25 * tail if clip else vmax, locale, unit_label)
    if clip:
        top = 1.25 * tail
        ax.set_ylim(0, top)
        series = [fan["p95"]] + ([reference[1]] if reference is not None else [])
        peaks = np.max(np.vstack(series), axis=0)
        for i, v in _clipped_runs(peaks, peaks > top):
            ax.annotate(plain(clip_label(v)), (i, top), xytext=(4, -10), textcoords="offset points",
                        fontsize=7, color="#333333", bbox=_CLIP_BOX)
    _month_axis(ax, months, locale)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    return _svg(fig)


@_chart
def tco_bars(names: list[str], det: list[float], ranges: list[tuple[float, float]] | None, locale: str, unit_label,
             range_label: str = "", palette=DEFAULT_PALETTE) -> str:
    """TCO per option as horizontal bars, best first and darkest, with P5–P95 whiskers when given [BRL]."""
    n = len(names)
    fig, ax = _subplots(0.42 * n + 0.7)
    y = np.arange(n)[::-1].astype(float)
    d = np.asarray(det, dtype=float)
    for sel, color in ((y == n - 1, palette[0]), (y < n - 1, palette[3])):  # the best darkest, the others light
        _bars(ax, 0.0, y[sel] - 0.31, d[sel], y[sel] + 0.31, facecolor=color, edgecolor="white", linewidth=0.4)
    top = max(det)
    if ranges:
        lo = np.array([r[0] for r in ranges], dtype=float)
        hi = np.array([r[1] for r in ranges], dtype=float)
        # the whisker spans P5–P95 around its own middle: a deterministic value outside its band still draws
        ax.errorbar((lo + hi) / 2, y, xerr=(hi - lo) / 2, fmt="none", ecolor=palette[1], elinewidth=1.4, capsize=3,
                    label=plain(range_label))
        top = max(top, float(hi.max()))
    ax.set_yticks(y)
    ax.set_yticklabels([wrapped(nm) for nm in names])
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", visible=True)
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    div, key = _scale(top)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number_short(v / div, locale, 2)))
    ax.set_xlabel(unit_label(key))
    ax.set_xlim(0, top * 1.05)
    return _svg(fig)


@_chart
def tornado(labels: list[str], low: list[float], high: list[float], base: float, low_label: str, high_label: str,
            locale: str, unit_label, palette=DEFAULT_PALETTE) -> str:
    """One-at-a-time sensitivity: for each input, the difference at its low and high value around the base [BRL].

    The two ends of an input are drawn as two thinner bars side by side (low above, high below), so both stay
    visible when they fall on the same side of the base."""
    n = len(labels)
    fig, ax = _subplots(0.40 * n + 0.8)
    y = np.arange(n)[::-1]
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    half = 0.36
    for mid, end, color, label in ((y + half / 2, lo, palette[3], low_label), (y - half / 2, hi, palette[0], high_label)):
        bars = _bars(ax, base, mid - half / 2, end, mid + half / 2, facecolor=color, edgecolor=palette[0],
                     linewidth=0.5, label=plain(label))
        bars.sticky_edges.x.append(base)  # as barh(left=base): the axis does not pad beyond the base
    ax.axvline(base, color="#333333", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([wrapped(x) for x in labels])
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", visible=True)
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    span = float(max(np.abs(np.concatenate([lo, hi, [base]])).max(), 1.0))
    div, key = _scale(span)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=7))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number_short(v / div, locale, 2)))
    ax.set_xlabel(unit_label(key))
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
    return _svg(fig)


@_chart
def rate_fan_chart(months: list[str], fan: dict[str, list[float]], band_label: str, median_label: str, locale: str,
                   axis_label: str, breakeven: tuple[str, float] | None = None, palette=DEFAULT_PALETTE) -> str:
    """USD/BRL per month: P5–P95 band and median [BRL/USD], with an optional break-even level drawn across
    (left out when it lies far outside the band: the break-even table gives it)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig, ax = _subplots(2.3)
    x = np.arange(len(months))
    p5, p50, p95 = (np.asarray(fan[k], dtype=float) for k in ("p5", "p50", "p95"))
    ax.fill_between(x, p5, p95, color=palette[3], alpha=0.45, linewidth=0, label=plain(band_label))
    ax.plot(x, p50, color=palette[0], linewidth=1.8, marker="o", markersize=3, label=plain(median_label))
    lo = float(p5.min())
    if breakeven is not None and 0.6 * lo <= breakeven[1] <= 1.4 * float(p95.max()):  # else it would flatten the band
        ax.axhline(breakeven[1], color=palette[4], linewidth=1.4, linestyle="--", label=plain(breakeven[0]))
        lo = min(lo, breakeven[1])
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number_short(v, locale, 2)))
    ax.set_ylabel(plain(axis_label))
    ax.set_ylim(max(0.0, lo * 0.9), float(p95.max()) * 1.05)
    _month_axis(ax, months, locale)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    return _svg(fig)
