"""The catalog: GPU specs, model architectures, offers, egress, storage and tax profiles.

Every row comes from a dated, sourced data file in ``tco/catalog/data/`` (see its README). A
scenario may point to a folder of its own with files of the same names: their rows add to, or
replace (same id), the shipped rows. Loaders check types and report every bad row at once.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from tco.errors import InputError, Problem, closest
from tco.taxes import BILLING_MODES, METHODS, RATE_KEYS, ReformPeriod
from tco.catalog.rows import Rows, read_text

MAX_USD_PER_HOUR = 1e4
"""Per server-hour (the scenario schema's bound too)."""
MAX_BRL_PER_MONTH = 1e8
"""Per server-month."""

DATA_DIR = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Gpu:
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


@dataclass(frozen=True)
class ModelArch:
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


@dataclass(frozen=True)
class Interconnect:
    key: str
    """Offer id, or 'provider/*/instance' for every region of an instance type."""
    scale_out_gbps: float | None
    """Cluster network bandwidth of one server [Gb/s]; None: not known."""
    status: str
    source: str
    as_of: str


STATUSES = ("listed", "estimate", "unverified", "not_offered", "anomalous", "quote")
"""Price statuses (tco/catalog/data/README.md): `listed` and `quote` (a provider's dated quote, in a user's catalog
folder) are used as they are; `estimate` and `unverified` prices with a warning; `not_offered` and `anomalous` rows
are refused unless the scenario gives the price itself. The shipped catalog uses the first five."""
STATUS_ALIASES = {"illustrative_estimate": "estimate"}
"""Older names still accepted in a user's catalog folder."""
BR_BILLING = ("local_entity", "import")
"""How a provider bills a Brazilian CNPJ: a Brazilian entity issuing an NFS-e in BRL, or an imported service."""


@dataclass(frozen=True)
class CloudPrice:
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
        return max(self.usd_per_hour - self.upfront_usd / (self.term_months * 730.0), 0.0)


@dataclass(frozen=True)
class Provider:
    provider: str
    name: str
    br_billing: str
    """'local_entity' (NFS-e in BRL from a Brazilian entity) or 'import'."""
    br_billing_status: str
    """'sourced' or 'unverified'."""
    br_billing_source: str
    as_of: str


@dataclass(frozen=True)
class CloudOffer:
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


@dataclass(frozen=True)
class DedicatedOffer:
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
    """Low and high cases of the landed-cost derivation (tco/landed.py); None in rows without them."""
    brl_per_month_high: float | None = None


@dataclass(frozen=True)
class EgressTable:
    egress_id: str
    tiers: tuple[tuple[float, float | None, float | None], ...]
    """(from_gb, to_gb or None = unbounded, usd_per_gb or None = unverified)."""
    source: str
    as_of: str


@dataclass(frozen=True)
class StoragePrice:
    storage_id: str
    usd_per_gb_month: float | None
    status: str
    source: str
    as_of: str


@dataclass(frozen=True)
class TaxProfile:
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


@dataclass(frozen=True)
class Billing:
    """How a provider bills a Brazilian CNPJ, and the tax profile that follows from it."""

    provider: str
    mode: str
    profile: str
    status: str
    source: str
    as_of: str


@dataclass(frozen=True)
class Catalog:
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

    def network_for(self, offer_id: str) -> Interconnect | None:
        """The scale-out network row of an offer: its own id, else 'provider/*/instance'."""
        if offer_id in self.interconnect:
            return self.interconnect[offer_id]
        parts = offer_id.split("/")
        if len(parts) == 3:
            return self.interconnect.get(f"{parts[0]}/*/{parts[2]}")
        return None
    providers: dict[str, Provider] = field(default_factory=dict)

    @property
    def as_of(self) -> str:
        """Date the shipped catalog was last checked as a whole (defaults.toml [catalog] as_of)."""
        return str(self.defaults.get("catalog", {}).get("as_of", ""))
    tax_reform: tuple[ReformPeriod, ...] = ()
    """Dated reform periods (tax_profiles.toml [reform.*]), in month order."""
    billing: dict[str, Billing] = field(default_factory=dict)
    """Provider → how it bills a Brazilian CNPJ (tax_profiles.toml [billing.*]); 'import' and 'local_entity'
    in it also name the default profile of each mode."""
    empty_dir: str = ""
    """A catalog_dir that holds none of the catalog files (only the shipped catalog is used), else ''."""

    def offer(self, offer_id: str):
        return self.cloud_offers.get(offer_id) or self.dedicated_offers.get(offer_id)

    @property
    def offer_ids(self) -> list[str]:
        return sorted(set(self.cloud_offers) | set(self.dedicated_offers))


# ---------------------------------------------------------------------------------------------


def _status(r: Rows, line: int, row: dict, default: str) -> str:
    st = (row.get("status") or default).strip()
    st = STATUS_ALIASES.get(st, st)
    if st not in STATUSES:
        r.problems.append(Problem(str(r.path), "status", f"unknown status {st!r}; {closest(st, list(STATUSES))}", line))
    return st


def _merge_files(name: str, extra_dir: Path | None) -> list[Path]:
    paths = [DATA_DIR / name]
    if extra_dir is not None and (extra_dir / name).exists():
        paths.append(extra_dir / name)
    return paths


def _load_gpus(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("gpu", "memory_gb", "bandwidth_tbs", "bf16_dense_tflops", "source", "as_of"))
        for line, row in r.rows:
            mem, bw, bf16 = (r.num(line, row, k, lo=0, hi=1e5, lo_open=True)
                             for k in ("memory_gb", "bandwidth_tbs", "bf16_dense_tflops"))
            opt = [r.num(line, row, k, False, lo=0, hi=1e6, lo_open=True)
                   for k in ("fp8_dense_tflops", "tdp_w", "interconnect_gbs")]
            name = r.text(line, row, "gpu")
            if mem is None or bw is None or bf16 is None or not name:
                continue
            out[name] = Gpu(name, mem, bw, bf16, opt[0], opt[1], row.get("interconnect", "pcie") or "pcie",
                            opt[2], row["source"], row["as_of"])
        problems += r.problems
    return out


def _all_given(values: list[float | None]) -> list[float] | None:
    """The values when every one was read (a problem was recorded for each missing one), else None."""
    out = [v for v in values if v is not None]
    return out if len(out) == len(values) else None


def _load_models(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("model", "params_b", "active_params_b", "layers", "kv_heads", "head_dim", "source", "as_of"))
        for line, row in r.rows:
            given = [r.num(line, row, k, lo=0, hi=1e5, lo_open=True) for k in ("params_b", "active_params_b")]
            given += [r.num(line, row, k, lo=1, hi=1e5, integer=True) for k in ("layers", "kv_heads", "head_dim")]
            ctx = r.num(line, row, "max_context_tokens", False, lo=1, hi=1e9, integer=True)
            vals = _all_given(given)
            if vals is None or not r.text(line, row, "model"):
                continue
            if vals[1] > vals[0]:
                r.problems.append(Problem(str(p), "active_params_b", f"active parameters ({vals[1]:g} B) exceed the "
                                          f"total ({vals[0]:g} B)", line))
                continue
            extra = [r.num(line, row, k, False, lo=0, hi=1e7, integer=True)
                     for k in ("hidden_size", "experts", "experts_per_token")]
            out[row["model"]] = ModelArch(row["model"], row.get("family", ""), vals[0], vals[1], int(vals[2]),
                                          int(vals[3]), int(vals[4]), int(ctx) if ctx else None,
                                          row["source"], row["as_of"], *(int(x or 0) for x in extra))
        problems += r.problems
    return out


def _load_cloud(paths, problems):
    out: dict[str, CloudOffer] = {}
    for p in paths:
        r = Rows(p, ("offer_id", "provider", "region", "instance", "gpu", "gpu_count", "pricing", "usd_per_hour",
                      "source", "as_of"))
        for line, row in r.rows:
            count = r.num(line, row, "gpu_count", lo=1, hi=1024, integer=True)
            usd = r.num(line, row, "usd_per_hour", False, lo=0, hi=MAX_USD_PER_HOUR, lo_open=True)
            oid = r.text(line, row, "offer_id")
            if count is None or not oid or (usd is None and (row.get("usd_per_hour") or "").strip()):
                continue
            term = r.num(line, row, "term_months", False, lo=1, hi=120, integer=True)
            upfront = r.num(line, row, "upfront_usd", False, lo=0, hi=1e9)
            price = CloudPrice(usd, _status(r, line, row, "listed"), row["source"], row["as_of"], upfront,
                               int(term) if term else None, row.get("note") or "")
            prev = out.get(oid)
            prices = dict(prev.prices) if prev else {}
            prices[row["pricing"]] = price
            out[oid] = CloudOffer(oid, row["provider"], row["region"], row["instance"], row["gpu"], int(count), prices)
        problems += r.problems
    return out


def _load_dedicated(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("offer_id", "provider", "gpu", "gpu_count", "brl_per_month", "setup_fee_brl",
                      "min_term_months", "source", "as_of"))
        for line, row in r.rows:
            vals = _all_given([r.num(line, row, "gpu_count", lo=1, hi=1024, integer=True),
                               r.num(line, row, "brl_per_month", lo=0, hi=MAX_BRL_PER_MONTH, lo_open=True),
                               r.num(line, row, "setup_fee_brl", lo=0, hi=MAX_BRL_PER_MONTH),
                               r.num(line, row, "min_term_months", lo=1, hi=240, integer=True)])
            if vals is None or not r.text(line, row, "offer_id"):
                continue
            out[row["offer_id"]] = DedicatedOffer(row["offer_id"], row["provider"], row["gpu"], int(vals[0]), vals[1],
                                                  vals[2], int(vals[3]), row.get("indexation", "ipca"),
                                                  _status(r, line, row, "estimate"), row.get("derivation", ""), row["source"],
                                                  row["as_of"], brl_per_month_low=r.num(line, row, "brl_per_month_low", False),
                                                  brl_per_month_high=r.num(line, row, "brl_per_month_high", False))
        problems += r.problems
    return out


def _load_providers(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("provider", "br_billing", "br_billing_source", "as_of"))
        for line, row in r.rows:
            if row["br_billing"] not in BR_BILLING:
                r.problems.append(Problem(str(p), "br_billing", f"br_billing must be one of {', '.join(BR_BILLING)}; "
                                          f"{closest(row['br_billing'], list(BR_BILLING))}", line))
            out[row["provider"]] = Provider(row["provider"], row.get("name") or row["provider"], row["br_billing"],
                                            row.get("br_billing_status") or "unverified", row["br_billing_source"],
                                            row["as_of"])
        problems += r.problems
    return out


def _with_billing(offers: dict, providers: dict[str, Provider]) -> dict:
    """Copy each provider's Brazilian billing mode onto its offers."""
    out = {}
    for oid, o in offers.items():
        pv = providers.get(o.provider)
        out[oid] = replace(o, br_billing=pv.br_billing, br_billing_source=pv.br_billing_source) if pv else o
    return out


def _load_egress(paths, problems):
    tiers: dict[str, list] = {}
    meta: dict[str, tuple[str, str]] = {}
    for p in paths:
        r = Rows(p, ("egress_id", "tier_from_gb", "tier_to_gb", "usd_per_gb", "source", "as_of"))
        replaced = set()
        for line, row in r.rows:
            eid = row["egress_id"]
            if p != paths[0] and eid not in replaced:  # a user file replaces a whole table
                tiers[eid] = []
                replaced.add(eid)
            lo = r.num(line, row, "tier_from_gb", lo=0, hi=1e12)
            hi = r.num(line, row, "tier_to_gb", False, lo=0, hi=1e12, lo_open=True)
            price = r.num(line, row, "usd_per_gb", False, lo=0, hi=100)
            if lo is None:
                continue
            if hi is not None and hi <= lo:
                r.problems.append(Problem(str(p), "tier_to_gb", f"tier ends ({hi:g} GB) before it starts ({lo:g} GB)",
                                          line))
                continue
            tiers.setdefault(eid, []).append((lo, hi, price))
            meta[eid] = (row["source"], row["as_of"])
        problems += r.problems
    out = {}
    for eid, ts in tiers.items():
        ts.sort(key=lambda t: t[0])
        prev_hi = 0.0
        for lo, hi, _ in ts:
            if abs(lo - prev_hi) > 1e-9:
                problems.append(Problem(str(paths[-1]), eid, f"egress tiers are not contiguous at {lo} GB"))
            prev_hi = hi if hi is not None else float("inf")
        out[eid] = EgressTable(eid, tuple(ts), *meta[eid])
    return out


def _load_storage(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("storage_id", "usd_per_gb_month", "source", "as_of"))
        for line, row in r.rows:
            out[row["storage_id"]] = StoragePrice(row["storage_id"],
                                                  r.num(line, row, "usd_per_gb_month", False, lo=0, hi=100),
                                                  row.get("status", ""), row["source"], row["as_of"])
        problems += r.problems
    return out


def _read_toml(paths, problems):
    """Yield (path, data) for each TOML file that parses; record the others as problems."""
    for p in paths:
        text = read_text(p, problems)
        if text is None:
            continue
        try:
            yield p, tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            problems.append(Problem(str(p), "", f"TOML syntax error: {exc}", int(m.group(1)) if m else None))


def _rate(p, pid: str, prof: dict, k: str, problems) -> float:
    v = prof.get(k, 0.0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.0 <= v < 1.0:
        problems.append(Problem(str(p), f"profiles.{pid}.{k}", f"rate must be a fraction in [0, 1), got {v!r}"))
        return 0.0
    return float(v)


def _load_taxes(paths, problems):
    """Tax profiles, reform periods and provider billing: a later file's entry replaces the same id."""
    out, reform, billing = {}, {}, {}
    for p, data in _read_toml(paths, problems):
        profiles = data.get("profiles", {})
        if not isinstance(profiles, dict):
            problems.append(Problem(str(p), "profiles", "must be a table of [profiles.<id>] tables"))
            continue
        for pid, prof in profiles.items():
            if not isinstance(prof, dict):
                problems.append(Problem(str(p), f"profiles.{pid}", f"must be a table, got {prof!r}"))
                continue
            rates = {k: _rate(p, pid, prof, k, problems) for k in RATE_KEYS}
            method = prof.get("method", "none")
            if method not in METHODS:
                problems.append(Problem(str(p), f"profiles.{pid}.method", f"unknown tax method {method!r}; "
                                        f"{closest(str(method), METHODS)}", _toml_line(p, f"profiles.{pid}", "method")))
            out[pid] = TaxProfile(pid, method, rates, bool(prof.get("pis_cofins_creditable", False)),
                                  str(prof.get("label_en", pid)), str(prof.get("label_pt", pid)),
                                  prof.get("source") or "; ".join(str(prof[k]) for k in prof if k.endswith("_source")),
                                  str(prof.get("as_of") or max((str(prof[k]) for k in prof if k.endswith("_as_of")),
                                                               default="")),
                                  str(prof["valid_until"]) if prof.get("valid_until") else None,
                                  bool(prof.get("reform", True)), str(prof.get("status", "sourced")))
        for rid, per in data.get("reform", {}).items():
            reform[rid] = _reform_period(p, rid, per, problems)
        for prov, b in data.get("billing", {}).items():
            mode = str(b.get("mode", ""))
            if mode not in BILLING_MODES:
                problems.append(Problem(str(p), f"billing.{prov}.mode", f"unknown billing mode {mode!r}; "
                                        f"{closest(mode, BILLING_MODES)}", _toml_line(p, f"billing.{prov}", "mode")))
            billing[prov] = Billing(prov, mode, str(b.get("profile", "")), str(b.get("status", "")),
                                    str(b.get("source", "")), str(b.get("as_of", "")))
    for prov, b in billing.items():
        if b.profile and b.profile not in out:
            problems.append(Problem(str(paths[-1]), f"billing.{prov}.profile", f"unknown tax profile {b.profile!r}; "
                                    f"{closest(b.profile, list(out))}"))
    periods = tuple(sorted((x for x in reform.values() if x is not None), key=lambda x: x.start))
    return out, periods, billing


def _toml_line(path: Path, table: str, key: str) -> int | None:
    """Line of `key` inside the TOML table `[table]` (1-based), or of the table header, or None."""
    head = None
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = text.strip()
        if stripped.startswith("["):
            if head is not None:
                break
            if stripped == f"[{table}]":
                head = n
        elif head is not None and re.match(rf"{re.escape(key)}\s*=", stripped):
            return n
    return head


def _reform_period(path, rid, per, problems) -> ReformPeriod | None:
    where = f"reform.{rid}"
    start, until = str(per.get("from", "")), per.get("until")
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", start) or (until and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", str(until))):
        problems.append(Problem(str(path), where, "'from' and 'until' must be months written 'YYYY-MM'"))
        return None
    vals = {}
    for k in ("pis_cofins_share", "iss_share", "cbs_rate", "ibs_rate"):
        try:
            vals[k] = float(per.get(k, 0.0))
        except (TypeError, ValueError):
            vals[k] = -1.0
        if not 0.0 <= vals[k] <= 1.0:
            problems.append(Problem(str(path), f"{where}.{k}", f"must be a fraction in [0, 1], got {per.get(k)!r}"))
    return ReformPeriod(rid, start, str(until) if until else None, vals["pis_cofins_share"], vals["iss_share"],
                        vals["cbs_rate"], vals["ibs_rate"], str(per.get("status", "")), str(per.get("source", "")),
                        str(per.get("as_of", "")))


