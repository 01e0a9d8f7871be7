"""Drawing plumbing of the proposal's charts: an SVG of shapes with its text as HTML labels over it.

No matplotlib (its import alone cost about 0.4 s of CPU, its SVG had hundreds of nodes). A chart is one
`<div class="chart">` holding one inline `<svg>` of a few compound paths (all grid lines one path, all ticks
one path, each series one path, markers included) and one absolutely positioned `<span>` per label. The
text is HTML, not SVG text, because WeasyPrint lays out and draws SVG text one letter at a time (a 40-letter
label cost 40 line layouts; as HTML it costs one), and it stays real text in the PDF (copy, search,
pdftotext). Every label is escaped here (`html.escape`): a name can never become markup.

Units: points (1/72 in), y growing downwards as in SVG and CSS. Label widths are estimated from the advance
widths of DejaVu Sans (the document's font), to leave room for tick labels and lay out legends.
"""

from __future__ import annotations

import html
import math

WIDTH_PT = 176 * 72 / 25.4
"""Chart width [pt]: the A4 text block (210 mm − 2 × 17 mm margins = 176 mm)."""
FONT_PT = 8.0
"""Tick and axis labels [pt]."""
LEGEND_PT = 7.5
NOTE_PT = 7.0
INK, AXIS, GRID = "#333333", "#555555", "#d9d9d9"
TICK_PT = 3.5
"""Tick length, and the gap between a tick and its label [pt]."""
LABEL_BOX_PT = 220.0
"""Width of the box a right- or left-aligned label is set in [pt] (wider than any label; no shrink-to-fit)."""

_UNITS_PER_EM = 2048
_ASCII = ("651 821 942 1716 1303 1946 1597 563 799 799 1024 1716 651 739 651 690 1303 1303 1303 1303 1303 1303 "
          "1303 1303 1303 1303 690 690 1716 1716 1716 1087 2048 1401 1405 1430 1577 1294 1178 1587 1540 604 604 "
          "1343 1141 1767 1532 1612 1235 1612 1423 1300 1251 1499 1401 2025 1403 1251 1403 799 690 799 1716 1024 "
          "1024 1255 1300 1126 1300 1260 721 1300 1298 569 569 1186 569 1995 1298 1253 1300 1300 842 1067 803 1298 "
          "1212 1675 1212 1212 1075 1303 690 1303 1716")
_LATIN1 = ("651 821 1303 1303 1303 1303 690 1024 1024 2048 965 1253 1716 739 2048 1024 1024 1716 821 821 1024 1303 "
           "1303 651 1024 821 965 1253 1985 1985 1985 1087 1401 1401 1401 1401 1401 1401 1995 1430 1294 1294 1294 "
           "1294 604 604 604 604 1587 1532 1612 1612 1612 1612 1612 1716 1612 1499 1499 1499 1499 1251 1239 1290 "
           "1255 1255 1255 1255 1255 1255 2011 1126 1260 1260 1260 1260 569 569 569 569 1253 1298 1253 1253 1253 "
           "1253 1253 1716 1253 1298 1298 1298 1298 1212 1300 1212")
ADVANCE = ({32 + i: int(w) for i, w in enumerate(_ASCII.split())}
           | {160 + i: int(w) for i, w in enumerate(_LATIN1.split())}
           | {ord(c): w for c, w in {"–": 1024, "—": 2048, "×": 1716, "…": 2048, "’": 651, "‘": 651,
                                     "“": 1061, "”": 1061, "•": 1208, "€": 1303, "−": 1716,
                                     "\u202f": 409}.items()})
"""Advance widths of DejaVu Sans (templates/fonts/DejaVuSans.ttf, 'hmtx' through the best 'cmap') [font units,
2048 per em]: ASCII, Latin-1 and the few other characters the labels use (tests/test_charts.py re-reads them)."""


def text_width(text: str, size: float) -> float:
    """Width of `text` set in DejaVu Sans at `size` [pt] (a character outside the table counts as an 'M')."""
    return sum(ADVANCE.get(ord(c), 1767) for c in text) * size / _UNITS_PER_EM


