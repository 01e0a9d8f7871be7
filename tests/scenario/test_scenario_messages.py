"""tco.scenario.messages: key paths → line numbers, and pydantic errors → one plain message per key with the
likely fix (a percent for a fraction, quoted numbers, a key in the wrong section, the closest key)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tco.scenario.messages import duplicate_names, key_lines, line_for, problems_from

DOC = """# a comment
[scenario]
name = "x"
horizon_months = 36

[inference]
users = { model = "logistic", start_users = 200 }
"dotted.key" = 1
a.b = 2

[[options]]
name = "A"

[[options]]
name = "B"
"""


def test_key_lines_by_hand():
    lines = key_lines(DOC)
    assert lines[("scenario",)] == 2 and lines[("scenario", "horizon_months")] == 4
    assert lines[("inference", "users")] == 7 and lines[("inference", "users", "start_users")] == 7
    assert lines[("inference", "a", "b")] == 9
    assert lines[("options",)] == 11 and lines[("options", 0)] == 11 and lines[("options", 1)] == 14
    assert lines[("options", 1, "name")] == 15


def test_line_for_walks_up_to_the_nearest_known_key():
    lines = key_lines(DOC)
    assert line_for(("options", 1, "pricing"), lines) == 14           # not written: its option's line
    assert line_for(("fx", "usdbrl"), lines) is None


@given(st.integers(1, 2000))
def test_key_lines_counts_every_line(n):
    text = "\n" * n + "[t]\nk = 1\n"
    assert key_lines(text) == {("t",): n + 1, ("t", "k"): n + 2}


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    discount_rate: float = Field(0.1, le=1.0)
    months: int = 1


class Other(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    usdbrl: float = 5.0


class Root(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    scenario: Inner = Inner()
    fx: Other = Other()


def _problems(data: dict, text: str = ""):
    try:
        Root.model_validate(data)
    except ValidationError as exc:
        return {p.key: p for p in problems_from(exc, "s.toml", key_lines(text), Root)}
    raise AssertionError("no error")


def test_a_percent_written_for_a_fraction():
    p = _problems({"scenario": {"discount_rate": 14}}, "[scenario]\ndiscount_rate = 14\n")["scenario.discount_rate"]
    assert p.message == "14 looks like a percent; write fractions (e.g. 0.14 for 14 %)" and p.line == 2


def test_quoted_number_unknown_keys_and_keys_in_the_wrong_section():
    got = _problems({"scenario": {"months": "36", "usdbrl": 5.4, "monts": 1}})
    assert got["scenario.months"].message == "must be an integer (a whole number) (got '36'); write it without quotes"
    assert got["scenario.usdbrl"].message == "unknown key in [scenario]: `usdbrl` belongs in [fx]"
    assert got["scenario.monts"].message == "unknown key; did you mean 'months'?"
    assert _problems({"scenario": {"fx": {}}})["scenario.fx"].message.startswith(
        "unknown key in [scenario]: TOML reads `fx = …` below a [table] header as part of that table")


def test_duplicate_names_pinned_on_the_repeat():
    data = {"options": [{"name": "A"}, {"name": "B"}, {"name": "A"}]}
    lines = {("options", 2, "name"): 30}
    (p,) = duplicate_names(data, "s.toml", lines)
    assert (p.key, p.line) == ("options[2].name", 30)
    assert p.message == "option names must be unique; 'A' is also the name of options[0]"
    assert duplicate_names({"options": "x"}, "s.toml", {}) == []