def _load_interconnect(paths, problems):
    out = {}
    for p in paths:
        if not p.exists():
            continue
        r = Rows(p, ("key", "scale_out_gbps", "status", "source", "as_of"))
        for line, row in r.rows:
            out[row["key"]] = Interconnect(row["key"], r.num(line, row, "scale_out_gbps", False), row["status"],
                                           row["source"], row["as_of"])
        problems += r.problems
    return out


def _load_calibration(paths, problems):
    out: dict = {}
    for p, data in _read_toml([q for q in paths if q.exists()], problems):
        out = dict(data) | {"file": str(p)}
    return out


def _check_defaults(p, data: dict, problems) -> None:
    """Every default is a table of finite non-negative numbers (shares ≤ 1 where named so)."""
    for k, v in data.items():
        if not isinstance(v, dict):
            problems.append(Problem(str(p), k, f"must be a [{k}] table, got {v!r}"))
            continue
        for kk, x in v.items():
            if isinstance(x, (dict, str, list)):
                continue
            share = kk.endswith("_share") or kk == "mfu" or k == "scaling_efficiency"
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0 or (
                    share and not 0 < x <= 1):
                want = "a share in (0, 1]" if share else "a finite number ≥ 0"
                problems.append(Problem(str(p), f"{k}.{kk}", f"must be {want}, got {x!r}"))


