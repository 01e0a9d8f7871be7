"""Pointing people at the right line: key paths → line numbers, and pydantic's errors → plain messages.

Kept apart from the schema (``tco.scenario``) so each stays small. ``key_lines`` is linear in the size of
the file (a long value cannot make it quadratic); ``problems_from`` turns a ValidationError into one
problem per key with the likely fix: a percent written for a fraction, quoted numbers, a key that belongs
in another section, a section name read as a key of the table above it, the closest valid key.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ValidationError

from tco.domain import GrowthModel
from tco.errors import Problem
from tco.scenario.types import MIN_EFFICIENCY

_INLINE_KEY = re.compile(r"(?<![A-Za-z0-9_\-])([A-Za-z0-9_\-]+)\s*=")


def key_lines(text: str) -> dict[tuple, int]:
    """Map key paths of a TOML document to their 1-based line numbers.

    Handles ``[table]``, ``[[array]]`` (indexed), ``key = value`` and dotted keys; inline tables
    map to the line of their key. Good enough to point a person at the right line.
    """
    line_of: dict[tuple, int] = {}
    current: tuple = ()
    counts: dict[tuple, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^\[\[\s*([^\]]+?)\s*\]\]", line)
        if m:
            base = tuple(p.strip().strip('"') for p in m.group(1).split("."))
            idx = counts.get(base, -1) + 1
            counts[base] = idx
            current = base + (idx,)
            line_of.setdefault(base, n)
            line_of[current] = n
            continue
        m = re.match(r"^\[\s*([^\]]+?)\s*\]", line)
        if m:
            current = tuple(p.strip().strip('"') for p in m.group(1).split("."))
            # a sub-table of the last element of an array of tables ([options.owned] after [[options]]): indexed
            head = next((current[:j] for j in range(len(current) - 1, 0, -1) if current[:j] in counts), None)
            if head is not None:
                current = head + (counts[head],) + current[len(head):]
            line_of[current] = n
            continue
        m = re.match(r'^("[^"]+"|[A-Za-z0-9_\-\.]+)\s*=', line)
        if m:
            key = tuple(p.strip().strip('"') for p in m.group(1).split("."))
            line_of[current + key] = n
            # inline table keys: users = { model = "logistic", start_users = 10 }. The look-behind keeps
            # the scan linear: a key starts only after a non-key character, never inside a long word.
            rest = line[m.end():].lstrip()
            if rest.startswith("{"):
                for im in _INLINE_KEY.finditer(rest):
                    line_of.setdefault(current + key + (im.group(1),), n)
    return line_of


def line_for(loc: tuple, line_of: dict[tuple, int]) -> int | None:
    loc = tuple(loc)
    while loc:
        if loc in line_of:
            return line_of[loc]
        loc = loc[:-1]
    return None


def _key_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_PERCENT_HINT_KEYS = re.compile(r"(_rate|_share|^volatility|^mfu|^discount_rate)$")
EFFICIENCY_KEYS = frozenset({"mfu", "bandwidth_efficiency_share", "flops_efficiency_share", "utilization_target_share",
                             "memory_usable_share"})
"""The achieved shares of a peak, bounded below by MIN_EFFICIENCY."""


def _model_at(root: type[BaseModel], parent: tuple) -> type[BaseModel] | None:
    """The schema model found at key path `parent` below `root` (list indices skipped), or None."""
    model = root
    for part in parent:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        ann = field.annotation
        target = None
        for cand in (ann, *getattr(ann, "__args__", ())):
            for c in (cand, *getattr(cand, "__args__", ())):
                if isinstance(c, type) and issubclass(c, BaseModel):
                    target = c
        if target is None:
            return None
        model = target
    return model


def _valid_keys(root: type[BaseModel], parent: tuple) -> list[str]:
    """Field names allowed where an unknown key was found (for 'did you mean')."""
    model = _model_at(root, parent)
    return list(model.model_fields) if model is not None else []


def _show(value, limit: int = 60) -> str:
    """The offending value as written back to the user, shortened: a 100 kB name is not echoed in full."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(str(value)):,} characters)"


def _message(err, root: type[BaseModel]) -> str:
    loc = err.get("loc", ())
    msg = err.get("msg", "invalid")
    # drop the union tag pydantic adds for discriminated unions
    kind = err.get("type", "")
    inp = err.get("input")
    key = str(loc[-1]) if loc else ""
    if (kind in ("less_than_equal", "less_than") and _PERCENT_HINT_KEYS.search(key) and isinstance(inp, (int, float))
            and 1.0 < inp <= 100.0):
        return f"{inp!r} looks like a percent; write fractions (e.g. {inp / 100:g} for {inp:g} %)"
    if kind == "greater_than_equal" and key in EFFICIENCY_KEYS:
        return (f"must be at least {MIN_EFFICIENCY:g} ({MIN_EFFICIENCY:.0%}) and at most 1 (got {_show(inp)}): a share "
                "of a peak near zero divides by zero or multiplies the fleet without limit")
    if kind in ("int_type", "float_type", "bool_type", "string_type") and inp is not None:
        want = {"int_type": "an integer (a whole number)", "float_type": "a number", "bool_type": "true or false",
                "string_type": "text in quotes"}[kind]
        hint = "; write it without quotes" if isinstance(inp, str) and kind != "string_type" else ""
        return f"must be {want} (got {_show(inp)}){hint}"
    if kind == "finite_number":
        return f"must be a finite number (got {_show(inp)}); inf and nan are not amounts"
    if kind == "extra_forbidden":
        return _unknown_key(root, loc, key)
    if kind == "missing":
        return "required key is missing"
    if kind == "union_tag_invalid":
        return f"{msg}"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    plain = kind not in ("model_type",) and not isinstance(inp, dict) and inp is not None and "got" not in msg
    return f"{msg} (got {_show(inp)})" if plain else msg


