"""Brazilian taxes on an option's invoices, tax by tax and month by month.

Sources: /work/shared/reference/brazil_fx_tax.md §3 and the price-and-tax review of 2026-11 (§4a, §4b);
every rate lives in ``tco/catalog/data/tax_profiles.toml`` with its source. Not tax advice.

Each month's rates are those in force that month: the profile's base rates (2025-07 to 2026-12) and,
from 2027, the reform periods of the catalog (PIS/COFINS end; CBS and IBS; ISS phased down).

Sign convention: every component is a positive amount in the taxed line's currency; ``credits`` is a
positive amount too, recovered by the buyer. The option's ``taxes`` line is
Σ charged components − credits. Credits never exceed the creditable taxes they recover, so where
the taxes are added on top of a price the line stays ≥ 0; where they are inside a BRL price
(``local_inclusive``) the line is −credits, bounded by the taxes inside the price, so every month's
total cost stays ≥ 0.

Methods (P = what the seller must receive, per unit of the taxed lines):
  import_gross_up   the buyer imports the service and bears every tax (reference §3.1/§3.4):
                    V = P/(1 − irrf); IRRF = V − P; CIDE = cide·V; ISS = iss·V;
                    PIS/COFINS-import = pc·V·(1 + iss)/(1 − pc); CBS = cbs·V; IBS = ibs·V (our reading:
                    unverified, needs tax advice); IOF = iof·P.
  local_por_dentro  the provider's Brazilian entity invoices in BRL (NFS-e), PIS/COFINS and ISS inside:
                    G = P/(1 − pc − iss); PIS/COFINS = pc·G; ISS = iss·G; CBS = cbs·G; IBS = ibs·G
                    (CBS/IBS "por fora", on top of the invoice, from 2027).
  local_inclusive   a BRL price B that already holds the seller's taxes (a dedicated provider's invoice):
                    nothing is added, but the creditable taxes inside it are moved from the price lines to
                    the taxes line, so finance sees them and their credit: PIS/COFINS = pc·B (2026) and, from
                    2027, CBS = cbs·B/(1 + cbs + ibs), IBS = ibs·B/(1 + cbs + ibs) ("por fora", stated on the
                    invoice); the price lines keep B·(1 − inside share). ISS stays inside the price.
  none              nothing added, nothing credited.

Buyer regimes (which of the taxes paid come back as credits):
  lucro_real        PIS/COFINS (non-cumulative regime) and CBS/IBS;
  lucro_presumido   CBS/IBS only (PIS/COFINS are cumulative for it);
  simples           none.
IRRF, CIDE, ISS and IOF are never credited.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RATE_KEYS = ("irrf_rate", "cide_rate", "iss_rate", "pis_cofins_rate", "cbs_rate", "ibs_rate", "iof_rate")
"""Rates a tax profile carries (fractions 0–1)."""

TAXES = ("irrf", "cide", "iss", "pis_cofins", "cbs", "ibs", "iof")
"""Charged components, in ledger order."""

COMPONENTS = TAXES + ("credits",)
"""Components of the taxes line: the charged taxes, then the credits that reduce them."""

METHODS = ("import_gross_up", "local_por_dentro", "local_inclusive", "none")

REGIMES = {"lucro_real": ("pis_cofins", "cbs", "ibs"), "lucro_presumido": ("cbs", "ibs"), "simples": ()}
"""Buyer regime → the components it takes as credits."""

BILLING_MODES = ("local_entity", "import")
"""How a provider bills a Brazilian CNPJ: through a Brazilian entity (NFS-e in BRL) or as an import of services."""


@dataclass(frozen=True)
class ReformPeriod:
    """Rates that replace or scale a profile's base rates in the months [start, until] (reform, LC 214/2025)."""

    period_id: str
    start: str
    until: str | None
    pis_cofins_share: float
    """Share of the profile's PIS/COFINS rate still charged (0 from 2027)."""
    iss_share: float
    """Share of the profile's ISS rate still charged (1, 0.9, 0.8, 0.7, 0.6, then 0)."""
    cbs_rate: float
    ibs_rate: float
    status: str
    source: str
    as_of: str


def months_in_force(months: list[str], start: str, until: str | None) -> np.ndarray:
    """Mask of the months 'YYYY-MM' in [start, until] (until None = open-ended)."""
    m = np.asarray(months)
    return (m >= start) & ((m <= until) if until else True)


