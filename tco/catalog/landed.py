"""Dedicated GPU server prices in Brazil as a landed cost.

A Brazilian provider's monthly price for one server is built, step by step, from sourced components
in ``tco/catalog/data/dedicated_landed.csv`` (one row per component, a low, central and high case,
offer-specific rows overriding the ``*`` rows):

    server price [USD] → customs value [BRL] → import duty (II), IPI, PIS/COFINS-import, ICMS
    → landed hardware [BRL] → BRL cost of capital over the amortisation term, less residual value
    → + colocation per kW, power at a São Paulo tariff and PUE, support/network/spares
    → × (1 + margin) → ÷ (1 − vacancy share, for short minimum terms) → ÷ (1 − the provider's taxes on its invoice)
    = BRL per server-month.

``dedicated_offers.csv``'s ``brl_per_month`` is the central case rounded to R$100 (``catalog_price``),
and its low/high columns the other cases; tests/test_landed.py recomputes every offer. Costs are
BRL per server per month unless a name says otherwise; rates are fractions.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from tco.constants import HOURS_PER_MONTH

CASES = ("low", "central", "high")
DATA = Path(__file__).parent / "data" / "dedicated_landed.csv"


def customs_value_brl(hardware_usd: float, usdbrl: float) -> float:
    """Customs value of the server [BRL] = price [USD] × USD/BRL [BRL/USD] (freight and insurance not included)."""
    return hardware_usd * usdbrl


def import_taxes(cv: float, ii_rate: float, ipi_rate: float, pis_rate: float, cofins_rate: float, icms_rate: float,
                 ex_tarifario: bool = False, redata: bool = False) -> dict[str, float]:
    """Taxes on importing goods worth customs value ``cv`` [BRL], Brazil's cascade:

        II  = ii · cv                      (0 under an ex-tarifário or REDATA)
        IPI = ipi · (cv + II)              (0 under REDATA)
        PIS = pis · cv;  COFINS = cofins · cv   (0 under REDATA)
        ICMS = icms · (cv + II + IPI + PIS + COFINS) / (1 − icms)   ("por dentro": ICMS is in its own base)

    >>> t = import_taxes(100.0, 0.18, 0.0975, 0.021, 0.0965, 0.18)
    >>> round(sum(t.values()), 3)   # +72.3 % gross, the review's illustrative figure
    72.262
    """
    ii = 0.0 if (ex_tarifario or redata) else ii_rate * cv
    ipi = 0.0 if redata else ipi_rate * (cv + ii)
    pis = 0.0 if redata else pis_rate * cv
    cofins = 0.0 if redata else cofins_rate * cv
    icms = icms_rate * (cv + ii + ipi + pis + cofins) / (1.0 - icms_rate)
    return {"ii": ii, "ipi": ipi, "pis": pis, "cofins": cofins, "icms": icms}


def landed_hardware_brl(cv: float, taxes: dict[str, float], pis_cofins_creditable: bool) -> float:
    """Hardware cost the provider bears [BRL] = cv + Σ taxes − (PIS + COFINS if recovered as credits)."""
    credit = taxes["pis"] + taxes["cofins"] if pis_cofins_creditable else 0.0
    return cv + sum(taxes.values()) - credit


def monthly_rate(annual_rate: float) -> float:
    """Effective monthly rate [-/month] = (1 + r)^(1/12) − 1, the house convention."""
    return math.expm1(math.log1p(annual_rate) / 12.0)


def capital_cost_monthly(principal: float, residual: float, annual_rate: float, months: int) -> float:
    """Level monthly payment [BRL/month] that repays ``principal`` less the present value of ``residual``
    (resold at the end) over ``months`` at the effective annual ``annual_rate``:

        i = (1 + r)^(1/12) − 1;  PMT = (P − RV·(1 + i)^−n) · i / (1 − (1 + i)^−n);  r = 0 → (P − RV) / n
    """
    if months <= 0:
        raise ValueError("amortisation_months must be positive")
    i = monthly_rate(annual_rate)
    if i == 0:
        return (principal - residual) / months
    log_growth = months * math.log1p(i)
    disc = math.exp(-log_growth)
    return (principal - residual * disc) * i / -math.expm1(-log_growth)  # expm1: exact for tiny rates


def colocation_monthly_brl(kw: float, usd_per_kw_month: float, usdbrl: float) -> float:
    """Colocation [BRL/month] = server power [kW] × price [USD/kW-month] × USD/BRL."""
    return kw * usd_per_kw_month * usdbrl


def power_monthly_brl(kw: float, pue: float, brl_per_mwh: float, hours: float = HOURS_PER_MONTH.value) -> float:
    """Electricity at full load [BRL/month] = kW × PUE × hours [h] × tariff [BRL/MWh] / 1000."""
    return kw * pue * hours * brl_per_mwh / 1000.0


def opex_monthly_brl(landed_brl: float, share_per_year: float) -> float:
    """Support, network and spares [BRL/month] = share per year × landed hardware / 12."""
    return share_per_year * landed_brl / 12.0


def with_margin(cost: float, margin_share: float) -> float:
    """Price before the provider's taxes = cost × (1 + margin)."""
    return cost * (1.0 + margin_share)


def with_vacancy(price: float, vacancy_share: float) -> float:
    """Price that covers the months a short-term server stands between tenants = price ÷ (1 − vacancy share): a
    provider renting for 3 months a server it amortises over 36 is paid only for the share of those months let."""
    return price / (1.0 - vacancy_share)


