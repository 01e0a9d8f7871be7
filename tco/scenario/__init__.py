"""Scenario files: the schema (frozen pydantic models, unknown keys rejected) and the loader.

A scenario describes one AI model's lifecycle: a one-off training burst, then inference that grows
with users, and the deployment options to compare. Every field's docstring is its help text;
units are in the field names (``_months``, ``_gb``, ``_rate`` = fraction 0–1 per year unless said).

The sections live in ``tco.scenario.workload`` ([scenario], [model], [training], [inference]),
``tco.scenario.options`` ([[options]], [fx], [plan]) and ``tco.scenario.proposal`` ([proposal]), on the
base types of ``tco.scenario.types``; this module holds the whole file's model, its cross-section checks,
the plausibility notices and the loader, and is the import path of every public name of the schema.
"""

import hashlib
import re
import tomllib
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from tco.domain import SPOT, FleetMode, FxModel, TrainingMethod
from tco.errors import InputError, Problem
from tco.scenario.messages import duplicate_names, key_lines, problems_from
from tco.scenario.options import FX, PRICINGS, FxRate, Option, Plan  # noqa: F401 (public names of the schema)
from tco.scenario.proposal import Proposal
from tco.scenario.types import (  # noqa: F401 (the limits and types are public names of the schema)
    _CONTROL,
    _CONTROL_TEXT,
    MAX_BRL_PER_MONTH,
    MAX_GPU_HOURS,
    MAX_NAME_CHARS,
    MAX_OPTIONS,
    MAX_PATH_CHARS,
    MAX_PLAN_CANDIDATES,
    MAX_REQUESTS_PER_USER_PER_DAY,
    MAX_SERVERS,
    MAX_TEXT_CHARS,
    MAX_TOKENS_PER_REQUEST,
    MAX_TRAINING_TOKENS,
    MAX_USD_PER_HOUR,
    MAX_USERS,
    MIN_EFFICIENCY,
    START_YEARS,
    BrlPerMonth,
    Efficiency,
    Frozen,
    Id,
    Line,
    Name,
    NonNegative,
    PathText,
    Positive,
    PositiveUsers,
    Share,
    Text,
    UsdPerHour,
    Users,
    _plain,
    _visible,
)
from tco.scenario.workload import (  # noqa: F401 (public names of the schema)
    PROFILES,
    CompoundGrowth,
    Growth,
    Inference,
    LinearGrowth,
    ListGrowth,
    LogisticGrowth,
    ModelSpec,
    ScenarioInfo,
    Training,
)


class Scenario(Frozen):
    scenario: ScenarioInfo
    model: ModelSpec
    training: Training
    inference: Inference
    fx: FX
    options: list[Option] = Field(min_length=1, max_length=MAX_OPTIONS)
    plan: Plan | None = None
    """Plan search (`python -m tco plan`, and the `plans` key of `run`); absent = the defaults."""
    proposal: Proposal | None = None
    """Commercial terms of the PDF proposal (`tco.scenario.proposal`); absent = an estimate from the results."""

    @model_validator(mode="after")
    def _cross(self):
        horizon_months = self.scenario.horizon_months
        if self.inference.start_month > horizon_months:
            raise ValueError(f"inference.start_month {self.inference.start_month} is after the horizon "
                             f"({horizon_months} months)")
        if self.training.method != TrainingMethod.NONE and self.training.start_month > horizon_months:
            raise ValueError(f"training.start_month {self.training.start_month} is after the horizon "
                             f"({horizon_months} months)")
        return self


RUNAWAY_USERS = 1e9
"""A compound curve without a cap that passes this many users by the horizon is probably a typo."""


TRAINING_KEYS = ("training_offer", "training_pricing", "training_usd_per_hour", "training_brl_per_month")
"""An option's keys about its training fleet."""
SPECULATIVE_KEYS = ("speculative_draft_tokens", "speculative_acceptance_share")
"""[inference] keys only speculative = "mtp" reads."""
HOURS_IGNORE = ("mfu", "sequence_length")
"""[training] keys that size the GPU-hours from 6·N·D, which `gpu_hours` replaces (red team 2026-12d Q2)."""
HISTORY_KEYS = ("history_csv", "block_months")
"""[fx] keys the bootstrap model reads, and no other."""


