"""The scenario's sections that describe the work: [scenario] (name, timeline, locale, the buyer's tax regime),
[model], [training] and [inference] with its users curve.

Frozen pydantic models (``tco.scenario.types.Frozen``: unknown keys, loose types and non-finite numbers refused);
each field's docstring is its help text (docs/scenario.md). Units are in the field names (``_months``, ``_gb``,
``_rate`` = fraction 0–1 per year unless said).
"""

import re
from typing import Annotated, Literal, Union

from pydantic import Field, field_validator, model_validator

from tco.domain import TrainingMethod
from tco.scenario.types import (
    MAX_GPU_HOURS,
    MAX_REQUESTS_PER_USER_PER_DAY,
    MAX_TOKENS_PER_REQUEST,
    MAX_SERVERS,
    MAX_TRAINING_TOKENS,
    START_YEARS,
    Efficiency,
    Frozen,
    Id,
    Line,
    Name,
    PathText,
    PositiveUsers,
    Share,
    Text,
    Users,
)


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
        from tco.domain.taxes import REGIMES

        if isinstance(v, str) and v not in REGIMES:
            raise ValueError(f"unknown tax regime {v!r}; {closest(v, list(REGIMES))}")
        return v

    @field_validator("start")
    @classmethod
    def _month(cls, v: str) -> str:
        if not re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", v):
            raise ValueError(f"start must be a month written 'YYYY-MM' (e.g. '2027-01'), got {v!r}")
        if not START_YEARS[0] <= int(v[:4]) <= START_YEARS[1]:
            raise ValueError(f"start year must be between {START_YEARS[0]} and {START_YEARS[1]}, got {v!r}")
        return v


class ModelSpec(Frozen):
    id: Id
    """Model architecture from the catalog (models.csv), e.g. 'llama-3.1-70b'."""
    precision: Literal["bf16", "fp8", "fp4"] = "bf16"
    """Weight precision when serving: bf16 = 2 bytes/parameter, fp8 = 1 byte/parameter, fp4 = NVFP4/MXFP4, 0.5625
    byte/parameter with its block scales (only on GPUs with FP4 tensor cores: B200 and later)."""
    kv_precision: Literal["bf16", "fp8", "fp4"] = "bf16"
    """Precision of the KV cache when serving (fp4: NVFP4 KV cache, B200 and later)."""


