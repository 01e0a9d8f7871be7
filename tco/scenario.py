"""Scenario files: the schema (frozen pydantic models, unknown keys rejected) and the loader.

A scenario describes one AI model's lifecycle: a one-off training burst, then inference that grows
with users, and the deployment options to compare. Every field's description is its help text;
units are in the field names (``_months``, ``_gb``, ``_rate`` = fraction 0–1 per year unless said).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from datetime import date
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import (
    AfterValidator,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from tco.errors import InputError, Problem
from tco.scenario_messages import duplicate_names, key_lines, problems_from
from tco.scenario_proposal import Proposal
from tco.scenario_types import (  # noqa: F401 (the limits and text types are part of this module's API)
    _CONTROL,
    _CONTROL_TEXT,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_TEXT_CHARS,
    Frozen,
    Id,
    Line,
    Name,
    PathText,
    Text,
    _plain,
    _visible,
)

# Sane upper bounds: far beyond any real workload, low enough that the arithmetic stays finite.
MAX_USERS = 1e10
"""More than everyone on Earth."""
MAX_TOKENS_PER_REQUEST = 1e7
MAX_REQUESTS_PER_USER_PER_DAY = 1e5
MAX_TRAINING_TOKENS = 1e15
"""About 30× the largest published pre-training run (~3.6e13 tokens)."""
MAX_GPU_HOURS = 1e10
MAX_USD_PER_HOUR = 1e4
"""Per server-hour; the dearest 8-GPU cloud instances list about US$ 100/h."""
MAX_BRL_PER_MONTH = 1e8
"""Per server-month."""
YEARS = (1990, 2200)
"""First and last year a timeline may start in."""

Share = Annotated[float, Field(ge=0.0, le=1.0)]
Positive = Annotated[float, Field(gt=0.0)]
NonNegative = Annotated[float, Field(ge=0.0)]
Users = Annotated[float, Field(ge=0.0, le=MAX_USERS)]
PositiveUsers = Annotated[float, Field(gt=0.0, le=MAX_USERS)]
UsdPerHour = Annotated[float, Field(gt=0.0, le=MAX_USD_PER_HOUR)]
BrlPerMonth = Annotated[float, Field(gt=0.0, le=MAX_BRL_PER_MONTH)]


class ScenarioInfo(Frozen):
    name: Name
    """Scenario name, shown on every report."""
    client: Line = ""
    """Client the proposal is for (free text; always shown as text, never as a formula or markup)."""
    prepared_by: Line = ""
    """Who prepared the study (shown on the proposal cover)."""
    start: str
    """First month of the timeline, "YYYY-MM"."""
    horizon_months: int = Field(gt=0, le=240)
    """Number of months modelled, 1–240."""
    discount_rate: Share = 0.14
    """Nominal annual BRL discount rate (fraction: 0.14 = 14 %/yr); month t is discounted by (1 + r)^(-t/12)."""
    locale: Literal["pt-BR", "en"] = "pt-BR"
    """Language and number format of the workbook and proposal."""
    catalog_dir: PathText | None = None
    """Folder (relative to this file) with catalog CSV/TOML files whose rows add to or replace the shipped ones."""
    notes: Text = ""
    """Free text shown in the assumptions (up to 5,000 characters)."""
    tax_regime: Literal["lucro_real", "lucro_presumido", "simples"] = "lucro_real"
    """The buyer's tax regime, which sets the credits it takes: 'lucro_real' (PIS/COFINS and, from 2027, CBS/IBS),
    'lucro_presumido' (CBS/IBS from 2027) or 'simples' (none)."""

    @field_validator("tax_regime", mode="before")
    @classmethod
    def _regime(cls, v):
        from tco.errors import closest
        from tco.taxes import REGIMES

        if isinstance(v, str) and v not in REGIMES:
            raise ValueError(f"unknown tax regime {v!r}; {closest(v, list(REGIMES))}")
        return v

    @field_validator("start")
    @classmethod
    def _month(cls, v: str) -> str:
        if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", v):
            raise ValueError(f"start must be a month written 'YYYY-MM' (e.g. '2027-01'), got {v!r}")
        if not YEARS[0] <= int(v[:4]) <= YEARS[1]:
            raise ValueError(f"start year must be between {YEARS[0]} and {YEARS[1]}, got {v!r}")
        return v


class ModelSpec(Frozen):
    id: Id
    """Model architecture from the catalog (models.csv), e.g. 'llama-3.1-70b'."""
    precision: Literal["bf16", "fp8"] = "bf16"
    """Weight precision when serving: bf16 = 2 bytes/parameter, fp8 = 1 byte/parameter."""
    kv_precision: Literal["bf16", "fp8"] = "bf16"
    """Precision of the KV cache when serving."""


class Training(Frozen):
    method: Literal["none", "lora", "full", "pretrain"]
    """'none' (no training), 'lora' (adapters on frozen weights), 'full' fine-tune or 'pretrain'."""
    tokens: Annotated[float, Field(ge=0.0, le=MAX_TRAINING_TOKENS)] = 0.0
    """Training tokens per epoch, D [tokens]."""
    epochs: Annotated[float, Field(gt=0.0, le=1000.0)] = 1.0
    """Passes over the tokens."""
    gpu_hours: Annotated[float, Field(ge=0.0, le=MAX_GPU_HOURS)] | None = None
    """GPU-hours given directly (skips the 6·N·D estimate) [GPU·h]."""
    mfu: Share | None = None
    """Model FLOPs utilisation; default from the catalog calibration."""
    start_month: int = Field(1, ge=1, le=240)
    """Timeline month in which training starts (1 = scenario start)."""
    target_days: float = Field(30.0, ge=0.1, le=3650.0)
    """Wall-clock days the training burst should take; sets the cluster size unless `servers` is given."""
    servers: int | None = Field(None, ge=1, le=100_000)
    """Training cluster size in servers (overrides target_days)."""
    activation_memory_share: Annotated[float, Field(ge=0.0, le=100.0)] = 0.25
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
    start_users: Users
    """Users in the first month of inference."""
    end_users: Users
    """Users in the last month of the horizon."""


class CompoundGrowth(Frozen):
    model: Literal["compound"]
    """Growth model: "compound"."""
    start_users: Users
    """Users in the first month of inference."""
    monthly_growth_rate: Annotated[float, Field(ge=-1.0, le=1.0)]
    """Compound growth per month (fraction: 0.05 = +5 %/month)."""
    max_users: Users | None = None
    """Optional cap."""


class LogisticGrowth(Frozen):
    model: Literal["logistic"]
    """Growth model: "logistic"."""
    start_users: PositiveUsers
    """Users in the first month of inference."""
    ceiling_users: PositiveUsers
    """Saturation level of the S-curve."""
    steepness_per_month: Annotated[float, Field(gt=0.0, le=10.0)] = 0.25
    """Logistic rate k: u(t) = C / (1 + (C/u1 − 1)·e^(−k·t))."""


class ListGrowth(Frozen):
    model: Literal["list"]
    """Growth model: "list"."""
    users: list[Users] = Field(min_length=1, max_length=240)
    """Users per inference month; the last value holds for later months."""


Growth = Annotated[Union[LinearGrowth, CompoundGrowth, LogisticGrowth, ListGrowth], Field(discriminator="model")]

PROFILES = ("flat", "business_hours")


class Inference(Frozen):
    start_month: int = Field(1, ge=1, le=240)
    """Timeline month in which serving starts."""
    users: Growth
    """How the number of active users grows: linear, compound, logistic or list."""
    requests_per_user_per_day: Annotated[float, Field(ge=0.0, le=MAX_REQUESTS_PER_USER_PER_DAY)]
    """Requests an active user makes per day [requests/user/day]."""
    input_tokens_per_request: Annotated[float, Field(ge=0.0, le=MAX_TOKENS_PER_REQUEST)]
    """Prompt tokens per request (prefill) [tokens]."""
    output_tokens_per_request: Annotated[float, Field(gt=0.0, le=MAX_TOKENS_PER_REQUEST)]
    """Generated tokens per request (decode) [tokens]."""
    active_days_per_week: Annotated[float, Field(ge=1.0, le=7.0)] = 7.0
    """Days a week with traffic (5 for an office tool); the daily profile and peak are those of an active day."""
    tokens_per_second_per_user: Annotated[float, Field(gt=0.0, le=10_000.0)] = 20.0
    """Decode speed each user must see [tokens/s]."""
    time_to_first_token_seconds: Annotated[float, Field(gt=0.0, le=3600.0)] | None = None
    """Longest wait for the first token at the planned load [s] (prompt processing plus one decode step); none if unset."""
    calibration: Text | None = None
    """Serving calibration file written by `python -m tco calibrate` (path relative to the scenario); catalog default if unset."""
    daily_profile: Literal["flat", "business_hours"] | list[Share] = "business_hours"
    """Share of a day's requests in each hour (24 values summing to 1) or a named profile."""
    utilization_target_share: Annotated[float, Field(gt=0.0, le=1.0)] = 0.8
    """Highest planned utilisation of a replica at peak (headroom for bursts)."""
    redundancy: Literal["none", "n+1"] = "none"
    """'n+1' adds one spare replica whenever any is needed."""
    egress_kb_per_request: Annotated[float, Field(ge=0.0, le=1e6)] = 20.0
    """Bytes sent to the internet per request [kB, 1 kB = 1000 bytes] (response stream and overhead)."""
    storage_gb: Annotated[float, Field(ge=0.0, le=1e8)] = 0.0
    """Object storage kept on the cloud (weights, checkpoints, logs) [GB]."""
    bandwidth_efficiency_share: Share | None = None
    """Achieved share of peak memory bandwidth in decode; default from catalog calibration."""
    flops_efficiency_share: Share | None = None
    """Achieved share of peak FLOPS in prefill/decode compute; default from catalog calibration."""
    max_batch_sequences: int = Field(256, ge=1, le=65_536)
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
    name: Name
    """Label of the deployment option (plain text, up to 200 characters)."""
    label: Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_plain(_CONTROL)),
                     AfterValidator(_visible)] | None = None
    """Short name the proposal shows (up to 40 characters; default: the name)."""
    inference_offer: Id
    """Catalog offer that serves inference (cloud 'aws/us-east-1/p5en.48xlarge' or dedicated 'br-dedicated/sp/…')."""
    training_offer: Id | None = None
    """Catalog offer for the training burst (required unless training.method = 'none')."""
    pricing: Id = "on_demand"
    """Cloud pricing for the inference fleet: 'on_demand', 'spot', 'reserved_1yr', 'reserved_3yr' or any pricing
    the catalog lists for the offer ('cud_1yr', …); all but on_demand/spot are committed (ignored by dedicated offers)."""
    training_pricing: Id = "on_demand"
    """Cloud pricing for the training burst (on_demand or spot for a separate burst)."""
    fleet: Literal["separate", "shared"] = "separate"
    """'separate': a training cluster only for the burst plus an inference fleet; 'shared': one fleet sized for both, kept all horizon."""
    autoscale: bool = True
    """Cloud on-demand/spot fleets follow the hourly load; otherwise the peak fleet runs all month."""
    egress: Id | None = None
    """Egress tier table id (default: the offer's provider/region; dedicated: none)."""
    storage: Id | None = None
    """Storage price id (default: the provider's object storage in the offer's region)."""
    storage_usd_per_gb_month: Annotated[float, Field(ge=0.0, le=100.0)] | None = None
    """Override of the storage price [USD/GB-month] (e.g. where the catalog's price is unverified)."""
    taxes: Id | None = None
    """Tax profile id (default: from how the cloud offer's provider bills a Brazilian CNPJ, br_billing: 'aws_brazil_local'
    for AWS, 'import_direct_sp' for an import; 'brl_invoice_sp' for dedicated; 'none' turns taxes and credits off)."""
    usd_per_hour: UsdPerHour | None = None
    """Override of the inference offer's USD/hour price."""
    training_usd_per_hour: UsdPerHour | None = None
    """Override of the training offer's USD/hour price."""
    brl_per_month: BrlPerMonth | None = None
    """Override of the dedicated inference offer's BRL/month price per server."""
    training_brl_per_month: BrlPerMonth | None = None
    """Override of the dedicated training offer's BRL/month price per server."""
    quote_valid_until: Annotated[date, Field(strict=False)] | None = None
    """Last day ("YYYY-MM-DD") of the provider's quote behind this option's price overrides (brl_per_month,
    usd_per_hour, …): the outputs then call the price a quote, not an estimate."""
    quote_source: Text | None = None
    """Who quoted and the quote's reference (e.g. "Provider X, proposal 123 of 2026-11-20"); needs quote_valid_until."""
    setup_fee_brl: Annotated[float, Field(ge=0.0, le=MAX_BRL_PER_MONTH)] | None = None
    """Override of the dedicated setup fee per server."""
    min_term_months: int | None = Field(None, ge=1, le=240)
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


