"""Scenario files: the schema (frozen pydantic models, unknown keys rejected) and the loader.

A scenario describes one AI model's lifecycle: a one-off training burst, then inference that grows
with users, and the deployment options to compare. Every field's description is its help text;
units are in the field names (``_months``, ``_gb``, ``_rate`` = fraction 0–1 per year unless said).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tco.errors import InputError, Problem

Share = Annotated[float, Field(ge=0.0, le=1.0)]
Positive = Annotated[float, Field(gt=0.0)]
NonNegative = Annotated[float, Field(ge=0.0)]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class ScenarioInfo(Frozen):
    name: str = Field(min_length=1)
    """Scenario name, shown on every report."""
    client: str = ""
    """Client the proposal is for (free text; always shown as text, never as a formula or markup)."""
    prepared_by: str = ""
    """Who prepared the study (shown on the proposal cover)."""
    start: str
    """First month of the timeline, "YYYY-MM"."""
    horizon_months: int = Field(gt=0, le=240)
    """Number of months modelled, 1–240."""
    discount_rate: Share = 0.14
    """Nominal annual BRL discount rate (fraction: 0.14 = 14 %/yr); month t is discounted by (1 + r)^(-t/12)."""
    locale: Literal["pt-BR", "en"] = "pt-BR"
    """Language and number format of the workbook and proposal."""
    catalog_dir: str | None = None
    """Folder (relative to this file) with catalog CSV/TOML files whose rows add to or replace the shipped ones."""
    notes: str = ""
    """Free text shown in the assumptions."""

    @field_validator("start")
    @classmethod
    def _month(cls, v: str) -> str:
        if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", v):
            raise ValueError(f"start must be a month written 'YYYY-MM' (e.g. '2027-01'), got {v!r}")
        return v


class ModelSpec(Frozen):
    id: str
    """Model architecture from the catalog (models.csv), e.g. 'llama-3.1-70b'."""
    precision: Literal["bf16", "fp8"] = "bf16"
    """Weight precision when serving: bf16 = 2 bytes/parameter, fp8 = 1 byte/parameter."""
    kv_precision: Literal["bf16", "fp8"] = "bf16"
    """Precision of the KV cache when serving."""


class Training(Frozen):
    method: Literal["none", "lora", "full", "pretrain"]
    """'none' (no training), 'lora' (adapters on frozen weights), 'full' fine-tune or 'pretrain'."""
    tokens: NonNegative = 0.0
    """Training tokens per epoch, D [tokens]."""
    epochs: Positive = 1.0
    """Passes over the tokens."""
    gpu_hours: NonNegative | None = None
    """GPU-hours given directly (skips the 6·N·D estimate) [GPU·h]."""
    mfu: Share | None = None
    """Model FLOPs utilisation; default from the catalog calibration."""
    start_month: int = Field(1, ge=1)
    """Timeline month in which training starts (1 = scenario start)."""
    target_days: Positive = 30.0
    """Wall-clock days the training burst should take; sets the cluster size unless `servers` is given."""
    servers: int | None = Field(None, ge=1)
    """Training cluster size in servers (overrides target_days)."""
    activation_memory_share: NonNegative = 0.25
    """Activation memory as a share of weight+optimizer memory (planning assumption)."""
    lora_trainable_share: Share = 0.01
    """Share of parameters trained by LoRA adapters."""

    @model_validator(mode="after")
    def _work(self):
        if self.method != "none" and self.gpu_hours is None and self.tokens <= 0:
            raise ValueError("training needs `tokens` > 0 or `gpu_hours` (or method = 'none')")
        return self


class LinearGrowth(Frozen):
    model: Literal["linear"]
    """Growth model: "linear"."""
    start_users: NonNegative
    """Users in the first month of inference."""
    end_users: NonNegative
    """Users in the last month of the horizon."""


class CompoundGrowth(Frozen):
    model: Literal["compound"]
    """Growth model: "compound"."""
    start_users: NonNegative
    """Users in the first month of inference."""
    monthly_growth_rate: Annotated[float, Field(ge=-1.0, le=1.0)]
    """Compound growth per month (fraction: 0.05 = +5 %/month)."""
    max_users: NonNegative | None = None
    """Optional cap."""


class LogisticGrowth(Frozen):
    model: Literal["logistic"]
    """Growth model: "logistic"."""
    start_users: Positive
    """Users in the first month of inference."""
    ceiling_users: Positive
    """Saturation level of the S-curve."""
    steepness_per_month: Positive = 0.25
    """Logistic rate k: u(t) = C / (1 + (C/u1 − 1)·e^(−k·t))."""


class ListGrowth(Frozen):
    model: Literal["list"]
    """Growth model: "list"."""
    users: list[NonNegative] = Field(min_length=1)
    """Users per inference month; the last value holds for later months."""


Growth = Annotated[Union[LinearGrowth, CompoundGrowth, LogisticGrowth, ListGrowth], Field(discriminator="model")]

PROFILES = ("flat", "business_hours")


class Inference(Frozen):
    start_month: int = Field(1, ge=1)
    """Timeline month in which serving starts."""
    users: Growth
    """How the number of active users grows: linear, compound, logistic or list."""
    requests_per_user_per_day: NonNegative
    """Requests an active user makes per day [requests/user/day]."""
    input_tokens_per_request: NonNegative
    """Prompt tokens per request (prefill) [tokens]."""
    output_tokens_per_request: Positive
    """Generated tokens per request (decode) [tokens]."""
    active_days_per_week: Annotated[float, Field(ge=1.0, le=7.0)] = 7.0
    """Days a week with traffic (5 for an office tool); the daily profile and peak are those of an active day."""
    tokens_per_second_per_user: Positive = 20.0
    """Decode speed each user must see [tokens/s]."""
    daily_profile: Literal["flat", "business_hours"] | list[NonNegative] = "business_hours"
    """Share of a day's requests in each hour (24 values summing to 1) or a named profile."""
    utilization_target_share: Annotated[float, Field(gt=0.0, le=1.0)] = 0.8
    """Highest planned utilisation of a replica at peak (headroom for bursts)."""
    redundancy: Literal["none", "n+1"] = "none"
    """'n+1' adds one spare replica whenever any is needed."""
    egress_kb_per_request: NonNegative = 20.0
    """Bytes sent to the internet per request [kB, 1 kB = 1000 bytes] (response stream and overhead)."""
    storage_gb: NonNegative = 0.0
    """Object storage kept on the cloud (weights, checkpoints, logs) [GB]."""
    bandwidth_efficiency_share: Share | None = None
    """Achieved share of peak memory bandwidth in decode; default from catalog calibration."""
    flops_efficiency_share: Share | None = None
    """Achieved share of peak FLOPS in prefill/decode compute; default from catalog calibration."""
    max_batch_sequences: int = Field(256, ge=1)
    """Cap on concurrent sequences per replica (vLLM's max_num_seqs default is 256)."""
    memory_usable_share: Share = 0.9
    """Share of GPU memory usable for weights and KV cache (vLLM's default gpu_memory_utilization)."""

    @field_validator("daily_profile")
    @classmethod
    def _profile(cls, v):
        if isinstance(v, list):
            if len(v) != 24:
                raise ValueError(f"daily_profile needs 24 hourly shares, got {len(v)}")
            if abs(sum(v) - 1.0) > 1e-6:
                raise ValueError(f"daily_profile shares must sum to 1 (they sum to {sum(v):.6g})")
        return v


