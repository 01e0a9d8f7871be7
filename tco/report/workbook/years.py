"""The arithmetic of the Finance sheet on the engine's arrays: contract and calendar years, sums by year, the
commitments of an option and the amounts inside them (the cached values of the sheet's formulas;
tests/test_workbook_finance.py works cases by hand against these). Unit costs and GPU-hours are rules
(``tco.costs.unit_rules``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tco.domain import CostLine, FleetMode, Role, commitment_term_months


def contract_years(horizon: int) -> int:
    """Contract years of a horizon [months]: ⌈H / 12⌉."""
    return -(-horizon // 12)


def calendar_years(months: list[str]) -> list[int]:
    """The calendar years the months ('2027-01' …) fall in, in order."""
    return sorted({int(m[:4]) for m in months})


def yearly(amounts, months: list[str]) -> tuple[list[float], list[float]]:
    """(by contract year, by calendar year) sums of a monthly series [BRL]: contract year y holds months
    12(y − 1) + 1 … 12y; calendar year Y the months dated Y."""
    a = np.asarray(amounts, dtype=float)
    by_contract = [float(a[12 * y:12 * (y + 1)].sum()) for y in range(contract_years(len(a)))]
    years = np.array([int(m[:4]) for m in months])
    return by_contract, [float(a[years == y].sum()) for y in calendar_years(months)]


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


def committed_amount(o, lines: list[str], start: int, term: int) -> float:
    """Payments of `lines` (with the taxes on them) in months start … start + term − 1 [BRL]."""
    from tco.report.workbook.tco_parts import taxed_part

    part = taxed_part(o, lines)
    t = np.arange(1, len(part) + 1)
    return float(part[(t >= start) & (t < start + term)].sum())
