"""From a sweep file to the work: the base loaded once, every axis checked against the scenario schema, the cases
listed. Every problem is found before any case runs and reported at once, located in the sweep file (file, line,
key): an axis naming a key the schema does not have, a value the schema refuses, more cases than the limit.
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ValidationError

from tco.errors import InputError, Problem, closest
from tco.sweep.case import Base, absolute_paths, set_in
from tco.sweep.spec import Axis, SweepFile

MAX_CASES = 20_000
"""Cases a sweep may make without ``--max-cases`` (a typo in a range's step should not start a day of work)."""
MAX_CASES_EVER = 1_000_000
"""Cases no --max-cases can exceed: the cases are listed, and the table built, in memory (a billion-case grid ran
out of memory listing them)."""
FIXED_KEYS = {("scenario", "catalog_dir"): "the catalog is loaded once for the whole sweep",
              ("scenario", "name"): "a case is named by its number", }
"""Keys an axis may not vary, and why."""


@dataclass(frozen=True)
class Work:
    """A checked sweep, ready to run."""

    sweep: SweepFile
    path: str
    sha256: str
    """The sweep file's hash (a resumed sweep must be the same sweep)."""
    base: Base
    cases: list[tuple]
    base_point: tuple
    """The base scenario's own value at each axis (None where the base leaves the key unset)."""


def _model_in(annotation) -> type[BaseModel] | None:
    """The first pydantic model inside a field's annotation (``X | None``, ``list[X]``, ``Annotated[X, …]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def walk(scenario, parts: tuple) -> tuple[object, str | None]:
    """The base's value at key path `parts` (None if unset), or a message if the schema has no such key."""
    obj: object = scenario
    cls: type[BaseModel] | None = type(scenario)
    done: list[str] = []
    for part in parts:
        if isinstance(part, int):
            obj = obj[part]  # type: ignore[index]  # an option's index, resolved from its name
            cls = type(obj)  # type: ignore[assignment]
            continue
        where = ".".join(done) or "the scenario"
        if cls is None:
            return None, f"{where} is a value, not a table: it has no key {part!r}"
        if part not in cls.model_fields:
            return None, f"unknown key {part!r} in {where}; {closest(part, list(cls.model_fields))}"
        ann = cls.model_fields[part].annotation
        obj = getattr(obj, part) if obj is not None else None
        cls = type(obj) if isinstance(obj, BaseModel) else (_model_in(ann) if obj is None else None)
        done.append(part)
    return obj, None


def _parts(axis: Axis, data: dict) -> tuple[tuple, str | None]:
    """The axis's key path in the base's TOML, or a message (an option the base does not have)."""
    keys = tuple(axis.key.split("."))
    if any(not k for k in keys):
        return (), f"{axis.key!r} is not a dotted key path (an empty part)"
    if axis.option is None:
        if keys[0] == "options":
            return (), "name the option with `option = \"…\"` and give its key alone (e.g. key = \"pricing\")"
        return keys, None
    names = [o.get("name") for o in data.get("options", [])]
    if axis.option not in names:
        return (), f"option {axis.option!r} is not in the base scenario; {closest(axis.option, [str(n) for n in names])}"
    return ("options", names.index(axis.option), *keys), None


def _line(lines: dict, i: int, *keys: str) -> int | None:
    from tco.scenario.messages import line_for

    return line_for(("axes", i, *keys), lines)


def _way(axis: Axis) -> str:
    return "values" if axis.values is not None else "range" if axis.range is not None else "distribution"


def _value_problems(work_cases: list[tuple], axes: list[Axis], base: Base, file: str, lines: dict) -> list[Problem]:
    """Each axis's values tried alone on the base (numbers: the smallest and the largest; others: each one)."""
    from tco.scenario import Scenario
    from tco.scenario.messages import problems_from

    out = []
    for i, axis in enumerate(axes):
        column = sorted({c[i] for c in work_cases}, key=repr)
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in column)
        finite = [v for v in column if math.isfinite(v)] if numeric else column
        odd = [v for v in column if v not in finite][:1]  # an inf or nan draw (min and max skip a nan)
        tried = odd + ([min(finite), max(finite)] if numeric and finite else column[:100])
        for v in dict.fromkeys(tried):
            try:
                Scenario.model_validate(set_in(base.data, base.parts[i], v))
            except ValidationError as exc:
                why = "; ".join(p.message for p in problems_from(exc, file, {}, Scenario))
                out.append(Problem(file, f"axes[{i}].{_way(axis)}", f"{axis.column} = {v!r}: the scenario refuses it: "
                                   f"{why}", _line(lines, i, _way(axis))))
                break
    return out


