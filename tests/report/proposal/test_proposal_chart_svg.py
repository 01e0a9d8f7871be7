"""tco.report.proposal.chart_svg: the drawing plumbing of the proposal's charts (ticks, coordinates, path data, labels).

Hand cases for the path strings and label boxes, and properties: nice ticks are round, evenly spaced, inside the
range and never more than asked; a frame maps its limits to its edges and back; coordinates print without trailing
zeros or "-0"; every label's text is escaped, so no name can become markup."""

from __future__ import annotations

import html
import math
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tco.report.proposal import chart_svg as cs

PROPS = settings(max_examples=300, deadline=None)


# --- numbers and ticks -------------------------------------------------------------------------------------------------

def test_num_by_hand():
    assert cs.num(12.0) == "12"
    assert cs.num(12.5) == "12.5"
    assert cs.num(12.345) in ("12.35", "12.34")  # two decimals (float rounding of the half)
    assert cs.num(0.001) == "0"
    assert cs.num(-0.001) == "0"  # never "-0"
    assert cs.num(-3.1) == "-3.1"


@PROPS
@given(v=st.floats(-1e6, 1e6))
def test_num_is_the_value_to_a_hundredth(v):
    text = cs.num(v)
    assert text != "-0" and not re.search(r"\.\d*0$", text) and not text.endswith(".")
    assert abs(float(text) - v) <= 0.005 + 1e-9


def test_nice_ticks_by_hand():
    # 0 to 163,000 in at most 6 bins: raw step 27,167 → the next nice step is 30,000
    assert cs.nice_ticks(0.0, 163_000.0, 6) == [0.0, 30_000.0, 60_000.0, 90_000.0, 120_000.0, 150_000.0]
    # 1 to 9 in 4 bins: raw 2 → step 2, ticks 2, 4, 6, 8 (0 and 10 are outside the range)
    assert cs.nice_ticks(1.0, 9.0, 4) == [2.0, 4.0, 6.0, 8.0]
    assert cs.nice_ticks(3.0, 3.0, 5) == [3.0] and cs.nice_ticks(4.0, 2.0, 5) == [4.0]


@PROPS
@given(lo=st.floats(-1e9, 1e9), span=st.floats(1e-3, 1e9), nbins=st.integers(2, 10))
def test_nice_ticks_are_round_evenly_spaced_and_inside(lo, span, nbins):
    """With two bins or more the nice step is under the span (the widest jump of the sequence is 1.5×), so there is
    always a tick (the charts ask for 6 or 7)."""
    hi = lo + span
    assume(span > 1e-6 * abs(lo))  # an axis spans more than a millionth of its values (else floats blur the step)
    ticks = cs.nice_ticks(lo, hi, nbins)
    assert ticks
    tol = 1e-9 * max(abs(lo), abs(hi), span)
    assert ticks[0] >= lo - tol and ticks[-1] <= hi + tol
    assert len(ticks) - 1 <= nbins
    if len(ticks) > 1:
        step = ticks[1] - ticks[0]
        steps = [b - a for a, b in zip(ticks, ticks[1:])]
        assert all(math.isclose(s, step, rel_tol=1e-6) for s in steps)
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10))
        assert step >= span / nbins * (1 - 1e-6)  # never more intervals than asked
    assert 0.0 not in ticks or math.copysign(1, ticks[ticks.index(0.0)]) == 1  # a zero tick is +0


# --- the frame -------------------------------------------------------------------------------------------------------

def test_frame_maps_its_limits_to_its_edges():
    f = cs.Frame(10.0, 20.0, 100.0, 50.0, (0.0, 4.0), (0.0, 10.0))
    assert (f.right, f.bottom) == (110.0, 70.0)
    assert f.x(0) == 10.0 and f.x(4) == 110.0 and f.x(1) == 10.0 + 100.0 / 4
    assert f.y(0) == 70.0 and f.y(10) == 20.0  # y grows downwards
    assert f.y(2.5) == 70.0 - 2.5 / 10 * 50.0


@PROPS
@given(x0=st.floats(-1e6, 1e6), dx=st.floats(1e-3, 1e6), t=st.floats(0, 1))
def test_frame_is_linear(x0, dx, t):
    f = cs.Frame(5.0, 5.0, 400.0, 200.0, (x0, x0 + dx), (x0, x0 + dx))
    v = x0 + t * dx
    tol = 1e-12 * 400 * (1 + abs(x0) / dx)  # the float error of x0 + t·dx, seen through the scale 400 / dx
    assert f.x(v) == pytest.approx(5.0 + t * 400.0, abs=tol)
    assert f.y(v) == pytest.approx(205.0 - t * 200.0, abs=tol)


# --- path data --------------------------------------------------------------------------------------------------------

def test_path_data_by_hand():
    assert cs.polyline([0, 1.5, 3], [10, 5, 0]) == "M0 10 L1.5 5 L3 0"
    assert cs.polyline([], []) == ""
    assert cs.rects([0], [1], [2], [3]) == "M0 1H2V3H0Z"
    assert cs.rects([0, 5], [0, 0], [1, 6], [2, 2]) == "M0 0H1V2H0ZM5 0H6V2H5Z"
    assert cs.markers([10], [20], "s", 4) == "M8 18H12V22H8Z"  # a 4 pt square centred on (10, 20)
    assert cs.markers([10], [20], "o", 4) == "M8 20a2 2 0 1 0 4 0a2 2 0 1 0 -4 0Z"  # two half-circle arcs


