"""Charts of the proposal, drawn directly as a small SVG with HTML labels (`chart_svg`), no matplotlib.

Presentation only: every series arrives computed (from the typed view), every label arrives translated
(i18n) and every tick is formatted by `fmt` in the scenario's locale. One palette (the theme's) is used in
every chart, and each line series also gets a marker and a dash pattern, so the charts stay readable printed
in grey. Areas are plain colour (no hatch patterns); each series is one path, its markers another.
"""

from __future__ import annotations

import textwrap

import numpy as np

from tco.report import fmt
from tco.report.brand import DEFAULT_PALETTE  # noqa: F401  (public here too)
from tco.report.proposal.chart_svg import (FONT_PT, NOTE_PT, TICK_PT, WIDTH_PT, Chart, Frame,  # noqa: F401  (WIDTH_PT: public)
                                  category_ticks, legend, markers, nice_ticks, polyline, rects, spines, text_width,
                                  value_axis)

PAD = 4.0
"""White space around a chart's drawing [pt]."""
CLIP_FACTOR = 3.0
"""A chart stops its value axis above the horizon's later months when its top exceeds this × their peak."""


def wrapped(text: str, width: int = 34) -> str:
    """A long category label on up to a few lines."""
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


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


def _money_ticks(lo: float, hi: float, scale_of: float, locale: str, nbins: int) -> tuple[list[float], list[str], str]:
    """(tick values [BRL], their labels in thousands/millions, the unit key)."""
    div, key = _scale(scale_of)
    ticks = nice_ticks(lo, hi, nbins)
    return ticks, [fmt.number_short(v / div, locale, 2) for v in ticks], key


def _month_ticks(months: list[str], locale: str) -> tuple[list[int], list[str]]:
    n = len(months)
    step = next(s for s in (1, 2, 3, 4, 6, 12, 24, 60) if n / s <= 10)
    ticks = list(range(0, n, step))
    return ticks, [fmt.month_tick(months[i], locale) for i in ticks]


def _line_key(c: Chart, color: str, width: float, dash, marker: str | None):
    def draw(x: float, y: float) -> None:
        c.path(f"M{x:.2f} {y:.2f}H{x + 15:.2f}", stroke=color, width=width, dash=dash)
        if marker:
            c.path(markers([x + 7.5], [y], marker, 4.0), fill=color)
    return draw


def fan_chart(months: list[str], fan: dict[str, np.ndarray], band_label: str, median_label: str, locale: str,
              unit_label, reference: tuple[str, np.ndarray] | None = None, palette=DEFAULT_PALETTE,
              clip_label=None) -> str:
    """Monthly cost P5–P95 band and median [BRL], with an optional reference line (the recommended option).

    A few months far above the rest (a training burst) would flatten the band: when the top exceeds
    CLIP_FACTOR × the P95 of the last two thirds of the horizon, the axis stops at 1.25 × that level and
    `clip_label(value)` marks each run of months that goes off the scale."""
    n = len(months)
    p5, p50, p95 = (np.asarray(fan[k], dtype=float) for k in ("p5", "p50", "p95"))
    series = [p5, p50, p95] + ([np.asarray(reference[1], dtype=float)] if reference is not None else [])
    top, clip = _fan_top(series, clip_label is not None)
    ticks, labels, key = _money_ticks(0.0, top, top, locale, 6)
    widest = max(text_width(x, FONT_PT) for x in labels)
    left = PAD + FONT_PT + 4 + widest + 2 * TICK_PT
    f = Frame(left, PAD + 4, WIDTH_PT - left - PAD, 155.0, (-0.6, n - 0.4), (0.0, top))
    c = Chart(f.bottom + 2 * TICK_PT + 1.2 * FONT_PT + 12 + 8 + PAD)
    value_axis(c, f, ticks, labels, True, unit_label(key))
    if clip:
        c.clip = f
    items = _fan_series(c, f, series, (band_label, median_label, reference[0] if reference else None), palette)
    spines(c, f)
    ticks_x, labels_x = _month_ticks(months, locale)
    category_ticks(c, f, [f.x(i) for i in ticks_x], labels_x)
    if clip:
        peaks = np.max(np.vstack(series[2:]), axis=0)
        for i, v in _clipped_runs(peaks, peaks > top):
            c.label(f.x(i) + 4, f.top + 10 - 0.36 * NOTE_PT, clip_label(v), "b", NOTE_PT)
    keys = {"band": lambda x, y: c.path(f"M{x:.2f} {y - 3.5:.2f}h15v7h-15Z", fill=palette[1], opacity=0.3),
            "median": _line_key(c, palette[1], 1.8, None, "s"),
            "reference": _line_key(c, palette[0], 2.0, (7.4, 3.2), "o")}
    legend(c, f.bottom + 2 * TICK_PT + 1.2 * FONT_PT + 12, items, lambda kind, x, y: keys[kind](x, y))
    return c.html()


