"""The project's vocabulary: kinds, roles, pricings, cost lines, FX models, notices and distributions.

Imports nothing from ``tco``: every pipeline module and every renderer may import it, so no import
circle can form through it. The enums are ``StrEnum``: a member equals its string value
(``FleetKind.CLOUD == "cloud"``), serialises to it in JSON and reads back from it, so the scenario
files, the catalog and the JSON contract keep their plain words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar, dataclass_transform

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, eq_default=False)
def record(cls: type[_T]) -> type[_T]:
    """An immutable aggregate: a frozen dataclass whose instances are equal only to themselves.

    For what the pipeline builds once and passes on, never compares nor uses as a key: results, ledgers, resolved
    options, the catalog and its rows, the plan's components. Value types that are compared or cached on (the sizing
    inputs, tax periods, rules, notices) and the expression nodes stay ``@dataclass(frozen=True)``. (It was a
    dataclass with a shared ``__setattr__`` and ``__repr__``, to save Python 3.11's compiling of six generated methods
    per class: 3 ms of the start-up's 0.25 s, measured 2026-12-01; the plain dataclass is back.)"""
    return dataclass(frozen=True, eq=False)(cls)


class FleetKind(StrEnum):
    """Who owns the servers and how they are billed."""

    CLOUD = "cloud"
    """Public-cloud instances billed per hour in USD."""
    DEDICATED = "dedicated"
    """Whole servers rented in Brazil, billed per month in BRL."""
    HYBRID = "hybrid"
    """An option whose training and serving fleets are of different kinds (options only, never a fleet)."""
    OWNED = "owned"
    """An option whose servers are bought and run in colocation (options only: its fleet is a dedicated offer's
    servers, ``[options.owned]``)."""


class Role(StrEnum):
    """What a fleet or a cost is for."""

    TRAINING = "training"
    INFERENCE = "inference"
    SHARED = "shared"
    """Costs that serve both (storage, egress, taxes on them)."""


class FleetMode(StrEnum):
    """Whether training and serving run on one fleet or two."""

    SHARED = "shared"
    SEPARATE = "separate"


class TrainingMethod(StrEnum):
    """How the model is trained (``[training] method``): what the memory of a trained parameter is."""

    NONE = "none"
    LORA = "lora"
    FULL = "full"
    PRETRAIN = "pretrain"


class Interconnect(StrEnum):
    """How a server's GPUs talk to each other (gpus.csv ``interconnect``)."""

    NVLINK = "nvlink"
    NVLINK_BRIDGE = "nvlink_bridge"
    PCIE = "pcie"


class Precision(StrEnum):
    """Number format of weights, KV cache or training matmuls: bf16, fp8, fp4 (NVFP4 or MXFP4, Blackwell and later;
    bytes per value in ``tco.constants.BYTES_PER_PARAM``)."""

    BF16 = "bf16"
    FP8 = "fp8"
    FP4 = "fp4"


class Redundancy(StrEnum):
    """Spare serving capacity (``[inference] redundancy``): none, or one server more than the load needs."""

    NONE = "none"
    N_PLUS_1 = "n+1"


class TaxMethod(StrEnum):
    """How an invoice is taxed (tax_profiles.toml ``method``; the formulas of each are in ``tco.costs.taxes``)."""

    IMPORT_GROSS_UP = "import_gross_up"
    """The buyer imports the service and bears every tax on top of the price."""
    LOCAL_POR_DENTRO = "local_por_dentro"
    """A Brazilian entity's BRL invoice with PIS/COFINS and ISS inside it."""
    LOCAL_INCLUSIVE = "local_inclusive"
    """A BRL price that already holds the seller's taxes (a dedicated provider): the creditable part moves to the
    taxes line."""
    NONE = "none"
    """Nothing added, nothing credited."""


class BillingMode(StrEnum):
    """How a provider bills a Brazilian CNPJ (offers.csv ``br_billing``)."""

    LOCAL_ENTITY = "local_entity"
    """Through a Brazilian entity: an NFS-e in BRL."""
    IMPORT = "import"
    """As an import of services."""


class TaxRegime(StrEnum):
    """The buyer's tax regime (``[scenario] tax_regime``): which taxes paid come back as credits."""

    LUCRO_REAL = "lucro_real"
    LUCRO_PRESUMIDO = "lucro_presumido"
    SIMPLES = "simples"


class ParallelMode(StrEnum):
    """How a replica spans GPUs: tensor parallel inside a server, pipeline or expert parallel across servers."""

    TP = "tp"
    PP = "pp"
    EP = "ep"


class CostLine(StrEnum):
    """Lines of the ledger, in the order every table shows them."""

    TRAINING_COMPUTE = "training_compute"
    INFERENCE_COMPUTE = "inference_compute"
    SETUP = "setup"
    STORAGE = "storage"
    EGRESS = "egress"
    TAXES = "taxes"


LINES: tuple[str, ...] = tuple(CostLine)
"""Cost-line ids in ledger order (plain strings for dict keys and JSON)."""


class Currency(StrEnum):
    BRL = "BRL"
    USD = "USD"


class FxModel(StrEnum):
    """How the USD/BRL rate moves over the horizon."""

    FIXED = "fixed"
    PARITY = "parity"
    GBM = "gbm"
    BOOTSTRAP = "bootstrap"

    @property
    def is_monte_carlo(self) -> bool:
        """True for the models that draw random paths (and so give percentiles that differ)."""
        return self in (FxModel.GBM, FxModel.BOOTSTRAP)


def is_monte_carlo(model: str) -> bool:
    """True when the FX model ``model`` draws random paths."""
    return model in (FxModel.GBM, FxModel.BOOTSTRAP)


class FxBasePath(StrEnum):
    """Where the deterministic USD/BRL path comes from (``[fx] base_path``)."""

    FOCUS = "focus"
    """The Banco Central Focus survey median."""
    SPOT = "spot"
    """Today's rate, flat."""
    FORWARD = "forward"
    """The covered-interest-parity forward."""
    LIST = "list"
    """A path given month by month."""


class GrowthModel(StrEnum):
    """How the number of active users grows (the scenario's ``inference.users.model``)."""

    LINEAR = "linear"
    COMPOUND = "compound"
    LOGISTIC = "logistic"
    LIST = "list"


class PlanMode(StrEnum):
    """How a component of the plan search runs its fleet (the JSON's ``plans … serving.mode``)."""

    BURST = "burst"
    """A training burst."""
    AUTOSCALED = "autoscaled"
    COMMITTED_ALL_MONTH = "committed_all_month"
    """Committed instances for the peak, kept all month."""
    COMMITTED_BASELINE = "committed_baseline"
    """Committed instances per term, the hours above them at on demand."""
    DEDICATED = "dedicated"
    SHARED = "shared"
    """One fleet that trains and serves."""


class Status(StrEnum):
    """How far a catalog figure can be trusted (its ``status`` column), or where a price came from."""

    LISTED = "listed"
    QUOTE = "quote"
    SCENARIO_OVERRIDE = "scenario_override"
    ESTIMATE = "estimate"
    ILLUSTRATIVE_ESTIMATE = "illustrative_estimate"
    SOURCED = "sourced"
    UNVERIFIED = "unverified"
    NOT_OFFERED = "not_offered"
    ANOMALOUS = "anomalous"


REFUSED_STATUSES = (Status.NOT_OFFERED, Status.ANOMALOUS)
"""Catalog rows the engine refuses and the plan search never uses."""


ON_DEMAND = "on_demand"
SPOT = "spot"
"""The plain spot pricing (``is_spot`` also takes the catalog's variants of it)."""


def is_committed(pricing: str) -> bool:
    """Committed capacity (reservations, savings plans, committed-use discounts) is paid every hour of
    its term: every pricing but on-demand and spot."""
    return not (pricing == ON_DEMAND or pricing.startswith("spot"))


def is_capacity_block(pricing: str) -> bool:
    """Capacity blocks (AWS EC2 Capacity Blocks for ML, GCP DWS calendar mode) reserve a cluster for days or
    weeks: fit for a training burst, never for a fleet that runs all month."""
    return pricing.startswith("capacity_block") or pricing.startswith("dws_calendar")


def commitment_term_months(pricing: str) -> int | None:
    """Term of a committed pricing [months] read from its name ('reserved_1yr' → 12, 'cud_3yr' → 36); None when
    the name states no term."""
    import re

    m = re.search(r"(\d+)_?(?:yr|year)", pricing)
    return 12 * int(m.group(1)) if m else None


def is_spot(pricing: str) -> bool:
    """Interruptible capacity (spot, preemptible)."""
    return pricing.startswith("spot")


def option_kind(inference_kind: str, training_kind: str | None) -> FleetKind:
    """The kind of an option: its fleets' kind when they agree (or it has no training fleet), else hybrid."""
    if training_kind is None or training_kind == inference_kind:
        return FleetKind(inference_kind)
    return FleetKind.HYBRID


@dataclass(frozen=True)
class Notice:
    """Something a reader of the results must know, as data: a code, the option it concerns and the
    parameters that fill its text. ``tco.notices`` words it in a locale; nothing in the engine writes
    a sentence."""

    code: str
    option: str | None = None
    params: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Dist:
    """A total under FX uncertainty: the deterministic value and the Monte Carlo mean and percentiles [BRL]."""

    deterministic: float
    mean: float
    p5: float
    p50: float
    p95: float

    @classmethod
    def point(cls, value: float) -> Dist:
        """A value without uncertainty: every statistic equals it."""
        return cls(value, value, value, value, value)

    def as_dict(self) -> dict[str, float]:
        return {"deterministic": self.deterministic, "mean": self.mean, "p5": self.p5, "p50": self.p50, "p95": self.p95}


BRAZIL_REGIONS = ("sa-east-1", "southamerica-east1", "brazilsouth", "br")
"""Region ids of data centres in Brazil, matched whole (AWS São Paulo, GCP São Paulo, Azure Brazil South, the
dedicated providers' 'br'): the plan search's brazil_only and the proposal's data-residency line read this one list."""
