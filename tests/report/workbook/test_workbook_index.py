"""tco.report.workbook.index: the Index sheet, a link to every sheet with what it holds.

Read back from the written workbook: one row per sheet in the workbook's order, each an internal link to that sheet's
A1 (never an external URL), a calculation sheet described with its option's name as plain text."""

from __future__ import annotations


from tco.report.i18n import t

LOC = "pt-BR"


def test_a_link_to_every_sheet_in_order(book):
    ws = book.f[t("sh_index", LOC)]
    names = [ws.cell(r, 1).value for r in range(5, 5 + len(book.f.sheetnames))]
    assert names == book.f.sheetnames
    for r, name in enumerate(names, start=5):
        link = ws.cell(r, 1).hyperlink
        assert link is not None and link.target is None  # internal: no file or URL target
        assert link.location == "'" + name.replace("'", "''") + "'!A1"


def test_each_sheet_says_what_it_holds(small_run, book):
    ws = book.f[t("sh_index", LOC)]
    holds = {ws.cell(r, 1).value: ws.cell(r, 2).value for r in range(5, 5 + len(book.f.sheetnames))}
    assert holds[t("sh_inputs", LOC)] == t("ix_inputs", LOC)
    for i, o in enumerate(small_run.options, start=1):
        assert holds[t("sh_calc", LOC, i=i)] == t("ix_calc", LOC) + ": " + o.name
    assert all(holds.values())


def test_the_index_is_the_second_sheet(book):
    assert book.f.sheetnames[1] == t("sh_index", LOC)
