"""The monthly ledger as CSV with FinOps FOCUS-style column names.

FOCUS (FinOps Open Cost and Usage Specification, v1.x) names the columns of a cloud bill:
BillingPeriodStart, ChargePeriodStart/End, ServiceCategory, ProviderName, RegionId, ResourceType,
PricingCategory, PricingQuantity, PricingUnit, ListUnitPrice, BilledCost, BillingCurrency, …
We use those names for the projection so it can later be held against real bills, and add
x_-prefixed columns (FOCUS's convention for custom columns) for what a bill does not have.
"""

from __future__ import annotations

import csv
import io

from tco.engine import Results
from tco.domain import CostLine, is_committed

COLUMNS = ("BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd", "ProviderName",
           "RegionId", "ResourceType", "ServiceCategory", "ChargeCategory", "PricingCategory", "BillingCurrency",
           "BilledCost", "x_Option", "x_CostLine", "x_ExchangeRateUSDBRL", "x_BilledCostBRL", "x_ServerHours",
           "x_TaxComponent")
"""The `taxes` line is written as one row per tax component (x_TaxComponent: irrf, cide, iss, pis_cofins, cbs,
ibs, iof, credits); a credit row is ChargeCategory 'Credit' with a negative BilledCost, as on a bill, so the rows of
a month add up to the taxes line."""

SERVICE = {"training_compute": "AI and Machine Learning", "inference_compute": "AI and Machine Learning",
           "setup": "Other", "storage": "Storage", "egress": "Networking", "taxes": "Other"}


def pricing_category(pricing: str) -> str:
    """FOCUS PricingCategory of a pricing: on-demand (and a line without a pricing) 'Standard', spot 'Dynamic',
    every commitment (``tco.domain.is_committed``: reservations, savings plans, committed-use discounts, a dedicated
    server's monthly contract, capacity blocks) 'Committed'."""
    if not pricing or not is_committed(pricing):
        return "Dynamic" if pricing.startswith("spot") else "Standard"
    return "Committed"


def _next_month(p: str) -> str:
    y, m = int(p[:4]), int(p[5:])
    y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return f"{y:04d}-{m:02d}"


RISKY_LEAD = ("=", "+", "-", "@", "\t", "\r")
"""Leading characters that make Excel or LibreOffice read a cell as a formula (OWASP CSV injection)."""


def text_cell(v: str) -> str:
    """A text cell that a spreadsheet shows as text: a risky leading character gets a ``'`` prefix
    (OWASP CSV-injection guidance). Every text cell is quoted by the writer, so a comma, quote,
    newline or carriage return stays inside its cell."""
    v = str(v)
    return "'" + v if v.startswith(RISKY_LEAD) else v


def render(res: Results) -> str:
    """The ledger's long form (``tco.ledger``) with FOCUS column names, one row per option × line × month; text
    cells neutralised and quoted, numbers written unquoted with Python's shortest exact representation (repr)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(COLUMNS)
    for (option, _role, line, component, month, cur, amount, qty, _unit, rate, amount_brl, provider, region, offer,
         pricing) in res.ledger.rows():
        start, end = f"{month}-01", f"{_next_month(month)}-01"
        hours = qty if line in (CostLine.TRAINING_COMPUTE, CostLine.INFERENCE_COMPUTE) else ""
        category = ("Credit" if component == "credits" else "Tax" if line == CostLine.TAXES
                    else "Usage" if line != CostLine.SETUP else "Purchase")
        text = [start, end, start, end, provider, region, offer, SERVICE[line], category,
                pricing_category(pricing), cur]
        w.writerow([text_cell(v) for v in text] + [amount, text_cell(option), line, rate, amount_brl, hours,
                                                   text_cell(component)])
    return out.getvalue()
