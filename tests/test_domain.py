"""The vocabulary (tco.domain): enums that equal their words, pricing classes, option kinds, notices
and distributions."""

from __future__ import annotations

import json

import pytest

from tco.domain import (
    LINES, CostLine, Dist, FleetKind, FxModel, Notice, commitment_term_months, is_capacity_block, is_committed,
    is_monte_carlo, is_spot, option_kind,
)


def test_enums_equal_and_serialise_to_their_words():
    assert FleetKind.CLOUD == "cloud" and json.dumps({"k": FleetKind.DEDICATED}) == '{"k": "dedicated"}'
    assert FleetKind("hybrid") is FleetKind.HYBRID
    assert LINES == ("training_compute", "inference_compute", "setup", "storage", "egress", "taxes")
    assert LINES[0] is CostLine.TRAINING_COMPUTE


@pytest.mark.parametrize("pricing,committed,spot,block,term", [
    ("on_demand", False, False, False, None),
    ("spot", False, True, False, None),
    ("spot_1h", False, True, False, None),
    ("reserved_1yr", True, False, False, 12),
    ("cud_3yr", True, False, False, 36),
    ("savings_plan_3_year", True, False, False, 36),
    ("capacity_block", True, False, True, None),
    ("dws_calendar_7d", True, False, True, None),
])
def test_pricing_classes(pricing, committed, spot, block, term):
    assert is_committed(pricing) is committed
    assert is_spot(pricing) is spot
    assert is_capacity_block(pricing) is block
    assert commitment_term_months(pricing) == term


def test_option_kind():
    assert option_kind("cloud", None) is FleetKind.CLOUD
    assert option_kind("dedicated", "dedicated") is FleetKind.DEDICATED
    assert option_kind("dedicated", "cloud") is FleetKind.HYBRID


def test_monte_carlo_models():
    assert [m for m in FxModel if is_monte_carlo(m)] == [FxModel.GBM, FxModel.BOOTSTRAP]
    assert FxModel.GBM.is_monte_carlo and not FxModel.PARITY.is_monte_carlo


def test_dist_point_and_notice():
    assert Dist.point(3.5).as_dict() == {"deterministic": 3.5, "mean": 3.5, "p5": 3.5, "p50": 3.5, "p95": 3.5}
    n = Notice("price_estimate", "A", {"offer": "x"})
    assert (n.code, n.option, n.params["offer"]) == ("price_estimate", "A", "x")