def _load_defaults(paths, problems):
    out: dict[str, dict] = {}
    for p, data in _read_toml(paths, problems):
        before = len(problems)
        _check_defaults(p, data, problems)
        if len(problems) > before:
            continue
        for k, v in data.items():
            out.setdefault(k, {}).update(v)
    return out


CATALOG_FILES = ("gpus.csv", "models.csv", "cloud_offers.csv", "dedicated_offers.csv", "egress_tiers.csv",
                 "storage.csv", "tax_profiles.toml", "defaults.toml", "interconnect.csv", "calibration_default.toml",
                 "providers.csv", "dedicated_landed.csv", "usdbrl_focus.csv")


def load_catalog(extra_dir: str | Path | None = None) -> Catalog:
    """Load the shipped catalog, overlaid by the files found in ``extra_dir`` (if any)."""
    extra = Path(extra_dir) if extra_dir else None
    if extra is not None and not extra.is_dir():
        raise InputError([Problem(str(extra), "scenario.catalog_dir", "catalog folder not found")])
    problems: list[Problem] = []
    providers = _load_providers(_merge_files("providers.csv", extra), problems)
    taxes, reform, billing = _load_taxes(_merge_files("tax_profiles.toml", extra), problems)
    empty_dir = str(extra) if extra is not None and not any((extra / name).is_file() for name in CATALOG_FILES) else ""
    cat = Catalog(
        gpus=_load_gpus(_merge_files("gpus.csv", extra), problems),
        models=_load_models(_merge_files("models.csv", extra), problems),
        cloud_offers=_with_billing(_load_cloud(_merge_files("cloud_offers.csv", extra), problems), providers),
        dedicated_offers=_with_billing(_load_dedicated(_merge_files("dedicated_offers.csv", extra), problems), providers),
        egress=_load_egress(_merge_files("egress_tiers.csv", extra), problems),
        storage=_load_storage(_merge_files("storage.csv", extra), problems),
        taxes=taxes,
        defaults=_load_defaults(_merge_files("defaults.toml", extra), problems),
        interconnect=_load_interconnect(_merge_files("interconnect.csv", extra), problems),
        calibration=_load_calibration(_merge_files("calibration_default.toml", extra), problems),
        files=tuple(str(p) for name in ("gpus.csv", "models.csv", "cloud_offers.csv", "dedicated_offers.csv",
                                         "egress_tiers.csv", "storage.csv", "tax_profiles.toml", "defaults.toml",
                                         "interconnect.csv", "calibration_default.toml", "providers.csv")
                    for p in _merge_files(name, extra)),
        providers=providers,
        tax_reform=reform,
        billing=billing,
        empty_dir=empty_dir,
    )
    if problems:
        raise InputError(problems)
    return cat
