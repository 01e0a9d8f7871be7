"""tco.plan.naming: a plan's name as parts, rendered by hand in each layout with the JSON's English templates, and
read back from every plan the search reports (the JSON's name is its parts rendered)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_plan import _all_plans, burst_plans, cat, seed_plans  # noqa: F401  (the searches, run once per module)
from tco.plan.naming import CONTRACT_EN, TEMPLATE_KEYS, FleetWords, PlanName, of_plan, render

P5EN = FleetWords("p5en.48xlarge", "savings_plan_ec2_3yr", "us-east-1")
NVL = FleetWords("h200-nvl-1x", None, "br")


def test_each_layout_by_hand():
    assert render(PlanName("br-dedicated", NVL, shared=True), CONTRACT_EN) == \
        "Plan br-dedicated: shared h200-nvl-1x (br)"
    assert render(PlanName("aws", P5EN), CONTRACT_EN) == "Plan aws: serve p5en.48xlarge savings_plan_ec2_3yr (us-east-1)"
    spot = FleetWords("a3-highgpu-8g", "spot", "us-east4")
    assert render(PlanName("hybrid", NVL, spot), CONTRACT_EN) == \
        "Plan hybrid: train a3-highgpu-8g spot (us-east4), serve h200-nvl-1x (br)"
    base = FleetWords("p5.4xlarge", "ri_3yr", "us-east-1")
    assert render(PlanName("aws", base, committed=(3, 0), burst="on_demand"), CONTRACT_EN) == \
        "Plan aws: serve p5.4xlarge ri_3yr × 3/0 + on_demand (us-east-1)"
    od = FleetWords("g2-standard-4", "on_demand", "us-central1")
    assert render(PlanName("gcp", od, autoscaled=True), CONTRACT_EN) == \
        "Plan gcp: serve g2-standard-4 on_demand autoscaled (us-central1)"


def test_the_words_are_the_templates():
    words = {k: f"<{k}>" for k in TEMPLATE_KEYS}
    assert render(PlanName("hybrid", NVL, P5EN), words) == "<plan_name_train_serve>"
    assert set(CONTRACT_EN) == set(TEMPLATE_KEYS)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["seed_plans", "burst_plans"])
def test_every_reported_name_is_its_parts_rendered(request, which):
    _, plans = request.getfixturevalue(which)
    layouts = set()
    for p in _all_plans(plans):
        parts = of_plan(p.as_dict())
        assert render(parts, CONTRACT_EN) == p.name == p.option["name"]
        layouts.add((parts.shared, parts.train is not None, parts.committed is not None, parts.autoscaled))
    assert len(layouts) >= 2  # more than one layout (pairs, committed baselines, autoscaled fleets)


ids = st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=8)


@given(instance=ids, pricing=st.none() | ids, region=ids, group=ids, n=st.lists(st.integers(0, 9), max_size=3))
def test_the_ids_appear_unchanged(instance, pricing, region, group, n):
    name = PlanName(group, FleetWords(instance, pricing, region), committed=tuple(n) or None,
                    burst="on_demand" if n else None)
    text = render(name, CONTRACT_EN)
    assert text.startswith(f"Plan {group}: serve {instance}") and text.endswith(f"({region})")
    assert (pricing or "") in text
