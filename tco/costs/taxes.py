"""Brazilian taxes on an option's invoices, tax by tax and month by month.

Sources (public; every rate lives in ``tco/catalog/data/tax_profiles.toml`` with the document it was read in):
IRRF on service remittances, Lei 9.779/1999 art. 7 and RFB Solução de Consulta Cosit 177/2023 (15 Aug 2023);
CIDE and the reading of foreign data-centre services as services, RFB Solução de Divergência Cosit 6/2014
(3 Jun 2014); PIS/COFINS-Importação, Lei 10.865/2004; ISS on imported services, LC 116/2003 arts. 6, 8 and 8-A
(São Paulo 2.9 % on cloud services, AWS tax help for Brazil); IOF-câmbio 3.5 %, Decreto 12.499/2025 (12 Jun 2025,
restored by the STF on 16 Jul 2025 in ADC 96); AWS Serviços Brasil's local NFS-e billing since 1 Nov 2020 (AWS tax
help, Brazil); the consumption-tax reform, EC 132/2023 and LC 214/2025 arts. 64, 344, 347, 349 and 353, with the
CGIBS Resolução 14/2026 (31 Jul 2026) estimate of the reference rate. Not tax advice.

Each month's rates are those in force that month: the profile's base rates (2025-07 to 2026-12) and,
from 2027, the reform periods of the catalog (PIS/COFINS end; CBS and IBS; ISS phased down).

Sign convention: every component is a positive amount in the taxed line's currency; ``credits`` is a
positive amount too, recovered by the buyer. The option's ``taxes`` line is
Σ charged components − credits. Credits never exceed the creditable taxes they recover, so where
the taxes are added on top of a price the line stays ≥ 0; where they are inside a BRL price
(``local_inclusive``) the line is −credits, bounded by the taxes inside the price, so every month's
total cost stays ≥ 0.

Methods (P = what the seller must receive, per unit of the taxed lines):
  import_gross_up   the buyer imports the service and bears every tax:
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

import numpy as np

from tco.costs import tax_rules as rules
from tco.domain import BillingMode, TaxMethod, TaxRegime  # noqa: F401  (re-exported names of the tax vocabulary)
from tco.domain import taxes as words
from tco.expr import evaluate

RATE_KEYS, TAXES, COMPONENTS, METHODS, REGIMES, BILLING_MODES = (  # the words live in tco.domain.taxes
    words.RATE_KEYS, words.TAXES, words.COMPONENTS, words.METHODS, words.REGIMES, words.BILLING_MODES)
ReformPeriod = words.ReformPeriod


def months_in_force(months: list[str], start: str, until: str | None) -> np.ndarray:
    """Mask of the months 'YYYY-MM' in [start, until] (until None = open-ended)."""
    m = np.asarray(months)
    return (m >= start) & ((m <= until) if until else True)


def reform_inputs(reform: tuple[ReformPeriod, ...]) -> dict[str, object]:
    """The inputs of the reform periods of ``tax_rules.rate_rules`` (dates as serials), period j = 1, 2 …"""
    out: dict[str, object] = {}
    for j, p in enumerate(reform, start=1):
        out |= {f"rf{j}_from": rules.month_serial(p.start),
                f"rf{j}_until": rules.month_serial(p.until or rules.OPEN_END),
                f"rf{j}_pc": p.pis_cofins_share, f"rf{j}_iss": p.iss_share, f"rf{j}_cbs": p.cbs_rate,
                f"rf{j}_ibs": p.ibs_rate}
    return out


def profile_inputs(profile, regime: str | None = None, prefix: str = "") -> dict[str, object]:
    """A profile's base rates (``o.<prefix><tax>``), its own PIS/COFINS credit flag and the regime's credit flags."""
    out: dict[str, object] = {f"o.{prefix}{k}": float(profile.rates.get(k + "_rate", 0.0)) for k in TAXES}
    out[f"o.{prefix}credit"] = 1.0 if getattr(profile, "pis_cofins_creditable", False) else 0.0
    regime_credits = REGIMES.get(regime or "", ())
    out |= {f"o.cr_{k}": 1.0 if k in regime_credits else 0.0 for k in rules.CREDITABLE}
    return out


def rates_by_month(profile, months: list[str], reform: tuple[ReformPeriod, ...] = ()) -> dict[str, np.ndarray]:
    """Each rate of `profile` in force in each month [-] (``tax_rules.rate_rules``): the base rates, replaced in
    reform periods. Months given as '' (unknown) take the base rates. Kept per profile, months and reform (the
    engine asks again for every option and plan component): each call gets its own copy of the arrays."""
    if profile.method == TaxMethod.NONE or not getattr(profile, "reform", True) or not all(months):
        reform = ()
    key = (profile.method, tuple(sorted(profile.rates.items())), bool(getattr(profile, "pis_cofins_creditable", False)),
           tuple(months), tuple(reform))
    rates = _RATES.get(key)
    if rates is None:
        rates = _RATES[key] = _rates_by_month(profile, list(months), tuple(reform))
        if len(_RATES) > 256:
            _RATES.pop(next(iter(_RATES)))
    return {k: v.copy() for k, v in rates.items()}


_RATES: dict[tuple, dict[str, np.ndarray]] = {}


def _rates_by_month(profile, months: list[str], reform: tuple[ReformPeriod, ...]) -> dict[str, np.ndarray]:
    h = len(months)
    dates = np.array([rules.month_serial(m) for m in months]) if reform else np.zeros(h)
    rows = evaluate(tuple(rules.rate_rules(TAXES, len(reform))), profile_inputs(profile) | reform_inputs(reform), h,
                    rows={"date": dates})
    return {k + "_rate": rows["rate_" + k] for k in TAXES}


def periods_used(profile, months: list[str], reform: tuple[ReformPeriod, ...]) -> list[ReformPeriod]:
    """The reform periods that touch the months (none for a profile without taxes)."""
    if profile.method == TaxMethod.NONE or not getattr(profile, "reform", True) or not months:
        return []
    return [p for p in reform if months_in_force(months, p.start, p.until).any()]


def rate_rows(r: dict, prefix: str = "rate_") -> dict[str, np.ndarray]:
    """Rates by month (``rates_by_month``) as the rate rows the block's rules read."""
    irrf = np.asarray(r["irrf_rate"], dtype=float)
    return {prefix + k: np.asarray(r[k + "_rate"], dtype=float) + np.zeros_like(irrf) for k in TAXES}


