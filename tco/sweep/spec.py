"""The sweep file: which scenario to start from, which of its keys to vary and how, what to keep per case.

```toml
[sweep]
base = "seed_70b_h200.toml"      # the scenario every case starts from (relative to this file)
design = "grid"                  # "grid": every combination; "lhs": `samples` cases by Latin hypercube
samples = 20                     # lhs: the number of cases; grid: the draws of each distribution axis
seed = 7                         # the draws of distribution axes and of the Latin hypercube
keep = ["tco", "npv", "fleet"]   # and "lines" (TCO by cost line), "breakevens" (USD/BRL, users, payback)

[[axes]]
key = "fx.usdbrl"                # a scenario key by its dotted path
range = { start = 4.5, stop = 7.0, step = 0.25 }      # stop included

[[axes]]
key = "inference.users.ceiling_users"
values = [2000, 4000, 8000, 16000]

[[axes]]
key = "min_term_months"          # a key of one option, named by `option`
option = "Dedicado BR — 8x H200"
distribution = { kind = "uniform", low = 3, high = 24 }

[map]                            # the decision map's two axes (default: the first two)
x = "fx.usdbrl"
y = "inference.users.ceiling_users"
```

Loading checks the file's own shape (unknown keys, types, an empty range, one way per axis); ``tco.sweep.plan``
checks the axes against the base scenario (unknown key, a value the schema refuses, too many cases). Every
problem names the sweep file, the line and the key (``InputError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tco.errors import InputError, Problem

KEEP = ("tco", "npv", "lines", "fleet", "breakevens")
"""What a sweep may keep per case and option (the leader and the rank always)."""
MAX_SWEEP_BYTES = 200_000
MAX_RANGE_VALUES = 100_000
"""The most values a range may make (as many as a `values` list may hold)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Range(_Strict):
    """Evenly spaced values from `start` to `stop` (included when it falls on a step)."""

    start: float
    stop: float
    step: float = Field(gt=0)

    @model_validator(mode="after")
    def _not_empty(self):
        if self.stop < self.start:
            raise ValueError(f"empty range: stop {self.stop:g} is below start {self.start:g}")
        steps = (self.stop - self.start) / self.step  # inf when the span overflows a float
        if not steps < MAX_RANGE_VALUES:  # counted here, before a value is listed (a typo in the step)
            raise ValueError(f"the range from {self.start:g} to {self.stop:g} by {self.step:g} makes more than "
                             f"{MAX_RANGE_VALUES:,} values; check its step")
        return self


class Distribution(_Strict):
    """Draws from a distribution: uniform (low, high), triangular (low, mode, high), normal (mean, sd),
    loguniform (low, high > 0)."""

    kind: Literal["uniform", "triangular", "normal", "loguniform"]
    low: float | None = None
    high: float | None = None
    mode: float | None = None
    mean: float | None = None
    sd: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _params(self):
        need = {"uniform": ("low", "high"), "loguniform": ("low", "high"), "triangular": ("low", "mode", "high"),
                "normal": ("mean", "sd")}[self.kind]
        missing = [k for k in need if getattr(self, k) is None]
        extra = [k for k in ("low", "high", "mode", "mean", "sd") if k not in need and getattr(self, k) is not None]
        if missing or extra:
            raise ValueError(f"a {self.kind} distribution takes {', '.join(need)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; {', '.join(extra)} not used" if extra else ""))
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(f"empty distribution: low {self.low:g} is not below high {self.high:g}")
        if self.kind == "loguniform" and (self.low or 0) <= 0:
            raise ValueError("a loguniform distribution needs low > 0")
        if self.kind == "triangular" and not (self.low or 0) <= (self.mode or 0) <= (self.high or 0):
            raise ValueError("a triangular distribution needs low <= mode <= high")
        return self


class Axis(_Strict):
    key: str = Field(min_length=1, max_length=200)
    """A scenario key by its dotted path (``fx.usdbrl``), or an option's key when `option` names the option."""
    option: str | None = Field(default=None, min_length=1, max_length=200)
    values: list[float | int | str | bool] | None = Field(default=None, min_length=1, max_length=MAX_RANGE_VALUES)
    range: Range | None = None
    distribution: Distribution | None = None
    samples: int | None = Field(default=None, ge=1, le=100_000)
    """Grid design: the draws of this distribution axis (default: the sweep's `samples`)."""

    @model_validator(mode="after")
    def _one_way(self):
        given = [k for k in ("values", "range", "distribution") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of values, range or distribution"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self

    @property
    def column(self) -> str:
        """The axis's name in the table and the map: the key, or ``options[<option>].<key>``."""
        return self.key if self.option is None else f"options[{self.option}].{self.key}"


class Settings(_Strict):
    base: str = Field(min_length=1, max_length=4096)
    design: Literal["grid", "lhs"] = "grid"
    samples: int = Field(default=10, ge=1, le=1_000_000)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    keep: list[Literal["tco", "npv", "lines", "fleet", "breakevens"]] = ["tco", "npv", "fleet"]


class MapAxes(_Strict):
    x: str | None = None
    y: str | None = None


class SweepFile(_Strict):
    sweep: Settings
    axes: list[Axis] = Field(min_length=1, max_length=12)
    map: MapAxes = MapAxes()

    @model_validator(mode="after")
    def _distinct(self):
        cols = [a.column for a in self.axes]
        dup = sorted({c for c in cols if cols.count(c) > 1})
        if dup:
            raise ValueError(f"axes: {', '.join(dup)} given more than once")
        for which in ("x", "y"):
            name = getattr(self.map, which)
            if name is not None and name not in cols:
                from tco.errors import closest

                raise ValueError(f"map.{which} = {name!r} is not one of the axes; {closest(name, cols)}")
        return self

    def map_axes(self) -> tuple[str, str] | None:
        """The decision map's (x, y) axis columns; None for a sweep of one axis."""
        cols = [a.column for a in self.axes]
        x = self.map.x or next((c for c in cols if c != self.map.y), None)
        y = self.map.y or next((c for c in cols if c != x), None)
        return (x, y) if x and y and x != y else None


def load(path: str | Path) -> tuple[SweepFile, dict, str]:
    """Read and check a sweep file. Returns (the sweep, key path → line, the file's SHA-256). Raises InputError."""
    import hashlib
    import tomllib

    from tco.scenario import read_limited
    from tco.scenario.messages import key_lines, problems_from
    from tco.scenario.toml import loads

    file = str(path)
    raw = read_limited(Path(path), MAX_SWEEP_BYTES, "sweep file")
    try:
        text = raw.decode("utf-8-sig")
        data = loads(text, file)
    except UnicodeDecodeError:
        raise InputError([Problem(file, "", "sweep file is not UTF-8 text; save it as UTF-8")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError([Problem(file, "", f"TOML syntax error: {exc}")]) from None
    lines = key_lines(text)
    try:
        sweep = SweepFile.model_validate(data)
    except ValidationError as exc:
        problems = problems_from(exc, file, lines, SweepFile)
        raise InputError(sorted(problems, key=lambda p: p.line or 0)) from None
    return sweep, lines, hashlib.sha256(raw).hexdigest()


def base_path(sweep: SweepFile, sweep_path: str | Path) -> Path:
    """The base scenario's file, relative to the sweep file."""
    p = Path(sweep.sweep.base)
    return p if p.is_absolute() else Path(sweep_path).parent / p
