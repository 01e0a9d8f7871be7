"""Which lines of an option a price or the dollar drives: the cloud or dedicated fleets' compute lines, the lines
billed in USD. The parts of the TCO they make, with the taxes they bear, are rules (``tco.costs.finance_rules``);
the Finance sheet's break-evens (``workbook_breakeven``) write and evaluate them for these lines."""

from __future__ import annotations

from tco.costs import LINES
from tco.domain import CostLine, Currency


def price_lines(o, kind: str) -> list[str]:
    """Compute lines driven by the prices of fleets of `kind` (cloud or dedicated)."""
    r = o.resolved
    if getattr(r, "owned", None) is not None:  # bought servers: no rental price drives their lines (tco.costs.owned_rules)
        return []
    out = [line for fleet, line in ((r.training, CostLine.TRAINING_COMPUTE), (r.inference, CostLine.INFERENCE_COMPUTE))
           if fleet is not None and fleet.kind == kind]
    return list(dict.fromkeys(out))


def usd_lines(o) -> list[str]:
    return [k for k in LINES if o.costs.currency[k] == Currency.USD]