def with_provider_taxes(pre_tax: float, tax_rate: float) -> float:
    """Invoice price with taxes 'por dentro' = pre-tax ÷ (1 − tax rate)."""
    return pre_tax / (1.0 - tax_rate)


@dataclass(frozen=True)
class Derivation:
    """Every step of one offer's price in one case [BRL, per server-month unless said]."""

    hardware_usd: float
    customs_value_brl: float
    taxes: dict[str, float]
    landed_brl: float
    capital: float
    colocation: float
    power: float
    opex: float
    cost: float
    pre_tax: float
    price: float


def derive(c: dict[str, float], gpu_count: int) -> Derivation:
    """One case's price from its components ``c`` (names as in dedicated_landed.csv)."""
    hw = gpu_count * c["gpu_usd"] + c["system_usd"]
    cv = customs_value_brl(hw, c["usdbrl"])
    taxes = import_taxes(cv, c["ii_rate"], c["ipi_rate"], c["pis_import_rate"], c["cofins_import_rate"],
                         c["icms_rate"], bool(c["ex_tarifario"]), bool(c["redata"]))
    landed = landed_hardware_brl(cv, taxes, bool(c["pis_cofins_creditable"]))
    capital = capital_cost_monthly(landed, c["residual_share"] * landed, c["cost_of_capital_rate"],
                                   int(c["amortisation_months"]))
    colo = colocation_monthly_brl(c["server_kw"], c["colocation_usd_per_kw_month"], c["usdbrl"])
    power = power_monthly_brl(c["server_kw"], c["pue"], c["power_brl_per_mwh"], c["hours_per_month"])
    opex = opex_monthly_brl(landed, c["opex_share_per_year"])
    cost = capital + colo + power + opex
    pre = with_vacancy(with_margin(cost, c["margin_share"]), c.get("vacancy_share", 0.0))
    return Derivation(hw, cv, taxes, landed, capital, colo, power, opex, cost, pre,
                      with_provider_taxes(pre, c["provider_tax_rate"]))


def catalog_price(price: float) -> float:
    """The catalog's ``brl_per_month``: a derived price rounded to the nearest R$100."""
    return float(round(price / 100.0) * 100)


def load_components(path: Path | str = DATA) -> dict[str, dict[str, dict[str, float]]]:
    """Components per offer and case: {offer_id: {case: {component: value}}}; ``*`` rows apply to every
    offer that has rows of its own, offer rows override them."""
    common: dict[str, dict[str, float]] = {case: {} for case in CASES}
    own: dict[str, dict[str, dict[str, float]]] = {}
    with Path(path).open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            target = common if row["offer_id"] == "*" else own.setdefault(row["offer_id"], {k: {} for k in CASES})
            for case in CASES:
                target[case][row["component"]] = float(row[case])
    return {oid: {case: {**common[case], **cases[case]} for case in CASES} for oid, cases in own.items()}


def price_cases(offer_id: str, gpu_count: int, components: dict | None = None) -> dict[str, Derivation]:
    """Low, central and high derivations of one offer."""
    comps = (components or load_components())[offer_id]
    return {case: derive(comps[case], gpu_count) for case in CASES}


def describe(d: Derivation, c: dict[str, float]) -> str:
    """The arithmetic of one derivation in one line of text (for the catalog's `derivation` column)."""
    t = d.taxes
    return (f"hardware US$ {d.hardware_usd:,.0f} x {c['usdbrl']} BRL/USD = customs value "
            f"R$ {d.customs_value_brl:,.2f}; "
            f"II R$ {t['ii']:,.2f} + IPI R$ {t['ipi']:,.2f} + PIS/COFINS-import R$ {t['pis'] + t['cofins']:,.2f}"
            f"{' (credited)' if c['pis_cofins_creditable'] else ''} + ICMS R$ {t['icms']:,.2f} -> "
            f"landed R$ {d.landed_brl:,.2f}; "
            f"capital at {c['cost_of_capital_rate']:.0%}/yr over {int(c['amortisation_months'])} months less "
            f"{c['residual_share']:.0%} residual R$ {d.capital:,.2f} + colocation {c['server_kw']} kW x "
            f"US$ {c['colocation_usd_per_kw_month']}/kW R$ {d.colocation:,.2f} + power x PUE {c['pue']} at "
            f"R$ {c['power_brl_per_mwh']}/MWh R$ {d.power:,.2f} + support/network/spares "
            f"{c['opex_share_per_year']:.0%}/yr R$ {d.opex:,.2f} = cost R$ {d.cost:,.2f}; "
            f"x (1 + {c['margin_share']:.0%} margin)"
            + (f" / (1 - {c['vacancy_share']:.1%} vacancy between short terms)" if c.get("vacancy_share") else "")
            + f" = R$ {d.pre_tax:,.2f}; / (1 - {c['provider_tax_rate']:.2%} provider taxes) = R$ {d.price:,.2f}")


def main() -> int:
    """Print each offer's low / central / high price: ``python -m tco.catalog.landed``."""
    from tco.catalog import load_catalog

    cat = load_catalog()
    comps = load_components()
    for oid in sorted(comps):
        cases = price_cases(oid, cat.dedicated_offers[oid].gpu_count, comps)
        print(oid, "  ".join(f"{k} R$ {v.price:,.2f}" for k, v in cases.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
