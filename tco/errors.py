"""Errors meant for people: each problem names the file, the line where known and the key path."""

from __future__ import annotations

import re

from tco.domain import record

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a terminal would act on instead of showing: C0 and C1 control characters (ESC starts the escape sequences
that set a window title, clear the screen or write the clipboard) but tab and newline; the line and paragraph
separators; the bidirectional marks, embeddings, overrides and isolates (text shown in another order than written);
the lone surrogates a file name of bytes that are not UTF-8 decodes to (which print cannot encode)."""


def printable(text) -> str:
    """`text` safe to echo on a terminal: every character of _UNPRINTABLE shown as \\xNN or \\uNNNN, the rest as
    it is. The one helper every message, file name and key path goes through before it is printed (review M7)."""
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", str(text))


@record
class Problem:
    """One thing wrong with an input file."""

    file: str
    key: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        key = f" [{self.key}]" if self.key else ""
        return printable(f"{where}:{key} {self.message}")


class InputError(Exception):
    """Bad input: carries every problem found, so the user can fix them all at once."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def closest(name: str, valid: list[str] | tuple[str, ...], n: int = 3) -> str:
    """A 'did you mean …' phrase listing the closest valid names (or some valid names)."""
    import difflib

    valid = sorted(set(valid))
    hits = difflib.get_close_matches(name, valid, n=n, cutoff=0.4)
    if not hits:
        # fall back on substring matches, then on the first few names
        low = name.lower()
        hits = [v for v in valid if low.split("/")[-1][:4] in v.lower()][:n] or valid[:n]
        return "valid names include " + ", ".join(repr(h) for h in hits)
    return "did you mean " + " or ".join(repr(h) for h in hits) + "?"


class InternalError(Exception):
    """A result the toolkit must not hand over (e.g. a non-finite amount of money): a bug or an input
    that slipped past validation. The CLI prints it as one line and exits 1; nothing is written."""
