"""The proposal's attachments: the workbook copied part by part as stored, only its document dates rewritten;
read back with zipfile (the oracle), byte by byte where nothing should change."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

import pytest

from tco.report.proposal import attach as pa

STAMP = dt.datetime(2027, 3, 1, tzinfo=dt.timezone.utc)
CORE = ('<cp:coreProperties><dcterms:created xsi:type="dcterms:W3CDTF">{when}</dcterms:created>'
        '<dcterms:modified xsi:type="dcterms:W3CDTF">{when}</dcterms:modified></cp:coreProperties>')
PARTS = {
    "[Content_Types].xml": "<Types>" + "<Override/>" * 50 + "</Types>",
    "docProps/core.xml": CORE.format(when="2026-12-01T03:08:41Z"),
    "xl/worksheets/sheet1.xml": "<sheetData>" + "".join(f'<c r="A{i}"><f>B{i}*2</f></c>' for i in range(2000))
                                + "</sheetData>",
    "xl/média ç.xml": "<x>not ASCII</x>",  # a name outside ASCII keeps its UTF-8 flag
}


def _book(path: Path, stored: tuple[str, ...] = (), stream: bool = False) -> Path:
    """A workbook-like zip: deflated parts (some stored); `stream` writes it unseekable (data descriptors)."""
    buf = io.BytesIO()
    target = _Unseekable(buf) if stream else buf
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in PARTS.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    path.write_bytes(buf.getvalue())
    return path


class _Unseekable(io.RawIOBase):
    def __init__(self, buf):
        self.buf = buf

    def writable(self):
        return True

    def write(self, b):
        return self.buf.write(b)

    def seekable(self):
        return False

    def tell(self):
        raise OSError("unseekable")


def _stored_parts(data: bytes) -> dict[str, bytes]:
    f = io.BytesIO(data)
    with zipfile.ZipFile(f) as z:
        return {i.filename: pa._stored(f, i) for i in z.infolist()}


@pytest.mark.parametrize("stored,stream", [((), False), (("docProps/core.xml",), False), ((), True)])
def test_workbook_parts_copied_as_stored_and_dates_set(tmp_path, stored, stream):
    src = _book(tmp_path / "w.xlsx", stored, stream)
    out = pa.workbook_bytes(src, STAMP)
    with zipfile.ZipFile(io.BytesIO(out)) as z:
        assert z.testzip() is None  # every CRC checks
        assert [i.filename for i in z.infolist()] == list(PARTS)
        got = {n: z.read(n).decode() for n in PARTS}
        flags = {i.filename: i.flag_bits for i in z.infolist()}
    assert got["docProps/core.xml"] == CORE.format(when="2027-03-01T00:00:00Z")
    assert {n: v for n, v in got.items() if n != "docProps/core.xml"} == {
        n: v for n, v in PARTS.items() if n != "docProps/core.xml"}
    before, after = _stored_parts(src.read_bytes()), _stored_parts(out)
    for name in PARTS:
        if name != "docProps/core.xml":
            assert after[name] == before[name], name  # the compressed bytes themselves: not recompressed
    assert flags["xl/média ç.xml"] & 0x800 and not any(f & 0x08 for f in flags.values())


def test_workbook_bytes_do_not_depend_on_the_clock(tmp_path):
    a = pa.workbook_bytes(_book(tmp_path / "a.xlsx"), STAMP)
    PARTS_B = CORE.format(when="2031-07-09T23:59:59Z")
    b_path = tmp_path / "b.xlsx"
    with zipfile.ZipFile(_book(tmp_path / "b0.xlsx")) as z0, zipfile.ZipFile(b_path, "w") as z:
        for info in z0.infolist():
            z.writestr(info, PARTS_B if info.filename == "docProps/core.xml" else z0.read(info))
    assert pa.workbook_bytes(b_path, STAMP) == a


def test_a_real_workbook_reads_back_the_same(tmp_path):
    """XlsxWriter's own zip: every part equal after the copy, core.xml apart from its two dates."""
    xlsxwriter = pytest.importorskip("xlsxwriter")
    path = tmp_path / "real.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("Dados")
    for r in range(200):
        ws.write_formula(r, 0, f"=B{r + 1}*2")
    wb.close()
    out = pa.workbook_bytes(path, STAMP)
    with zipfile.ZipFile(path) as z0, zipfile.ZipFile(io.BytesIO(out)) as z1:
        assert z1.testzip() is None and z0.namelist() == z1.namelist()
        for name in z0.namelist():
            if name != "docProps/core.xml":
                assert z1.read(name) == z0.read(name), name
        assert z1.read("docProps/core.xml").decode().count("2027-03-01T00:00:00Z") == 2


def test_a_file_that_is_not_a_zip_is_attached_as_it_is(tmp_path):
    f = tmp_path / "model.xlsx"
    f.write_bytes(b"PK\x03\x04 stand-in workbook")
    assert pa.attachment_bytes(f, False, STAMP) == f.read_bytes()
    other = tmp_path / "notes.txt"
    other.write_bytes(b"# kept\n")
    assert pa.attachment_bytes(other, False, STAMP) == b"# kept\n"


def test_scenario_comments_left_out_unless_asked(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("# whole-line comment\n  # indented one\n[scenario]\nname = 'x' # kept\n", encoding="utf-8")
    assert pa.attachment_bytes(f, False, STAMP) == b"[scenario]\nname = 'x' # kept\n"
    assert pa.attachment_bytes(f, True, STAMP) == f.read_bytes()
