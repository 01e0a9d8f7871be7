"""Errors meant for people: each problem names the file, the line where known and the key path."""

from __future__ import annotations

from tco.domain import record


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
        return f"{where}:{key} {self.message}"


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
