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
           "BilledCost", "x_Option", "x_CostLine", "x_ExchangeRateUSDBRL", "x_BilledCostBRL", "x_ServerHours")

SERVICE = {"training_compute": "AI and Machine Learning", "inference_compute": "AI and Machine Learning",
           "setup": "Other", "storage": "Storage", "egress": "Networking", "taxes": "Other"}
PRICING = {"on_demand": "Standard", "spot": "Dynamic", "reserved_1yr": "Committed", "reserved_3yr": "Committed",
           "monthly": "Committed"}


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
    """The ledger as CSV text: text cells neutralised and quoted, numbers written unquoted with
    Python's shortest exact representation (repr)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(COLUMNS)
    for o in res.options:
        r = o.resolved
        for i, month in enumerate(res.months):
            start, end = f"{month}-01", f"{_next_month(month)}-01"
            for line in LINES:
                amount = float(o.costs.lines[line][i])
                if amount == 0.0:
                    continue
                fleet = r.training if (line == "training_compute" and r.fleet == "separate" and r.training) else r.inference
                cur = o.costs.currency[line]
                rate = float(res.fx_path[i]) if cur == "USD" else 1.0
                tr_h = float(o.costs.training_hours[i])
                hours = (tr_h if line == "training_compute" else float(o.costs.instance_hours[i]) - tr_h
                         if line == "inference_compute" else "")
                text = [start, end, start, end, fleet.provider, fleet.region, fleet.offer_id, SERVICE[line],
                        "Tax" if line == "taxes" else "Usage" if line != "setup" else "Purchase",
                        PRICING.get(fleet.pricing, "Standard"), cur]
                w.writerow([text_cell(v) for v in text] + [amount, text_cell(o.name), line, rate,
                                                           float(o.lines_brl[line][i]), hours])
    return out.getvalue()
