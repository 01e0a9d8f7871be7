"""Which lines a price or the dollar drives (tco.report.workbook.tco_parts), and the parts of the TCO they make
with the taxes they bear (the rules of tco.costs.finance_rules), worked by hand on a two-month option."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco.domain import CostLine, FleetKind
from tco.costs import finance_rules
from tco.report.workbook.tco_parts import price_lines, usd_lines


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
                           total_brl=np.zeros(2), resolved=resolved, tco=SimpleNamespace(deterministic=400.0))


def test_the_taxed_lines_are_those_in_the_taxes_currency():
    assert finance_rules.taxed_lines(_option().costs.currency) == ("training_compute", "setup", "storage")
    assert usd_lines(_option()) == ["inference_compute", "egress"]


def test_the_parts_by_hand():
    # taxed amount (the BRL lines): month 1 100 + 0 + 50 = 150, taxes 15 → ratio 0.1; month 2 0 + 0 + 50 = 50, taxes
    # 5 → 0.1. Dedicated price part (training, taxed): 100 × 1.1 + 0 × 1.1 = 110; cloud price part (serving, USD,
    # not taxed): 10 × 5 + 20 × 5 = 150; USD part (serving + egress in BRL): 150 + 1 × 5 + 1 × 5 = 160; with a TCO
    # of 400 the BRL part is 400 − 160 = 240
    o = _option()
    p = finance_rules.parts(o, usd_lines(o), price_lines(o, FleetKind.CLOUD), price_lines(o, FleetKind.DEDICATED))
    assert p == pytest.approx({"usd_part": 160.0, "brl_part": 240.0, "cloud_part": 150.0, "dedicated_part": 110.0},
                              rel=1e-15)


def test_no_taxed_amount_means_no_division_by_zero():
    o = _option()
    o.costs.lines["training_compute"] = np.zeros(2)
    o.costs.lines["storage"] = np.zeros(2)
    o.lines_brl["training_compute"] = np.zeros(2)
    assert finance_rules.parts(o, [], [], [CostLine.TRAINING_COMPUTE])["dedicated_part"] == 0.0


def test_price_lines_follow_the_fleets_kind():
    assert price_lines(_option(), FleetKind.CLOUD) == ["inference_compute"]
    assert price_lines(_option(), FleetKind.DEDICATED) == ["training_compute"]
    shared = _option()
    shared.resolved.training = SimpleNamespace(kind="cloud")
    assert price_lines(shared, FleetKind.CLOUD) == ["training_compute", "inference_compute"]