FxRate = Annotated[float, Field(ge=0.01, le=1000.0)]


class FX(Frozen):
    usdbrl: FxRate
    """Spot USD/BRL at the start [BRL per USD]."""
    model: Literal["fixed", "parity", "gbm", "bootstrap"] = "fixed"
    """'fixed' (no Monte Carlo: the base path only), 'parity' (the former name of base_path = 'forward', no Monte
    Carlo), 'gbm' or 'bootstrap' (Monte Carlo around the base path)."""
    base_path: Literal["focus", "spot", "forward", "list"] | None = None
    """The deterministic USD/BRL path the costs are converted at: 'focus' (the Banco Central Focus survey median of
    the shipped edition, year-end figures interpolated month by month from the spot; the default), 'spot' (flat at
    usdbrl), 'forward' (covered interest parity from brl_rate and usd_rate: the cost of hedging, not a forecast) or
    'list' (the monthly values of `path`). Default 'focus' ('forward' with model = 'parity')."""
    path: list[FxRate] | None = Field(None, min_length=1, max_length=600)
    """Monthly USD/BRL for base_path = 'list', month 1 first; the last value holds [BRL per USD]."""
    focus_edition: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$")
    """Focus edition ('YYYY-MM') in tco/catalog/data/usdbrl_focus.csv for base_path = 'focus'; default the latest."""
    brl_rate: Share = 0.1375
    """Annual BRL interest rate for parity drift (Selic ≈ 13.75 % in Sep 2026, BCB SGS 4189)."""
    usd_rate: Share = 0.0363
    """Annual USD interest rate for parity drift (effective Fed funds 3.63 % in May 2026, FRED)."""
    volatility: Share = 0.0
    """Annual volatility of log USD/BRL for 'gbm' (fraction: 0.13 = 13 %)."""
    drift: Annotated[float, Field(ge=-1.0, le=1.0)] | None = None
    """Annual log drift of the 'gbm' paths on top of the base path (E[S_t] = base_t·e^(drift·t/12)); default none:
    the paths centre on the base path."""
    paths: int = Field(10_000, ge=1, le=10_000_000)
    """Monte Carlo paths."""
    seed: int = Field(20261130, ge=0, le=2**63 - 1)
    """Random seed (same seed, same numbers)."""
    history_csv: PathText | None = None
    """Monthly USD/BRL CSV (columns month,usdbrl) for 'bootstrap'; default the shipped BCB series."""
    block_months: int = Field(6, ge=1, le=60)
    """Block length of the bootstrap [months]."""

    @model_validator(mode="after")
    def _base_path(self):
        from tco.fx_paths import check_base_path

        check_base_path(self)
        return self


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
    proposal: Proposal | None = None
    """Commercial terms of the PDF proposal (`tco.scenario_proposal`); absent = an estimate from the results."""

    @model_validator(mode="after")
    def _cross(self):
        h = self.scenario.horizon_months
        if self.inference.start_month > h:
            raise ValueError(f"inference.start_month {self.inference.start_month} is after the horizon ({h} months)")
        if self.training.method != "none" and self.training.start_month > h:
            raise ValueError(f"training.start_month {self.training.start_month} is after the horizon ({h} months)")
        return self


