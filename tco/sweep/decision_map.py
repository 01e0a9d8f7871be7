"""The decision map: for two axes of a sweep, which option is cheapest (lowest deterministic TCO) where, the
boundary between the regions, and the base scenario's own point.

On a grid of the two axes (at least ``FILLED_SHARE`` of its points hold a case) each cell is one (x, y) point;
where other axes vary too, a cell shows the option that leads in most of its cases and the share it leads in.
Sampled axes (a Latin hypercube, many distinct values, too few cases to fill a grid) are drawn on a raster of
``RASTER`` × ``RASTER`` cells, each taking the leader of the nearest case (distances in each axis's range scaled to
0–1), with the cases as dots. The SVG is written by hand: every text is escaped,
so an option's name never becomes markup.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import numpy as np

RASTER = 48
MAX_GRID = 60
"""A grid axis with more distinct values than this is drawn as a raster."""
FILLED_SHARE = 0.9
"""The share of an x × y grid's points that must hold a case for the cases to be drawn as that grid."""
PALETTE = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#1f78b4", "#b2df8a",
           "#fb9a99", "#cab2d6", "#666666")
NONE_COLOUR = "#dddddd"


@dataclass(frozen=True)
class MapData:
    x: str
    y: str
    xs: list
    """The x axis's values (grid) or the raster's cell centres."""
    ys: list
    cells: list[list[tuple[str | None, float]]]
    """cells[j][i]: the leader at (xs[i], ys[j]) and the share of that point's cases it leads in."""
    options: list[str]
    """The leaders that appear, in the scenario's order (the legend)."""
    gridded: bool
    points: list[tuple[float, float, str | None]]
    """Raster only: each case's (x, y, leader)."""
    base: tuple
    """The base scenario's (x, y)."""
    cases: int


def _leaders(df) -> dict[int, str | None]:
    """Case → its leader (None for a failed case or one with no feasible option)."""
    lead = df[df["leader"].fillna(False).astype(bool)].set_index("case")["option"].to_dict()
    return {int(c): lead.get(c) for c in df["case"].unique()}


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in values)


def build(df, x: str, y: str, base: tuple, option_order: list[str]) -> MapData:
    """The map's data from the sweep's table `df` (one row per case and option)."""
    per_case = df.drop_duplicates("case").set_index("case")[[x, y]]
    leaders = _leaders(df)
    xv, yv = per_case[x].tolist(), per_case[y].tolist()
    ux, uy = sorted(set(xv), key=_key), sorted(set(yv), key=_key)
    seen = [o for o in option_order if o in set(leaders.values())]
    votes: dict[tuple, Counter] = {}
    for c, (a, b) in zip(per_case.index, zip(xv, yv)):
        votes.setdefault((a, b), Counter())[leaders[int(c)]] += 1
    filled = len(votes) >= FILLED_SHARE * len(ux) * len(uy)  # a grid's points, not scattered samples
    if (filled and len(ux) <= MAX_GRID and len(uy) <= MAX_GRID) or not (_numeric(ux) and _numeric(uy)):
        cells = [[_winner(votes.get((a, b))) for a in ux] for b in uy]
        return MapData(x, y, ux, uy, cells, seen, True, [], base, len(per_case))
    px, py = np.asarray(xv, float), np.asarray(yv, float)
    lo_x, hi_x, lo_y, hi_y = px.min(), px.max(), py.min(), py.max()
    cx = lo_x + (np.arange(RASTER) + 0.5) / RASTER * (hi_x - lo_x)
    cy = lo_y + (np.arange(RASTER) + 0.5) / RASTER * (hi_y - lo_y)
    sx, sy = (px - lo_x) / ((hi_x - lo_x) or 1), (py - lo_y) / ((hi_y - lo_y) or 1)
    names = [leaders[int(c)] for c in per_case.index]
    cells = []
    for j in range(RASTER):
        gy = (j + 0.5) / RASTER
        row = []
        for i in range(RASTER):
            k = int(np.argmin((sx - (i + 0.5) / RASTER) ** 2 + (sy - gy) ** 2))
            row.append((names[k], 1.0))
        cells.append(row)
    points = list(zip(px.tolist(), py.tolist(), names))
    return MapData(x, y, cx.tolist(), cy.tolist(), cells, seen, False, points, base, len(per_case))


