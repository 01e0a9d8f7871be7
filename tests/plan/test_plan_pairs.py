"""tco.plan.pairs: each (training, serving) pair's month is the engine's, to the bit.

On the seed, restricted to two providers and the Brazilian dedicated offers (every kind of pair: cloud burst with
cloud serving, cloud with dedicated, dedicated with dedicated, and their tax profiles): one pair of every
resolution the search taxes with, written as an ordinary option and run through the engine, gives the same monthly
totals to the last bit; so does a shared fleet's whole plan. The grouping is worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tco.engine import run_scenario
from tco.plan import combine
from tco.plan.components import context, offers
from tco.plan.pairs import _ids, comp_month, pair_months
from tco.scenario import Option, Plan


@pytest.fixture(scope="module")
def searched(seed_inputs):
    s = seed_inputs.scenario.model_copy(update={"plan": Plan(providers=["aws", "gcp", "br-dedicated"])})
    ctx = context(s, seed_inputs.catalog)
    Tx, Iv, S = combine._components(ctx, offers(ctx), "seed", None)
    return s, seed_inputs.catalog, ctx, Tx, Iv, S


def _engine_months(s, cat, option: dict) -> np.ndarray:
    res = run_scenario(s.model_copy(update={"options": [Option(**option)], "plan": None}), cat, simulate=False)
    return res.options[0].total_brl


def test_groups_by_hand():
    ids, first = _ids([("aws", "us-east-1"), ("br",), ("aws", "us-east-1"), ("gcp", "x"), ("br",)])
    assert ids.tolist() == [0, 1, 0, 2, 1]
    assert first == [0, 1, 3]


def test_one_pair_of_every_resolution_is_the_engine_to_the_bit(searched):
    s, cat, ctx, Tx, Iv, S = searched
    pm = pair_months(ctx, Tx, Iv)
    assert pm.monthly.shape == (len(Tx), len(Iv), ctx.h)
    kinds = set()
    for j in range(len(pm.probes)):
        a, b = (int(x[0]) for x in np.nonzero(pm.probe == j))
        t, i = Tx[a], Iv[b]
        kinds.add((t.fleet.kind, i.fleet.kind))
        plan = combine._plan(ctx, t, i, 0.0, 0.0, "", None)
        assert np.array_equal(pm.monthly[a, b], _engine_months(s, cat, plan.option)), plan.name
    assert kinds == {("cloud", "cloud"), ("cloud", "dedicated"), ("dedicated", "cloud"), ("dedicated", "dedicated")}


def test_a_shared_fleet_is_the_engine_to_the_bit(searched):
    s, cat, ctx, Tx, Iv, S = searched
    for c in S[:: max(1, len(S) // 4)]:
        plan = combine._plan(ctx, None, c, 0.0, 0.0, "", None)
        assert np.array_equal(comp_month(ctx, c), _engine_months(s, cat, plan.option)), plan.name
