"""The catalog's row types: GPU specs, model architectures, offers, egress, storage, tax profiles and the
Catalog that holds them (the loaders are in specs.py, offers.py and toml_data.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tco.constants import HOURS_PER_MONTH
from tco.domain import BillingMode, record
from tco.domain.taxes import ReformPeriod

MAX_USD_PER_HOUR = 1e4
"""Per server-hour (the scenario schema's bound too)."""

MAX_BRL_PER_MONTH = 1e8
"""Per server-month."""

DATA_DIR = Path(__file__).parent / "data"

STATUSES = ("listed", "estimate", "unverified", "not_offered", "anomalous", "quote")
"""Price statuses (tco/catalog/data/README.md): `listed` and `quote` (a provider's dated quote, in a user's catalog
folder) are used as they are; `estimate` and `unverified` prices with a warning; `not_offered` and `anomalous` rows
are refused unless the scenario gives the price itself. The shipped catalog uses the first five."""

STATUS_ALIASES = {"illustrative_estimate": "estimate"}
"""Older names still accepted in a user's catalog folder."""

BR_BILLING = tuple(m.value for m in BillingMode)
"""How a provider bills a Brazilian CNPJ (``tco.domain.BillingMode``): a Brazilian entity issuing an NFS-e in BRL,
or an imported service."""



@dataclass(frozen=True)
class Gpu:
    """One GPU model (gpus.csv): memory, bandwidth, dense BF16/FP8/FP4 TFLOPS, power, interconnect and architecture
    generation, with its source."""

    gpu: str
    memory_gb: float
    bandwidth_tbs: float
    bf16_tflops: float
    fp8_tflops: float | None
    tdp_w: float | None
    interconnect: str
    interconnect_gbs: float | None
    source: str
    as_of: str
    fp4_tflops: float | None = None
    """Dense FP4 (NVFP4/MXFP4) tensor TFLOPS; None on a GPU without FP4 tensor cores (then fp4 cannot be sized)."""
    generation: str = ""
    """Architecture generation (ampere, ada, hopper, blackwell): the training MFU calibration's key
    (defaults.toml ``[training.generation_factor]``)."""



@record
class ModelArch:
    """One model architecture (models.csv): parameters (total and active), layers, KV heads and head size."""

    model: str
    family: str
    params_b: float
    active_params_b: float
    layers: int
    kv_heads: int
    head_dim: int
    max_context_tokens: int | None
    source: str
    as_of: str
    hidden_size: int = 0
    experts: int = 0
    """Routed experts per MoE layer (0: dense)."""
    experts_per_token: int = 0
    attention_heads: int = 0
    """Query heads (0: hidden_size / head_dim)."""
    attention_head_dim: float = 0.0
    """Mean width of the score and value products per query head in decode (0: head_dim); MLA's absorbed attention
    scores over the 512 + 64 latent and weighs the 512 latent: (576 + 512)/2 = 544."""
    mtp_modules: int = 0
    """Multi-token-prediction modules shipped with the weights (DeepSeek-V3/R1: 1); 0: no MTP speculative decoding."""
    moe_layers: int = 0
    """Layers that carry routed experts (Llama 4 Maverick: 24 of 48, DeepSeek-V3/R1: 58 of 61); 0: every layer of a
    mixture of experts (and none of a dense model)."""
    attention_params_b: float = 0.0
    """Parameters of the attention projections over all layers [1e9] (DeepSeek-V3/R1's MLA: 11.413); 0: not given.
    Used where a checkpoint keeps them in a wider format than the other weights (tco.sizing.precision_rules)."""
    prompt_attention_head_dim: float = 0.0
    """Mean width of the score and value products per query head for a prompt's tokens (0: attention_head_dim); MLA
    runs prompts non-absorbed: (192 + 128)/2 = 160."""
    vocab_size: int = 0
    """Rows of the input embedding and of the output head (config.json vocab_size); 0: not given (the body then counts
    them, read every step at the weights' precision). Used by tco.sizing.vocab_rules."""
    tied_embeddings: bool = False
    """The output head is the input embedding (config.json tie_word_embeddings): one matrix, held once, read each step."""



@record
class Interconnect:
    """The scale-out network of an offer or an instance type (interconnect.csv)."""

    key: str
    """Offer id, or 'provider/*/instance' for every region of an instance type."""
    scale_out_gbps: float | None
    """Cluster network bandwidth of one server [Gb/s]; None: not known."""
    status: str
    source: str
    as_of: str



@record
class CloudPrice:
    """One pricing of a cloud offer (on demand, spot, a commitment…), with its status, source and date."""

    usd_per_hour: float | None
    """Effective USD per instance-hour (for all-upfront commitments: upfront spread over the term's hours)."""
    status: str
    source: str
    as_of: str
    upfront_usd: float | None = None
    """Part of the commitment paid at the start of its term, per instance [USD]; None = nothing upfront."""
    term_months: int | None = None
    """Commitment term [months]; None for on-demand, spot, capacity blocks and calendar reservations."""
    note: str = ""

    @property
    def recurring_usd_per_hour(self) -> float | None:
        """Hourly charge left once the upfront is paid: usd_per_hour − upfront_usd / (term_months × 730 h)."""
        if self.usd_per_hour is None or not self.upfront_usd or not self.term_months:
            return self.usd_per_hour
        return max(self.usd_per_hour - self.upfront_usd / (self.term_months * HOURS_PER_MONTH.value), 0.0)



@record
class Provider:
    """A provider (providers.csv) and how it bills a Brazilian company."""

    provider: str
    name: str
    br_billing: str
    """'local_entity' (NFS-e in BRL from a Brazilian entity) or 'import'."""
    br_billing_status: str
    """'sourced' or 'unverified'."""
    br_billing_source: str
    as_of: str



@record
class CloudOffer:
    """A cloud instance in one region (cloud_offers.csv) and its prices by pricing."""

    offer_id: str
    provider: str
    region: str
    instance: str
    gpu: str
    gpu_count: int
    prices: dict[str, CloudPrice]
    kind: str = "cloud"
    br_billing: str | None = None
    """From providers.csv: 'local_entity' | 'import'; None when the provider has no row there."""
    br_billing_source: str = ""



@record
class DedicatedOffer:
    """A dedicated server rented in BRL per month (dedicated_offers.csv), with its terms and source."""

    offer_id: str
    provider: str
    gpu: str
    gpu_count: int
    brl_per_month: float
    setup_fee_brl: float
    min_term_months: int
    indexation: str
    status: str
    derivation: str
    source: str
    as_of: str
    kind: str = "dedicated"
    region: str = "br"
    br_billing: str | None = None
    br_billing_source: str = ""
    brl_per_month_low: float | None = None
    """Low and high cases of the landed-cost derivation (tco/catalog/landed.py); None in rows without them."""
    brl_per_month_high: float | None = None



@record
class EgressTable:
    """Internet egress prices by volume tier (egress_tiers.csv)."""

    egress_id: str
    tiers: tuple[tuple[float, float | None, float | None], ...]
    """(from_gb, to_gb or None = unbounded, usd_per_gb or None = unverified)."""
    source: str
    as_of: str



@record
class StoragePrice:
    """Object-storage price per GB-month (storage.csv)."""

    storage_id: str
    usd_per_gb_month: float | None
    status: str
    source: str
    as_of: str



@record
class TaxProfile:
    """A tax profile (tax_profiles.toml): how and at what rates a bill is taxed."""

    profile_id: str
    method: str
    rates: dict[str, float]
    pis_cofins_creditable: bool
    label_en: str
    label_pt: str
    source: str
    as_of: str
    valid_until: str | None = None
    """Last month ('YYYY-MM') the base rates describe; later months follow the reform periods (if `reform`)."""
    reform: bool = True
    """Whether the catalog's reform periods (CBS/IBS from 2027) replace the base rates in their months."""
    status: str = "sourced"



@record
class Billing:
    """How a provider bills a Brazilian CNPJ, and the tax profile that follows from it."""

    provider: str
    mode: str
    profile: str
    status: str
    source: str
    as_of: str



@record
class Catalog:
    """Every catalog file read and checked: specs, offers, prices, egress, storage, taxes, defaults."""

    gpus: dict[str, Gpu]
    models: dict[str, ModelArch]
    cloud_offers: dict[str, CloudOffer]
    dedicated_offers: dict[str, DedicatedOffer]
    egress: dict[str, EgressTable]
    storage: dict[str, StoragePrice]
    taxes: dict[str, TaxProfile]
    defaults: dict[str, dict]
    files: tuple[str, ...] = field(default=())
    interconnect: dict[str, Interconnect] = field(default_factory=dict)
    calibration: dict = field(default_factory=dict)
    """The default serving calibration (calibration_default.toml): parameters, name and source."""
    providers: dict[str, Provider] = field(default_factory=dict)
    tax_reform: tuple[ReformPeriod, ...] = ()
    """Dated reform periods (tax_profiles.toml [reform.*]), in month order."""
    billing: dict[str, Billing] = field(default_factory=dict)
    """Provider → how it bills a Brazilian CNPJ (tax_profiles.toml [billing.*]); 'import' and 'local_entity'
    in it also name the default profile of each mode."""
    empty_dir: str = ""
    """A catalog_dir that holds none of the catalog files (only the shipped catalog is used), else ''."""

    def network_for(self, offer_id: str) -> Interconnect | None:
        """The scale-out network row of an offer: its own id, else 'provider/*/instance'."""
        if offer_id in self.interconnect:
            return self.interconnect[offer_id]
        parts = offer_id.split("/")
        if len(parts) == 3:
            return self.interconnect.get(f"{parts[0]}/*/{parts[2]}")
        return None

    @property
    def as_of(self) -> str:
        """Date the shipped catalog was last checked as a whole (defaults.toml [catalog] as_of)."""
        return str(self.defaults.get("catalog", {}).get("as_of", ""))

    def offer(self, offer_id: str):
        return self.cloud_offers.get(offer_id) or self.dedicated_offers.get(offer_id)

    @property
    def offer_ids(self) -> list[str]:
        return sorted(set(self.cloud_offers) | set(self.dedicated_offers))
