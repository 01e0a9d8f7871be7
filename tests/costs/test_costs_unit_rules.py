"""tco.costs.unit_rules: TCO per user-month, per GPU-hour and per million tokens, worked by hand; the formulas they
render; and the seed's figures are TCO ÷ quantity."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco.costs import unit_rules
from tco.expr import XlContext


def _option(tco: float, rows: dict, inf_gps: int = 8, tr_gps: int | None = None):
    training = SimpleNamespace(gpus_per_server=tr_gps) if tr_gps is not None else None
    return SimpleNamespace(tco=SimpleNamespace(deterministic=tco), costs=SimpleNamespace(rows=rows),
                           resolved=SimpleNamespace(inference=SimpleNamespace(gpus_per_server=inf_gps),
                                                    training=training))


def test_unit_costs_by_hand():
    # TCO 1,200 over 3 months; users 10 + 20 + 30 = 60 user-months → 20 per user-month;
    # one fleet of 8-GPU servers paid 100 + 100 + 50 = 250 server-hours → 2,000 GPU-hours → 0.6 per GPU-hour;
    # tokens 1e6 + 1e6 + 2e6 = 4 million → 300 per million tokens
    o = _option(1200.0, {"server_hours": np.array([100.0, 100.0, 50.0])})
    u = unit_rules.unit_costs(o, np.array([10.0, 20.0, 30.0]), np.array([1e6, 1e6, 2e6]))
    assert u == {"user_months": 60.0, "per_user": 20.0, "gpu_hours": 2000.0, "per_gpu_hour": 0.6, "mtokens": 4.0,
                 "per_mtok": 300.0}


def test_separate_fleets_and_nothing_served():
    # training 10 h on 8-GPU servers + serving 30 h on 1-GPU servers: 80 + 30 = 110 GPU-hours; no users nor tokens: 0
    o = _option(550.0, {"tr_hours": np.array([10.0, 0.0]), "inf_hours": np.array([10.0, 20.0])}, inf_gps=1, tr_gps=8)
    u = unit_rules.unit_costs(o, np.zeros(2), np.zeros(2))
    assert u["gpu_hours"] == 110.0 and u["per_gpu_hour"] == 5.0
    assert u["per_user"] == 0.0 and u["per_mtok"] == 0.0


def test_formulas():
    names = {"c.tco": "B9", "c.user_months": "C9", "c.gpu_hours": "E9", "c.mtokens": "G9", "million": "fin_million",
             "o.inf_gps": "in_o1_inf_gps", "o.tr_gps": "in_o1_tr_gps"}
    ctx = XlContext("", None, lambda k: 0, names.__getitem__, row_range=lambda k: f"R_{k}")
    texts = [x.formula(ctx) for x in unit_rules.rules(("tr_hours", "inf_hours"))]
    assert texts == ["=SUM(R_users)", "=IF(C9>0,B9/C9,0)",
                     "=SUM(R_tr_hours)*in_o1_tr_gps+SUM(R_inf_hours)*in_o1_inf_gps", "=IF(E9>0,B9/E9,0)",
                     "=SUM(R_tokens)/fin_million", "=IF(G9>0,B9/G9,0)"]


def test_the_seed_per_million_tokens_is_the_jsons(seed_results):
    # the JSON's cost per million tokens (tco.finance) and the rule agree on every option that serves tokens
    for o in seed_results.options:
        u = unit_rules.unit_costs(o, seed_results.users, seed_results.tokens)
        assert u["per_mtok"] == pytest.approx(o.cost_per_million_tokens_brl, rel=0)  # the same division