PRICINGS = ("on_demand", "reserved_1yr", "reserved_3yr", "spot")
"""The common pricings; any other pricing the catalog lists for the offer (e.g. 'cud_1yr',
'ri_3yr_standard_all_upfront_effective') may be named too. All but on_demand and spot are committed."""


class Option(Frozen):
    name: str = Field(min_length=1)
    """Label of the deployment option."""
    inference_offer: str
    """Catalog offer that serves inference (cloud 'aws/us-east-1/p5en.48xlarge' or dedicated 'br-dedicated/sp/…')."""
    training_offer: str | None = None
    """Catalog offer for the training burst (required unless training.method = 'none')."""
    pricing: str = Field("on_demand", min_length=1)
    """Cloud pricing for the inference fleet: 'on_demand', 'spot', 'reserved_1yr', 'reserved_3yr' or any pricing
    the catalog lists for the offer ('cud_1yr', …); all but on_demand/spot are committed (ignored by dedicated offers)."""
    training_pricing: str = Field("on_demand", min_length=1)
    """Cloud pricing for the training burst (on_demand or spot for a separate burst)."""
    fleet: Literal["separate", "shared"] = "separate"
    """'separate': a training cluster only for the burst plus an inference fleet; 'shared': one fleet sized for both, kept all horizon."""
    autoscale: bool = True
    """Cloud on-demand/spot fleets follow the hourly load; otherwise the peak fleet runs all month."""
    egress: str | None = None
    """Egress tier table id (default: the offer's provider/region; dedicated: none)."""
    storage: str | None = None
    """Storage price id (default: the provider's object storage in the offer's region)."""
    storage_usd_per_gb_month: NonNegative | None = None
    """Override of the storage price [USD/GB-month] (e.g. where the catalog's price is unverified)."""
    taxes: str | None = None
    """Tax profile id (default: 'import_direct_sp' for cloud, 'none' for dedicated)."""
    usd_per_hour: Positive | None = None
    """Override of the inference offer's USD/hour price."""
    training_usd_per_hour: Positive | None = None
    """Override of the training offer's USD/hour price."""
    brl_per_month: Positive | None = None
    """Override of the dedicated inference offer's BRL/month price per server."""
    training_brl_per_month: Positive | None = None
    """Override of the dedicated training offer's BRL/month price per server."""
    setup_fee_brl: NonNegative | None = None
    """Override of the dedicated setup fee per server."""
    min_term_months: int | None = Field(None, ge=1)
    """Override of the dedicated minimum term."""
    indexation_rate: Share = 0.04
    """Annual price indexation of dedicated contracts (IPCA; Focus 2026 expectation ≈ 4 %), applied each contract year."""
    price_trend_rate: Annotated[float, Field(ge=-0.9, le=1.0)] = 0.0
    """Annual change of cloud USD prices (e.g. -0.10 = GPU-hours 10 % cheaper each year), applied each year."""
    committed_instances: Annotated[int, Field(ge=0)] | list[Annotated[int, Field(ge=0)]] | None = None
    """Committed baseline of a cloud inference fleet: this many instances paid every hour of each term at
    `pricing` (a 1- or 3-year commitment), the hours above it at `burst_pricing`. One number, or one per term
    counted from the first serving month (the last holds). `python -m tco plan` finds the best values."""
    burst_pricing: str = Field("on_demand", min_length=1)
    """Pricing of the instances above the committed baseline ('on_demand' or 'spot'); used with committed_instances."""
    burst_usd_per_hour: Positive | None = None
    """Override of the burst pricing's USD/hour price (the hours above the committed baseline)."""