def test_a_path_carries_only_the_attributes_asked():
    c = cs.Chart(100.0)
    c.path("")  # nothing to draw: no node
    c.path("M0 0H1", stroke="#123456", width=0.75, dash=(2, 1.5), opacity=0.25)
    c.path("M0 0H1", clipped=True)  # no clip frame set: not clipped
    assert c.shapes == ['<path d="M0 0H1" fill="none" stroke="#123456" stroke-width="0.75" stroke-linejoin="round" '
                        'stroke-dasharray="2 1.5" fill-opacity="0.25"/>', '<path d="M0 0H1" fill="none"/>']
    c.clip = cs.Frame(1, 2, 3, 4, (0, 1), (0, 1))
    c.path("M0 0H1", clipped=True)
    assert c.shapes[-1].endswith('clip-path="url(#plot)"/>')
    assert '<clipPath id="plot"><rect x="1" y="2" width="3" height="4"/></clipPath>' in c.html()


# --- labels ----------------------------------------------------------------------------------------------------------

def test_label_boxes_by_hand():
    c = cs.Chart(100.0)
    c.label(50.0, 40.0, "x")  # left edge at x; middle of a digit at y: top = 40 − 0.48 × 8
    c.label(300.0, 40.0, "x", "r")  # right-aligned in a 220 pt box ending at x
    c.label(300.0, 40.0, "a\nb", "c", size=10.0, color="#ff0000")
    assert c.labels[0] == f'<span class="l" style="left:50pt;top:{cs.num(40 - 0.48 * 8)}pt">x</span>'
    assert c.labels[1] == f'<span class="r" style="left:80pt;top:{cs.num(40 - 0.48 * 8)}pt">x</span>'
    top = 40 - (0.48 + 0.5) * 10  # two lines: the block's middle at y
    assert c.labels[2] == (f'<span class="c" style="left:190pt;top:{cs.num(top)}pt;font-size:10pt;color:#ff0000">'
                           "a<br>b</span>")


@PROPS
@given(text=st.text(max_size=60))
def test_every_label_is_escaped(text):
    c = cs.Chart(50.0)
    c.label(0, 0, text)
    body = re.fullmatch(r'<span class="l" style="[^"<>]*">(.*)</span>', c.labels[0], flags=re.S)
    assert body, c.labels[0]
    inner = body[1]
    assert "<" not in inner.replace("<br>", "")
    assert html.unescape(inner.replace("<br>", "\n")) == text


def test_html_is_one_div_with_the_svg_then_the_labels():
    c = cs.Chart(120.0)
    c.path("M0 0H1", stroke=cs.INK)
    c.label(1, 1, "<b>x</b>")
    out = c.html()
    w = cs.num(cs.WIDTH_PT)
    assert cs.WIDTH_PT == pytest.approx(176 / 25.4 * 72)  # 176 mm in points
    assert out.startswith(f'<div class="chart" style="height:120pt"><svg xmlns="http://www.w3.org/2000/svg" '
                          f'width="{w}pt" height="120pt" viewBox="0 0 {w} 120">')
    assert out.endswith("&lt;b&gt;x&lt;/b&gt;</span></div>")
    assert out.count("<path") == 1 and "<defs>" not in out


# --- axes and legend -----------------------------------------------------------------------------------------------------

def test_value_axis_draws_one_grid_path_one_tick_path_and_a_label_per_tick():
    c = cs.Chart(200.0)
    f = cs.Frame(50.0, 10.0, 300.0, 150.0, (0, 1), (0, 100))
    cs.value_axis(c, f, [0, 50, 100], ["0", "50", "100"], True, "R$ mil")
    assert len(c.shapes) == 2
    assert c.shapes[0].startswith('<path d="M50 160H350M50 85H350M50 10H350"')  # grid at y = 160, 85, 10
    assert len(c.labels) == 4 and c.labels[-1].startswith('<span class="v"')
    assert ">R$ mil<" in c.labels[-1]


def test_spines_are_the_left_and_bottom_edges():
    c = cs.Chart(100.0)
    cs.spines(c, cs.Frame(10, 20, 30, 40, (0, 1), (0, 1)))
    assert c.shapes[0].startswith('<path d="M10 20V60H40"')


def test_legend_is_centred():
    c = cs.Chart(100.0)
    drawn = []
    items = [("A", "line"), ("Bb", "band")]
    cs.legend(c, 90.0, items, lambda kind, x, y: drawn.append((kind, x, y)))
    widths = [15 + 6 + cs.text_width(label, cs.LEGEND_PT) for label, _ in items]
    left = (cs.WIDTH_PT - sum(widths) - 15) / 2  # one 15 pt gap between two entries
    assert drawn[0] == ("line", pytest.approx(left), 90.0)
    assert drawn[1][1] == pytest.approx(left + widths[0] + 15)
    assert len(c.labels) == 2


def test_text_width_of_an_unknown_character_is_an_m():
    assert cs.text_width("\u4e2d", 10.0) == cs.text_width("M", 10.0) == 1767 * 10.0 / 2048
    assert cs.text_width("", 8.0) == 0.0