def nice_ticks(lo: float, hi: float, nbins: int) -> list[float]:
    """Round tick values in [lo, hi]: the smallest step of {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} × 10^k giving at
    most `nbins` intervals (the rule of matplotlib's MaxNLocator, whose ticks the charts had)."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / nbins
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * mag >= raw * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [0.0 if k == 0 else k * step for k in range(first, last + 1)]


def num(v: float) -> str:
    """A coordinate to 0.01 pt, without trailing zeros."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class Frame:
    """The plot area: (left, top, width, height) [pt] showing data x in xlim and y in ylim."""

    def __init__(self, left: float, top: float, width: float, height: float, xlim, ylim):
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xlim, self.ylim = (float(xlim[0]), float(xlim[1])), (float(ylim[0]), float(ylim[1]))

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def x(self, v) -> float:
        x0, x1 = self.xlim
        return self.left + (float(v) - x0) / (x1 - x0) * self.width

    def y(self, v) -> float:
        y0, y1 = self.ylim
        return self.bottom - (float(v) - y0) / (y1 - y0) * self.height


class Chart:
    """Shapes (SVG) and labels (HTML) of one chart, `height` points tall and WIDTH_PT wide."""

    def __init__(self, height: float):
        self.height = height
        self.shapes: list[str] = []
        self.labels: list[str] = []
        self.clip: Frame | None = None

    def path(self, d: str, fill: str = "none", stroke: str | None = None, width: float = 1.0,
             dash: tuple[float, float] | None = None, opacity: float | None = None, clipped: bool = False) -> None:
        """One path (a compound path draws many shapes in one node)."""
        if not d:
            return
        attrs = [f'd="{d}"', f'fill="{fill}"']
        if stroke:
            attrs += [f'stroke="{stroke}"', f'stroke-width="{num(width)}"', 'stroke-linejoin="round"']
        if dash:
            attrs.append(f'stroke-dasharray="{num(dash[0])} {num(dash[1])}"')
        if opacity is not None:
            attrs.append(f'fill-opacity="{num(opacity)}"')
        if clipped and self.clip is not None:
            attrs.append('clip-path="url(#plot)"')
        self.shapes.append(f"<path {' '.join(attrs)}/>")

    def label(self, x: float, y: float, text: str, align: str = "l", size: float = FONT_PT, color: str = INK,
              boxed: bool = False) -> None:
        """A label whose `align` edge ("l" left, "r" right, "c" centre; "v" centre, turned a quarter left) is at x
        and whose middle (the middle of a digit) is at y; lines split at "\\n"."""
        lines = str(text).split("\n")
        top = y - (0.48 + 0.5 * (len(lines) - 1)) * size if align != "v" else y - 0.48 * size
        if align == "r":
            pos = f"left:{num(x - LABEL_BOX_PT)}pt"
        elif align == "c":
            pos = f"left:{num(x - LABEL_BOX_PT / 2)}pt"
        elif align == "v":
            pos = f"left:{num(x - LABEL_BOX_PT / 2)}pt"
        else:
            pos = f"left:{num(x)}pt"
        style = f"{pos};top:{num(top)}pt"
        if size != FONT_PT:
            style += f";font-size:{num(size)}pt"
        if color != INK:
            style += f";color:{color}"
        cls = "b" if boxed else align
        body = "<br>".join(html.escape(line) for line in lines)
        self.labels.append(f'<span class="{cls}" style="{style}">{body}</span>')

    def html(self) -> str:
        """The chart as one HTML fragment (the caller marks it safe: every label is escaped above)."""
        w, h = num(WIDTH_PT), num(self.height)
        defs = ""
        if self.clip is not None:
            f = self.clip
            defs = (f'<defs><clipPath id="plot"><rect x="{num(f.left)}" y="{num(f.top)}" width="{num(f.width)}" '
                    f'height="{num(f.height)}"/></clipPath></defs>')
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}pt" height="{h}pt" viewBox="0 0 {w} {h}">'
               + defs + "".join(self.shapes) + "</svg>")
        return f'<div class="chart" style="height:{h}pt">{svg}{"".join(self.labels)}</div>'


