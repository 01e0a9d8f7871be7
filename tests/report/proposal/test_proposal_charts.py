"""The proposal's charts: a few SVG paths and escaped HTML labels, drawn without matplotlib."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from tco.report.proposal import chart_svg
from tco.report.proposal import charts

ROOT = Path(__file__).resolve().parents[3]
UNIT = {"unit_one": "R$", "unit_thousand": "R$ mil", "unit_million": "R$ milhões", "unit_billion": "R$ bi"}.get
MONTHS = [f"{2027 + m // 12}-{m % 12 + 1:02d}" for m in range(36)]


def test_advance_widths_are_the_fonts():
    from fontTools.ttLib import TTFont

    font = TTFont(ROOT / "tco" / "templates" / "fonts" / "DejaVuSans.ttf", lazy=True)
    cmap, hmtx = font.getBestCmap(), font["hmtx"]
    assert font["head"].unitsPerEm == 2048
    for code, width in chart_svg.ADVANCE.items():
        assert hmtx[cmap[code]][0] == width, chr(code)


def test_text_width_by_hand():
    # "10" at 8 pt: two digits of 1303 units each, 2048 units per em
    expected = (1303 + 1303) * 8 / 2048
    assert abs(chart_svg.text_width("10", 8.0) - expected) < 1e-12


def test_nice_ticks_by_hand():
    # 0–163,000 in at most 6 intervals: raw step 163,000 / 6 = 27,167 → the next multiple of 10^4 in
    # {1, 1.5, 2, 2.5, 3, …} is 3 × 10^4
    assert chart_svg.nice_ticks(0.0, 163_000.0, 6) == [k * 30_000.0 for k in range(6)]
    # −660,000–1,300,000 in 7: raw 280,000 → 3 × 10^5, from −2 × 300,000 to 4 × 300,000
    assert chart_svg.nice_ticks(-660_000.0, 1_300_000.0, 7) == [k * 300_000.0 for k in range(-2, 5)]
    assert chart_svg.nice_ticks(5.0, 5.0, 6) == [5.0]


def test_frame_maps_data_to_points():
    f = chart_svg.Frame(10.0, 20.0, 100.0, 50.0, (0.0, 4.0), (0.0, 10.0))
    assert f.x(1.0) == 10.0 + 1.0 / 4.0 * 100.0
    assert f.y(10.0) == 20.0 and f.y(0.0) == 70.0


def test_tco_bars_draw_a_deterministic_value_outside_its_band():
    # the deterministic TCO (100) lies below its own P5–P95 band (110–130): legitimate, and it must draw
    out = charts.tco_bars(["A", "B"], [100.0, 150.0], [(110.0, 130.0), (140.0, 160.0)], "en", UNIT, "P5–P95")
    assert out.startswith('<div class="chart"') and "<svg" in out


def test_fan_chart_is_a_few_paths_and_html_labels():
    fan = {"p5": np.full(36, 90.0e3), "p50": np.full(36, 110.0e3), "p95": np.full(36, 150.0e3)}
    out = charts.fan_chart(MONTHS, fan, "band", "median", "en", UNIT, ("ours", np.full(36, 50.0e3)))
    svg = out[out.index("<svg"):out.index("</svg>")]
    assert "<text" not in svg and "<pattern" not in svg and "<use" not in svg
    # grid, y ticks, band, p5, p95, median + markers, reference + markers, spines, x ticks, 3 legend keys (+2 markers)
    assert svg.count("<path") <= 18
    assert svg.count("Z", svg.index("fill-opacity")) >= 36  # 36 square markers among the closed shapes
    assert "R$ mil" in out and "band" in out and "Jan/27" in out


def test_fan_chart_clips_a_burst_and_labels_it():
    fan = {"p5": np.full(36, 90.0), "p50": np.full(36, 100.0), "p95": np.full(36, 110.0)}
    ref = np.full(36, 100.0)
    ref[:3] = 5000.0  # three months far above the rest: one label for the run
    out = charts.fan_chart(MONTHS, fan, "band", "median", "en", UNIT, ("ours", ref), clip_label=lambda v: f"{v:.0f}!")
    assert out.count("5000!") == 1 and "clipPath" in out and 'clip-path="url(#plot)"' in out


def test_charts_do_not_import_matplotlib():
    code = ("import sys, numpy as np; from tco.report.proposal import charts; "
            "charts.tornado(['a', 'b'], [1.0, -2.0], [3.0, 4.0], 0.5, 'lo', 'hi', 'pt-BR', lambda k: k); "
            "assert 'matplotlib' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_text_stays_text_and_is_escaped():
    out = charts.tco_bars(['<b>x</b> & "y"', "B"], [1.0, 2.0], None, "en", UNIT)
    assert "&lt;b&gt;x&lt;/b&gt; &amp;" in out and "<b>" not in out
    assert not re.search(r"<(?!/?(div|svg|path|span|br)\b)", out)  # no other element than the chart's own