class FX(Frozen):
    usdbrl: Positive
    """Spot USD/BRL at the start [BRL per USD]."""
    model: Literal["fixed", "parity", "gbm", "bootstrap"] = "fixed"
    """'fixed' (spot all horizon), 'parity' (forward from interest-rate parity), 'gbm' or 'bootstrap' (Monte Carlo)."""
    brl_rate: Share = 0.1375
    """Annual BRL interest rate for parity drift (Selic ≈ 13.75 % in Sep 2026, BCB SGS 4189)."""
    usd_rate: Share = 0.0363
    """Annual USD interest rate for parity drift (effective Fed funds 3.63 % in May 2026, FRED)."""
    volatility: Share = 0.0
    """Annual volatility of log USD/BRL for 'gbm' (fraction: 0.13 = 13 %)."""
    drift: float | None = None
    """Annual log drift for 'gbm'; default from interest-rate parity."""
    paths: int = Field(10_000, ge=1, le=10_000_000)
    """Monte Carlo paths."""
    seed: int = Field(20261130, ge=0)
    """Random seed (same seed, same numbers)."""
    history_csv: str | None = None
    """Monthly USD/BRL CSV (columns month,usdbrl) for 'bootstrap'; default the shipped BCB series."""
    block_months: int = Field(6, ge=1, le=60)
    """Block length of the bootstrap [months]."""


class Plan(Frozen):
    providers: list[str] = []
    """Providers to search ('aws', 'gcp', 'azure', 'br-dedicated', …); empty = every provider in the catalog."""
    brazil_only: bool = False
    """Data residency: train and serve only in Brazilian regions (sa-east-1, southamerica-east1, brazilsouth, BR)."""
    gpus: list[str] = []
    """GPUs to consider (catalog names, e.g. 'H200-SXM-141GB'); empty = every GPU the model fits on."""
    include_pricings: list[str] = []
    """Only these cloud pricings ('on_demand', 'reserved_3yr', …); empty = every pricing the catalog lists."""
    exclude_pricings: list[str] = []
    """Cloud pricings never to use."""
    spot_for_serving: bool = False
    """Allow spot instances for the serving fleet (they can be reclaimed at any time); spot bursts for training
    are always searched."""
    hybrids: bool = True
    """Also search hybrids: train on one provider (a cloud burst, a capacity block), serve on another."""
    taxes: dict[str, str] = {}
    """Tax profile per provider (e.g. { aws = "aws_brazil_local" }); default as for an option."""
    storage_usd_per_gb_month: dict[str, NonNegative] = {}
    """Storage price per provider where the catalog's is unverified (e.g. { azure = 0.023 }) [USD/GB-month]."""
    max_candidates: int = Field(5_000_000, ge=1)
    """Refuse a search larger than this many candidate plans (narrow providers or gpus instead)."""
    show: int = Field(3, ge=1, le=50)
    """Plans listed per provider (the best and its runners-up)."""


