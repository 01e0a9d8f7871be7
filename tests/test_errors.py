"""tco.errors: how a problem names file, line and key; all problems at once; the 'did you mean' phrase."""

from __future__ import annotations

import pytest

from tco.errors import InputError, InternalError, Problem, closest


def test_problem_names_file_line_and_key():
    p = Problem("scenarios/a.toml", "options[2].pricing", "unknown pricing 'ondemand'", line=14)
    assert str(p) == "scenarios/a.toml:14: [options[2].pricing] unknown pricing 'ondemand'"


def test_problem_without_line_or_key():
    assert str(Problem("a.toml", "", "empty file")) == "a.toml: empty file"
    assert str(Problem("a.toml", "fx", "missing", line=None)) == "a.toml: [fx] missing"


def test_input_error_carries_every_problem_one_per_line():
    ps = [Problem("a.toml", "x", "bad", 1), Problem("a.toml", "y", "worse", 2)]
    err = InputError(ps)
    assert err.problems == ps and err.problems is not ps
    assert str(err) == "a.toml:1: [x] bad\na.toml:2: [y] worse"
    with pytest.raises(InputError):
        raise err


def test_closest_suggests_near_names():
    valid = ["aws/us-east-1/p5e.48xlarge", "aws/us-east-1/p5.48xlarge", "gcp/us-east4/a3-highgpu-8g"]
    phrase = closest("aws/p5e.48xlarge", valid)
    assert phrase.startswith("did you mean 'aws/us-east-1/p5e.48xlarge'")
    assert phrase.endswith("?")
    assert "gcp" not in phrase


def test_closest_limits_and_deduplicates():
    assert closest("on_demnd", ["on_demand", "on_demand", "spot"], n=1) == "did you mean 'on_demand'?"


def test_closest_falls_back_on_a_substring_then_on_the_first_names():
    # nothing similar enough for difflib; the last path part's first 4 letters ('h200') match one name
    assert closest("x/h200zzzzzzzzzzzzzz", ["dedicated-h200-nvl", "a", "b"]) == \
        "valid names include 'dedicated-h200-nvl'"
    # no substring either: the first few names, sorted
    assert closest("qqqqqqqq", ["zeta", "alpha", "mu", "beta"], n=2) == "valid names include 'alpha', 'beta'"


def test_internal_error_is_not_an_input_error():
    assert not issubclass(InternalError, InputError)
