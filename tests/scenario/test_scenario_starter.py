"""tco.scenario.starter: the commented scenario ``python -m tco init`` writes.

The starter must stay a valid, runnable scenario as the schema and the catalog move: it validates, its offers and
model are in the shipped catalog, and what its comments offer as alternatives (the commented-out keys, the choices
listed after a key) is accepted when a user takes it."""

from __future__ import annotations

import re
import tomllib

import pytest

from tco.scenario import load_text
from tco.scenario.starter import STARTER


def _uncomment(text: str, key: str) -> str:
    """The starter with the commented-out ``key = …`` line made live (its trailing comment kept)."""
    out, n = re.subn(rf"^# ({re.escape(key)} = .*)$", r"\1", text, flags=re.M)
    assert n == 1, key
    return out


def test_the_starter_is_toml_and_a_valid_scenario():
    data = tomllib.loads(STARTER)
    assert {"scenario", "model", "training", "inference", "fx", "options"} <= set(data)
    sc = load_text(STARTER, "starter.toml")
    assert [o.name for o in sc.options] == ["Dedicated in Brazil", "AWS us-east-1"]


def test_the_starter_runs_against_the_shipped_catalog(seed_inputs):
    """tco.check sizes and costs every option once: the starter's offers and model exist in the catalog."""
    from tco.engine import run_scenario

    sc = load_text(STARTER, "starter.toml")
    res = run_scenario(sc, seed_inputs.catalog, file="starter.toml", simulate=False)
    assert len(res.options) == 2
    assert all(o.tco.deterministic > 0 for o in res.options)


@pytest.mark.parametrize(("key", "expected"), [("gpu_hours", 500.0), ("time_to_first_token_seconds", 2),
                                               ("brl_per_month", 90000), ("taxes", "import_direct_sp")])
def test_each_commented_key_is_accepted_when_uncommented(key, expected):
    text = _uncomment(STARTER, key)
    data = tomllib.loads(text)
    found = [d[key] for d in [data["training"], data["inference"], *data["options"]] if key in d]
    assert found == [expected]
    load_text(text, "starter.toml")  # no InputError


def test_commented_files_are_named_as_such():
    """catalog_dir and calibration name files a user must provide: commented out, so the starter runs as written."""
    assert re.search(r"^# catalog_dir = ", STARTER, flags=re.M)
    assert re.search(r"^# calibration = ", STARTER, flags=re.M)


# The comment offered 'reserved_1yr'/'reserved_3yr' for aws/us-east-1/p5en.48xlarge, which the catalog prices only on
# demand, spot, EC2 Savings Plans and capacity blocks: taking the suggestion failed validate.
@pytest.mark.parametrize("pricing", ["on_demand", "savings_plan_ec2_1yr", "savings_plan_ec2_3yr", "spot"])
def test_every_pricing_the_comment_lists_is_offered(seed_inputs, pricing):
    listed = re.search(r'^pricing = "on_demand"\s+# (.*)$', STARTER, flags=re.M)[1]
    assert f'"{pricing}"' in listed
    offer = seed_inputs.catalog.offer("aws/us-east-1/p5en.48xlarge")
    assert pricing in offer.prices, f"the starter suggests {pricing} for an offer that has no such price"


@pytest.mark.parametrize(("key", "choices"), [("method", ["none", "lora", "full", "pretrain"]),
                                              ("model", ["fixed", "parity", "gbm", "bootstrap"]),
                                              ("redundancy", ["none", "n+1"]),
                                              ("tax_regime", ["lucro_real", "lucro_presumido", "simples"]),
                                              ("locale", ["pt-BR", "en"]),
                                              ("daily_profile", ["business_hours", "flat"])])
def test_every_choice_a_comment_lists_is_valid(key, choices):
    line = re.search(rf"^{key} = .*$", STARTER, flags=re.M)[0]
    current = re.match(rf'{key} = "([^"]*)"', line)[1]
    for choice in choices:
        assert f'"{choice}"' in line
        text = STARTER.replace(line, f'{key} = "{choice}"', 1)
        if (key, choice) == ("method", "none"):
            text = re.sub(r"^(tokens|epochs|target_days) = .*$", "", text, flags=re.M)
        try:
            load_text(text, "starter.toml")
        except Exception as exc:  # noqa: BLE001 (the message names the choice that failed)
            pytest.fail(f"{key} = {choice!r} (listed in the starter's comment) is refused: {exc}")
    assert current in choices


def test_the_header_names_the_commands():
    assert "python -m tco validate THIS_FILE" in STARTER
    assert "python -m tco run THIS_FILE" in STARTER
