"""The scenario's sections that describe the choices: the deployment options ([[options]]), the USD/BRL
assumptions ([fx]) and the plan search ([plan]).

Frozen pydantic models (``tco.scenario.types.Frozen``); each field's docstring is its help text
(docs/scenario.md). What an option names (offers, pricings, tax profiles) is checked against the catalog
by ``tco.resolve``, not here.
"""

from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from tco.domain import FxBasePath, FxModel
from tco.scenario.types import (
    _CONTROL,
    MAX_BRL_PER_MONTH,
    MAX_PLAN_CANDIDATES,
    MAX_SERVERS,
    BrlPerMonth,
    Frozen,
    Id,
    Name,
    PathText,
    Share,
    Text,
    UsdPerHour,
    _plain,
    _visible,
)
from tco.scenario.owned import Owned


PRICINGS = ("on_demand", "reserved_1yr", "reserved_3yr", "spot")
"""The common pricings; any other pricing the catalog lists for the offer (e.g. 'cud_1yr',
'ri_3yr_standard_all_upfront_effective') may be named too. All but on_demand and spot are committed."""


StoragePrice = Annotated[float, Field(ge=0.0, le=100.0)]
"""A storage price override [USD/GB-month]: an option's and the plan search's (which builds options from it) share
the bound."""


