"""The proposal's charts: lean SVG, drawn without pyplot or global matplotlib state."""

from __future__ import annotations

import re
import sys

import numpy as np

from tco.report import charts

UNIT = {"unit_one": "R$", "unit_thousand": "R$ mil", "unit_million": "R$ milhões", "unit_billion": "R$ bi"}.get


def test_bars_are_one_compound_path_with_a_rectangle_per_bar():
    from matplotlib.figure import Figure
    from matplotlib.path import Path

    ax = Figure().add_subplot()
    # bars x 0–0.8 from 0 to 2 and x 1–1.8 from 0 to 3; a zero-height third bar stays (as with bar())
    patch = charts._bars(ax, [0.0, 1.0, 2.0], 0.0, [0.8, 1.8, 2.8], [2.0, 3.0, 0.0], facecolor="#000000")
    path = patch.get_path()
    expected = [[0.0, 0.0], [0.8, 0.0], [0.8, 2.0], [0.0, 2.0], [0.0, 0.0],
                [1.0, 0.0], [1.8, 0.0], [1.8, 3.0], [1.0, 3.0], [1.0, 0.0],
                [2.0, 0.0], [2.8, 0.0], [2.8, 0.0], [2.0, 0.0], [2.0, 0.0]]
    np.testing.assert_array_equal(path.vertices, expected)
    assert list(path.codes) == [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY] * 3
    assert ax.get_ylim()[1] >= 3.0  # the axes were rescaled to the bars


def test_tco_bars_draw_a_deterministic_value_outside_its_band():
    # the deterministic TCO (100) lies below its own P5–P95 band (110–130): legitimate, and it must draw
    svg = charts.tco_bars(["A", "B"], [100.0, 150.0], [(110.0, 130.0), (140.0, 160.0)], "en", UNIT, "P5–P95")
    assert svg.startswith("<svg") and 'class="chart"' in svg


def test_svg_is_lean_cropped_and_without_patterns():
    months = [f"2027-{m:02d}" for m in range(1, 13)]
    lines = [("compute", np.full(12, 1000.0)), ("storage", np.arange(12) * 10.0), ("egress", np.zeros(12))]
    svg = charts.stacked_chart(months, lines, "en", UNIT)
    head = svg[:svg.index(">")]
    assert "viewBox=" in head and " width=" not in head and " height=" not in head
    assert "<pattern" not in svg and "hatch" not in svg
    assert svg.count("<g") <= 5  # id-only wrappers unwrapped
    # one compound path per non-zero series (clipped to the axes; the legend keys are not), 12 bars each
    bar_paths = [p for p in re.findall(r"<path [^>]*>", svg)
                 if "stroke: #ffffff; stroke-width: 0.4" in p and "clip-path" in p]
    assert len(bar_paths) == 2
    # 12 bars each (storage's month 1 is 0 × 10 = 0: a zero-height bar, kept as bar() keeps it)
    assert [p.count(" z") for p in bar_paths] == [12, 12]
    assert "compute" in svg and "storage" in svg and "egress" not in svg  # an all-zero line has no legend entry


def test_charts_leave_matplotlib_global_state_alone():
    import matplotlib

    before = dict(matplotlib.rcParams)
    charts.users_chart(["2027-01", "2027-02", "2027-03"], np.array([10.0, 20.0, 30.0]), "pt-BR", "usuários")
    assert dict(matplotlib.rcParams) == before
    assert "matplotlib.pyplot" not in sys.modules or sys.modules["matplotlib.pyplot"] is not None
    import matplotlib._pylab_helpers as helpers

    assert helpers.Gcf.get_num_fig_managers() == 0  # no figure registered anywhere


def test_text_stays_text_and_is_escaped():
    svg = charts.tco_bars(['<b>x</b> & "y"', "B"], [1.0, 2.0], None, "en", UNIT)
    assert "&lt;b&gt;x&lt;/b&gt; &amp;" in svg and "<b>" not in svg
