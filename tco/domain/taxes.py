"""The tax vocabulary: which taxes exist, the rates a profile carries, methods, regimes and reform periods.

Words only, no arithmetic: the catalog, the schema and the cost rules all speak them, so they live below
every stage (the rules and their evaluation are in ``tco.costs.tax_rules`` and ``tco.costs.taxes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.domain import BillingMode, TaxMethod, TaxRegime

TAXES = ("irrf", "cide", "iss", "pis_cofins", "cbs", "ibs", "iof")
"""Charged components, in ledger order."""

RATE_KEYS = ("irrf_rate", "cide_rate", "iss_rate", "pis_cofins_rate", "cbs_rate", "ibs_rate", "iof_rate")
"""Rates a tax profile carries (fractions 0–1)."""

COMPONENTS = TAXES + ("credits",)
"""Components of the taxes line: the charged taxes, then the credits that reduce them."""

METHODS: tuple[str, ...] = tuple(m.value for m in TaxMethod)
"""Tax method ids, as the catalog writes them."""

REGIMES: dict[str, tuple[str, ...]] = {TaxRegime.LUCRO_REAL.value: ("pis_cofins", "cbs", "ibs"),
                                       TaxRegime.LUCRO_PRESUMIDO.value: ("cbs", "ibs"), TaxRegime.SIMPLES.value: ()}
"""Buyer regime → the components it takes as credits."""

BILLING_MODES: tuple[str, ...] = tuple(m.value for m in BillingMode)
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
