"""The parts of an option's TCO that a price or the dollar drives (tco.report.workbook.tco_parts), each with the
taxes it bears, worked by hand on a two-month option."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco.domain import CostLine, FleetKind
from tco.report.workbook.tco_parts import price_lines, taxed_lines, taxed_part, usd_lines


def _option(taxes_currency: str = "BRL"):
    """Serving in USD (cloud), training in BRL (dedicated), storage in BRL; the taxes on the BRL lines."""
    currency = {"training_compute": "BRL", "inference_compute": "USD", "setup": "BRL", "storage": "BRL",
                "egress": "USD", "taxes": taxes_currency}
    lines = {"training_compute": np.array([100.0, 0.0]), "inference_compute": np.array([10.0, 20.0]),
             "setup": np.array([0.0, 0.0]), "storage": np.array([50.0, 50.0]), "egress": np.array([1.0, 1.0]),
             "taxes": np.array([15.0, 5.0])}
    rate = 5.0  # BRL/USD: the BRL amount of each line
    lines_brl = {k: v * (rate if currency[k] == "USD" else 1.0) for k, v in lines.items()}
    resolved = SimpleNamespace(training=SimpleNamespace(kind="dedicated"), inference=SimpleNamespace(kind="cloud"))
    return SimpleNamespace(costs=SimpleNamespace(currency=currency, lines=lines), lines_brl=lines_brl,
                           total_brl=np.zeros(2), resolved=resolved)


def test_the_taxed_lines_are_those_in_the_taxes_currency():
    assert taxed_lines(_option()) == ["training_compute", "setup", "storage"]
    assert usd_lines(_option()) == ["inference_compute", "egress"]


def test_a_taxed_line_carries_its_share_of_the_taxes():
    # month 1: taxed amount 100 + 0 + 50 = 150, taxes 15 → ratio 0.1; month 2: 0 + 0 + 50 = 50, taxes 5 → 0.1
    part = taxed_part(_option(), [CostLine.TRAINING_COMPUTE])
    assert part == pytest.approx([100.0 * (1 + 15 / 150), 0.0 * (1 + 5 / 50)])
    # a line outside the taxed amount is its BRL amount alone
    assert taxed_part(_option(), [CostLine.INFERENCE_COMPUTE]) == pytest.approx([10.0 * 5.0, 20.0 * 5.0])


def test_no_taxed_amount_means_no_division_by_zero():
    o = _option()
    o.costs.lines["training_compute"] = np.zeros(2)
    o.costs.lines["storage"] = np.zeros(2)
    o.lines_brl["training_compute"] = np.zeros(2)
    assert taxed_part(o, [CostLine.TRAINING_COMPUTE]) == pytest.approx([0.0, 0.0])


def test_price_lines_follow_the_fleets_kind():
    assert price_lines(_option(), FleetKind.CLOUD) == ["inference_compute"]
    assert price_lines(_option(), FleetKind.DEDICATED) == ["training_compute"]
    shared = _option()
    shared.resolved.training = SimpleNamespace(kind="cloud")
    assert price_lines(shared, FleetKind.CLOUD) == ["training_compute", "inference_compute"]
