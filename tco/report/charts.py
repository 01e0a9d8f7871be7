"""Charts of the proposal: matplotlib figures returned as SVG text, inlined in the HTML.

Presentation only: every series arrives computed (from the Results/JSON), every label arrives
translated (i18n) and every tick is formatted by `fmt` in the scenario's locale. One palette (the
theme's) is used in every chart, and each line series also gets a marker and line style, so the
charts stay readable printed in grey. Text stays text in the SVG (``svg.fonttype = none``), set in
DejaVu Sans like the document, and matplotlib escapes it, so a name can never become markup.

Built for speed, since the PDF renderer draws every SVG node in Python: each figure is a
`matplotlib.figure.Figure` under `rc_context` (no pyplot, no global state touched, so threads and worker
processes cannot interfere), drawn once (the tight crop is taken from that draw, not from a second
one), bars of one series are one compound path rather than a rectangle each, areas are plain colour
(no hatch patterns, which the renderer would draw as thousands of tiles) and coordinates are written
to 0.01 pt.
"""

from __future__ import annotations

import functools
import io
import re

import numpy as np

from tco.report import fmt

WIDTH_IN = 6.9
"""Figure width [in]: the A4 text block (210 mm − 2 × 17 mm margins ≈ 176 mm)."""
PAD_IN = 0.04
"""White space kept around the drawn content [in]."""
MARGIN_IN = 4.0
"""Canvas around the nominal figure [in], where legends and labels outside the axes still draw (see `_subplots`)."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1)), "-", "--")
DEFAULT_PALETTE = ("#1f3b63", "#e07b39", "#3a9e8f", "#9bb7d4", "#8c2d3c", "#d4b13f", "#5b5b5b", "#b07cc6")
RC = {
    "svg.fonttype": "none", "svg.hashsalt": "tco-proposal", "font.family": "DejaVu Sans", "font.size": 8,
    "axes.spines.top": False, "axes.spines.right": False, "axes.edgecolor": "#555555",
    "axes.grid": True, "axes.grid.axis": "y", "grid.color": "#d9d9d9", "grid.linewidth": 0.5,
    "legend.frameon": False, "legend.fontsize": 7.5, "axes.titlesize": 9,
    "xtick.color": "#333333", "ytick.color": "#333333", "axes.labelcolor": "#333333",
    "axes.unicode_minus": False, "path.simplify": True,
}
"""The house look, applied with `matplotlib.rc_context` around each chart (never to the global rcParams)."""


def _chart(fn):
    """Run a chart function under the house rc settings; it returns SVG text."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs) -> str:
        import matplotlib

        with matplotlib.rc_context(RC):
            return fn(*args, **kwargs)
    return wrapper


def _subplots(height_in: float):
    """A figure (no pyplot: nothing registered globally) and its one axes, at 72 dpi (1 unit = 1 pt).

    The axes sit where they would on a WIDTH_IN × height_in figure, inside a canvas `MARGIN_IN` larger on
    every side: the SVG renderer clips lines to its canvas, and legends and labels may stand outside the
    nominal figure; `_svg` crops the result to what was drawn."""
    from matplotlib.figure import Figure

    w, h = WIDTH_IN + 2 * MARGIN_IN, height_in + 2 * MARGIN_IN
    fig = Figure(figsize=(w, h), dpi=72)
    sp = fig.subplotpars
    ax = fig.add_subplot()
    ax.set_position(((MARGIN_IN + sp.left * WIDTH_IN) / w, (MARGIN_IN + sp.bottom * height_in) / h,
                     (sp.right - sp.left) * WIDTH_IN / w, (sp.top - sp.bottom) * height_in / h))
    return fig, ax


def plain(text: str) -> str:
    """A label safe from matplotlib's mathtext ("$x$" shown as typed)."""
    return str(text).replace("$", r"\$")


def wrapped(text: str, width: int = 34) -> str:
    """A long category label on up to a few lines, mathtext-safe."""
    import textwrap

    return "\n".join(textwrap.wrap(plain(text), width)) or plain(text)


