"""The ``[options.owned]`` table: an option whose servers are bought, not rented (``options[].kind = "owned"``).

Every key is optional: a missing one takes the catalog's value (``tco/catalog/data/owned.csv``, each row with its
unit, status, source and date; the import taxes from ``dedicated_landed.csv``). The schema bounds here are the ones
``tco validate`` enforces and the workbook carries as data validation (``tco.report.workbook.owned``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tco.scenario.types import MAX_BRL_PER_MONTH, Frozen, Id, Share

Money = Annotated[float, Field(ge=0.0, le=MAX_BRL_PER_MONTH)]
Months = Annotated[int, Field(ge=1, le=600)]
Rate = Annotated[float, Field(ge=0.0, le=1.0)]


class Owned(Frozen):
    landed_case: Literal["low", "central", "high"] = "central"
    """Which case of the landed-cost catalog (dedicated_landed.csv) gives the server price and import tax rates."""
    hardware_usd: Annotated[float, Field(gt=0.0, le=1e8)] | None = None
    """Server price before import [USD per server] (default: the landed catalog's GPUs + host of the offer)."""
    price_brl: Annotated[float, Field(gt=0.0, le=1e9)] | None = None
    """A quoted price per server already in BRL, taxes in [BRL per server]: no import taxes added, no USD exposure."""
    freight_insurance_share: Share = 0.0
    """Freight and insurance to Brazil as a share of the USD price (added to the customs value); no public figure
    found, so 0 unless given."""
    ii_rate: Rate | None = None
    """Import duty (II) on the customs value (default: the landed catalog's case)."""
    ipi_rate: Rate | None = None
    """IPI on customs value + II."""
    pis_import_rate: Rate | None = None
    """PIS-import on the customs value."""
    cofins_import_rate: Rate | None = None
    """COFINS-import on the customs value."""
    icms_rate: Annotated[float, Field(ge=0.0, lt=1.0)] | None = None
    """ICMS-import, charged 'por dentro' (in its own base)."""
    payment: Id = "cash"
    """'cash', or a financing line of owned.csv ('bndes_finame', 'bank_capex')."""
    down_payment_share: Share = 0.0
    """Share of each purchase paid in cash when financed (the rest is borrowed)."""
    financing_rate: Annotated[float, Field(ge=0.0, le=2.0)] | None = None
    """Annual effective interest rate of the loan (default: the line's)."""
    financing_months: Months | None = None
    """Loan term [months], grace included (default: the line's)."""
    grace_months: Annotated[int, Field(ge=0, le=599)] | None = None
    """Months of interest only before the level (PRICE) instalments (default: the line's)."""
    balloon: bool = False
    """Allow a loan term longer than the horizon: the balance left is paid off in the last month."""
    useful_life_months: Months | None = None
    """Tax depreciation life [months] (default: 60, IN RFB 1.700/2017 Annex III for data-processing machines)."""
    income_tax_rate: Rate | None = None
    """IRPJ + CSLL rate of the depreciation shield (default: 34 % under lucro real, 0 otherwise)."""
    resale_share: Share | None = None
    """Resale value at `resale_age_months`, as a share of the landed cost (geometric decline by age)."""
    resale_age_months: Months | None = None
    """Age [months] at which a server resells at `resale_share`."""
    refresh_months: Months | None = None
    """Replace every server this many months after its purchase (sold at its resale value, bought anew at the
    month's price); none by default: the servers are kept to the horizon and sold then."""
    server_kw: Annotated[float, Field(gt=0.0, le=1000.0)] | None = None
    """Power a server draws at full load [kW] (default: the landed catalog's)."""
    pue: Annotated[float, Field(ge=1.0, le=5.0)] | None = None
    """Data-centre power usage effectiveness."""
    power_brl_per_mwh: Annotated[float, Field(ge=0.0, le=1e5)] | None = None
    """Electricity tariff [BRL/MWh]."""
    colocation_brl_per_kw_month: Annotated[float, Field(ge=0.0, le=1e6)] | None = None
    """Colocation price per kW of contracted power per month [BRL]."""
    contracted_kw: Annotated[float, Field(gt=0.0, le=1e6)] | None = None
    """Power contracted with the colocation provider [kW] (default: the peak fleet's draw); the fleet must fit."""
    cross_connects: Annotated[int, Field(ge=0, le=1000)] = 2
    """Cross-connects paid each month (carrier, cloud on-ramp)."""
    cross_connect_brl_per_month: Money | None = None
    """Price of one cross-connect [BRL/month]."""
    maintenance_share_per_year: Share | None = None
    """Maintenance and spares per year as a share of the landed cost."""
    insurance_share_per_year: Share | None = None
    """Equipment insurance per year as a share of the landed cost."""
    staff_hours_per_month: Annotated[float, Field(ge=0.0, le=1e5)] | None = None
    """Staff hours spent on the servers each month."""
    staff_brl_per_hour: Annotated[float, Field(ge=0.0, le=1e5)] | None = None
    """Cost of one staff hour [BRL/h]."""
