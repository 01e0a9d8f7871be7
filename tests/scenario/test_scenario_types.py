"""tco.scenario.types: strict frozen models, plain-text fields that refuse control characters, the limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tco.scenario.types import MAX_NAME_CHARS, MAX_TEXT_CHARS, Frozen, Id, Line, Name, Text


class M(Frozen):
    name: Name = "x"
    line: Line = ""
    id: Id = "a"
    text: Text = ""
    months: int = 1
    rate: float = 0.0


def _error(**kw) -> str:
    with pytest.raises(ValidationError) as e:
        M(**kw)
    return str(e.value)


def test_plain_values_pass():
    m = M(name="Cliente Ação Ltda.", line="", text="linha 1\nlinha 2\tcoluna", months=36, rate=0.1)
    assert (m.name, m.text, m.months) == ("Cliente Ação Ltda.", "linha 1\nlinha 2\tcoluna", 36)


@pytest.mark.parametrize("bad,code,pos", [("ab\ncd", "000A", 3), ("\x1b[31m", "001B", 1), ("a\u202eb", "202E", 2),
                                          ("x\u2028", "2028", 2), ("\x7f", "007F", 1)])
def test_control_characters_are_refused_with_their_code_and_position(bad, code, pos):
    msg = _error(name=bad)
    assert f"control character U+{code} at position {pos}" in msg


def test_text_allows_tab_and_newline_but_not_other_controls():
    assert M(text="a\tb\nc").text == "a\tb\nc"
    assert "U+000D at position 4" in _error(text="a\tb\r\nc")   # a carriage return is not a line break here
    assert "U+0000 at position 2" in _error(text="a\x00")
    assert "U+202A" in _error(text="\u202a")


def test_name_must_be_visible_and_within_limits():
    assert "visible character" in _error(name="   ")
    assert M(name="n" * MAX_NAME_CHARS).name == "n" * MAX_NAME_CHARS
    assert "200" in _error(name="n" * (MAX_NAME_CHARS + 1))
    _error(name="")
    _error(id="")
    assert M(line="").line == ""
    _error(text="t" * (MAX_TEXT_CHARS + 1))


def test_strict_unknown_keys_and_non_finite_numbers_are_refused():
    assert "months" in _error(months="36")           # strict: "36" is not 36
    assert "extra" in _error(typo=1).lower()          # extra="forbid"
    _error(rate=float("inf"))
    _error(rate=float("nan"))


def test_frozen():
    m = M()
    with pytest.raises(ValidationError):
        m.months = 2


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Cf")), min_size=1, max_size=50)
       .filter(lambda s: s.strip()))
def test_any_printable_visible_name_passes(s):
    assert M(name=s).name == s
