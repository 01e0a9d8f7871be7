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

from tco.costs import LINES
from tco.engine import Results

COLUMNS = ("BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd", "ProviderName",
           "RegionId", "ResourceType", "ServiceCategory", "ChargeCategory", "PricingCategory", "BillingCurrency",
           "BilledCost", "x_Option", "x_CostLine", "x_ExchangeRateUSDBRL", "x_BilledCostBRL", "x_ServerHours",
           "x_TaxComponent")
"""The `taxes` line is written as one row per tax component (x_TaxComponent: irrf, cide, iss, pis_cofins, cbs,
ibs, iof, credits); a credit row is ChargeCategory 'Credit' with a negative BilledCost, as on a bill, so the rows of
a month add up to the taxes line."""

SERVICE = {"training_compute": "AI and Machine Learning", "inference_compute": "AI and Machine Learning",
           "setup": "Other", "storage": "Storage", "egress": "Networking", "taxes": "Other"}
PRICING = {"on_demand": "Standard", "spot": "Dynamic", "reserved_1yr": "Committed", "reserved_3yr": "Committed",
           "monthly": "Committed"}


def _next_month(p: str) -> str:
    y, m = int(p[:4]), int(p[5:])
    y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return f"{y:04d}-{m:02d}"


def _rows(o, i: int):
    """(line, tax component or '', amount in the line's currency) for month index i; credits negative."""
    comp = o.costs.tax_components
    for line in LINES:
        if line == "taxes" and comp is not None:
            for k, v in comp.items():
                yield line, k, -float(v[i]) if k == "credits" else float(v[i])
        else:
            yield line, "", float(o.costs.lines[line][i])


def render(res: Results) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for o in res.options:
        r = o.resolved
        for i, month in enumerate(res.months):
            start, end = f"{month}-01", f"{_next_month(month)}-01"
            for line, component, amount in _rows(o, i):
                if amount == 0.0:
                    continue
                fleet = r.training if (line == "training_compute" and r.fleet == "separate" and r.training) else r.inference
                cur = o.costs.currency[line]
                rate = float(res.fx_path[i]) if cur == "USD" else 1.0
                tr_h = float(o.costs.training_hours[i])
                hours = (tr_h if line == "training_compute" else float(o.costs.instance_hours[i]) - tr_h
                         if line == "inference_compute" else "")
                category = ("Credit" if component == "credits" else "Tax" if line == "taxes"
                            else "Usage" if line != "setup" else "Purchase")
                w.writerow([start, end, start, end, fleet.provider, fleet.region, fleet.offer_id, SERVICE[line],
                            category, PRICING.get(fleet.pricing, "Standard"), cur, repr(amount), o.name, line, repr(rate),
                            repr(amount * rate), hours if hours == "" else repr(hours), component])
    return out.getvalue()
