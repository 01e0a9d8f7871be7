"""The Sensitivity sheet: the engine's tornado (tco.analysis) as tables and charts; the rows whose input moves the
TCO along a straight line (USD/BRL, cloud prices, dedicated prices) as live formulas of the Finance sheet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.report.workbook.book import Book, num

if TYPE_CHECKING:
    from tco.findings import Sensitivity, Tornado, TornadoRow
    from tco.results import Results


LIVE_SENS = {"usdbrl": "E", "cloud_price": "G", "dedicated_price": "H"}
"""Tornado rows that are live formulas: the input moves the TCO along a straight line whose slope is a part of it
(Finance's break-even table: the USD part, the cloud-price part, the dedicated-price part)."""


def live_diff(res: Results, leader: str, challenger: str, key: str, multiple: float) -> float:
    """TCO difference challenger − leader with `key`'s prices (or the USD/BRL path) times `multiple` [BRL]:
    base difference + (multiple − 1) × (challenger's part − leader's part)."""
    from tco.report.workbook.breakeven import _values

    v = _values(res)
    part = {"usdbrl": v["usd"], "cloud_price": v["cloud"], "dedicated_price": v["dedicated"]}[key]
    names = [o.name for o in res.options]
    a, b = names.index(leader), names.index(challenger)
    return v["tco"][b] - v["tco"][a] + (multiple - 1.0) * (part[b] - part[a])


def _live_row(book: Book, res: Results | None, ws, r: int, row: TornadoRow, block: Tornado) -> bool:
    """Columns E–H of a tornado row as formulas of the Finance sheet when the row is one of LIVE_SENS."""
    key = row.input
    names = [o.name for o in res.options] if res is not None else []
    if (res is None or key not in LIVE_SENS or row.metric != "tco" or "be_first" not in book.outputs
            or block.leader is None or block.challenger is None
            or block.leader not in names or block.challenger not in names):
        return False
    a, b = names.index(block.leader) + 1, names.index(block.challenger) + 1
    fin, first = book.outputs["be_first"]
    c = LIVE_SENS[key]
    slope = f"({fin}${c}${first + b - 1}-{fin}${c}${first + a - 1})"
    x = r + 1
    ws.write_formula(r, 4, f"=out_o{b}_tco-out_o{a}_tco", book.fmt("calc_brl"),
                     num(res.options[b - 1].tco.deterministic - res.options[a - 1].tco.deterministic))
    lo = live_diff(res, block.leader, block.challenger, key, row.low)
    hi = live_diff(res, block.leader, block.challenger, key, row.high)
    ws.write_formula(r, 5, f"=E{x}+(C{x}-1)*{slope}", book.fmt("calc_brl"), num(lo))
    ws.write_formula(r, 6, f"=E{x}+(D{x}-1)*{slope}", book.fmt("calc_brl"), num(hi))
    ws.write_formula(r, 7, f"=ABS(G{x}-F{x})", book.fmt("calc_brl"), num(abs(hi - lo)))
    ws.write_string(r, 10, book.t("sens_live"), book.fmt("small"))
    return True


def write_sensitivity(book: Book, sens: Sensitivity, res: Results | None = None) -> None:
    """Tornado tables and charts of the engine's sensitivity analysis (tco.analysis): the TCO difference
    challenger − leader at the low and high end of each input's range. Rows whose input moves the TCO along a
    straight line (USD/BRL, cloud prices, dedicated prices) are live formulas; the others the engine's values."""
    sheet = book.sheets["sensitivity"]
    ws = book.wb.get_worksheet_by_name(sheet)
    for first, last, width in ((0, 0, 34), (1, 1, 16), (2, 9, 16), (10, 10, 30)):
        ws.set_column(first, last, width)
    ws.write_string(0, 0, book.t("sh_sensitivity"), book.fmt("title"))
    ws.write_string(1, 0, book.t("sens_note"), book.fmt("small"))
    r = 3
    for key, block in sens.pairs().items():
        if block.rows:
            r = _block(book, res, ws, sheet, r, key, block)


def _block(book: Book, res: Results | None, ws, sheet: str, r: int, key: str, block: Tornado) -> int:
    """One block of the analysis from row `r`: its title and pair, the heads, a row per input, the tornado chart
    below; returns the row after the chart."""
    t = book.t
    ws.write_string(r, 0, book.term("sens", key), book.fmt("h2"))
    ws.write_string(r + 1, 0, t("sens_pair"), book.fmt("small"))
    ws.write_string(r + 1, 1, f"{block.challenger} − {block.leader}")  # option names: text
    r += 3
    heads = [t("col_input"), t("unit"), t("col_low"), t("col_high"), t("sens_base"), t("sens_low_diff"),
             t("sens_high_diff"), t("sens_swing"), t("sens_low_dev"), t("sens_high_dev"), t("sens_source")]
    for c, hd in enumerate(heads):
        ws.write_string(r, c, hd, book.fmt("head"))
    first, last = r + 1, r + len(block.rows)
    for k, row in enumerate(block.rows):
        _input_row(book, res, ws, first + k, row, block)
    ws.insert_chart(last + 2, 0, _tornado(book, sheet, first, last), {"x_scale": 1.6, "y_scale": 1.2})
    return last + 23


def _input_row(book: Book, res: Results | None, ws, r: int, row: TornadoRow, block: Tornado) -> None:
    """One input: its label and unit, its low and high values, the differences (live where the input moves the TCO
    along a straight line, else the engine's), and the deviations from the base."""
    ws.write_string(r, 0, book.term("sens_in", row.input, str(row.label)))
    unit = book.term("sens_unit", row.input, str(row.unit))
    if row.metric != "tco":
        unit += f" ({book.term('metric', row.metric)})"
    ws.write_string(r, 1, unit, book.fmt("small"))
    for c, x in ((2, row.low), (3, row.high)):
        ws.write_number(r, c, num(x), book.fmt("eng_num"))
    if not _live_row(book, res, ws, r, row, block):
        for c, x in ((4, row.base_diff_brl), (5, row.low_diff_brl), (6, row.high_diff_brl), (7, row.swing_brl)):
            ws.write_number(r, c, num(x), book.fmt("eng_brl"))
        ws.write_string(r, 10, book.t("sens_engine"), book.fmt("small"))
    ws.write_formula(r, 8, f"=F{r + 1}-E{r + 1}", book.fmt("calc_brl"), num(row.low_diff_brl - row.base_diff_brl))
    ws.write_formula(r, 9, f"=G{r + 1}-E{r + 1}", book.fmt("calc_brl"), num(row.high_diff_brl - row.base_diff_brl))


def _tornado(book: Book, sheet: str, first: int, last: int):
    """The tornado of the rows first..last: the deviations at the low and the high end, one bar each."""
    ch = book.wb.add_chart({"type": "bar"})
    for c, color in ((8, "#9DC3E6"), (9, "#1F3864")):
        ch.add_series({"name": [sheet, first - 1, c], "categories": [sheet, first, 0, last, 0],
                       "values": [sheet, first, c, last, c], "fill": {"color": color}, "overlap": 100, "gap": 40})
    ch.set_title({"name": book.t("chart_tornado"), "name_font": {"size": 11}})
    ch.set_y_axis({"reverse": True, "label_position": "low"})
    ch.set_x_axis({"num_format": '"R$" #,##0'})
    ch.set_legend({"position": "bottom"})
    return ch
