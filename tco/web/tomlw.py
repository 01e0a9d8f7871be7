"""Scenario data (the dict ``tomllib`` reads) written back as TOML text: what the sales desk runs and what it hands
an engineer (`tco run` on the same bytes gives the same JSON).

Only the value types a scenario holds: text, whole and real numbers, true/false, dates, lists, and tables. A table
of plain values is a ``[section]``; a table whose values are plain (``users = { model = … }``) inside a section is
an inline table; a list of tables is ``[[section]]``. Text is a TOML basic string with every control character
escaped, so nothing typed in a field can end the string or start a key.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(k: str) -> str:
    """A bare key when TOML allows one, else a quoted key."""
    return k if _BARE.match(k) else string(k)


def string(s: str) -> str:
    """A TOML basic string: JSON's escapes (\\" \\\\ \\n \\t \\uXXXX for control characters) are TOML's too; DEL
    (not escaped by JSON, refused raw by TOML) is escaped as well.

    >>> string('a "b"\\n')
    '"a \\\\"b\\\\"\\\\n"'
    """
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def value(v) -> str:
    """One value in TOML syntax (a table as an inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, (_dt.date, _dt.datetime, _dt.time)):
        return v.isoformat()
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _is_tables(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _plain(d: dict) -> bool:
    """A table of plain values only (no table or list of tables inside): written inline within a section."""
    return not any(isinstance(x, dict) or _is_tables(x) for x in d.values())


def _section(name: str, d: dict, header: str, out: list[str]) -> None:
    out.append(header)
    subs = []
    for k, v in d.items():
        if isinstance(v, dict) and not _plain(v) or _is_tables(v):
            subs.append((k, v))
        elif isinstance(v, dict) and len(v) > 6:  # a long table of plain values reads better as a section
            subs.append((k, v))
        else:
            out.append(f"{key(k)} = {value(v)}")
    for k, v in subs:
        path = f"{name}.{key(k)}"
        if isinstance(v, dict):
            out.append("")
            _section(path, v, f"[{path}]", out)
        else:
            for x in v:
                out.append("")
                _section(path, x, f"[[{path}]]", out)


def dumps(data: dict, comment: str = "") -> str:
    """The scenario dict as TOML text: top-level plain keys first, then each section in the dict's order."""
    out = [f"# {line}" if line else "#" for line in comment.splitlines()]
    top = [(k, v) for k, v in data.items() if not (isinstance(v, dict) or _is_tables(v))]
    out += [f"{key(k)} = {value(v)}" for k, v in top]
    for k, v in data.items():
        if isinstance(v, dict):
            out.append("")
            _section(key(k), v, f"[{key(k)}]", out)
        elif _is_tables(v):
            for x in v:
                out.append("")
                _section(key(k), x, f"[[{key(k)}]]", out)
    return "\n".join(out).lstrip("\n") + "\n"
