"""tco.report.workbook.print: print setup, outline and protection of every sheet, and the stale banners.

Read back from the written workbook: every sheet A4 landscape with the scenario in its header and the page numbers
in its footer, protected (no password) with input cells unlocked and formulas locked; month sheets print a contract
year a page wide; the header text escapes '&' (a header code) and is cut to its limit; the stale banners are blank as
generated and say so once an input changes (evaluated in-process with the flag set)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report.i18n import t
from tco.report.workbook.print import STALE_AT, header_text

LOC = "pt-BR"


def test_header_text_by_hand():
    assert header_text("R&D 70B") == "R&&D 70B"
    assert header_text("x" * 150) == "x" * 100
    assert header_text("&" * 60, limit=3) == "&&&&&&"


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200))
def test_header_text_reads_back_as_written(text):
    out = header_text(text)
    assert out.replace("&&", "&") == text[:100]
    assert "&" not in out.replace("&&", "")  # every '&' doubled: no header code can start


def test_every_sheet_is_a4_landscape_with_header_and_footer(small_run, book):
    for name in book.f.sheetnames:
        ws = book.f[name]
        assert ws.page_setup.orientation == "landscape" and int(ws.page_setup.paperSize) == 9, name
        assert header_text(small_run.scenario.scenario.name) in ws.oddHeader.right.text
        assert "&P" in ws.oddFooter.right.text and "&N" in ws.oddFooter.right.text
        assert ws.protection.sheet is True and not ws.protection.password, name


def test_inputs_are_unlocked_and_formulas_locked(book):
    s, ref = book.name_ref("in_usdbrl")
    assert book.f[s][ref].protection.locked is False
    s, ref = book.name_ref("out_o1_tco")
    assert book.f[s][ref].protection.locked is True


def test_month_sheets_repeat_their_labels(book):
    ws = book.f[t("sh_timeline", LOC)]
    assert ws.print_title_cols == "$A:$C"


def test_stale_banners_blank_as_generated_and_shown_after_an_edit(book):
    flag_sheet, flag_ref = book.name_ref("chk_inputs_changed")
    for key, (r, c) in STALE_AT.items():
        sheet = t("sh_" + key, LOC)
        if sheet not in book.f.sheetnames:
            continue
        assert book.formula(sheet, r + 1, c + 1) == f'=IF(chk_inputs_changed,"{t("stale_banner", LOC)}","")'
        assert book.cached(sheet, r + 1, c + 1) in (None, "")
        assert book.evaluate(sheet, r + 1, c + 1, {(flag_sheet, flag_ref): 2}) == t("stale_banner", LOC)
