"""tco.plan.costing: components costed with the engine's own cost function add up to the engine's TCO, and
``stacked`` keeps each line in its currency, in ``LINES`` order, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tco.domain import Currency
from tco.plan.components import context, offers
from tco.plan.costing import serving_comps, shared_comps, stacked, training_comps
from tco.plan.pairs import comp_month
from tco.scenario import Plan


def test_stacked_by_hand():
    lines = {"training_compute": np.zeros(3), "inference_compute": np.array([10.0, 10.0, 10.0]),
             "setup": np.array([100.0, 0, 0]), "storage": np.zeros(3), "egress": np.array([1.0, 2.0, 3.0]),
             "taxes": np.zeros(3)}
    currency = {"training_compute": Currency.BRL, "inference_compute": Currency.USD, "setup": Currency.BRL,
                "storage": Currency.USD, "egress": Currency.USD, "taxes": Currency.USD}
    got, cur = stacked(dict(reversed(list(lines.items()))), currency)  # any order in, LINES order out
    assert got.shape == (6, 3)
    np.testing.assert_array_equal(got[1], [10.0, 10.0, 10.0])              # inference_compute, still in USD
    np.testing.assert_array_equal(got[2], [100.0, 0.0, 0.0])               # setup, in BRL
    np.testing.assert_array_equal(got[4], [1.0, 2.0, 3.0])                 # egress, in USD
    assert cur == ("BRL", "USD", "BRL", "USD", "USD", "USD")


@pytest.fixture(scope="module")
def dedicated(seed_inputs):
    s = seed_inputs.scenario.model_copy(update={"plan": Plan(providers=["br-dedicated"])})
    ctx = context(s, seed_inputs.catalog)
    return ctx, offers(ctx)


def test_a_shared_component_is_the_engines_option(dedicated, seed_results):
    ctx, fleets = dedicated
    comps = {c.fleet.offer_id: c for c in shared_comps(ctx, fleets)}
    c = comps["br-dedicated/sp/hgx-h200-8x"]
    engine = next(o for o in seed_results.options if o.name == "Dedicado BR — 8x H200")   # the same shared fleet
    assert float(comp_month(ctx, c).sum()) == engine.tco.deterministic                  # to the bit
    assert c.training is not None and c.mode == "shared"


def test_serving_and_training_components(dedicated):
    ctx, fleets = dedicated
    serving, rep = serving_comps(ctx, fleets, None)
    assert serving and all(c.role == "serving" and c.mode == "dedicated" for c in serving)
    assert rep is not None
    assert all(c.replica.target_met for c in serving)
    training = training_comps(ctx, fleets, rep)
    for t in training:
        assert t.role == "training" and t.training is not None
        assert t.currency[0] == "BRL" and t.lines[0].sum() > 0            # a dedicated burst is billed in BRL
        assert all(t.lines[j].sum() == 0 for j, c in enumerate(t.currency) if c == "USD")
    # the skipped offers carry their reason (the 1× H200 NVL cannot train across 8 bridged servers)
    reasons = {(d["offer"], d["role"]): d["reason"] for d in ctx.skipped}
    assert "nvlink_bridge" in reasons[("br-dedicated/sp/h200-nvl-1x", "training")]


def test_a_commitment_longer_than_the_horizon_is_skipped_once(seed_inputs):
    # the seed trains, so the search costs serving fleets and shared fleets on every offer: the reason a 3-year
    # commitment cannot serve a 24-month horizon is recorded once (it was once per component kind: twice)
    s = seed_inputs.scenario
    short = s.model_copy(update={"scenario": s.scenario.model_copy(update={"horizon_months": 24}),
                                 "plan": Plan(providers=["aws"])})
    ctx = context(short, seed_inputs.catalog)
    fleets = offers(ctx)
    serving, _ = serving_comps(ctx, fleets, None)
    shared_comps(ctx, fleets)
    three = [d for d in ctx.skipped if d["pricing"] == "reserved_3yr"]
    assert three and len(three) == len({d["offer"] for d in three})
    assert all(d == {"offer": d["offer"], "pricing": "reserved_3yr", "role": "serving",
                     "reason": "a 36-month commitment is longer than the 24-month horizon"} for d in three)
    keys = [(d["offer"], d["pricing"], d["role"], d["reason"]) for d in ctx.skipped]
    assert len(keys) == len(set(keys))  # no entry twice
