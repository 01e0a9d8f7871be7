"""tco.constants: each named constant's value, its workbook name and its documentation."""

from __future__ import annotations

import numpy as np

from tco import constants as c
from tco.expr import Env, evaluate, In, Rule


def test_values_are_the_units_they_name():
    assert c.S_PER_H.value == 60 * 60
    assert c.H_PER_DAY.value == 24
    assert c.DAYS_PER_WEEK.value == 7
    assert c.MONTHS_PER_YEAR.value == 12
    assert c.BYTES_PER_KB.value == 10 ** 3          # SI kilo, as providers bill traffic (not 1024)
    assert c.BYTES_PER_GB.value == 10 ** 9          # SI giga (not 2**30)
    assert c.PER_BILLION.value == 10 ** 9
    assert c.FLOPS_PER_TFLOPS.value == 10 ** 12
    assert c.TRAIN_FLOPS.value == 6                 # C = 6·N·D
    assert c.ADAM_BYTES.value == 2 + 2 + 12         # bf16 weights + bf16 grads + fp32 master, m, v
    assert c.FROZEN_BYTES.value == 2                # bf16
    assert 0 < c.BELOW_ONE.value < 1e-6
    assert c.TOL_BRL.value == 0.01                  # one centavo


def test_every_constant_is_listed_once_with_a_unique_workbook_name_unit_and_source():
    module_consts = {v for v in vars(c).values() if isinstance(v, c.Named)}
    assert set(c.ALL) == module_consts and len(c.ALL) == len(module_consts)
    names = [k.name for k in c.ALL]
    assert len(set(names)) == len(names)
    for k in c.ALL:
        assert k.name.startswith("c_"), k.name
        assert k.unit and k.source, k.name


def test_the_workbook_reads_the_name_and_numpy_the_value():
    assert c.S_PER_H.xl(None) == "c_s_per_h"
    rule = Rule("seconds", In("hours") * c.S_PER_H, "s", "hours in seconds")
    assert rule.expr.xl(_Ctx()) == "in_hours*c_s_per_h"
    out = evaluate([rule], {"hours": 2.5}, 2)["seconds"]
    np.testing.assert_array_equal(out, [2.5 * 3600, 2.5 * 3600])
    assert c.TRAIN_FLOPS.np(Env({}, 1)) == 6.0


class _Ctx:
    col, prev = "F", "E"

    @staticmethod
    def name_of(n):
        return f"in_{n}"
