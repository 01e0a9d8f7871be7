"""The decision map as a small workbook for finance: one sheet with the map (the y axis down the rows, the x
axis across the columns, each cell the leading option's number, filled in its colour), its legend, and one sheet
listing every case with its axes, its leader and the leader's TCO. Every name is written as a string cell
(never a formula), whatever characters it holds.
"""

from __future__ import annotations

from pathlib import Path

from tco.sweep.decision_map import NONE_COLOUR, PALETTE, MapData

MAX_CASE_ROWS = 100_000
"""The case list stops here (a note says how many more the Parquet table has)."""


def write(m: MapData, df, path: Path, words: dict[str, str]) -> None:
    """The workbook at `path`; `df` the sweep's table, `words` the sheet's texts in the run's locale
    (title, subtitle, legend, cases, case, leader, tco, none, more)."""
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False, "strings_to_urls": False})
    try:
        _map_sheet(wb, m, words)
        _case_sheet(wb, m, df, words)
    finally:
        wb.close()


def _map_sheet(wb, m: MapData, words: dict) -> None:
    ws = wb.add_worksheet(words["sheet_map"])
    bold = wb.add_format({"bold": True})
    ws.write_string(0, 0, words["title"], wb.add_format({"bold": True, "font_size": 14}))
    ws.write_string(1, 0, words["subtitle"])
    ws.write_string(3, 0, f"{m.y} \u2193  {m.x} \u2192", bold)
    number = {name: k + 1 for k, name in enumerate(m.options)}
    fmts = {name: wb.add_format({"bg_color": PALETTE[k % len(PALETTE)], "align": "center", "border": 1,
                                 "border_color": "#ffffff"}) for k, name in enumerate(m.options)}
    none = wb.add_format({"bg_color": NONE_COLOUR, "align": "center"})
    for i, v in enumerate(m.xs):
        _value(ws, 3, i + 1, v, bold)
    for r, j in enumerate(reversed(range(len(m.ys)))):  # the largest y on top, as on the picture
        _value(ws, 4 + r, 0, m.ys[j], bold)
        for i, (name, _share) in enumerate(m.cells[j]):
            if name is None:
                ws.write_string(4 + r, i + 1, "—", none)
            else:
                ws.write_number(4 + r, i + 1, number[name], fmts[name])
    row = 5 + len(m.ys)
    ws.write_string(row, 0, words["legend"], bold)
    for name, k in number.items():
        ws.write_number(row + k, 0, k, fmts[name])
        ws.write_string(row + k, 1, name)
    ws.set_column(0, 0, 16)
    ws.set_column(1, len(m.xs), 7)


def _value(ws, row: int, col: int, v, fmt) -> None:
    import numbers

    if isinstance(v, numbers.Real) and not isinstance(v, bool):  # numpy's numbers too
        ws.write_number(row, col, float(v), fmt)
    else:
        ws.write_string(row, col, str(v), fmt)


def _case_sheet(wb, m: MapData, df, words: dict) -> None:
    ws = wb.add_worksheet(words["sheet_cases"])
    bold = wb.add_format({"bold": True})
    money = wb.add_format({"num_format": "#,##0"})
    heads = [words["case"], m.x, m.y, words["leader"], words["tco"]]
    for c, h in enumerate(heads):
        ws.write_string(0, c, h, bold)
    lead = df[df["leader"].fillna(False).astype(bool)].set_index("case")
    cases = df.drop_duplicates("case").set_index("case")
    has_tco = "tco_brl" in df.columns
    for r, (case, row) in enumerate(cases.iloc[:MAX_CASE_ROWS].iterrows(), start=1):
        ws.write_number(r, 0, int(case))
        _value(ws, r, 1, row[m.x], None)
        _value(ws, r, 2, row[m.y], None)
        if case in lead.index:
            ws.write_string(r, 3, str(lead.at[case, "option"]))
            if has_tco:
                ws.write_number(r, 4, float(lead.at[case, "tco_brl"]), money)
        else:
            ws.write_string(r, 3, words["none"])
    if len(cases) > MAX_CASE_ROWS:
        ws.write_string(MAX_CASE_ROWS + 1, 0, words["more"].format(n=len(cases) - MAX_CASE_ROWS))
    ws.set_column(0, 2, 14)
    ws.set_column(3, 3, 60)
    ws.set_column(4, 4, 16)
