"""Reading catalog files: decoding, CSV rows and checked numbers, with every problem located.

A catalog file is UTF-8 text of at most 20 MB; a number is finite and inside the range its column
allows (prices > 0, counts ≥ 1, …); text is one line of plain text. Problems name the file, the line
and the column, and are collected rather than raised, so a user sees all of them at once.
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

from tco.errors import Problem


def _num(v: str) -> float | None:
    v = (v or "").strip()
    return float(v) if v else None


def _range_text(lo: float | None, hi: float | None, lo_open: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '≥'} {lo:g}")
    if hi is not None:
        parts.append(f"≤ {hi:g}")
    return " and ".join(parts)


class Rows:
    """Read a CSV and collect problems instead of stopping at the first."""

    def __init__(self, path: Path, required: tuple[str, ...]):
        self.path = path
        self.problems: list[Problem] = []
        self.rows = []
        text = read_text(path, self.problems)
        if text is None:
            return
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader, [])
            missing = [c for c in required if c not in header]
            if missing:
                self.problems.append(Problem(str(path), ",".join(missing), "missing column(s)", 1))
            else:
                self.rows = _dict_rows(reader, header)
        except csv.Error as exc:
            self.problems.append(Problem(str(path), "", f"not a readable CSV: {exc}", reader.line_num or None))
            self.rows = []

    def num(self, line: int, row: dict, key: str, required: bool = True, *, lo: float | None = None,
            hi: float | None = None, lo_open: bool = False, integer: bool = False) -> float | None:
        """The cell as a finite number within [lo, hi] (lo excluded if `lo_open`), else None and a problem."""
        try:
            v = _num(row.get(key, ""))
        except ValueError:
            self.problems.append(Problem(str(self.path), key, f"not a number: {row.get(key)!r}", line))
            return None
        if v is None:
            if required:
                self.problems.append(Problem(str(self.path), key, "value is required", line))
            return None
        bad = (not math.isfinite(v) or (lo is not None and (v <= lo if lo_open else v < lo))
               or (hi is not None and v > hi) or (integer and v != int(v)))
        if bad:
            want = ("a whole number " if integer else "a finite number ") + _range_text(lo, hi, lo_open)
            self.problems.append(Problem(str(self.path), key, f"must be {want.strip()}, got {row.get(key)!r}", line))
            return None
        return v

    def text(self, line: int, row: dict, key: str) -> str:
        """A text cell: one line of plain text (control characters are reported)."""
        v = row.get(key) or ""
        if _CONTROL.search(v) or len(v) > 2000:
            self.problems.append(Problem(str(self.path), key, "text must be plain (no control characters, at most "
                                         "2,000 characters)", line))
            return _CONTROL.sub("", v)[:2000]
        return v


    def provenance(self, line: int, row: dict, source_key: str = "source") -> None:
        """A price row names where it comes from and when: a non-blank source, and an as_of that starts with a
        date (YYYY, YYYY-MM or YYYY-MM-DD, then any note) no later than today, or with "undated"."""
        if not (row.get(source_key) or "").strip():
            self.problems.append(Problem(str(self.path), source_key, "the source is required: who published or "
                                         "quoted this figure, the document and its date", line))
        as_of = (row.get("as_of") or "").strip()
        m = _AS_OF.match(as_of)
        if as_of.lower().startswith("undated"):
            return
        if m is None:
            self.problems.append(Problem(str(self.path), "as_of", f"as_of must start with a date (YYYY-MM-DD, YYYY-MM "
                                         f"or YYYY) or with 'undated', got {as_of!r}", line))
        elif _first_day(m) > _today():
            self.problems.append(Problem(str(self.path), "as_of", f"as_of {m.group(0)} is after today; give the date "
                                         "the figure was published or quoted", line))


def _first_day(m: re.Match):
    import datetime as dt

    try:
        return dt.date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:  # 2026-02-30: a date that does not exist is not after today, the pattern caught the rest
        return dt.date.min


def _today():
    import datetime as dt

    return dt.date.today()


_AS_OF = re.compile(r"(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?(?!\d)")


def _dict_rows(reader, header: list[str]) -> list[tuple[int, dict[str, str]]]:
    """(line, column → cell) for each row, as csv.DictReader gives them (blank rows skipped, a missing cell "",
    cells beyond the header dropped, a repeated column's last cell kept) without its per-row overhead."""
    width = len(header)
    out = []
    for row in reader:
        if not row:
            continue
        if len(row) < width:
            row = row + [""] * (width - len(row))
        out.append((reader.line_num, dict(zip(header, row))))
    return out


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
MAX_CATALOG_BYTES = 20_000_000


def read_text(path: Path, problems: list[Problem]) -> str | None:
    """A catalog file's text, or None with a problem (unreadable, not UTF-8, too large)."""
    try:
        if not path.is_file():
            problems.append(Problem(str(path), "", "not a regular file"))
            return None
        if path.stat().st_size > MAX_CATALOG_BYTES:
            problems.append(Problem(str(path), "", f"catalog file larger than {MAX_CATALOG_BYTES:,} bytes"))
            return None
        raw = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(str(path), "", f"cannot read catalog file: {exc.strerror or exc}"))
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(Problem(str(path), "", f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save it as UTF-8",
                                raw[:exc.start].count(b"\n") + 1))
        return None


def all_given(values: list[float | None]) -> list[float] | None:
    """The values when every one was read (a problem was recorded for each missing one), else None."""
    out = [v for v in values if v is not None]
    return out if len(out) == len(values) else None
