"""The decision map's workbook: the map sheet (largest y on top, each cell the leader's number), its legend, the
cases; names written as text, never formulas."""

import openpyxl
import pandas as pd

from tco.sweep import decision_map as dm
from tco.sweep import map_sheet

WORDS = {"title": "T", "subtitle": "S", "none": "none", "sheet_map": "Map", "sheet_cases": "Cases",
         "legend": "Options", "case": "Case", "leader": "Leader", "tco": "TCO", "more": "{n} more"}


def test_the_workbook_holds_the_map_and_the_cases(tmp_path):
    rows = []
    for case, x, y, lead in [(0, 1.0, 10, "=HYPERLINK(1)"), (1, 2.0, 10, "B"), (2, 1.0, 20, "B"), (3, 2.0, 20, "B")]:
        for name, tco in (("=HYPERLINK(1)", 100.0), ("B", 90.0 + case)):
            rows.append({"case": case, "x": x, "y": y, "option": name, "leader": name == lead, "tco_brl": tco})
    df = pd.DataFrame(rows)
    m = dm.build(df, "x", "y", (1.0, 10), ["=HYPERLINK(1)", "B"])
    p = tmp_path / "m.xlsx"
    map_sheet.write(m, df, p, WORDS)
    wb = openpyxl.load_workbook(p)
    ws = wb["Map"]
    assert [ws.cell(4, c).value for c in (2, 3)] == [1.0, 2.0]
    assert [ws.cell(5, c).value for c in (1, 2, 3)] == [20, 2, 2]  # y = 20 on top: B (number 2) in both cells
    assert [ws.cell(6, c).value for c in (1, 2, 3)] == [10, 1, 2]
    assert ws.cell(8, 1).value == "Options" and [ws.cell(9, c).value for c in (1, 2)] == [1, "=HYPERLINK(1)"]
    assert ws.cell(9, 2).data_type == "s"  # text, not a formula
    cs = wb["Cases"]
    assert [c.value for c in cs[1]] == ["Case", "x", "y", "Leader", "TCO"]
    assert [c.value for c in cs[2]] == [0, 1, 10, "=HYPERLINK(1)", 100]
    assert [c.value for c in cs[5]] == [3, 2, 20, "B", 93]
