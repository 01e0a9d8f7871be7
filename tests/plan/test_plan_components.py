"""tco.plan.components: which (offer, pricing) pairs the search may use, the serving modes it tries for each,
and the shared context (workload, FX path, discount factors) it costs them against."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tco.domain import FleetKind
from tco.errors import InputError
from tco.plan.components import BRAZIL_REGIONS, allowed, context, offers, serving_modes, zero_cloud
from tco.scenario import Plan


@pytest.fixture(scope="module")
def ctx_for(seed_inputs):
    def make(**plan):
        s = seed_inputs.scenario.model_copy(update={"plan": Plan(**plan)})
        return context(s, seed_inputs.catalog)
    return make


def test_allowed_pricings():
    assert allowed(Plan(), "spot")
    assert not allowed(Plan(include_pricings=["on_demand"]), "spot")
    assert allowed(Plan(include_pricings=["on_demand"]), "on_demand")
    assert not allowed(Plan(exclude_pricings=["spot"]), "spot")


def test_context_is_the_engines_workload_and_money_path(ctx_for, seed_results):
    ctx = ctx_for()
    assert ctx.h == 36
    np.testing.assert_array_equal(ctx.fx, seed_results.fx_path)
    np.testing.assert_array_equal(ctx.disc, seed_results.timeline["df"])
    np.testing.assert_array_equal(ctx.egress, seed_results.egress_gb)
    np.testing.assert_array_equal(ctx.rps, seed_results.hourly_rps)


def test_context_refuses_an_unknown_model(seed_inputs):
    s = seed_inputs.scenario
    bad = s.model_copy(update={"model": s.model.model_copy(update={"id": "llama-3.1-70"})})
    with pytest.raises(InputError, match="unknown model 'llama-3.1-70'; did you mean 'llama-3.1-70b'"):
        context(bad, seed_inputs.catalog, "s.toml")


def test_offers_respect_providers_gpus_pricings_and_brazil(ctx_for, seed_inputs):
    cat = seed_inputs.catalog
    fl = offers(ctx_for(providers=["aws"], gpus=["H200-SXM-141GB"], exclude_pricings=["spot"]))
    assert fl and all(f.provider == "aws" and f.gpu.gpu == "H200-SXM-141GB" and f.pricing != "spot" for f in fl)
    br = offers(ctx_for(brazil_only=True))
    assert br and all(f.region in BRAZIL_REGIONS for f in br)
    for f in offers(ctx_for(providers=["br-dedicated"])):
        assert f.kind == FleetKind.DEDICATED and f.pricing == "monthly"
        assert cat.offer(f.offer_id).status not in ("not_offered", "anomalous")


def test_serving_modes_by_pricing(ctx_for):
    ctx = ctx_for(providers=["aws"])
    by_pricing = {}
    for f in offers(ctx):
        by_pricing.setdefault(f.pricing, serving_modes(ctx, f)[0])
    assert by_pricing["on_demand"] == ["autoscaled"]
    assert by_pricing["spot"] == []                               # spot_for_serving is off
    assert by_pricing["reserved_1yr"] == ["committed_all_month", "committed_baseline"]
    assert by_pricing["reserved_3yr"] == ["committed_all_month", "committed_baseline"]  # 36 ≤ 36 months
    spot = next(f for f in offers(ctx) if f.pricing == "spot")
    assert serving_modes(ctx_for(providers=["aws"], spot_for_serving=True), spot) == (["autoscaled"], "")


def test_a_commitment_longer_than_the_horizon_is_skipped_with_a_reason(seed_inputs):
    s = seed_inputs.scenario
    short = s.model_copy(update={"scenario": s.scenario.model_copy(update={"horizon_months": 24}),
                                 "plan": Plan(providers=["aws"])})
    ctx = context(short, seed_inputs.catalog)
    three = next(f for f in offers(ctx) if f.pricing == "reserved_3yr")
    assert serving_modes(ctx, three) == ([], "a 36-month commitment is longer than the 24-month horizon")
    assert ctx.skipped == []  # the reason is recorded once, by the serving components (test_costing)


def test_zero_cloud_costs_nothing_on_the_same_hardware(ctx_for):
    f = offers(ctx_for(providers=["br-dedicated"]))[0]
    z = zero_cloud(f)
    assert (z.kind, z.price, z.setup_fee_brl, z.min_term_months) == (FleetKind.CLOUD, 0.0, 0.0, 0)
    assert z.gpu == f.gpu and z.gpus_per_server == f.gpus_per_server and z.offer_id == f.offer_id
    assert replace(z, kind=f.kind) != f