def evaluate_block(method: str, rates: dict, base: np.ndarray, flags: dict) -> dict[str, np.ndarray]:
    """Every row of ``tax_rules.component_rules`` for the taxed amount `base` by month."""
    base = np.asarray(base, dtype=float)
    rows = rate_rows(rates) | {"base": base}
    return evaluate(tuple(rules.component_rules(method, ("base",))), flags, len(base), rows=rows)


def factors(method: str, r: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(charged, creditable base): each tax per unit of the taxed amount, as arrays over months [-].

    `charged` is what the buyer pays on top of the lines; `creditable` what it paid for each tax,
    on top or inside the price, that a regime may take back as a credit."""
    n = len(np.atleast_1d(np.asarray(r["irrf_rate"], dtype=float)))
    rows = evaluate_block(method, r, np.ones(n), {f"o.cr_{k}": 0.0 for k in rules.CREDITABLE} | {"o.credit": 0.0})
    charged = {k: rows["tx_" + k] for k in TAXES}
    return charged, {k: charged[k] for k in rules.CREDITABLE}


def inside_share(method: str, r: dict) -> np.ndarray:
    """Share of a tax-inclusive BRL price moved to the taxes line, by month [-] (0 unless local_inclusive)."""
    n = len(np.atleast_1d(np.asarray(r["irrf_rate"], dtype=float)))
    return evaluate_block(method, r, np.ones(n), {f"o.cr_{k}": 0.0 for k in rules.CREDITABLE} | {"o.credit": 0.0}
                          )["tax_inside"]


def credited(regime: str | None, profile) -> tuple[str, ...]:
    """Components the buyer takes back: those of its regime, plus PIS/COFINS where the profile says so."""
    out = set(REGIMES.get(regime or "", ()))
    if getattr(profile, "pis_cofins_creditable", False):
        out.add("pis_cofins")
    return tuple(k for k in TAXES if k in out)


def credit_share(profile, rates: dict[str, np.ndarray], regime: str | None) -> np.ndarray:
    """Credits as a share of the taxed amount, by month [-]."""
    n = len(np.atleast_1d(np.asarray(rates["irrf_rate"], dtype=float)))
    return components(np.ones(n), profile, rates, regime)["credits"]


def components(base: np.ndarray, profile, rates: dict[str, np.ndarray], regime: str | None
               ) -> dict[str, np.ndarray]:
    """Every component of the taxes on `base` (the month's taxed amount), month by month, in its currency."""
    rows = evaluate_block(profile.method, rates, base, profile_inputs(profile, regime))
    out = {k: rows["tx_" + k] for k in TAXES}
    out["credits"] = rows["tx_credits"]
    return out


def total(comp: dict[str, np.ndarray]) -> np.ndarray:
    """The taxes line: charged components − credits."""
    return sum(comp[k] for k in TAXES) - comp["credits"]


def uplift(profile, regime: str | None = None) -> float:
    """Net taxes as a share of the taxed amount at the profile's base rates [-] (1 month, base 1)."""
    rates = {k: np.array([float(profile.rates.get(k, 0.0))]) for k in RATE_KEYS}
    return float(total(components(np.ones(1), profile, rates, regime))[0])
