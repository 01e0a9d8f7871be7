"""Scenario data written back as TOML reads back as the same data (tco.web.tomlw)."""

import datetime as dt
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tco.web import tomlw

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_every_shipped_scenario_round_trips():
    for path in sorted(SCENARIOS.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert tomllib.loads(tomlw.dumps(data)) == data, path.name


def test_layout_of_sections_inline_tables_and_arrays_of_tables():
    data = {"scenario": {"name": "x", "start": "2027-01"},
            "inference": {"users": {"model": "linear", "start_users": 10, "end_users": 20}, "storage_gb": 2.5},
            "options": [{"name": "a"}, {"name": "b"}],
            "proposal": {"date": dt.date(2026, 11, 30), "items": [{"quantity": 8}], "included": {"hardware": "h"}}}
    text = tomlw.dumps(data, "first line\nsecond")
    assert text.splitlines()[:3] == ["# first line", "# second", ""]
    assert 'users = { model = "linear", start_users = 10, end_users = 20 }' in text
    assert text.count("[[options]]") == 2
    assert "date = 2026-11-30" in text and "[[proposal.items]]" in text and 'included = { hardware = "h" }' in text
    assert tomllib.loads(text) == data


def test_text_that_looks_like_toml_stays_text():
    hostile = 'x"\n[fx]\nusdbrl = 0 # \\ \x7f \x00 \t'
    text = tomlw.dumps({"scenario": {"name": hostile, 'odd key "q"': 1}})
    assert tomllib.loads(text) == {"scenario": {"name": hostile, 'odd key "q"': 1}}
    assert [line for line in text.splitlines() if line.startswith("[")] == ["[scenario]"]  # the text opened none


def test_numbers_keep_their_type():
    data = {"a": {"i": 3, "f": 3.0, "e": 2.0e9, "small": 1e-05, "neg": -0.5, "b": True}}
    assert tomllib.loads(tomlw.dumps(data)) == data
    assert isinstance(tomllib.loads(tomlw.dumps(data))["a"]["f"], float)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.text(max_size=20), st.integers(),
                                                                   st.floats(allow_nan=False), st.booleans()),
                       max_size=5))
def test_any_table_of_plain_values_round_trips(table):
    assert tomllib.loads(tomlw.dumps({"s": table})) == {"s": table}
