"""The proposal's column widths: glyph advances read from the fonts, text widths and break points by hand, the
width distribution by hand and as a property, the sizes proposal.css uses, and the widths against WeasyPrint's
own automatic table layout on the examples' tables (the layout they replace)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report.proposal import columns as pc

ROOT = Path(__file__).resolve().parents[3]
CSS = (ROOT / "tco" / "templates" / "proposal.css").read_text(encoding="utf-8")
UNITS = 2048  # DejaVu Sans: units per em


def test_advances_are_the_fonts():
    """fonts/advances.json is what the font files say (regenerate with proposal_columns.write_advances())."""
    pytest.importorskip("fontTools")
    stored = json.loads(pc.ADVANCES.read_text(encoding="utf-8"))
    assert stored == {k: pc.build_advances(p) for k, p in pc.FONT_FILES.items()}


def test_text_width_by_hand():
    # DejaVu Sans advances: R 1423, $ 1303, space 651, digits 1303 (regular); bold digits 1425
    expected = (1423 + 1303 + 651 + 1303 + 1303) / UNITS * 8
    assert pc.text_width("R$ 10", False, 8) == pytest.approx(expected)
    assert pc.text_width("10", True, 7) == pytest.approx(2 * 1425 / UNITS * 7)
    table, avg = pc._advances()[False]
    assert pc.text_width("\U0001f600", False, 10) == pytest.approx(avg * 10)  # outside the ranges: the average


@pytest.mark.parametrize("text,widest", [
    ("a bb mmmmmm dd", "mmmmmm"),  # spaces
    ("H200-NVL", "H200-"),  # after a hyphen before a letter
    ("12-34", "12-34"),  # not between digits
    ("github.com/skypilot-org", "github.com/"),  # after a slash
    ("10/12/2026", "10/12/2026"),  # not before a digit
    ("p5en.4xl", "p5en."),  # after a full stop between a letter and a digit
    ("R$\u00a0123.456,78", "R$\u00a0123.456,78"),  # not inside a number
    ("abc—defgh", "defgh"),  # before and after an em dash
    ("R$\u00a01.234.567", "R$\u00a01.234.567"),  # a no-break space holds
])
def test_min_content_is_the_widest_unbreakable_piece(text, widest):
    lo, hi = pc.min_max(text, False, 8)
    assert lo == pytest.approx(pc.text_width(widest, False, 8))
    assert hi == pytest.approx(pc.text_width(text, False, 8))


def test_a_cell_that_does_not_wrap_is_as_wide_as_its_line():
    lo, hi = pc.min_max("R$ 2.814.454", False, 8, nowrap=True)
    assert lo == hi == pytest.approx(pc.text_width("R$ 2.814.454", False, 8))


def test_distribution_by_hand():
    # room to spare: every column its max-content width, the rest in proportion to them (40 → 30 : 10)
    assert pc.auto_widths([10, 10], [30, 10], [0, 0], 80) == pytest.approx([30 + 40 * 30 / 40, 10 + 40 * 10 / 40])
    # a 34 % column takes its share, the other the rest
    assert pc.auto_widths([5, 5], [20, 20], [34, 0], 100) == pytest.approx([34, 100 - 34])
    # narrower than the max-content widths: halfway between min (10, 20) and max (50, 100) as 90 = 30 + 0.5 × 120
    assert pc.auto_widths([10, 20], [50, 100], [0, 0], 90) == pytest.approx([10 + 0.5 * 40, 20 + 0.5 * 80])
    # narrower than the min-content widths: the table overflows at them
    assert pc.auto_widths([10, 20], [50, 100], [0, 0], 20) == pytest.approx([10, 20])
    # percentages beyond 100 are cut to 60 + 40: the guesses sum to 3 (min), 101 (60, 40, 1), 105 (60, 40, 5), so
    # the widths lie between the first two, 97 of their 98 apart
    assert pc.auto_widths([1, 1, 1], [5, 5, 5], [60, 60, 0], 100) == pytest.approx(
        [1 + 59 * 97 / 98, 1 + 39 * 97 / 98, 1])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 200), st.floats(0, 200), st.sampled_from([0, 0, 10, 25, 34, 50])),
                min_size=1, max_size=7),
       st.floats(1, 600))
def test_widths_fill_the_table_and_hold_every_cell(cols, area):
    mins = [a for a, _, _ in cols]
    maxs = [a + b for a, b, _ in cols]
    pcts = [p for _, _, p in cols]
    got = pc.auto_widths(mins, maxs, pcts, area)
    assert sum(got) == pytest.approx(max(area, sum(mins)), rel=1e-6, abs=1e-6)
    assert all(g >= m - 1e-6 for g, m in zip(got, mins))


def test_sizes_are_the_stylesheets():
    """The constants here are proposal.css's: page margins, table font sizes, cell paddings, the gap of .cols."""
    assert re.search(r"@page \{\s*size: A4;\s*margin: \S+ 17mm \S+ 17mm;", CSS)
    assert re.search(r"\ntable \{[^}]*font-size: 8pt;", CSS) and re.search(r"table\.small \{ font-size: 7pt; \}", CSS)
    assert re.search(r"\nth \{[^}]*padding: \S+ 1\.6mm;", CSS) and re.search(r"\ntd \{[^}]*padding: \S+ 1\.6mm;", CSS)
    assert re.search(r"table\.small th \{ padding: \S+ 1\.2mm; \}", CSS)
    assert re.search(r"table\.small td \{ padding: \S+ 1\.2mm; \}", CSS)
    assert re.search(r"\.cols \{[^}]*border-spacing: 6mm 0;", CSS)
    assert re.search(r"\ntable \{ table-layout: fixed;", CSS)
    assert (pc.FONT_PT, pc.PAD_MM, pc.TEXT_WIDTH_MM, pc.COLUMN_GAP_MM) == ({"": 8, "small": 7},
                                                                           {"": 1.6, "small": 1.2}, 176, 6)


