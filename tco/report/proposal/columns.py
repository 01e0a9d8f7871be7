"""Column widths of the proposal's tables, worked out here so that WeasyPrint lays them out with
`table-layout: fixed` instead of measuring every cell.

    widths(head, rows, cls, kind, area_mm, bold_rows=(), foot=None)   percent of the table's width per column

CSS's automatic table layout measures each cell's text twice (its widest word, its whole line) before it places
a single line: a fifth of the proposal's layout time. The texts and fonts are known here, so the same widths come
from the advance widths of the DejaVu Sans glyphs (`fonts/advances.json`, read from the two font files by
`build_advances`; kerning left out) and the width distribution of css-tables-3 as WeasyPrint 70 applies it
(`auto_widths`): every column gets its max-content width when the table is wider than their sum, the rest shared
in proportion to those widths; otherwise widths between the min-content and the max-content guesses.

The sizes below are proposal.css's (tests/test_proposal_columns.py checks that they agree): 8 pt text in
tables (7 pt in `small` ones), cell padding 1.6 mm (1.2 mm) a side, header and highlighted rows bold, and the
design's percentage widths of some columns.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

FONTS = Path(__file__).resolve().parents[2] / "templates" / "fonts"
ADVANCES = FONTS / "advances.json"
FONT_FILES = {"regular": FONTS / "DejaVuSans.ttf", "bold": FONTS / "DejaVuSans-Bold.ttf"}
RANGES = ((0x20, 0x250), (0x2000, 0x2300))
"""Code points whose advances are kept (Latin, Latin-1, Latin Extended, punctuation, super/subscripts,
currency, arrows, mathematical operators); others count as the font's average advance."""

MM = 72 / 25.4  # points per millimetre
TEXT_WIDTH_MM = 210 - 17 - 17  # A4 less the page's side margins (@page in proposal.css)
COLUMN_GAP_MM = 6  # between the two halves of `.cols`
FONT_PT = {"": 8.0, "small": 7.0}
PAD_MM = {"": 1.6, "small": 1.2}
PERCENT: dict[str, dict[int | str, float]] = {
    # table kind → {column: percent of the table's width}; "name" = the column of class name, a number that column
    "": {"name": 34}, "bridge": {"name": 46}, "offer": {"name": 38}, "small": {"name": 34},
    "risks": {0: 34, 1: 39, 2: 27}, "kv": {0: 42}, "kv case": {0: 28}, "kv contract": {0: 24},
}
BOLD_FIRST = ("risks", "kv case")
"""Table kinds whose first column is bold (proposal.css)."""

_SPACE = re.compile(r"[ \t\n\r\f]+")
# break opportunities inside a word (UAX #14 as Pango applies it): after "/" or "-" unless a digit follows,
# after "." or "," between a letter and a digit ("p5en.|48xlarge", not "1.234"), after an en dash, before and
# after an em dash
_BREAK = re.compile(r"(?<=[/\-])(?=[^\d/\-])|(?<=[^\W\d_][.,])(?=\d)|(?<=–)|(?<=[^—])(?=—)|(?<=—)(?=[^—])")


def build_advances(font: Path) -> dict[str, list[int]]:
    """{"units": units per em, "<first code point>": [advance of each code point of the range, 0 if none]}."""
    from fontTools.ttLib import TTFont

    f = TTFont(font, lazy=True)
    cmap, hmtx = f.getBestCmap(), f["hmtx"].metrics
    out: dict = {"units": f["head"].unitsPerEm}
    for lo, hi in RANGES:
        out[str(lo)] = [hmtx[cmap[c]][0] if c in cmap else 0 for c in range(lo, hi)]
    return out


def write_advances(path: Path = ADVANCES) -> None:
    """Regenerate fonts/advances.json from the font files (after changing a font)."""
    data = {k: build_advances(p) for k, p in FONT_FILES.items()}
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


@cache
def _advances() -> dict[bool, tuple[dict[str, float], float]]:
    """bold → ({character: advance in em}, average advance in em)."""
    data = json.loads(ADVANCES.read_text(encoding="utf-8"))
    out = {}
    for bold, key in ((False, "regular"), (True, "bold")):
        font = data[key]
        units = font["units"]
        table = {chr(int(lo) + i): w / units for lo, ws in font.items() if lo != "units"
                 for i, w in enumerate(ws) if w}
        out[bold] = (table, sum(table.values()) / len(table))
    return out


def text_width(text: str, bold: bool, size_pt: float) -> float:
    """Points: the sum of the glyphs' advances (no kerning)."""
    table, avg = _advances()[bold]
    return sum(table.get(ch, avg) for ch in text) * size_pt