def polyline(xs, ys) -> str:
    """Path data through the points (xs[i], ys[i]) [pt]."""
    pts = [f"{num(x)} {num(y)}" for x, y in zip(xs, ys)]
    return ("M" + " L".join(pts)) if pts else ""


def rects(x0s, y0s, x1s, y1s) -> str:
    """Path data of rectangles (x0, y0)–(x1, y1) [pt], one subpath each (zero-size ones kept, as bars)."""
    return "".join(f"M{num(a)} {num(b)}H{num(c)}V{num(d)}H{num(a)}Z" for a, b, c, d in zip(x0s, y0s, x1s, y1s))


def markers(xs, ys, shape: str, size: float) -> str:
    """Path data of markers `size` [pt] across: "s" squares, "o" circles (two arcs each)."""
    r = size / 2
    if shape == "o":
        return "".join(f"M{num(x - r)} {num(y)}a{num(r)} {num(r)} 0 1 0 {num(size)} 0a{num(r)} {num(r)} 0 1 0 "
                       f"{num(-size)} 0Z" for x, y in zip(xs, ys))
    return rects([x - r for x in xs], [y - r for y in ys], [x + r for x in xs], [y + r for y in ys])


def value_axis(c: Chart, f: Frame, ticks: list[float], labels: list[str], vertical: bool, title: str) -> None:
    """Grid lines, ticks and labels of the value axis (y when `vertical`, else x), and its title."""
    if vertical:
        ys = [f.y(v) for v in ticks]
        c.path("".join(f"M{num(f.left)} {num(y)}H{num(f.right)}" for y in ys), stroke=GRID, width=0.5)
        c.path("".join(f"M{num(f.left - TICK_PT)} {num(y)}H{num(f.left)}" for y in ys), stroke=INK, width=0.8)
        for y, text in zip(ys, labels):
            c.label(f.left - 2 * TICK_PT, y, text, "r")
        widest = max((text_width(x, FONT_PT) for x in labels), default=0.0)
        c.label(f.left - 2 * TICK_PT - widest - 4 - 0.5 * FONT_PT, f.top + f.height / 2, title, "v")
    else:
        xs = [f.x(v) for v in ticks]
        c.path("".join(f"M{num(x)} {num(f.top)}V{num(f.bottom)}" for x in xs), stroke=GRID, width=0.5)
        category_ticks(c, f, xs, labels)
        c.label(f.left + f.width / 2, f.bottom + 2 * TICK_PT + 1.7 * FONT_PT, title, "c")


def category_ticks(c: Chart, f: Frame, xs: list[float], labels: list[str]) -> None:
    """Ticks and centred labels under the bottom axis at xs [pt]."""
    c.path("".join(f"M{num(x)} {num(f.bottom)}V{num(f.bottom + TICK_PT)}" for x in xs), stroke=INK, width=0.8)
    for x, text in zip(xs, labels):
        c.label(x, f.bottom + 2 * TICK_PT + 0.5 * FONT_PT, text, "c")


def spines(c: Chart, f: Frame) -> None:
    """The left and bottom edges of the plot (the top and right ones are left out, the house look)."""
    c.path(f"M{num(f.left)} {num(f.top)}V{num(f.bottom)}H{num(f.right)}", stroke=AXIS, width=0.8)


def legend(c: Chart, y: float, items: list[tuple[str, str]], keys) -> None:
    """One centred row of legend entries at height y [pt]: (label, key kind) each; `keys(kind, x, y)` draws a
    key 15 pt wide whose left end is at x."""
    gap, key_w, pad = 15.0, 15.0, 6.0
    widths = [key_w + pad + text_width(label, LEGEND_PT) for label, _ in items]
    x = (WIDTH_PT - sum(widths) - gap * (len(items) - 1)) / 2
    for (label, kind), w in zip(items, widths):
        keys(kind, x, y)
        c.label(x + key_w + pad, y, label, "l", LEGEND_PT)
        x += w + gap