_NUM = re.compile(r"-?\d+\.\d{3,}")


def _rounded(match: re.Match) -> str:
    text = f"{float(match.group(0)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _svg(fig) -> str:
    """The figure as SVG text, drawn once and cropped to its content (as ``bbox_inches="tight"`` would,
    which draws twice): the root's viewBox is the content's box plus `PAD_IN`, its width and height give
    way to CSS (width: 100 %)."""
    from matplotlib.backends.backend_svg import RendererSVG

    w, h = (float(v) * 72 for v in fig.get_size_inches())
    buf = io.StringIO()
    renderer = RendererSVG(w, h, buf, image_dpi=72, metadata={"Date": None, "Creator": None, "Format": None,
                                                                "Type": None})
    fig.draw(renderer)
    box = fig.get_tightbbox(renderer).padded(PAD_IN)  # [in]
    renderer.finalize()
    if box.x0 < 0 or box.y0 < 0 or box.x1 > w / 72 or box.y1 > h / 72:  # beyond even the margin: draw it again
        return _svg_tight(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    x0, y0, bw, bh = box.x0 * 72, h - box.y1 * 72, box.width * 72, box.height * 72
    head_end = text.index(">")
    head = re.sub(r'\s(width|height|viewBox)="[^"]*"', "", text[:head_end])
    head += f' viewBox="{x0:.2f} {y0:.2f} {bw:.2f} {bh:.2f}" class="chart" preserveAspectRatio="xMidYMid meet"'
    body = re.sub(r' d="[^"]*"', lambda m: _NUM.sub(_rounded, re.sub(r"\s*\n\s*", " ", m.group(0))),
                  text[head_end:])
    return _lean(head + body)


_SVG_NS, _XLINK_NS = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"


def _lean(svg: str) -> str:
    """The same drawing in fewer nodes (the PDF renderer styles and draws every node in Python): matplotlib's
    ``<g id="…">`` wrappers that carry nothing but their id are unwrapped, and whitespace between elements
    goes; every drawn element, its attributes and every text stay as they were."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    g_tag, text_tag = f"{{{_SVG_NS}}}g", f"{{{_SVG_NS}}}text"

    def flatten(parent) -> None:
        kids = []
        for el in parent:
            flatten(el)
            if el.tag == g_tag and set(el.attrib) <= {"id"}:
                kids.extend(el)  # its children take its place
            else:
                kids.append(el)
        parent[:] = kids

    flatten(root)
    for el in root.iter():
        if el.tag != text_tag:
            if el.text is not None and not el.text.strip():
                el.text = None
        if el.tail is not None and not el.tail.strip():
            el.tail = None
    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", _XLINK_NS)
    return ET.tostring(root, encoding="unicode")


def _svg_tight(fig) -> str:
    """The figure as SVG, cropped by matplotlib itself (two draws)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
                bbox_inches="tight", pad_inches=PAD_IN)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    head_end = text.index(">")
    head = re.sub(r'\s(width|height)="[^"]*"', "", text[:head_end])
    return head + ' class="chart" preserveAspectRatio="xMidYMid meet"' + text[head_end:]


def _bars(ax, x0, y0, x1, y1, **kw):
    """Rectangles (x0, y0)–(x1, y1) of one series as ONE compound path (a bar each, one SVG node in all)."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    x0, y0, x1, y1 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x0, y0, x1, y1)))
    keep = (x1 != x0) & (y1 != y0)
    x0, y0, x1, y1 = x0[keep], y0[keep], x1[keep], y1[keep]
    verts = np.stack([np.stack(c, axis=-1) for c in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))], axis=1)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(x0))
    patch = PathPatch(Path(verts.reshape(-1, 2), codes), **kw)
    ax.add_patch(patch)
    ax.autoscale_view()  # add_patch alone does not rescale the axes (bar() does)
    return patch


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