def min_max(text: str, bold: bool, size_pt: float, nowrap: bool = False) -> tuple[float, float]:
    """(min-content, max-content) width of a cell's text in points: its widest unbreakable piece, its whole line."""
    text = _SPACE.sub(" ", text).strip()
    whole = text_width(text, bold, size_pt)
    if nowrap or not text:
        return whole, whole
    pieces = [p for w in text.split(" ") for p in _BREAK.split(w)]
    return max(text_width(p, bold, size_pt) for p in pieces), whole


def auto_widths(mins: list[float], maxs: list[float], percents: list[float], area: float) -> list[float]:
    """Column widths in points for a table `area` wide (css-tables-3 width distribution, as WeasyPrint 70)."""
    percents = [min(p, 100 - sum(percents[:i])) for i, p in enumerate(percents)]
    area = max(area, sum(mins))
    at_pct = [max(p / 100 * area, m) if p else m for p, m in zip(percents, mins)]
    at_max = [a if p else x for p, a, x in zip(percents, at_pct, maxs)]
    if area * (1 + 1e-9) < sum(at_max):
        guesses = (mins, at_pct, at_max)
        lower = [g for g in guesses if sum(g) <= area * (1 + 1e-9)][-1]
        upper = next(g for g in guesses if sum(g) >= area * (1 - 1e-9))
        added = [u - low for u, low in zip(upper, lower)]
        if not any(added):  # the same widths (a table no narrower than its min-content width)
            return list(upper)
        ratio = (area - sum(lower)) / sum(added)
        return [low + a * ratio for low, a in zip(lower, added)]
    excess = area - sum(at_max)
    n = range(len(at_max))
    groups = (  # the first that has columns takes the excess: (columns, weight of a column)
        ([i for i in n if not percents[i] and maxs[i] > 0], lambda i: maxs[i]),
        ([i for i in n if not percents[i]], lambda i: 1.0),
        ([i for i in n if percents[i] and maxs[i] > 0], lambda i: percents[i]),
        (list(n), lambda i: 1.0))
    cols, weight = next((c, w) for c, w in groups if c)
    total = sum(weight(i) for i in cols)
    return [w + (excess * (weight(i) / total) if i in cols else 0) for i, w in enumerate(at_max)]  # share first: no subnormal product


def _percent(kind: str, cls: list[str]) -> list[float]:
    rule = PERCENT.get(kind, {})
    return [float(rule.get(i, rule["name"] if "name" in rule and "name" in c.split() else 0))
            for i, c in enumerate(cls)]


def widths(head: list[str] | None, rows: list[list[str]], cls: list[str] | None, kind: str = "", area_mm: float =
           TEXT_WIDTH_MM, bold_rows=(), foot: list[str] | None = None) -> list[float]:
    """Percent of the table's width for each column, the widths CSS's automatic layout would give.

    `kind` is the table's class in the template ("", "small", "bridge", "offer", "risks", "kv", "kv case"); `cls`
    each column's class ("num" columns do not wrap their cells); `bold_rows` the highlighted rows' indexes."""
    n = len(head) if head else len(rows[0]) if rows else 0
    if not n:
        return []
    cls = cls or [""] * n
    size = FONT_PT["small" if "small" in kind.split() else ""]
    pad = 2 * PAD_MM["small" if "small" in kind.split() else ""] * MM
    mins, maxs = [pad] * n, [pad] * n
    cells = [(head, True, False)] if head else []
    cells += [(r, i in bold_rows, True) for i, r in enumerate(rows)] + ([(foot, True, True)] if foot else [])
    for row, bold, is_td in cells:
        for j, text in enumerate(row):
            b = bold or (is_td and j == 0 and kind in BOLD_FIRST)
            lo, hi = min_max(str(text), b, size, nowrap=is_td and "num" in cls[j].split())
            mins[j], maxs[j] = max(mins[j], lo + pad), max(maxs[j], hi + pad)
    area = area_mm * MM
    return [100 * w / area for w in auto_widths(mins, maxs, _percent(kind, cls), area)]


def for_table(tb: dict, kind: str = "", half: bool = False) -> list[str]:
    """The template's `<col>` widths (percent, as text) for a table of `proposal_words.table`, of class `kind`,
    across the text column or (`half`) one of the two halves of `.cols`."""
    area = (TEXT_WIDTH_MM - COLUMN_GAP_MM) / 2 if half else TEXT_WIDTH_MM
    return [f"{w:.3f}" for w in widths(tb["head"], tb["rows"], tb["cls"], kind, area, tb["highlight"], tb["foot"])]


def for_pairs(rows: list, kind: str = "kv", half: bool = False) -> list[str]:
    """The same for a two-column table of (label, value) rows (the template's `kv`)."""
    return for_table({"head": None, "rows": [list(r) for r in rows], "cls": ["", ""], "highlight": (), "foot": None},
                     kind, half)