def prepare(path: str | Path, max_cases: int = MAX_CASES) -> Work:
    """Load the sweep file and its base, check every axis, list the cases. Raises InputError (located)."""
    from tco import api
    from tco.scenario import read_limited
    from tco.scenario.toml import loads
    from tco.sweep import cases, spec

    sweep, lines, sha = spec.load(path)
    file = str(path)
    bpath = spec.base_path(sweep, path)
    if not bpath.is_file():  # a folder or a device was "not found" too (red team 2026-12d S11)
        what = ("is a folder" if bpath.is_dir() else "is not a regular file (a device, pipe or socket)"
                if bpath.exists() else "not found")
        raise InputError([Problem(file, "sweep.base", f"base scenario {str(bpath)!r} {what}",
                                  lines.get(("sweep", "base")))])
    inputs = api.load(bpath)  # a bad base scenario is reported in its own file
    data = absolute_paths(loads(read_limited(bpath, 1_000_000, "scenario file").decode("utf-8-sig"), str(bpath)),
                          bpath.parent)
    problems, parts, point, integer = [], [], [], {}
    for i, axis in enumerate(sweep.axes):
        p, why = _parts(axis, data)
        value, why = (None, why) if why else walk(inputs.scenario, p)
        fixed = FIXED_KEYS.get(tuple(k for k in p if not isinstance(k, int))) or (
            "an option is named by its name" if p[:1] == ("options",) and p[-1] == "name" else None)
        why = why or (f"{axis.column} cannot be an axis: {fixed}" if fixed else None)
        if why is None and isinstance(value, BaseModel):
            why = f"{axis.column} is a table; name one of its keys ({', '.join(type(value).model_fields)})"
        if why:
            problems.append(Problem(file, f"axes[{i}].{'option' if 'option' in why and axis.option else 'key'}",
                                    why, _line(lines, i, "key")))
        parts.append(p)
        point.append(value if isinstance(value, (int, float, str, bool)) else None)
        integer[axis.column] = isinstance(value, int) and not isinstance(value, bool)
    n = cases.count(sweep)
    max_cases = min(max_cases, MAX_CASES_EVER)
    if n > max_cases:
        key = "sweep.samples" if sweep.sweep.design == "lhs" else "axes"
        allow = (f"or allow them with --max-cases {n}" if n <= MAX_CASES_EVER else f"or split it: {MAX_CASES_EVER:,} "
                 "is the most one sweep runs (its cases and table are held in memory)")
        problems.append(Problem(file, key, f"the sweep makes {n:,} cases, more than {max_cases:,}; "
                                f"check the ranges and samples, {allow}",
                                lines.get(("sweep", "samples")) or lines.get(("axes",))))
    if problems:
        raise InputError(problems)
    base = Base(data, inputs.catalog, str(bpath), tuple(parts), tuple(a.column for a in sweep.axes),
                tuple(dict.fromkeys(sweep.sweep.keep)))
    listed = cases.generate(sweep, integer)
    problems = _value_problems(listed, list(sweep.axes), base, file, lines)
    if problems:
        raise InputError(problems)
    return Work(sweep, file, sha, base, listed, tuple(point))