def test_template_widths_of_a_table():
    tb = {"head": ["Item", "Qtd."], "rows": [["servidor", "8"]], "cls": ["name", "num"], "highlight": set(),
          "foot": None}
    got = [float(w) for w in pc.for_table(tb, "offer")]
    assert got == pytest.approx([38, 62])  # the name column's 38 %, the other the rest
    assert pc.for_pairs([], "kv") == []
    assert [float(w) for w in pc.for_pairs([("Prazo", "36 meses")], "kv", half=True)] == pytest.approx([42, 58])


def _css_percentages() -> str:
    """PERCENT as the stylesheet rules automatic layout reads (what proposal.css said before the widths moved)."""
    rules = []
    for kind, cols in pc.PERCENT.items():
        table = "table" + "".join(f".{c}" for c in kind.split()) if kind else 'table[class=""]'
        for col, p in cols.items():
            cell = ".name" if col == "name" else f":nth-child({col + 1})"
            rules.append(f"{table} tr > {cell} {{ width: {p}%; }}")
    return "\n".join(rules)


@pytest.fixture(scope="module")
def both_layouts(example_runs):
    """The seed's proposal in both locales: (widths from <col>, widths WeasyPrint's automatic layout gives)."""
    from tco.report import proposal
    from tco.report.proposal.weasy import weasyprint

    wp = weasyprint()
    res0 = example_runs["seed_70b_h200"]
    out = []
    for loc in ("pt-BR", "en"):
        sc = res0.scenario
        res = dataclasses.replace(res0, scenario=sc.model_copy(update={"scenario": sc.scenario.model_copy(
            update={"locale": loc})}))
        html = proposal.render_html(proposal.context(res, [], proposal.load_theme()))
        ours = [[float(w) for w in re.findall(r'<col style="width: ([\d.]+)%">', g)]
                for g in re.findall(r"<colgroup>(.*?)</colgroup>", html)]
        auto = re.sub(r"<colgroup>.*?</colgroup>", "", html).replace(
            "</style>", "table { table-layout: auto; }\n" + _css_percentages() + "\n</style>")
        doc = wp.HTML(string=auto, base_url=proposal.TEMPLATES.as_uri() + "/",
                      url_fetcher=proposal.templates_only_fetcher()).render()
        theirs, seen = [], set()

        def walk(box):
            if type(box).__name__ == "TableBox" and box.element is not None and box.element.tag == "table":
                if id(box.element) not in seen:
                    seen.add(id(box.element))
                    theirs.append([100 * w / box.width for w in box.column_widths])
            for child in getattr(box, "children", ()):
                walk(child)

        for page in doc.pages:
            walk(page._page_box)
        out.append((loc, ours, theirs))
    return out


@pytest.mark.slow
def test_widths_are_those_of_the_automatic_layout(both_layouts):
    """Within 0.3 % of the table's width (kerning, which is left out here, is most of the difference)."""
    for loc, ours, theirs in both_layouts:
        assert len(ours) == len(theirs) >= 10, loc
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a == pytest.approx(b, abs=0.3), (loc, i, a, b)


def test_a_tiny_max_content_width_takes_the_whole_excess():
    """One column, min 0, max 5e-324 pt, in 1.5 pt: it takes all 1.5 pt (1.5 × 5e-324 rounds to 2 × 5e-324 as a
    subnormal product, which made 2.0 when the share was taken after the product)."""
    assert pc.auto_widths([0.0], [5e-324], [0], 1.5) == [1.5]