def rates_by_month(profile, months: list[str], reform: tuple[ReformPeriod, ...] = ()) -> dict[str, np.ndarray]:
    """Each rate of `profile` in force in each month [-]: the base rates, replaced in reform periods."""
    h = len(months)
    base = {k: float(profile.rates.get(k, 0.0)) for k in RATE_KEYS}
    out = {k: np.full(h, v) for k, v in base.items()}
    if profile.method == "none" or not getattr(profile, "reform", True):
        return out
    for p in reform:
        mask = months_in_force(months, p.start, p.until)
        out["pis_cofins_rate"][mask] = base["pis_cofins_rate"] * p.pis_cofins_share
        out["iss_rate"][mask] = base["iss_rate"] * p.iss_share
        out["cbs_rate"][mask] = p.cbs_rate
        out["ibs_rate"][mask] = p.ibs_rate
    return out


def periods_used(profile, months: list[str], reform: tuple[ReformPeriod, ...]) -> list[ReformPeriod]:
    """The reform periods that touch the months (none for a profile without taxes)."""
    if profile.method == "none" or not getattr(profile, "reform", True) or not months:
        return []
    return [p for p in reform if months_in_force(months, p.start, p.until).any()]


def factors(method: str, r: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(charged, creditable base): each tax per unit of the taxed amount, as arrays over months [-].

    `charged` is what the buyer pays on top of the lines; `creditable` what it paid for each tax,
    on top or inside the price, that a regime may take back as a credit."""
    z = np.zeros_like(np.asarray(r["irrf_rate"], dtype=float))
    irrf, cide, iss, pc, cbs, ibs, iof = (np.asarray(r[k], dtype=float) + z for k in RATE_KEYS)
    charged = {k: z.copy() for k in TAXES}
    if method == "import_gross_up":
        v = 1.0 / (1.0 - irrf)
        charged.update(irrf=v - 1.0, cide=cide * v, iss=iss * v, pis_cofins=pc * v * (1.0 + iss) / (1.0 - pc),
                       cbs=cbs * v, ibs=ibs * v, iof=iof)
    elif method == "local_por_dentro":
        g = 1.0 / (1.0 - pc - iss)
        charged.update(iss=iss * g, pis_cofins=pc * g, cbs=cbs * g, ibs=ibs * g)
    elif method == "local_inclusive":
        charged.update(pis_cofins=pc, cbs=cbs / (1.0 + cbs + ibs), ibs=ibs / (1.0 + cbs + ibs))
    elif method != "none":
        raise ValueError(f"unknown tax method {method!r}")
    return charged, {k: charged[k] for k in ("pis_cofins", "cbs", "ibs")}


def inside_share(method: str, r: dict) -> np.ndarray:
    """Share of a tax-inclusive BRL price moved to the taxes line, by month [-] (0 unless local_inclusive)."""
    if method != "local_inclusive":
        return np.zeros_like(np.asarray(r["irrf_rate"], dtype=float))
    charged, _ = factors(method, r)
    return charged["pis_cofins"] + charged["cbs"] + charged["ibs"]


def credited(regime: str | None, profile) -> tuple[str, ...]:
    """Components the buyer takes back: those of its regime, plus PIS/COFINS where the profile says so."""
    out = set(REGIMES.get(regime or "", ()))
    if getattr(profile, "pis_cofins_creditable", False):
        out.add("pis_cofins")
    return tuple(k for k in TAXES if k in out)


def credit_share(profile, rates: dict[str, np.ndarray], regime: str | None) -> np.ndarray:
    """Credits as a share of the taxed amount, by month [-]."""
    _, creditable = factors(profile.method, rates)
    zero = np.zeros_like(np.asarray(rates["irrf_rate"], dtype=float))
    return sum((creditable[k] for k in credited(regime, profile)), zero)


def components(base: np.ndarray, profile, rates: dict[str, np.ndarray], regime: str | None
               ) -> dict[str, np.ndarray]:
    """Every component of the taxes on `base` (the month's taxed amount), month by month, in its currency."""
    base = np.asarray(base, dtype=float)
    charged, creditable = factors(profile.method, rates)
    out = {k: charged[k] * base for k in TAXES}
    out["credits"] = sum((creditable[k] * base for k in credited(regime, profile)), np.zeros_like(base))
    return out


def total(comp: dict[str, np.ndarray]) -> np.ndarray:
    """The taxes line: charged components − credits."""
    return sum(comp[k] for k in TAXES) - comp["credits"]


def uplift(profile, regime: str | None = None) -> float:
    """Net taxes as a share of the taxed amount at the profile's base rates [-] (1 month, base 1)."""
    rates = {k: np.array([float(profile.rates.get(k, 0.0))]) for k in RATE_KEYS}
    return float(total(components(np.ones(1), profile, rates, regime))[0])
