"""Print setup, outline and protection of every sheet of the workbook.

- Print: A4 landscape, a header (sheet name; scenario) and a footer (tco version; page x of y) on every
  page. Sheets with months across the columns print a year of months a page wide (page breaks at each
  contract year, labels and titles repeated); the other sheets fit their width to one page.
- Outline: the 24 hourly rows (Timeline, Calc sheets) and the month columns are grouped (level 1, left
  open), so a reader folds the detail away and keeps the totals in column C.
- Protection: every sheet is protected without a password, so a formula is not overwritten by accident;
  input cells (the input style) are unlocked and stay editable. Columns and rows can still be formatted.
"""

from __future__ import annotations

from tco import __version__
from tco.report.workbook.book import FIRST_COL, Book

MONTH_SHEETS = ("timeline", "fx")
"""Sheets (besides the Calc sheets) with months across the columns from column E."""
PROTECT = {"format_columns": True, "format_rows": True, "select_locked_cells": True, "select_unlocked_cells": True,
           "autofilter": True, "sort": False, "objects": False}


def header_text(text: str, limit: int = 100) -> str:
    """Text for a header/footer section: '&' doubled (it starts a header code), cut to `limit` characters.

    >>> header_text("R&D 70B")
    'R&&D 70B'
    """
    return text[:limit].replace("&", "&&")


def unlock_inputs(book: Book) -> None:
    """Input cells stay editable on a protected sheet: the input formats are unlocked."""
    for key, f in book.fmts.items():
        if key.startswith("in_"):
            f.set_locked(False)


STALE_AT = {"comparison": (1, 8), "fx": (2, 0), "sensitivity": (2, 0), "plans": (2, 0)}
"""Cell (0-based row, column) of each sheet with engine values where the stale banner goes."""


def stale_banners(book: Book, keys: list[str]) -> int:
    """Above every block of engine values (Monte Carlo, tornado, plan search): a banner that reads "engine values:
    the inputs have changed since" when the Checks sheet's flag ``chk_inputs_changed`` is set (blank as generated).
    Written only where the Checks sheet defines the flag. Returns the number of banners."""
    from tco.report.workbook.breakeven import defined

    if not defined(book, "chk_inputs_changed"):
        return 0
    text = book.t("stale_banner").replace('"', "'")
    fmt = book.wb.add_format({"bold": True, "font_color": "#C00000", "font_size": 9})
    n = 0
    for k in keys:
        if k in STALE_AT:
            r, c = STALE_AT[k]
            book.wb.get_worksheet_by_name(book.sheets[k]).write_formula(r, c, f'=IF(chk_inputs_changed,"{text}","")',
                                                                        fmt, "")
            n += 1
    return n


def finish(book: Book, res, keys: list[str]) -> None:
    """Stale banners, print setup, outline and protection of the sheets `keys` (book.sheets keys)."""
    t = book.t
    stale_banners(book, keys)
    scenario = header_text(res.scenario.scenario.name)
    header = f"&L&\"-,Bold\"&A&R{scenario}"
    footer = f"&Ltco {header_text(__version__)}&R{header_text(t('page'))} &P {header_text(t('page_of'))} &N"
    for k in keys:
        ws = book.wb.get_worksheet_by_name(book.sheets[k])
        ws.set_landscape()
        ws.set_paper(9)  # A4
        ws.hide_gridlines(2)
        ws.set_header(header)
        ws.set_footer(footer)
        ws.set_margins(left=0.4, right=0.4, top=0.7, bottom=0.7)
        if k in MONTH_SHEETS or k.startswith("calc"):
            _month_sheet(book, ws, k)
        else:  # one page wide; the Finance sheet at most two tall, so the print pack stays within six pages
            ws.fit_to_pages(1, 2 if k == "finance" else 0)
            ws.repeat_rows(0, 2 if k in ("comparison", "checks", "finance") else 0)
        if k == "checks" and "master" in book.outputs:  # the print pack: the integrity checks and the master
            from tco.report.workbook.checks import book_master_row

            ws.print_area(0, 0, book_master_row(book) + 1, 5)
        ws.protect("", PROTECT)


def _month_sheet(book: Book, ws, key: str) -> None:
    """A contract year of months a page wide, labels (A–C) and the title rows repeated; hourly rows and the months
    grouped."""
    h = book.horizon
    ws.repeat_columns(0, 2)
    ws.repeat_rows(0, 2)
    ws.set_print_scale(year_scale(ws))
    ws.set_v_pagebreaks([FIRST_COL + 12 * y for y in range(1, -(-h // 12))])
    # one range for the months (column by column, LibreOffice prints each grouped column on a page of its own);
    # the months share the width and format the sheet gave its first month
    # (XlsxWriter keeps a column's width in pixels)
    info = ws.col_info.get(FIRST_COL)
    ws.set_column_pixels(FIRST_COL, FIRST_COL + h - 1, info.width if info else None,
                         info.column_format if info else None, {"level": 1})
    hourly = _hourly_rows(book, key)
    for r in hourly:
        ws.set_row(r, None, None, {"level": 1})


PAGE_PX = 1046
"""Printable width of an A4 landscape page with 0.4-inch side margins, at 100 % [px at 96 dpi]: (297 − 20.3) mm."""


def year_scale(ws) -> int:
    """The print scale [%] at which the label columns (A–D) and twelve months fit a page's width, with a margin for
    LibreOffice's wider rendering of the same widths (the review's 55 % printed 9 + 3 months a page)."""
    info = ws.col_info
    default = 64  # px: an unset column
    labels = sum(info[c].width if c in info else default for c in range(FIRST_COL))
    month = info[FIRST_COL].width if FIRST_COL in info else default
    return max(10, min(55, int(100 * PAGE_PX * 0.72 / (labels + 12 * month))))


def _hourly_rows(book: Book, key: str) -> list[int]:
    """0-based rows of the 24 hourly rows of a sheet: Timeline rps_hh, a Calc sheet's srv_hh."""
    if key == "timeline":
        return sorted(r for k, r in book.rows.items() if k.startswith("rps_"))
    if key.startswith("calc"):
        rows = book.outputs.get((int(key[4:]), "rows"), {})
        return sorted(r for k, r in rows.items() if k.startswith("srv_"))
    return []
