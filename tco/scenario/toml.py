"""TOML text to a dict for every file a person writes (a scenario, a calibration, a catalog overlay), with the one
failure of ``tomllib`` that is not a ``TOMLDecodeError``: nesting so deep (``[[[[…]]]]``, ``{a = {a = …}}``, a few
hundred levels in a 2 kB file) that its recursive parser runs out of stack. That is reported like any bad input,
with the file, the key given and the line where the nesting passes ``MAX_NESTING`` (or its deepest point).

Keys nested by dots (``a.a.a… = 1``, ``[a.a.a…]``) parse without recursion, into dicts as deep; ``MAX_NESTING``
bounds them after the parse, so nothing later (a message echoing the value, a walk over the data) recurses
without limit either.
"""

from __future__ import annotations

import re
import tomllib

from tco.errors import InputError, Problem

MAX_NESTING = 32
"""Deepest nesting of arrays and tables a file may have; a scenario needs four ([[options]] holding a list), a
catalog or calibration file three."""

_TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*'
                    r'|[\[\]{}]|\n', re.S)


def loads(text: str, file: str, key: str = "") -> dict:
    """``tomllib.loads(text)``; ``TOMLDecodeError`` as tomllib raises it, InputError (file, key, line) for data
    nested deeper than MAX_NESTING."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(text, file, key) from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # an integer past Python's 4,300 digits: a traceback (exit 1; a 500 on the desk) (2026-12d T3)
        m = re.search(r"\d[\d_]{4000,}", text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        if m and not key:  # the key written before the number on its line, if one is
            start = text.rfind("\n", 0, m.start()) + 1
            k = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*=", text[start:m.start()])
            heads = re.findall(r"(?m)^\s*(\[\[?)\s*([A-Za-z0-9_.\-]+)\s*\]", text[:start])  # [table], [[array]]
            where = ""
            if heads:  # the table it sits in; an array's entry by its index (options[3])
                kind, name = heads[-1]
                n = sum(1 for h in heads if h == (kind, name)) - 1
                where = f"{name}[{n}]." if kind == "[[" else f"{name}."
            key = where + k.group(1) if k else ""
        raise InputError([Problem(file, key, "an integer of more than 4,300 digits: too long to read; write the "
                                  "number in scientific notation (1.5e9) or check the value", line)]) from None
    if _depth(data) > MAX_NESTING:
        raise _too_deep(text, file, key)
    return data


def _too_deep(text: str, file: str, key: str) -> InputError:
    line = nesting_line(text)
    if line is None:  # nested by dots only: the first line whose key has that many parts
        line = next((n for n, ln in enumerate(text.splitlines(), 1) if ln.split("=")[0].count(".") >= MAX_NESTING),
                    None)
    if not key and line is not None:  # the key written on that line, if one is
        from tco.scenario.messages import key_lines

        key = next((".".join(map(str, k)) for k, n in key_lines(text).items() if n == line and k), "")
        key = key if len(key) <= 80 else key[:80] + "…"
    return InputError([Problem(file, key, f"nested too deeply: more than {MAX_NESTING} levels of arrays or tables "
                               "([ ], { } or dotted keys); no tco file needs more than four", line)])


def _depth(data, limit: int = MAX_NESTING) -> int:
    """Nesting depth of parsed data (a scalar 0, [] or {} 1, …), counted no further than limit + 1."""
    depth, level = 0, [data] if isinstance(data, (dict, list)) else []
    while level and depth <= limit:
        depth += 1
        level = [v for x in level for v in (x.values() if isinstance(x, dict) else x)
                 if isinstance(v, (dict, list))]
    return depth if not level else depth + 1


def nesting_line(text: str, limit: int = MAX_NESTING) -> int | None:
    """The 1-based line where brackets and braces outside strings and comments first nest deeper than limit
    (None if they never do: nested by dots only)."""
    depth = 0
    line = 1
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == "\n":
            line += 1
        elif tok in "[{":
            depth += 1
            if depth > limit:
                return line
        elif tok in "]}":
            depth = max(0, depth - 1)
        else:  # a string or comment: its line breaks count
            line += tok.count("\n")
    return None
