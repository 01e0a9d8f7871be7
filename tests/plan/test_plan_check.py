"""tco.plan.check: every problem of a [plan] section at once, each naming the key, the line and the closest
valid names."""

from __future__ import annotations

import pytest

from tco.plan.check import check
from tco.scenario import Plan


@pytest.fixture(scope="module")
def seed(seed_inputs):
    return seed_inputs.scenario, seed_inputs.catalog


def _with(seed, **plan):
    s, cat = seed
    return s.model_copy(update={"plan": Plan(**plan)}), cat


def test_sound_or_absent_plan_has_no_problem(seed):
    s, cat = seed
    assert check(s, cat) == []
    assert check(s.model_copy(update={"plan": None}), cat) == []


def test_every_unknown_name_at_once_with_lines_and_suggestions(seed):
    s, cat = _with(seed, providers=["awz", "gcp"], gpus=["H200-SXM-141G"], include_pricings=["on_demnd"],
                   taxes={"aws": "no_such_profile"}, storage_usd_per_gb_month={"azur": 0.02})
    lines = {("plan",): 90, ("plan", "providers"): 91, ("plan", "gpus"): 92, ("plan", "include_pricings"): 93,
             ("plan", "taxes", "aws"): 94}
    got = {(p.key, p.line): p.message for p in check(s, cat, "s.toml", lines)}
    assert got[("plan.providers[0]", 91)].startswith("unknown provider 'awz'; did you mean 'aws'")
    assert "unknown GPU 'H200-SXM-141G'; did you mean 'H200-SXM-141GB'" in got[("plan.gpus[0]", 92)]
    assert "unknown pricing 'on_demnd'; did you mean 'on_demand'" in got[("plan.include_pricings[0]", 93)]
    assert got[("plan.taxes.aws", 94)].startswith("unknown tax profile 'no_such_profile'")
    # no line of its own: the section's line
    assert got[("plan.storage_usd_per_gb_month.azur", 90)].startswith("unknown provider 'azur'; did you mean 'azure'")
    assert len(got) == 5


def test_brazil_only_needs_a_brazilian_offer_for_each_gpu_and_provider(seed):
    s, cat = _with(seed, brazil_only=True, gpus=["B200-SXM-180GB"], providers=["lambda"])
    got = {p.key: p.message for p in check(s, cat, "s.toml", {("plan", "brazil_only"): 7})}
    assert got["plan.gpus[0]"].startswith("brazil_only: no offer in a Brazilian region has GPU 'B200-SXM-180GB'")
    assert "sa-east-1" in got["plan.gpus[0]"]
    assert got["plan.providers[0]"].startswith("brazil_only: provider 'lambda' has no priced offer in Brazil")
    s2, _ = _with(seed, brazil_only=True)
    assert check(s2, cat) == []                          # Brazil has priced offers (the dedicated providers, AWS SP)