def given_keys(model) -> set[str]:
    """The keys of a schema model whose value is not the default: what the file set (a scenario rebuilt in code, a
    variant of the analysis say, may name every key; a default changes nothing either way)."""
    return {k for k in model.model_fields_set if getattr(model, k) != type(model).model_fields[k].default}


def plausibility(s: Scenario) -> list:
    """Notices for inputs that are valid but probably not meant (the run goes on). The notice that needs data
    (a horizon past the Focus survey: ``tco.timeline.fx_base.focus_notices``) is the engine's to add."""
    from tco.domain import Notice

    out = []
    users = s.inference.users
    horizon_months = s.scenario.horizon_months
    if isinstance(users, LogisticGrowth) and users.ceiling_users < users.start_users:
        out.append(Notice("users_ceiling_below_start", None,
                          {"ceiling": users.ceiling_users, "start": users.start_users}))
    if (isinstance(users, CompoundGrowth) and users.max_users is None
            and users.start_users * (1 + users.monthly_growth_rate) ** horizon_months > RUNAWAY_USERS):
        out.append(Notice("users_runaway", None, {"rate": users.monthly_growth_rate, "months": horizon_months}))
    if isinstance(users, ListGrowth) and len(users.users) > horizon_months:
        out.append(Notice("users_list_too_long", None, {"values": len(users.users), "months": horizon_months}))
    spec = [k for k in SPECULATIVE_KEYS if k in given_keys(s.inference)]
    if spec and getattr(s.inference, "speculative", "none") == "none":
        out.append(Notice("speculative_keys_ignored", None, {"keys": ", ".join(spec)}))
    hours = [k for k in HOURS_IGNORE if k in given_keys(s.training)]
    if hours and s.training.gpu_hours is not None and s.training.method != TrainingMethod.NONE:
        out.append(Notice("training_hours_keys_ignored", None, {"keys": ", ".join(hours)}))
    history = [k for k in HISTORY_KEYS if k in given_keys(s.fx)]
    if history and s.fx.model != FxModel.BOOTSTRAP:
        out.append(Notice("fx_history_ignored", None, {"keys": ", ".join(history), "model": str(s.fx.model)}))
    prop = s.proposal
    terms = [(k, v) for k, v in (("proposal.min_term_months", prop.min_term_months if prop else None),
                                 ("proposal.contract.duration_months", prop.contract.duration_months if prop else None))
             if v is not None and v > horizon_months]
    for key, months in terms:  # the client commits past what the TCO and the proposal's totals cover (2026-12d K4)
        out.append(Notice("proposal_term_beyond_horizon", None, {"name": key, "term": months, "months": horizon_months}))
    for o in s.options:
        inert = [k for k in TRAINING_KEYS if k in given_keys(o)] if s.training.method == TrainingMethod.NONE else []
        if inert:
            out.append(Notice("training_keys_ignored", o.name, {"keys": ", ".join(inert)}))
        if o.fleet == FleetMode.SHARED and o.autoscale and "autoscale" in o.model_fields_set:
            out.append(Notice("autoscale_ignored_shared", o.name))
        if o.pricing == SPOT:
            out.append(Notice("spot_interruptible", o.name))
        if o.min_term_months is not None and o.min_term_months > horizon_months:
            out.append(Notice("min_term_beyond_horizon", o.name, {"term": o.min_term_months, "months": horizon_months}))
    return out


# ---------------------------------------------------------------------------------------------
# Loading


def load_text(text: str, file: str = "<scenario>") -> Scenario:
    """Parse and validate scenario TOML text; raise InputError listing every problem."""
    return _load_text(text, file)[0]


