"""tco.scenario.toml: TOML text nested too deeply is a located input error, never a RecursionError."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.errors import InputError
from tco.scenario.toml import MAX_NESTING, _depth, loads, nesting_line


def test_plain_toml_parses_as_tomllib_does():
    text = 'a = 1\n[t]\nb = [1, [2, 3]]\nc = { d = "x" }\n[[arr]]\ne = 2\n'
    assert loads(text, "f.toml") == tomllib.loads(text)


def test_syntax_errors_stay_tomllib_errors():
    with pytest.raises(tomllib.TOMLDecodeError):
        loads("a = = 1\n", "f.toml")


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a = ", "}")])
def test_recursion_in_tomllib_is_nested_too_deeply_with_file_line_and_key(opening, closing):
    # 2,000 levels overflow tomllib's recursive parser (a RecursionError, not a TOMLDecodeError)
    text = "x = 1\n\n[s]\ndeep = " + opening * 2000 + "1" + closing * 2000 + "\n"
    with pytest.raises(InputError) as exc:
        loads(text, "f.toml")
    (p,) = exc.value.problems
    assert (p.file, p.line, p.key) == ("f.toml", 4, "s.deep")
    assert "nested too deeply" in p.message and f"more than {MAX_NESTING} levels" in p.message


def test_nesting_the_parser_survives_is_still_refused_above_the_limit():
    # 33 levels parse; they are refused after the parse, on the line that holds them
    text = "a = 1\nb = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1) + "\n"
    with pytest.raises(InputError) as exc:
        loads(text, "f.toml")
    assert exc.value.problems[0].line == 2


def test_nesting_at_the_limit_parses():
    # the top-level table is one level, so MAX_NESTING - 1 brackets make MAX_NESTING levels
    n = MAX_NESTING - 1
    text = "b = " + "[" * n + "]" * n + "\n"
    assert _depth(loads(text, "f.toml")) == MAX_NESTING


def test_keys_nested_by_dots_are_refused_on_their_line():
    key = ".".join(["a"] * (MAX_NESTING + 5))
    with pytest.raises(InputError) as exc:
        loads(f"x = 1\n{key} = 1\n", "f.toml")
    assert exc.value.problems[0].line == 2
    with pytest.raises(InputError) as exc:
        loads(f"x = 1\n\n[{key}]\nb = 1\n", "f.toml")
    assert exc.value.problems[0].line == 3


def test_depth_counts_levels():
    # worked by hand: a scalar 0; {} 1; {"a": [1]} 2; {"a": [{"b": [1]}]} 4
    assert (_depth(1), _depth({}), _depth({"a": [1]}), _depth({"a": [{"b": [1]}]})) == (0, 1, 2, 4)


def test_brackets_in_strings_and_comments_do_not_count():
    many = "[" * (MAX_NESTING + 10)
    text = f'a = "{many}"\nb = \'{many}\'\n# {many}\nc = """\n{many}\n"""\nd = \'\'\'{many}\'\'\'\ne = [[1]]\n'
    assert nesting_line(text) is None
    assert loads(text, "f.toml")["a"] == many
    # a line break inside a multi-line string still counts for the line number
    deep = "[" * (MAX_NESTING + 1)
    assert nesting_line(f'c = """\n\n"""\nx = {deep}') == 4


@given(st.integers(min_value=1, max_value=MAX_NESTING - 1))
def test_any_nesting_under_the_limit_parses_as_tomllib(n):
    text = "v = " + "[" * n + "0" + "]" * n + "\n"
    assert loads(text, "f.toml") == tomllib.loads(text)
