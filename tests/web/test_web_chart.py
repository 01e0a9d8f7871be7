"""The desk's cumulative-cost chart (tco.web.chart)."""

import re

from tco.web import chart


def _points(path_d: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"[ML](-?[\d.]+) (-?[\d.]+)", path_d)]


def test_lines_rise_by_the_running_total():
    # monthly costs 1, 2, 3 (millions) → running totals 1, 3, 6: heights above the axis in the ratio 1 : 3 : 6
    html = chart.cumulative([("A", [1e6, 2e6, 3e6])], ["2027-01", "2027-02", "2027-03"], "pt-BR")
    paths = re.findall(r'<path d="([^"]+)" fill="none" stroke="#1f3b63" stroke-width="2"', html)
    line = next(p for p in paths if p.count("L") == 2)
    (x0, y0), (x1, y1), (x2, y2) = _points(line)
    bottom = 4.0 + 4 + 170.0  # PAD + 4 + the plot's height [pt]
    h = [bottom - y for y in (y0, y1, y2)]
    assert abs(h[1] / h[0] - 3.0) < 1e-2 and abs(h[2] / h[0] - 6.0) < 1e-2
    assert x0 < x1 < x2


def test_labels_are_escaped_text():
    html = chart.cumulative([("<script>alert(1)</script>", [1.0, 2.0])], ["2027-01", "2027-02"], "en")
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_at_most_max_lines_are_drawn():
    series = [(f"o{i}", [float(i + 1)] * 3) for i in range(chart.MAX_LINES + 3)]
    html = chart.cumulative(series, ["2027-01", "2027-02", "2027-03"], "en")
    assert "o4" in html and f"o{chart.MAX_LINES}" not in html
