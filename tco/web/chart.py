"""The sales desk's cumulative-cost chart, drawn with the proposal's chart plumbing (``tco.report.proposal``'s
``chart_svg``: one SVG of a few paths, every label escaped HTML), in the proposal's palette and fonts.

Presentation only: each option's monthly cost [BRL] arrives from the typed view; the cumulative sum is the
running total of those months (``np.cumsum``), the same total the TCO is (its last point).
"""

from __future__ import annotations

import numpy as np

from tco.report.i18n import t
from tco.report.proposal import charts
from tco.report.proposal.chart_svg import FONT_PT, TICK_PT, WIDTH_PT, Chart, Frame, category_ticks, legend, spines
from tco.report.proposal.chart_svg import markers, polyline, text_width, value_axis

MAX_LINES = 5
"""Options drawn: the cheapest ranked ones and the one on offer (more lines stop being readable)."""
PER_LEGEND_ROW = 2


def cumulative(series: list[tuple[str, list[float]]], months: list[str], locale: str,
               palette=charts.DEFAULT_PALETTE) -> str:
    """Cumulative cost by month of each (label, monthly cost [BRL]) in `series` (at most MAX_LINES), as the HTML of
    one chart: lines with a marker every few months, month ticks under the axis, a legend under it."""
    series = series[:MAX_LINES]
    cum = [np.cumsum(np.asarray(m, dtype=float)) for _, m in series]
    top = max((float(c[-1]) for c in cum if len(c)), default=1.0) or 1.0
    ticks, labels, key = charts._money_ticks(0.0, top * 1.05, top, locale, 6)
    widest = max(text_width(x, FONT_PT) for x in labels)
    left = charts.PAD + FONT_PT + 4 + widest + 2 * TICK_PT
    n = len(months)
    f = Frame(left, charts.PAD + 4, WIDTH_PT - left - charts.PAD, 170.0, (-0.6, n - 0.4), (0.0, max(ticks[-1], top)))
    rows = [series[i:i + PER_LEGEND_ROW] for i in range(0, len(series), PER_LEGEND_ROW)]
    legend_top = f.bottom + 2 * TICK_PT + 1.2 * FONT_PT + 12
    c = Chart(legend_top + 14 * len(rows) + charts.PAD)
    value_axis(c, f, ticks, labels, True, t("chart_money_axis", locale, unit=t(key, locale)).strip())
    shapes = ("o", "s")
    step = max(1, n // 12)
    for i, values in enumerate(cum):
        color = palette[i % len(palette)]
        xs, ys = [f.x(j) for j in range(len(values))], [f.y(v) for v in values]
        c.path(polyline(xs, ys), stroke=color, width=2.0 if i == 0 else 1.4, dash=None if i % 2 == 0 else (6, 3))
        c.path(markers(xs[::step], ys[::step], shapes[i % 2], 3.5), fill=color)
    spines(c, f)
    ticks_x, labels_x = charts._month_ticks(list(months), locale)
    category_ticks(c, f, [f.x(i) for i in ticks_x], labels_x)
    for r, row in enumerate(rows):
        items = [(label, str(r * PER_LEGEND_ROW + k)) for k, (label, _) in enumerate(row)]
        legend(c, legend_top + 14 * r, items, lambda kind, x, y: _key(c, palette, int(kind), x, y))
    return c.html()


def _key(c: Chart, palette, i: int, x: float, y: float) -> None:
    color = palette[i % len(palette)]
    c.path(f"M{x:.2f} {y:.2f}H{x + 15:.2f}", stroke=color, width=2.0 if i == 0 else 1.4,
           dash=None if i % 2 == 0 else (6, 3))
    c.path(markers([x + 7.5], [y], ("o", "s")[i % 2], 3.5), fill=color)