def _fan_top(series: list[np.ndarray], may_clip: bool) -> tuple[float, bool]:
    """(top of the value axis, whether it clips): 1.25 × the P95 of the horizon's last two thirds when the
    highest value exceeds CLIP_FACTOR × that level, else the highest value plus 5 % headroom."""
    n = len(series[0])
    vmax, vmin = max(float(s.max()) for s in series), min(float(s.min()) for s in series)
    tail = float(series[2][n // 3:].max()) if n >= 3 else vmax
    clip = may_clip and tail > 0 and vmax > CLIP_FACTOR * tail
    return (1.25 * tail if clip else vmax + 0.05 * (vmax - min(vmin, 0.0)) or 1.0), clip


def _fan_series(c: Chart, f: Frame, series: list[np.ndarray], names: tuple, palette) -> list[tuple[str, str]]:
    """Draw the P5–P95 band, its edges, the median and the optional reference line; the legend items."""
    p5, p50, p95 = series[:3]
    xs = [f.x(i) for i in range(len(p5))]
    band = polyline(xs, [f.y(v) for v in p5]) + "L" + polyline(xs[::-1], [f.y(v) for v in p95[::-1]])[1:] + "Z"
    c.path(band, fill=palette[1], opacity=0.3, clipped=True)
    for s in (p5, p95):
        c.path(polyline(xs, [f.y(v) for v in s]), stroke=palette[1], width=0.8, dash=(0.8, 1.32), clipped=True)
    ys = [f.y(v) for v in p50]
    c.path(polyline(xs, ys), stroke=palette[1], width=1.8, clipped=True)
    c.path(markers(xs, ys, "s", 4.0), fill=palette[1], clipped=True)
    items = [(names[0], "band"), (names[1], "median")]
    if len(series) > 3:
        ys = [f.y(v) for v in series[3]]
        c.path(polyline(xs, ys), stroke=palette[0], width=2.0, dash=(7.4, 3.2), clipped=True)
        c.path(markers(xs, ys, "o", 4.0), fill=palette[0], clipped=True)
        items.append((names[2], "reference"))
    return items


def _category_frame(labels: list[str], top: float, per_row: float, extra: float, xlim) -> tuple[Frame, list[str]]:
    """The plot area of a horizontal bar chart: left of it, room for the widest line of the wrapped labels."""
    lines = [wrapped(x) for x in labels]
    widest = max((text_width(part, FONT_PT) for x in lines for part in x.split("\n")), default=0.0)
    left = PAD + widest + 2 * TICK_PT
    n = len(labels)
    return Frame(left, top, WIDTH_PT - left - PAD, per_row * n + extra, xlim, (-0.6, n - 0.4)), lines


def _category_labels(c: Chart, f: Frame, lines: list[str]) -> None:
    n = len(lines)
    ys = [f.y(n - 1 - i) for i in range(n)]
    c.path("".join(f"M{f.left - TICK_PT:.2f} {y:.2f}H{f.left:.2f}" for y in ys), stroke="#333333", width=0.8)
    for y, text in zip(ys, lines):
        c.label(f.left - 2 * TICK_PT, y, text, "r")


def _padded(values: np.ndarray) -> tuple[float, float]:
    lo, hi = float(values.min()), float(values.max())
    span = (hi - lo) or max(abs(hi), 1.0)
    return lo - 0.05 * span, hi + 0.05 * span


def tco_bars(names: list[str], det: list[float], ranges: list[tuple[float, float]] | None, locale: str, unit_label,
             range_label: str = "", palette=DEFAULT_PALETTE) -> str:
    """TCO per option as horizontal bars, best first and darkest, with P5–P95 whiskers when given [BRL].

    A whisker spans P5–P95 itself: a deterministic value outside its own band still draws."""
    d = np.asarray(det, dtype=float)
    top = float(d.max())
    if ranges:
        lo = np.array([r[0] for r in ranges], dtype=float)
        hi = np.array([r[1] for r in ranges], dtype=float)
        top = max(top, float(hi.max()))
    top = top * 1.05 or 1.0
    ticks, labels, key = _money_ticks(0.0, top, top, locale, 6)
    f, lines = _category_frame(names, PAD + 4, 21.6, 38.0, (0.0, top))
    c = Chart(f.bottom + 2 * TICK_PT + 2.2 * FONT_PT + PAD + 6)
    value_axis(c, f, ticks, labels, False, unit_label(key))
    n = len(names)
    ys = np.array([f.y(n - 1 - i) for i in range(n)])
    half = 0.31 * f.height / (f.ylim[1] - f.ylim[0])
    for sel, color in ((np.arange(n) == 0, palette[0]), (np.arange(n) > 0, palette[3])):
        c.path(rects([f.x(0)] * int(sel.sum()), ys[sel] - half, [f.x(v) for v in d[sel]], ys[sel] + half),
               fill=color, stroke="#ffffff", width=0.4)
    if ranges:
        cap = 3.0
        c.path("".join(f"M{f.x(a):.2f} {y:.2f}H{f.x(b):.2f}M{f.x(a):.2f} {y - cap:.2f}V{y + cap:.2f}"
                       f"M{f.x(b):.2f} {y - cap:.2f}V{y + cap:.2f}" for a, b, y in zip(lo, hi, ys)),
               stroke=palette[1], width=1.4)
    spines(c, f)
    _category_labels(c, f, lines)
    return c.html()


def tornado(labels: list[str], low: list[float], high: list[float], base: float, low_label: str, high_label: str,
            locale: str, unit_label, palette=DEFAULT_PALETTE) -> str:
    """One-at-a-time sensitivity: for each input, the difference at its low and high value around the base [BRL].

    The two ends of an input are drawn as two thinner bars side by side (low above, high below), so both stay
    visible when they fall on the same side of the base."""
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    x0, x1 = _padded(np.concatenate([lo, hi, [base]]))
    span = float(max(np.abs(np.concatenate([lo, hi, [base]])).max(), 1.0))
    ticks, tick_labels, key = _money_ticks(x0, x1, span, locale, 7)
    f, lines = _category_frame(labels, PAD + 16, 22.2, 44.0, (x0, x1))
    c = Chart(f.bottom + 2 * TICK_PT + 2.2 * FONT_PT + PAD + 6)
    value_axis(c, f, ticks, tick_labels, False, unit_label(key))
    n = len(labels)
    unit = f.height / (f.ylim[1] - f.ylim[0])  # [pt] per category
    ys = np.array([f.y(n - 1 - i) for i in range(n)])
    bx = f.x(base)
    for off, ends, color in ((-0.36 * unit, lo, palette[3]), (0.0, hi, palette[0])):
        xa = [min(bx, f.x(v)) for v in ends]
        xb = [max(bx, f.x(v)) for v in ends]
        c.path(rects(xa, ys + off, xb, ys + off + 0.36 * unit), fill=color, stroke=palette[0], width=0.5)
    c.path(f"M{bx:.2f} {f.top:.2f}V{f.bottom:.2f}", stroke="#333333", width=0.8)
    spines(c, f)
    _category_labels(c, f, lines)
    keys = {"low": palette[3], "high": palette[0]}
    legend(c, PAD + 4, [(low_label, "low"), (high_label, "high")],
           lambda kind, x, y: c.path(f"M{x:.2f} {y - 3.5:.2f}h15v7h-15Z", fill=keys[kind], stroke=palette[0],
                                     width=0.5))
    return c.html()
