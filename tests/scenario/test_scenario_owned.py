"""The [options.owned] schema (tco.scenario.owned): optional keys, bounds, typos refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tco.scenario.owned import Owned


def test_every_key_is_optional():
    o = Owned()
    assert o.payment == "cash" and o.landed_case == "central" and o.cross_connects == 2 and not o.balloon


@pytest.mark.parametrize("bad", [{"resale_share": 1.5}, {"resale_share": -0.1}, {"useful_life_months": 0},
                                 {"financing_months": 0}, {"icms_rate": 1.0}, {"pue": 0.9}, {"hardware_usd": 0},
                                 {"landed_case": "median"}, {"finance_rate": 0.1}])
def test_out_of_bounds_and_unknown_keys_are_refused(bad):
    with pytest.raises(ValidationError):
        Owned(**bad)


def test_the_owned_table_of_an_option_has_its_own_lines():
    from tco.scenario.messages import key_lines

    text = '[[options]]\nname = "a"\n\n[[options]]\nname = "b"\n\n[options.owned]\npayment = "cash"\nballoon = true\n'
    lines = key_lines(text)
    assert lines[("options", 1, "owned")] == 7
    assert lines[("options", 1, "owned", "balloon")] == 9
    assert ("options", "owned", "payment") not in lines
