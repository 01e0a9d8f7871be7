"""The scenario schema and the domain vocabulary name the same words: each word a scenario file may write
for a domain choice (fleet mode, training method, growth model, FX model) is a member of the tco.domain enum
the code compares against, and the schema's split keeps every public name at `tco.scenario`."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from tco import domain, scenario


def literal_words(model, field: str) -> set[str]:
    ann = model.model_fields[field].annotation
    return {a for a in typing.get_args(ann) if isinstance(a, str)}


@pytest.mark.parametrize(("model", "field", "enum"), [
    (scenario.Option, "fleet", domain.FleetMode),
    (scenario.Training, "method", domain.TrainingMethod),
    (scenario.FX, "model", domain.FxModel),
])
def test_schema_words_are_the_domain_enum(model, field, enum):
    assert literal_words(model, field) == {m.value for m in enum}


def test_growth_models_are_the_domain_enum():
    tags = {literal_words(m, "model").pop() for m in
            (scenario.LinearGrowth, scenario.CompoundGrowth, scenario.LogisticGrowth, scenario.ListGrowth)}
    assert tags == {m.value for m in domain.GrowthModel}


def test_spot_is_a_common_pricing():
    assert domain.SPOT in scenario.PRICINGS and domain.ON_DEMAND in scenario.PRICINGS


@pytest.mark.parametrize("name", [
    "Scenario", "ScenarioInfo", "ModelSpec", "Training", "Inference", "Option", "FX", "Plan", "Proposal",
    "LinearGrowth", "CompoundGrowth", "LogisticGrowth", "ListGrowth", "Growth", "PRICINGS", "PROFILES",
    "MAX_USERS", "MAX_USD_PER_HOUR", "MAX_BRL_PER_MONTH", "MAX_NAME_CHARS", "Name", "Line", "Text", "Id",
    "load", "load_text", "read_limited", "key_lines", "plausibility", "MAX_SCENARIO_BYTES",
])
def test_every_public_name_stays_importable_from_tco_scenario(name):
    assert hasattr(scenario, name)


def test_a_shared_fleet_that_asks_to_autoscale_gets_a_notice_and_spot_pricing_another():
    seed = scenario.load_text((Path(__file__).parents[2] / "scenarios" / "seed_70b_h200.toml").read_text("utf-8"))
    first = seed.options[0]  # model_copy(update=…) marks the keys it sets as written, as a file would
    shared = first.model_copy(update={"fleet": domain.FleetMode.SHARED.value, "autoscale": True, "pricing": "spot"})
    codes = {n.code for n in scenario.plausibility(seed.model_copy(update={"options": [shared]}))
             if n.option == first.name}
    assert {"autoscale_ignored_shared", "spot_interruptible"} <= codes
