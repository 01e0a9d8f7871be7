"""SVG plumbing of the proposal's charts: the house look, a figure without pyplot, one draw cropped to
its content, and the SVG made lean for the PDF renderer (which styles and draws every node in Python).

Each figure is a `matplotlib.figure.Figure` under `rc_context` (no pyplot, no global state touched, so
threads and worker processes cannot interfere), drawn once (the tight crop is taken from that draw, not
from a second one), bars of one series are one compound path rather than a rectangle each, areas are
plain colour (no hatch patterns, which the renderer would draw as thousands of tiles) and coordinates are
written to 0.01 pt.
"""

from __future__ import annotations

import functools
import io
import re

import numpy as np

WIDTH_IN = 6.9
"""Figure width [in]: the A4 text block (210 mm − 2 × 17 mm margins ≈ 176 mm)."""
PAD_IN = 0.04
"""White space kept around the drawn content [in]."""
MARGIN_IN = 4.0
"""Canvas around the nominal figure [in], where legends and labels outside the axes still draw (see `_subplots`)."""
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

        with matplotlib.rc_context(RC):  # type: ignore[arg-type]  # matplotlib checks the keys
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
        if el.tag != text_tag and el.text is not None and not el.text.strip():
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

    # zero-size bars stay, as with bar(): they count in the axes' data limits (and draw their edge, if any)
    x0, y0, x1, y1 = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x0, y0, x1, y1)))
    verts = np.stack([np.stack(c, axis=-1) for c in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))], axis=1)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(x0))
    patch = PathPatch(Path(verts.reshape(-1, 2), codes), **kw)
    ax.add_patch(patch)
    ax.autoscale_view()  # add_patch alone does not rescale the axes (bar() does)
    return patch