Instances = Annotated[int, Field(ge=0, le=MAX_SERVERS)]
"""A committed baseline's instance count."""


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
    the catalog lists for the offer ('cud_1yr', …); all but on_demand/spot are committed (ignored by dedicated
    offers)."""
    training_pricing: Id = "on_demand"
    """Cloud pricing for the training burst (on_demand or spot for a separate burst)."""
    fleet: Literal["separate", "shared"] = "separate"
    """'separate': a training cluster only for the burst plus an inference fleet; 'shared': one fleet sized for both,
    kept all horizon."""
    autoscale: bool = True
    """Cloud on-demand/spot fleets follow the hourly load; otherwise the peak fleet runs all month."""
    egress: Id | None = None
    """Egress tier table id (default: the offer's provider/region; dedicated: none)."""
    storage: Id | None = None
    """Storage price id (default: the provider's object storage in the offer's region)."""
    storage_usd_per_gb_month: StoragePrice | None = None
    """Override of the storage price [USD/GB-month] (e.g. where the catalog's price is unverified)."""
    taxes: Id | None = None
    """Tax profile id (default: from how the cloud offer's provider bills a Brazilian CNPJ, br_billing:
    'aws_brazil_local' for AWS, 'import_direct_sp' for an import; 'brl_invoice_sp' for dedicated; 'none' turns
    taxes and credits off)."""
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
    """Annual price indexation of dedicated contracts (IPCA; Focus 2026 expectation ≈ 4 %), applied each contract
    year."""
    price_trend_rate: Annotated[float, Field(ge=-0.9, le=1.0)] = 0.0
    """Annual change of cloud USD prices (e.g. -0.10 = GPU-hours 10 % cheaper each year), applied each year."""
    committed_instances: Instances | list[Instances] | None = None
    """Committed baseline of a cloud inference fleet (0–100,000 instances): this many instances paid every hour of each term at
    `pricing` (a 1- or 3-year commitment), the hours above it at `burst_pricing`. One number, or one per term
    counted from the first serving month (the last holds). `python -m tco plan` finds the best values."""
    burst_pricing: Id = "on_demand"
    """Pricing of the instances above the committed baseline ('on_demand' or 'spot'); used with committed_instances."""
    burst_usd_per_hour: UsdPerHour | None = None
    """Override of the burst pricing's USD/hour price (the hours above the committed baseline)."""
    owned: Owned | None = None
    """Buy the servers of `inference_offer` instead of renting them (kind 'owned'): purchase, import taxes, payment,
    depreciation, colocation, power, upkeep and resale; every key optional ([options.owned], docs/scenario.md)."""


FxRate = Annotated[float, Field(ge=0.01, le=1000.0)]


def base_path(fx) -> FxBasePath:
    """The base path in use: the one given, else 'forward' for model 'parity' (its former name), else 'focus'."""
    if fx.model == FxModel.PARITY:
        return FxBasePath.FORWARD
    return FxBasePath(fx.base_path or FxBasePath.FOCUS)


def check_fx_keys(fx) -> None:
    """The FX section's cross-key rules (ValueError: the scenario loader names file, line and key). Whether a
    Focus edition exists is a data look-up, not the schema's: ``tco.timeline.fx_base.focus_problems``."""
    base = base_path(fx)
    if fx.model == FxModel.PARITY and fx.base_path not in (None, FxBasePath.FORWARD):
        raise ValueError(f"model 'parity' is the forward base path; it cannot be combined with base_path "
                         f"{fx.base_path!r} (write base_path = {fx.base_path!r} with model 'fixed', 'gbm' or 'bootstrap')")
    if base == FxBasePath.LIST and not fx.path:
        raise ValueError("base_path 'list' needs `path`, the monthly USD/BRL values (e.g. path = [5.40, 5.45, 5.50])")
    if base != FxBasePath.LIST and fx.path is not None:
        raise ValueError(f"`path` is only read with base_path = 'list' (the base path here is '{base}')")
    if fx.focus_edition is not None and base != FxBasePath.FOCUS:
        raise ValueError(f"focus_edition is only read with base_path = 'focus' (the base path here is '{base}')")
    if fx.drift is not None and fx.model != FxModel.GBM:
        raise ValueError(f"drift is only read with model 'gbm' (model here is {fx.model!r})")


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
        check_fx_keys(self)
        return self


MAX_PLAN_NAMES = 100
"""Most names a [plan] list or table may hold (the catalog has a dozen GPUs and providers; review L6: 50,000 unknown
GPUs gave 7 MB of messages). Each name is an Id: at most 200 characters, no control characters."""


class Plan(Frozen):
    providers: list[Id] = Field([], max_length=MAX_PLAN_NAMES)
    """Providers to search ('aws', 'gcp', 'azure', 'br-dedicated', …); empty = every provider in the catalog."""
    brazil_only: bool = False
    """Data residency: train and serve only in Brazilian regions (sa-east-1, southamerica-east1, brazilsouth, BR)."""
    gpus: list[Id] = Field([], max_length=MAX_PLAN_NAMES)
    """GPUs to consider (catalog names, e.g. 'H200-SXM-141GB'); empty = every GPU the model fits on."""
    include_pricings: list[Id] = Field([], max_length=MAX_PLAN_NAMES)
    """Only these cloud pricings ('on_demand', 'reserved_3yr', …); empty = every pricing the catalog lists."""
    exclude_pricings: list[Id] = Field([], max_length=MAX_PLAN_NAMES)
    """Cloud pricings never to use."""
    spot_for_serving: bool = False
    """Allow spot instances for the serving fleet (they can be reclaimed at any time); spot bursts for training
    are always searched."""
    hybrids: bool = True
    """Also search hybrids: train on one provider (a cloud burst, a capacity block), serve on another."""
    taxes: dict[Id, Id] = Field({}, max_length=MAX_PLAN_NAMES)
    """Tax profile per provider (e.g. { aws = "aws_brazil_local" }); default as for an option."""
    storage_usd_per_gb_month: dict[Id, StoragePrice] = Field({}, max_length=MAX_PLAN_NAMES)
    """Storage price per provider where the catalog's is unverified (e.g. { azure = 0.023 }) [USD/GB-month]."""
    max_candidates: int = Field(5_000_000, ge=1, le=MAX_PLAN_CANDIDATES)
    """Refuse a search that would score more plans than this (training bursts × serving fleets, plus each term's
    committed levels, plus shared fleets); narrow providers or gpus instead."""
    show: int = Field(3, ge=1, le=50)
    """Plans listed per provider (the best and its runners-up)."""
