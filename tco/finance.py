"""Discounting and the finance figures finance teams check by hand.

Convention: cash flows at month end; month t (1..H) is discounted by (1 + r)^(−t/12), r the
effective annual nominal BRL rate. numpy-financial's ``npv(rate, values)`` discounts values[i] by
(1 + rate)^(−i) starting at i = 0, like Excel's NPV shifted by one period; we reconcile the two by
passing the monthly rate (1 + r)^(1/12) − 1 and a zero cash flow for t = 0 (see tests).
"""

from __future__ import annotations

import numpy as np


def monthly_rate(annual_rate: float) -> float:
    """Monthly rate equivalent to an effective annual rate: (1 + r)^(1/12) − 1.

    >>> round(monthly_rate(0.12682503013196977), 6)
    0.01
    """
    return (1.0 + annual_rate) ** (1.0 / 12.0) - 1.0


def discount_factors(horizon: int, annual_rate: float) -> np.ndarray:
    """(1 + r)^(−t/12) for t = 1..H: the rule ``tco.timeline.DF``."""
    from tco.timeline import discount_factors as factors

    return factors(horizon, annual_rate)


def npv(costs: np.ndarray, annual_rate: float) -> np.ndarray | float:
    """Present value [BRL] of monthly costs: Σ_t c_t·(1 + r)^(−t/12). Works on (…, H) arrays."""
    costs = np.asarray(costs, dtype=float)
    return costs @ discount_factors(costs.shape[-1], annual_rate)


def crossover_month(inference: np.ndarray, training_total: float) -> int | None:
    """First month (1-based) in which cumulative inference spend reaches the training burst's total.

    None when there was no training or inference never catches up within the horizon.
    """
    if training_total <= 0:
        return None
    cum = np.cumsum(inference)
    hit = np.nonzero(cum >= training_total)[0]
    return int(hit[0]) + 1 if len(hit) else None


def cost_per_million_tokens(total_brl: float, tokens: float) -> float | None:
    """Cost per million tokens served [BRL / 1e6 tokens]: the rule ``tco.costs.unit_rules.PER_MTOK`` (total ÷
    (tokens / 10⁶), the workbook's Finance formula); None when no tokens are served, or so few (a fraction of a
    user) that the ratio is not a finite number."""
    from tco.costs import unit_rules
    from tco.expr import evaluate

    if not tokens > 0:
        return None
    out = evaluate((unit_rules.MTOKENS, unit_rules.PER_MTOK), {"c.tco": total_brl, "million": unit_rules.MILLION}, 1,
                   rows={"tokens": np.array([tokens])})
    v = float(out["per_mtok"][0])
    return v if np.isfinite(v) else None


def payback_month(saving: np.ndarray) -> int | None:
    """First month in which the cumulative saving of one option over another turns non-negative and
    stays so (the month an option with upfront costs pays for itself). None if it never does."""
    cum = np.cumsum(saving)
    if len(cum) == 0 or cum[-1] < 0:
        return None
    neg = np.nonzero(cum < 0)[0]
    return int(neg[-1]) + 2 if len(neg) else 1