class Scenario(Frozen):
    scenario: ScenarioInfo
    model: ModelSpec
    training: Training
    inference: Inference
    fx: FX
    options: list[Option] = Field(min_length=1)
    plan: Plan | None = None
    """Plan search (`python -m tco plan`, and the `plans` key of `run`); absent = the defaults."""

    @model_validator(mode="after")
    def _cross(self):
        h = self.scenario.horizon_months
        if self.inference.start_month > h:
            raise ValueError(f"inference.start_month {self.inference.start_month} is after the horizon ({h} months)")
        if self.training.method != "none" and self.training.start_month > h:
            raise ValueError(f"training.start_month {self.training.start_month} is after the horizon ({h} months)")
        names = [o.name for o in self.options]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"option names must be unique; repeated: {', '.join(dup)}")
        return self


# ---------------------------------------------------------------------------------------------
# Loading


def key_lines(text: str) -> dict[tuple, int]:
    """Map key paths of a TOML document to their 1-based line numbers.

    Handles ``[table]``, ``[[array]]`` (indexed), ``key = value`` and dotted keys; inline tables
    map to the line of their key. Good enough to point a person at the right line.
    """
    lines: dict[tuple, int] = {}
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
            lines.setdefault(base, n)
            lines[current] = n
            continue
        m = re.match(r"^\[\s*([^\]]+?)\s*\]", line)
        if m:
            current = tuple(p.strip().strip('"') for p in m.group(1).split("."))
            lines[current] = n
            continue
        m = re.match(r'^("[^"]+"|[A-Za-z0-9_\-\.]+)\s*=', line)
        if m:
            key = tuple(p.strip().strip('"') for p in m.group(1).split("."))
            lines[current + key] = n
            # inline table keys: users = { model = "logistic", start_users = 10 }
            for im in re.finditer(r"([A-Za-z0-9_\-]+)\s*=", line[m.end():]):
                lines.setdefault(current + key + (im.group(1),), n)
    return lines


def _line_for(loc: tuple, lines: dict[tuple, int]) -> int | None:
    loc = tuple(loc)
    while loc:
        if loc in lines:
            return lines[loc]
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


def _valid_keys(parent: tuple) -> list[str]:
    """Field names allowed where an unknown key was found (for 'did you mean')."""
    model = Scenario
    for part in parent:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        ann = field.annotation
        target = None
        for cand in (ann, *getattr(ann, "__args__", ())):
            for c in (cand, *getattr(cand, "__args__", ())):
                if isinstance(c, type) and issubclass(c, BaseModel):
                    target = c
        if target is None:
            return []
        model = target
    return list(model.model_fields)


def _message(err: dict) -> str:
    loc = err.get("loc", ())
    msg = err.get("msg", "invalid")
    # drop the union tag pydantic adds for discriminated unions
    kind = err.get("type", "")
    inp = err.get("input")
    key = str(loc[-1]) if loc else ""
    if kind in ("less_than_equal", "less_than") and _PERCENT_HINT_KEYS.search(key) and isinstance(inp, (int, float)):
        return f"{inp!r} looks like a percent; write fractions (e.g. {inp / 100:g} for {inp:g} %)"
    if kind == "extra_forbidden":
        valid = _valid_keys(loc[:-1])
        from tco.errors import closest

        return f"unknown key; {closest(key, valid)}" if valid else "unknown key (typo?)"
    if kind == "missing":
        return "required key is missing"
    if kind == "union_tag_invalid":
        return f"{msg}"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    return f"{msg} (got {inp!r})" if kind not in ("model_type",) and not isinstance(inp, dict) and inp is not None and "got" not in msg else msg


def load_text(text: str, file: str = "<scenario>") -> Scenario:
    """Parse and validate scenario TOML text; raise InputError listing every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        msg = f"TOML syntax error: {exc}"
        src = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        hit = re.match(r"\s*([A-Za-z_]+)\s*=\s*(\d{4}-\d{1,2})\s*(#.*)?$", src)
        if hit:  # an unquoted month: TOML reads it as a broken date
            msg += f'; write months as text: {hit.group(1)} = "{hit.group(2)}"'
        raise InputError([Problem(file, hit.group(1) if hit else "", msg, line)]) from None
    lines = key_lines(text)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in ("linear", "compound", "logistic", "list")))
            problems.append(Problem(file, _key_path(loc), _message(err), _line_for(loc, lines)))
        problems.sort(key=lambda p: (p.line or 0))
        raise InputError(problems) from None


def load(path: str | Path) -> tuple[Scenario, str, dict[tuple, int]]:
    """Read a scenario file. Returns (scenario, sha256 of the file, key→line map)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot read scenario file: {exc.strerror}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError([Problem(str(path), "", "scenario file is not UTF-8 text")]) from None
    scenario = load_text(text, str(path))
    hist = scenario.fx.history_csv
    if hist and not Path(hist).is_absolute():  # relative to the scenario file, like catalog_dir
        fx = scenario.fx.model_copy(update={"history_csv": str(path.parent / hist)})
        scenario = scenario.model_copy(update={"fx": fx})
    return scenario, hashlib.sha256(raw).hexdigest(), key_lines(text)
