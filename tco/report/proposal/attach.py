"""The files the proposal PDF carries: the scenario and the workbook, as attached.

    scenario_bytes(path, keep_comments)   the scenario without its whole-line comments (unless asked)
    workbook_bytes(path, stamp)           the workbook with its document dates set to the proposal's
    attachment_bytes(path, keep, stamp)   either, by suffix (any other file as it is)

Reproducible: the workbook's writer stamps docProps/core.xml with the clock; the attached copy carries the
document date instead, so two runs give the same PDF. Only that part is rewritten: every other part of the zip
is copied as it is stored (its compressed bytes, CRC and sizes), not decompressed and compressed again, which
took a twentieth of the PDF's time for a 0.5 MB workbook.
"""

from __future__ import annotations

import datetime as _dt
import re
import struct
import zipfile
import zlib
from pathlib import Path

_CORE = "docProps/core.xml"
_CORE_DATE = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")
_LOCAL = struct.Struct("<4s5H3L2H")  # local file header (APPNOTE 4.3.7)
_CENTRAL = struct.Struct("<4s6H3L5H2L")  # central directory header (4.3.12)
_END = struct.Struct("<4s4H2LH")  # end of central directory (4.3.16)
_ZIP32 = 0xFFFFFFFF


def scenario_bytes(path: Path, keep_comments: bool) -> bytes:
    """The scenario file as attached: without its comment lines (whole-line `#` comments) unless asked."""
    data = Path(path).read_bytes()
    if keep_comments:
        return data
    lines = data.decode("utf-8").splitlines(keepends=True)
    return "".join(x for x in lines if not x.lstrip().startswith("#")).encode("utf-8")


def _stored(f, info: zipfile.ZipInfo) -> bytes:
    """The bytes of `info` as stored in the open zip `f` (compressed, without its local header)."""
    f.seek(info.header_offset)
    head = f.read(_LOCAL.size)
    if len(head) != _LOCAL.size or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{info.filename}: no local header at {info.header_offset}")
    name_len, extra_len = _LOCAL.unpack(head)[-2:]
    f.seek(info.header_offset + _LOCAL.size + name_len + extra_len)
    data = f.read(info.compress_size)
    if len(data) != info.compress_size:
        raise zipfile.BadZipFile(f"{info.filename}: truncated")
    return data


def _compress(data: bytes, method: int) -> bytes:
    if method == zipfile.ZIP_STORED:
        return data
    if method != zipfile.ZIP_DEFLATED:
        raise zipfile.BadZipFile(f"{_CORE}: compression method {method} not rewritten")
    z = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)  # raw deflate, as zipfile writes it
    return z.compress(data) + z.flush()


def _zip(entries: list[tuple[zipfile.ZipInfo, bytes, int, int]]) -> bytes:
    """A zip of (info, stored bytes, crc, size) in order: local headers and data, central directory, end record."""
    out, central = bytearray(), bytearray()
    for info, data, crc, size in entries:
        name = info.filename.encode("utf-8")
        flags = (info.flag_bits & ~0x08) | (0 if name.isascii() else 0x800)  # sizes in the header: no descriptor
        y, mo, d, h, mi, s = info.date_time
        when = (h << 11 | mi << 5 | s // 2, (y - 1980) << 9 | mo << 5 | d)
        if max(len(out), len(data), size) >= _ZIP32:
            raise zipfile.LargeZipFile("workbook too large to rewrite without zip64")
        central += _CENTRAL.pack(b"PK\x01\x02", info.create_version | info.create_system << 8, 20, flags,
                                 info.compress_type, *when, crc, len(data), size, len(name), 0, 0, 0,
                                 info.internal_attr, info.external_attr, len(out)) + name
        out += _LOCAL.pack(b"PK\x03\x04", 20, flags, info.compress_type, *when, crc, len(data), size, len(name),
                           0) + name + data
    return bytes(out + central + _END.pack(b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central),
                                           len(out), 0))


def workbook_bytes(path: Path, stamp: _dt.datetime) -> bytes:
    """The workbook as attached: its document dates (docProps/core.xml, written at the clock's time) set to the
    proposal's date, every other part copied as stored, so the PDF that embeds it is the same on every run."""
    when = stamp.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    entries = []
    with open(path, "rb") as f, zipfile.ZipFile(f) as src:
        for info in src.infolist():
            if info.flag_bits & 0x01:
                raise zipfile.BadZipFile(f"{info.filename}: encrypted")
            if info.filename == _CORE:
                part = _CORE_DATE.sub(lambda m: m.group(1) + when + m.group(2), src.read(info))
                entries.append((info, _compress(part, info.compress_type), zlib.crc32(part), len(part)))
            else:
                entries.append((info, _stored(f, info), info.CRC, info.file_size))
    return _zip(entries)


def attachment_bytes(p: Path, keep_comments: bool, stamp: _dt.datetime) -> bytes:
    """The bytes attached for `p`: the scenario without comments, the workbook with the document's dates."""
    if p.suffix == ".toml":
        return scenario_bytes(p, keep_comments)
    if p.suffix == ".xlsx":
        try:
            return workbook_bytes(p, stamp)
        except (OSError, ValueError, struct.error, zipfile.BadZipFile, zipfile.LargeZipFile):  # a stand-in: as is
            return p.read_bytes()
    return p.read_bytes()