def plausibility(s: Scenario) -> list:
    """Notices for inputs that are valid but probably not meant (the run goes on)."""
    from tco.domain import Notice

    out = []
    g = s.inference.users
    h = s.scenario.horizon_months
    if g.model == "logistic" and g.ceiling_users < g.start_users:
        out.append(Notice("users_ceiling_below_start", None, {"ceiling": g.ceiling_users, "start": g.start_users}))
    if g.model == "compound" and g.max_users is None and g.start_users * (1 + g.monthly_growth_rate) ** h > 1e9:
        out.append(Notice("users_runaway", None, {"rate": g.monthly_growth_rate, "months": h}))
    if g.model == "list" and len(g.users) > h:
        out.append(Notice("users_list_too_long", None, {"values": len(g.users), "months": h}))
    from tco.fx_paths import describe_base

    base = describe_base(s.fx, s.scenario.start, h)
    if base.get("focus_held_from"):
        out.append(Notice("fx_focus_held", None, {"edition": base["focus_edition"], "year": base["focus_held_from"][:4]}))
    for o in s.options:
        if o.fleet == "shared" and o.autoscale and "autoscale" in o.model_fields_set:
            out.append(Notice("autoscale_ignored_shared", o.name))
        if o.pricing == "spot":
            out.append(Notice("spot_interruptible", o.name))
        if o.min_term_months is not None and o.min_term_months > h:
            out.append(Notice("min_term_beyond_horizon", o.name, {"term": o.min_term_months, "months": h}))
    return out


# ---------------------------------------------------------------------------------------------
# Loading


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
    problems = duplicate_names(data, file, lines)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems += problems_from(exc, file, lines, Scenario)
    if problems:
        problems.sort(key=lambda p: (p.line or 0))
        raise InputError(problems) from None
    return scenario


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
    scenario = load_text(text, str(path))
    hist = scenario.fx.history_csv
    if hist and not Path(hist).is_absolute():  # relative to the scenario file, like catalog_dir
        fx = scenario.fx.model_copy(update={"history_csv": str(path.parent / hist)})
        scenario = scenario.model_copy(update={"fx": fx})
    cal = scenario.inference.calibration
    if cal and not Path(cal).is_absolute():  # relative to the scenario file
        scenario = scenario.model_copy(update={"inference": scenario.inference.model_copy(
            update={"calibration": str(path.parent / cal)})})
    return scenario, hashlib.sha256(raw).hexdigest(), key_lines(text.lstrip("\ufeff"))