def _load_text(text: str, file: str) -> tuple[Scenario, dict[tuple, int]]:
    """load_text, and the key → line map it located the problems with (``load`` returns it too)."""
    from tco.scenario.toml import loads

    try:
        data = loads(text, file)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        msg = f"TOML syntax error: {exc}"
        src = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        hit = re.match(r"\s*([A-Za-z_]+)\s*=\s*(\d{4}-\d{1,2})\s*(#.*)?$", src)
        if hit:  # an unquoted month: TOML reads it as a broken date
            msg += f'; write months as text: {hit.group(1)} = "{hit.group(2)}"'
        raise InputError([Problem(file, hit.group(1) if hit else _key_at(text, line), msg, line)]) from None
    line_of = key_lines(text)  # key path → line number
    problems = duplicate_names(data, file, line_of)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems += problems_from(exc, file, line_of, Scenario)
    if problems:
        problems.sort(key=lambda p: (p.line or 0))
        raise InputError(problems) from None
    return scenario, line_of


def _key_at(text: str, line: int | None) -> str:
    """The key path written at `line` (1-based) of TOML `text`, under the table above it (``scenario.name``,
    ``options[1].offer``); "" when the line holds no ``key =`` (review L1: a syntax error names its key)."""
    lines = text.splitlines()
    if not line or line > len(lines):
        return ""
    m = re.match(r'\s*((?:[A-Za-z0-9_-]+|"[^"]*")(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"))*)\s*=', lines[line - 1])
    if not m:
        return ""
    key = ".".join(k.strip().strip('"') for k in m.group(1).split("."))
    counts: dict[str, int] = {}
    table = ""
    for src in lines[:line - 1]:
        if h := re.match(r"\s*\[\[\s*([^\]]+?)\s*\]\]", src):
            counts[h.group(1)] = counts.get(h.group(1), -1) + 1
            table = f"{h.group(1)}[{counts[h.group(1)]}]"
        elif h := re.match(r"\s*\[\s*([^\]]+?)\s*\]", src):
            table = h.group(1)
    return f"{table}.{key}" if table else key


MAX_SCENARIO_BYTES = 1_000_000
"""A scenario is a few kB; anything over 1 MB is refused before it is read."""


def read_limited(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError otherwise (a FIFO, a device, a folder,
    a file too large, one that cannot be read)."""
    import os
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a device, pipe or socket)"
            raise InputError([Problem(str(path), "", f"cannot read {what}: {kind}")])
        if st.st_size > limit:
            raise InputError([Problem(str(path), "", f"{what} is {st.st_size:,} bytes; the limit is {limit:,}")])
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot read {what}: {exc.strerror or exc}")]) from None
    if len(raw) > limit:
        raise InputError([Problem(str(path), "", f"{what} is larger than the limit of {limit:,} bytes")])
    return raw


def load(path: str | Path) -> tuple[Scenario, str, dict[tuple, int]]:
    """Read a scenario file. Returns (scenario, sha256 of the file, key→line map)."""
    path = Path(path)
    raw = read_limited(path, MAX_SCENARIO_BYTES, "scenario file")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows Notepad) is accepted and ignored
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError([Problem(str(path), "", f"scenario file is not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                                  "save it as UTF-8", line)]) from None
    scenario, line_of = _load_text(text, str(path))
    hist = scenario.fx.history_csv
    if hist and not Path(hist).is_absolute():  # relative to the scenario file, like catalog_dir
        fx = scenario.fx.model_copy(update={"history_csv": str(path.parent / hist)})
        scenario = scenario.model_copy(update={"fx": fx})
    cal = scenario.inference.calibration
    if cal and not Path(cal).is_absolute():  # relative to the scenario file
        scenario = scenario.model_copy(update={"inference": scenario.inference.model_copy(
            update={"calibration": str(path.parent / cal)})})
    # the lines load_text located its problems with (text cannot start with a second byte-order mark: TOML
    # refuses one, so the file would not have parsed)
    return scenario, hashlib.sha256(raw).hexdigest(), line_of