class Training(Frozen):
    method: Literal["none", "lora", "full", "pretrain"]
    """'none' (no training), 'lora' (adapters on frozen weights), 'full' fine-tune or 'pretrain'."""
    tokens: Annotated[float, Field(ge=0.0, le=MAX_TRAINING_TOKENS)] = 0.0
    """Training tokens per epoch, D [tokens]."""
    epochs: Annotated[float, Field(gt=0.0, le=1000.0)] = 1.0
    """Passes over the tokens."""
    gpu_hours: Annotated[float, Field(ge=0.0, le=MAX_GPU_HOURS)] | None = None
    """GPU-hours given directly (skips the 6·N·D estimate) [GPU·h]."""
    precision: Literal["bf16", "fp8", "fp4"] = "bf16"
    """Number format of the training matmuls: bf16, fp8 (Hopper and later) or fp4 (NVFP4, Blackwell); the MFU is
    taken against that format's dense peak (docs/calibration_training.md)."""
    mfu: Efficiency | None = None
    """Model FLOPs utilisation against the dense peak at `precision`, 0.01–1; default from the catalog calibration
    by GPU generation, precision and (for mixture-of-experts models) expert size."""
    start_month: int = Field(1, ge=1, le=240)
    """Timeline month in which training starts (1 = scenario start)."""
    target_days: float = Field(30.0, ge=0.1, le=3650.0)
    """Wall-clock days the training burst should take; sets the cluster size unless `servers` is given."""
    servers: int | None = Field(None, ge=1, le=MAX_SERVERS)
    """Training cluster size in servers (overrides target_days)."""
    sequence_length: int | None = Field(None, ge=128, le=1_048_576)
    """Tokens per training sequence, 128–1,048,576 (an integer): sets the causal attention's FLOPs, 6 · layers ·
    sequence length · query width per token on top of 6·N; default the catalog's (defaults.toml [training]
    sequence_length, 4096)."""
    activation_memory_share: Annotated[float, Field(ge=0.0, le=100.0)] = 0.25
    """Activation memory as a share of weight+optimizer memory (planning assumption)."""
    lora_trainable_share: Share = 0.01
    """Share of parameters trained by LoRA adapters."""

    @model_validator(mode="after")
    def _work(self):
        if self.method != TrainingMethod.NONE and self.gpu_hours is None and self.tokens <= 0:
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
    output_tokens_per_request: Annotated[float, Field(ge=1.0, le=MAX_TOKENS_PER_REQUEST)]
    """Generated tokens per request (decode), at least 1: a request yields a token or is not served [tokens]."""
    active_days_per_week: Annotated[float, Field(ge=1.0, le=7.0)] = 7.0
    """Days a week with traffic (5 for an office tool); the daily profile and peak are those of an active day."""
    tokens_per_second_per_user: Annotated[float, Field(gt=0.0, le=10_000.0)] = 20.0
    """Decode speed each user must see [tokens/s]."""
    time_to_first_token_seconds: Annotated[float, Field(gt=0.0, le=3600.0)] | None = None
    """Longest wait for the first token at the planned load [s] (prompt processing plus one decode step); none if
    unset."""
    calibration: Text | None = None
    """Serving calibration file written by `python -m tco calibrate` (path relative to the scenario); catalog default
    if unset (an empty path is refused)."""
    framework: Literal["generic", "trtllm", "vllm", "sglang"] = "generic"
    """Serving framework: 'generic' uses the calibration as fitted; 'trtllm', 'vllm' or 'sglang' need a calibration
    fitted on that framework's runs (the catalog's covers trtllm; for another, fit your benchmark with
    `python -m tco calibrate` and set `calibration`), else exit 2."""
    daily_profile: Literal["flat", "business_hours"] | list[Share] = "business_hours"
    """Share of a day's requests in each hour (24 values summing to 1) or a named profile."""
    utilization_target_share: Efficiency = 0.8
    """Highest planned utilisation of a replica at peak (headroom for bursts), 0.01–1."""
    redundancy: Literal["none", "n+1"] = "none"
    """'n+1' adds one spare replica whenever any is needed."""
    egress_kb_per_request: Annotated[float, Field(ge=0.0, le=1e6)] = 20.0
    """Bytes sent to the internet per request [kB, 1 kB = 1000 bytes] (response stream and overhead)."""
    storage_gb: Annotated[float, Field(ge=0.0, le=1e8)] = 0.0
    """Object storage kept on the cloud (weights, checkpoints, logs) [GB]."""
    bandwidth_efficiency_share: Efficiency | None = None
    """Achieved share of peak memory bandwidth in decode, 0.01–1; default from catalog calibration."""
    flops_efficiency_share: Efficiency | None = None
    """Achieved share of peak FLOPS in prefill/decode compute, 0.01–1; default from catalog calibration."""
    max_batch_sequences: int = Field(256, ge=1, le=65_536)
    """Cap on concurrent sequences per replica (vLLM's max_num_seqs default is 256)."""
    memory_usable_share: Efficiency = 0.9
    """Share of GPU memory usable for weights and KV cache, 0.01–1 (vLLM's default gpu_memory_utilization)."""
    speculative: Literal["none", "mtp"] = "none"
    """Speculative decoding: 'mtp' drafts with the model's own multi-token-prediction module (models.csv
    mtp_modules: DeepSeek-V3/R1), the model verifies; 'none' decodes one token per step."""
    speculative_draft_tokens: int = Field(1, ge=1, le=4)
    """Tokens the MTP module drafts per step, n (DeepSeek-V3 trained one; TensorRT-LLM chains it up to 3)."""
    speculative_acceptance_share: Share = 0.85
    """Chance each draft token is accepted, a: DeepSeek-V3 technical report (arXiv:2412.19437 §5.4.3) measures
    85–90 % for its second token; a step keeps 1 + a + … + aⁿ tokens."""

    @field_validator("calibration", mode="before")
    @classmethod
    def _calibration(cls, v):
        if isinstance(v, str) and not v.strip():  # read as no file at all, in silence (2026-12d Q3)
            raise ValueError("the calibration file's path is empty; name the file `python -m tco calibrate` wrote "
                             "(relative to the scenario), or leave calibration out for the catalog's")
        return v

    @field_validator("daily_profile")
    @classmethod
    def _profile(cls, v):
        if isinstance(v, list):
            if len(v) != 24:
                raise ValueError(f"daily_profile needs 24 hourly shares, got {len(v)}")
            if abs(sum(v) - 1.0) > 1e-6:
                raise ValueError(f"daily_profile shares must sum to 1 (they sum to {sum(v):.6g})")
        return v
