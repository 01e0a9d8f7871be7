"""The Index sheet: a link to every sheet with what it holds, the flow of the model and the colour legend.

Links are internal only (``internal:'Sheet'!A1``, a location inside this file); sheet names come from the
catalog of labels, never from the scenario, and option names are written as plain text beside them.
"""

from __future__ import annotations

from tco import __version__
from tco.report.workbook.book import Book, qs


def write_index(book: Book, res, keys: list[str]) -> None:
    sheet = book.sheets["index"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    ws.set_column(0, 0, 30)
    ws.set_column(1, 1, 90)
    ws.write_string(0, 0, t("sh_index"), book.fmt("title"))
    ws.merge_range(1, 0, 1, 1, t("ix_flow"), book.fmt("small_wrap"))
    ws.set_row(1, 30)
    ws.write_string(3, 0, t("ix_sheet"), book.fmt("head"))
    ws.write_string(3, 1, t("ix_holds"), book.fmt("head"))
    url = book.wb.get_default_url_format()
    r = 4
    for k in keys:
        name = book.sheets[k]
        ws.write_url(r, 0, f"internal:{qs(name)}A1", url, string=name)
        if k.startswith("calc"):
            o = res.options[int(k[4:]) - 1]
            ws.write_string(r, 1, t("ix_calc") + ": " + o.name)  # option name: scenario text, plain
        else:
            ws.write_string(r, 1, t("ix_" + k))
        r += 1
    r += 1
    ws.write_string(r, 0, t("ix_legend"), book.fmt("h2"))
    r += 1
    legend = (("in_num", 1234.5, "ix_input"), ("calc_num", 1234.5, "ix_calc_cell"), ("link", 1234.5, "ix_link"),
              ("check", True, "ix_check"), ("eng_num", 1234.5, "ix_engine"))
    for fmt, sample, key in legend:
        if isinstance(sample, bool):
            ws.write_boolean(r, 0, sample, book.fmt(fmt))
        else:
            ws.write_number(r, 0, sample, book.fmt(fmt))
        ws.write_string(r, 1, t(key))
        r += 1
    r += 1
    ws.merge_range(r, 0, r, 1, t("ix_protection"), book.fmt("small_wrap"))
    ws.set_row(r, 30)
    r += 2
    ws.write_string(r, 0, t("generated", v=__version__), book.fmt("small"))