def _key(v):
    return (0, float(v), "") if _numeric([v]) else (1, 0.0, str(v))


def _winner(votes: Counter | None) -> tuple[str | None, float]:
    if not votes:
        return None, 0.0
    name, n = max(votes.items(), key=lambda kv: (kv[1], kv[0] is not None))
    return name, n / sum(votes.values())


def _position(value, values: list, gridded: bool) -> float | None:
    """Where `value` falls on an axis, in cells from the first (cell i's centre at i); None outside the axis."""
    if value is None:
        return None
    if not _numeric(values) or not _numeric([value]):
        return float(values.index(value)) if value in values else None
    vals = [float(v) for v in values]
    if not vals[0] <= float(value) <= vals[-1] or len(vals) == 1:
        return 0.0 if len(vals) == 1 and float(value) == vals[0] else None
    return float(np.interp(float(value), vals, np.arange(len(vals))))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def _short(text: str, n: int = 56) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def pale(colour: str, strength: float) -> str:
    """`colour` (#rrggbb) mixed with white: strength 1 the colour itself, 0 white.

    >>> pale("#204060", 0.5)
    '#90a0b0'
    """
    rgb = [int(colour[k:k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * strength):02x}" for c in rgb)


def boundary(cells: list[list[tuple[str | None, float]]]) -> list[tuple[int, int, int, int]]:
    """Segments (x0, y0, x1, y1), in cell units with row 0 at the bottom, between cells of different leaders."""
    segs = []
    rows, cols = len(cells), len(cells[0]) if cells else 0
    for j in range(rows):
        for i in range(cols):
            if i + 1 < cols and cells[j][i][0] != cells[j][i + 1][0]:
                segs.append((i + 1, j, i + 1, j + 1))
            if j + 1 < rows and cells[j][i][0] != cells[j + 1][i][0]:
                segs.append((i, j + 1, i + 1, j + 1))
    return segs


def svg(m: MapData, words: dict[str, str]) -> str:
    """The map as an SVG document. `words`: title, subtitle, base, none, boundary (already in the locale)."""
    left, top, pw, ph, legend_w = 120, 70, 560, 420, 400
    width, height = left + pw + 30 + legend_w, top + ph + 80
    nx, ny = len(m.xs), len(m.ys)
    cw, ch = pw / nx, ph / ny
    colour = {name: PALETTE[k % len(PALETTE)] for k, name in enumerate(m.options)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="28" font-size="17" font-weight="bold">{escape(words["title"])}</text>',
           f'<text x="{left}" y="50" fill="#444">{escape(words["subtitle"])}</text>']
    if any(share < 1 for row in m.cells for name, share in row if name is not None):
        out[-1] = out[-1].replace("</text>", f"; {escape(words['pale'])}</text>")
    for j, row in enumerate(m.cells):
        for i, (name, share) in enumerate(row):
            fill = colour.get(name, NONE_COLOUR) if name is not None else NONE_COLOUR
            fill = pale(fill, 0.35 + 0.6 * share if m.gridded else 0.6)
            out.append(f'<rect x="{left + i * cw:.2f}" y="{top + ph - (j + 1) * ch:.2f}" width="{cw + 0.3:.2f}" '
                       f'height="{ch + 0.3:.2f}" fill="{fill}"/>')
    for a, b, c, d in boundary(m.cells):
        out.append(f'<line x1="{left + a * cw:.2f}" y1="{top + ph - b * ch:.2f}" x2="{left + c * cw:.2f}" '
                   f'y2="{top + ph - d * ch:.2f}" stroke="#111" stroke-width="2.2"/>')
    if not m.gridded:
        dx, dy = (m.xs[1] - m.xs[0]) or 1.0, (m.ys[1] - m.ys[0]) or 1.0  # cell widths in axis units
        for px, py, name in m.points[:5000]:
            X = left + ((px - m.xs[0]) / dx + 0.5) * cw
            Y = top + ph - ((py - m.ys[0]) / dy + 0.5) * ch
            out.append(f'<circle cx="{X:.1f}" cy="{Y:.1f}" r="3" fill="{colour.get(name or "", "#999")}" stroke="#222" '
                       'stroke-width="0.3"/>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    out += _ticks(m, left, top, pw, ph, cw, ch)
    bx, by = _position(m.base[0], m.xs, m.gridded), _position(m.base[1], m.ys, m.gridded)
    if bx is not None and by is not None:
        X, Y = left + (bx + 0.5) * cw, top + ph - (by + 0.5) * ch
        out.append(f'<path d="M{X - 9:.1f},{Y:.1f} L{X + 9:.1f},{Y:.1f} M{X:.1f},{Y - 9:.1f} L{X:.1f},{Y + 9:.1f}" '
                   'stroke="black" stroke-width="3"/>')
        out.append(f'<circle cx="{X:.1f}" cy="{Y:.1f}" r="6" fill="white" stroke="black" stroke-width="2"/>')
    out += _legend(m, colour, words, left + pw + 30, top)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _ticks(m: MapData, left, top, pw, ph, cw, ch) -> list[str]:
    out = []
    step_x = max(1, len(m.xs) // 10) if m.gridded else max(1, len(m.xs) // 5)
    for i in range(0, len(m.xs), step_x):
        X = left + (i + 0.5) * cw
        out.append(f'<text x="{X:.1f}" y="{top + ph + 18}" text-anchor="middle">{escape(_fmt(m.xs[i]))}</text>')
    step_y = max(1, len(m.ys) // 12) if m.gridded else max(1, len(m.ys) // 6)
    for j in range(0, len(m.ys), step_y):
        Y = top + ph - (j + 0.5) * ch + 4
        out.append(f'<text x="{left - 8}" y="{Y:.1f}" text-anchor="end">{escape(_fmt(m.ys[j]))}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{top + ph + 44}" text-anchor="middle" font-weight="bold">'
               f'{escape(m.x)}</text>')
    out.append(f'<text transform="translate({left - 78},{top + ph / 2}) rotate(-90)" text-anchor="middle" '
               f'font-weight="bold">{escape(m.y)}</text>')
    return out


def _legend(m: MapData, colour: dict, words: dict, x: int, y: int) -> list[str]:
    out = []
    for k, name in enumerate(m.options):
        yy = y + k * 24
        out.append(f'<rect x="{x}" y="{yy}" width="16" height="16" fill={quoteattr(colour[name])}/>')
        out.append(f'<text x="{x + 24}" y="{yy + 12}">{escape(_short(name))}</text>')
    yy = y + len(m.options) * 24
    if any(name is None for row in m.cells for name, _ in row):
        out.append(f'<rect x="{x}" y="{yy}" width="16" height="16" fill="{NONE_COLOUR}"/>')
        out.append(f'<text x="{x + 24}" y="{yy + 12}">{escape(words["none"])}</text>')
        yy += 24
    out.append(f'<line x1="{x}" y1="{yy + 8}" x2="{x + 16}" y2="{yy + 8}" stroke="#111" stroke-width="2.2"/>')
    out.append(f'<text x="{x + 24}" y="{yy + 12}">{escape(words["boundary"])}</text>')
    out.append(f'<circle cx="{x + 8}" cy="{yy + 32}" r="6" fill="white" stroke="black" stroke-width="2"/>')
    out.append(f'<text x="{x + 24}" y="{yy + 36}">{escape(words["base"])}</text>')
    return out
