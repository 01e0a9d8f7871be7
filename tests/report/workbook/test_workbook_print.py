"""tco.report.workbook.print: print setup, outline and protection of every sheet, and the stale banners.

Read back from the written workbook: every sheet A4 landscape with the scenario in its header and the page numbers
in its footer, protected (no password) with input cells unlocked and formulas locked; month sheets print a contract
year a page wide; the header text escapes '&' (a header code) and is cut to its limit; the stale banners are blank as
generated and say so once an input changes (evaluated in-process with the flag set)."""

from __future__ import annotations

import pytest
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


def test_year_scale_fits_labels_and_twelve_months():
    """The print scale of a month sheet: a page's width (1,046 px at 100 %) × 0.72 for LibreOffice's wider rendering
    over the label columns + 12 months; the calc sheets' 313 + 75 + 131 + 19 px of labels and 103 px a month give
    100 × 1046 × 0.72 / 1774 = 42.4 → 42 %."""
    import xlsxwriter

    from tco.report.workbook.print import year_scale

    ws = xlsxwriter.Workbook("unused.xlsx", {"in_memory": True}).add_worksheet()
    for c, w in ((0, 44), (1, 10), (2, 18), (3, 2)):
        ws.set_column(c, c, w)
    ws.set_column(4, 40, 14)
    assert [ws.col_info[c].width for c in range(5)] == [313, 75, 131, 19, 103]
    assert year_scale(ws) == int(100 * 1046 * 0.72 / (313 + 75 + 131 + 19 + 12 * 103)) == 42


@pytest.mark.slow
def test_libreoffice_prints_a_year_a_page_and_the_pack_in_six_pages(tmp_path):
    """The seed's workbook exported to PDF by LibreOffice: each Calc page shows twelve months (a contract year, not
    9 + 3), and the print pack (Summary, Finance, Checks) takes at most six pages."""
    import shutil
    import subprocess
    from pathlib import Path

    import pytest

    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.report import view, workbook
    from tco.scenario import load
    from test_workbook import RECALC_XCU

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None or shutil.which("pdftotext") is None:
        pytest.skip("LibreOffice or pdftotext is not installed")
    seed = Path(__file__).resolve().parents[3] / "scenarios" / "seed_70b_h200.toml"
    s, _, _ = load(seed)
    res = run_scenario(s, load_catalog(), file=str(seed), paths=200)
    xlsx = tmp_path / "seed.xlsx"
    workbook.write(res, view.build(res), xlsx)
    profile = tmp_path / "profile"
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_XCU, encoding="utf-8")
    subprocess.run([soffice, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(xlsx)], check=True, capture_output=True,
                   timeout=600)
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "seed.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout
    pages = [p for p in text.split("\f") if p.strip()]
    sheet_of = [p.strip().split()[0] for p in pages]
    pack = sum(1 for x in sheet_of if x in (t("sh_summary", LOC), t("sh_finance", LOC), t("sh_checks", LOC)))
    assert 3 <= pack <= 6, sheet_of
    calc = [p for p, x in zip(pages, sheet_of) if x == t("sh_calc", LOC, i=1).split()[0]]
    months = [line for p in calc for line in p.splitlines() if line.lstrip().startswith(t("month", LOC))]
    assert months and all(len(line.split()) == 13 for line in months), months[:2]  # the label + 12 months