def _unknown_key(root: type[BaseModel], loc: tuple, key: str) -> str:
    """'unknown key' with the likely fix: a section name read as a key of the table above it, a key that
    belongs to another section, or the closest valid key."""
    from tco.errors import closest

    here = f"[{_key_path(tuple(p for p in loc[:-1] if not isinstance(p, int)))}]" if loc[:-1] else "the top level"
    sections = {sec: _model_at(root, (sec,)) for sec in root.model_fields}
    if key in sections and len(loc) > 1:
        return (f"unknown key in {here}: TOML reads `{key} = …` below a [table] header as part of that table; "
                f"write the {key} as its own [{'[options]' if key == 'options' else key}] table")
    homes = [sec for sec, model in sections.items() if model is not None and key in model.model_fields
             and sec != (loc[0] if loc else None)]
    if homes:
        return f"unknown key in {here}: `{key}` belongs in [{homes[0] if homes[0] != 'options' else '[options]'}]"
    valid = _valid_keys(root, loc[:-1])
    return f"unknown key; {closest(key, valid)}" if valid else "unknown key (typo?)"


GROWTH_TAGS = frozenset(m.value for m in GrowthModel)
"""The users curve's union tags, which pydantic puts in an error's key path (``inference.users.logistic.…``)."""
UNION_HINTS = {"daily_profile": "write 'flat', 'business_hours' or a list of 24 hourly shares that sum to 1"}
_LEADING_KEY = re.compile(r"([a-z_]+(?:\.[a-z_]+)+) ")
_INTERNAL_LOC = re.compile(r"^(literal\[|list\[|function-|constrained-|tagged-union\[)")


def problems_from(exc: ValidationError, file: str, line_of: dict, root: type[BaseModel]) -> list[Problem]:
    """One problem per key: pydantic's union branches (``literal[...]``, ``list[...]``) merged into one message."""
    problems: dict[str, Problem] = {}
    for err in exc.errors():
        raw = tuple(err["loc"])
        loc = tuple(p for p in raw if not (isinstance(p, str) and (p in GROWTH_TAGS or _INTERNAL_LOC.match(p))))
        if not loc:  # a check across sections (Scenario._cross) names the key its message starts with
            m = _LEADING_KEY.match(str(err.get("msg", "")).removeprefix("Value error, "))
            loc = tuple(m.group(1).split(".")) if m else loc
        path = _key_path(loc)
        union = len(loc) != len(raw) and loc and str(loc[-1]) in UNION_HINTS
        if union and isinstance(err.get("input"), list) and err.get("type") == "literal_error":
            continue  # a list is not a named profile: the list's own errors (an element, the sum) say what is wrong
        if union:
            inp = err.get("input")
            msg = (f"{UNION_HINTS[str(loc[-1])]} (got {_show(inp)})" if not isinstance(inp, list)
                   else _message(err, root))
            if path in problems and isinstance(inp, list):
                continue
            problems[path] = Problem(file, path, msg, line_for(loc, line_of))
        elif path not in problems:
            problems[path] = Problem(file, path, _message(err, root), line_for(loc, line_of))
    return list(problems.values())


def name_key(name: str) -> str:
    """What a reader tells option names apart by: Unicode-compatible forms made one (NFKC: a full-width 'Ａ' is 'A'),
    characters that print as nothing dropped, runs of spaces made one, outer spaces and case ignored."""
    import unicodedata

    text = "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold()


def duplicate_names(data: dict, file: str, line_of: dict) -> list[Problem]:
    """Options sharing a name, or names that differ only by case, spaces or invisible characters (one report
    could not tell them apart), each repeat pinned on its own `name` line."""
    opts = data.get("options")
    if not isinstance(opts, list):
        return []
    seen: dict[str, int] = {}
    out = []
    for i, o in enumerate(opts):
        name = o.get("name") if isinstance(o, dict) else None
        if not isinstance(name, str):
            continue
        key = name_key(name)
        if key in seen:
            j = seen[key]
            other = opts[j]["name"]
            why = (f"{name!r} is also the name of options[{j}]" if other == name else
                   f"{name!r} differs from the name of options[{j}] ({other!r}) only by case, spaces or invisible "
                   "characters")
            out.append(Problem(file, f"options[{i}].name", f"option names must be unique; {why}",
                               line_for(("options", i, "name"), line_of)))
        elif key:
            seen[key] = i
    labels: dict[str, int] = {}  # the proposal shows a label instead of the name: two alike would read as one
    for i, o in enumerate(opts):
        label = o.get("label") if isinstance(o, dict) else None
        if not isinstance(label, str) or not name_key(label):
            continue
        j = labels.setdefault(name_key(label), i)
        if j != i:
            out.append(Problem(file, f"options[{i}].label", f"option labels must be unique: {label!r} reads as the "
                               f"label of options[{j}] ({opts[j]['label']!r}), and the proposal shows labels",
                               line_for(("options", i, "label"), line_of)))
    return out
