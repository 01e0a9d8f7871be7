"""The shape of the Finance sheet: its contract and calendar years and the commitments of an option (which lines,
which term, from which month). The figures in it are rules: sums by year and committed amounts
(``tco.costs.finance_rules``), unit costs and GPU-hours (``tco.costs.unit_rules``)."""

from __future__ import annotations

from typing import Any

from tco.costs.finance_rules import calendar_years  # noqa: F401  (re-exported: the Finance sheet's year heads)
from tco.domain import CostLine, FleetMode, Role, commitment_term_months


def contract_years(horizon: int) -> int:
    """Contract years of a horizon [months]: ⌈H / 12⌉."""
    return -(-horizon // 12)


def commitments(o, training_start: int, inference_start: int) -> list[tuple[str, Any, list[str], int, int]]:
    """(role, fleet, compute lines, term [months], first month) of each fleet with a minimum term or a committed
    price. A shared fleet is one contract: its training and serving lines, from the first month either starts."""
    out: list[tuple[str, Any, list[str], int, int]] = []
    r = o.resolved
    if r.owned is not None:  # bought servers: no rental term (what is committed is the purchase itself)
        return out

    def term_of(fleet, role: str) -> int:
        term = max(fleet.min_term_months, commitment_term_months(fleet.pricing) or 0)
        return max(term, r.commit_term_months) if role == Role.INFERENCE and r.commit_term_months else term

    if r.fleet == FleetMode.SHARED and r.training is not None:
        term = max(term_of(r.training, Role.TRAINING), term_of(r.inference, Role.INFERENCE))
        if term > 0:
            out.append((Role.SHARED, r.inference, [CostLine.TRAINING_COMPUTE, CostLine.INFERENCE_COMPUTE], term,
                        min(training_start, inference_start)))
        return out
    for role, fleet, line, start in ((Role.TRAINING, r.training, CostLine.TRAINING_COMPUTE, training_start),
                                     (Role.INFERENCE, r.inference, CostLine.INFERENCE_COMPUTE, inference_start)):
        if fleet is not None and term_of(fleet, role) > 0:
            out.append((role, fleet, [line], term_of(fleet, role), start))
    return out
