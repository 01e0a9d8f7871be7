"""The decision map: the leader per point (a vote where other axes vary), the boundary between regions, the
raster for sampled axes, the base point, and an SVG in which a name never becomes markup."""

import xml.etree.ElementTree as ET

import pandas as pd

from tco.sweep import decision_map as dm

WORDS = {"title": "T <b>", "subtitle": "S", "base": "base", "none": "none", "boundary": "boundary", "pale": "pale"}


def _df(points: list[tuple]) -> pd.DataFrame:
    """(case, x, y, leader) → rows of two options per case, 'A' and 'B<script>'."""
    rows = []
    for case, x, y, lead in points:
        for name in ("A", "B<script>"):
            rows.append({"case": case, "x": x, "y": y, "option": name, "leader": name == lead})
    return pd.DataFrame(rows)


def test_a_grid_of_two_axes_with_its_boundary():
    # y=0: A A ; y=1: A B  → one vertical segment between (1,1)-(2,1)… and one horizontal under the B cell
    df = _df([(0, 1.0, 0, "A"), (1, 2.0, 0, "A"), (2, 1.0, 1, "A"), (3, 2.0, 1, "B<script>")])
    m = dm.build(df, "x", "y", (1.5, 0), ["A", "B<script>"])
    assert m.gridded and m.xs == [1.0, 2.0] and m.ys == [0, 1]
    assert m.cells == [[("A", 1.0), ("A", 1.0)], [("A", 1.0), ("B<script>", 1.0)]]
    assert sorted(dm.boundary(m.cells)) == [(1, 1, 1, 2), (1, 1, 2, 1)]
    assert m.options == ["A", "B<script>"]


def test_other_axes_vote_and_the_share_is_kept():
    df = _df([(0, 1.0, 0, "A"), (1, 1.0, 0, "A"), (2, 1.0, 0, "B<script>")])  # three cases at one point
    m = dm.build(df, "x", "y", (None, None), ["A", "B<script>"])
    assert m.cells == [[("A", 2 / 3)]]


def test_a_failed_case_has_no_leader():
    df = pd.concat([_df([(0, 1.0, 0, "A")]), pd.DataFrame([{"case": 1, "x": 2.0, "y": 0, "option": None,
                                                             "leader": None}])])
    m = dm.build(df, "x", "y", (None, None), ["A", "B<script>"])
    assert m.cells == [[("A", 1.0), (None, 1.0)]]  # every case at that point failed


def test_few_scattered_samples_are_a_raster_too():
    pts = [(i, float(i), float((i * 3) % 5), "A") for i in range(5)]  # 5 × 5 values, 5 points: not a grid
    assert not dm.build(_df(pts), "x", "y", (None, None), ["A"]).gridded


def test_sampled_axes_become_a_raster_of_the_nearest_case():
    pts = [(i, float(i), float(i % 7), "A" if i < 50 else "B<script>") for i in range(100)]
    m = dm.build(_df(pts), "x", "y", (10.0, 3.0), ["A", "B<script>"])
    assert not m.gridded and len(m.cells) == dm.RASTER and len(m.points) == 100
    assert m.cells[0][0][0] == "A" and m.cells[0][-1][0] == "B<script>"


def test_pale_mixes_with_white():
    assert dm.pale("#204060", 0.5) == "#90a0b0"  # 255 − (255 − 0x20)·0.5 = 143.5 → 0x90
    assert dm.pale("#204060", 1.0) == "#204060" and dm.pale("#204060", 0.0) == "#ffffff"


def test_the_svg_is_well_formed_and_escapes_names():
    df = _df([(0, 1.0, 0, "A"), (1, 2.0, 0, "B<script>")])
    text = dm.svg(dm.build(df, "x", "y", (1.0, 0), ["A", "B<script>"]), WORDS)
    root = ET.fromstring(text)  # parses: no raw '<script>' anywhere
    assert "<script>" not in text and "B&lt;script&gt;" in text and "T &lt;b&gt;" in text
    assert root.tag.endswith("svg")
    assert text.count("<circle") == 2  # the legend's base marker and the base point itself


def test_the_base_point_outside_the_axes_is_not_drawn():
    assert dm._position(9.0, [1.0, 2.0], True) is None
    assert dm._position(1.5, [1.0, 2.0], True) == 0.5
    assert dm._position("b", ["a", "b"], True) == 1.0
