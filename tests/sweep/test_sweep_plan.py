"""Checking the axes against the base scenario before any case runs: unknown keys (with a suggestion), tables,
fixed keys, unknown options, values the schema refuses, too many cases; each located in the sweep file."""

import pytest

from tco.errors import InputError
from tco.sweep import plan


def _problems(path, **kw) -> list[str]:
    with pytest.raises(InputError) as exc:
        plan.prepare(path, **kw)
    return [str(p) for p in exc.value.problems]


def test_a_good_sweep_lists_its_cases_and_the_base_point(sweep_file):
    from sweep_files import FX_BY_TERM

    w = plan.prepare(sweep_file(FX_BY_TERM))
    assert w.cases == [(4.0, 20, 3), (4.0, 20, 24), (6.5, 20, 3), (6.5, 20, 24)]
    assert w.base_point == (5.4, 10000, None)  # the seed's usdbrl and paths; the option sets no min_term_months
    assert w.base.parts[2] == ("options", 0, "min_term_months")


def test_an_unknown_key_is_located_with_a_suggestion(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrll"\nvalues = [5.0]\n')
    (msg,) = _problems(p)
    assert f"{p}:5: [axes[0].key]" in msg and "unknown key 'usdbrll' in fx" in msg and "'usdbrl'" in msg


def test_a_table_a_fixed_key_and_an_unknown_option(sweep_file):
    p = sweep_file('[[axes]]\nkey = "inference.users"\nvalues = [1]\n'
                   '[[axes]]\nkey = "scenario.catalog_dir"\nvalues = ["x"]\n'
                   '[[axes]]\nkey = "pricing"\noption = "AWS"\nvalues = ["on_demand"]\n')
    msgs = _problems(p)
    assert any("inference.users is a table; name one of its keys" in m for m in msgs)
    assert any("catalog is loaded once" in m for m in msgs)
    assert any("[axes[2].option] option 'AWS' is not in the base scenario" in m for m in msgs)


def test_a_value_the_schema_refuses_is_found_before_any_case(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\nrange = { start = -1.0, stop = 5.0, step = 1.0 }\n')
    (msg,) = _problems(p)
    assert f"{p}:6: [axes[0].range]" in msg and "fx.usdbrl = -1.0: the scenario refuses it" in msg


def test_too_many_cases_need_max_cases(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\nrange = { start = 1.0, stop = 10.0, step = 0.0001 }\n')
    (msg,) = _problems(p)
    assert "the sweep makes 90,001 cases, more than 20,000" in msg and "--max-cases 90001" in msg
    (msg,) = _problems(p, max_cases=10)
    assert "more than 10" in msg


def test_walk_reads_a_key_the_base_leaves_unset(seed_inputs):
    value, why = plan.walk(seed_inputs.scenario, ("options", 0, "min_term_months"))
    assert value is None and why is None
    _, why = plan.walk(seed_inputs.scenario, ("fx", "usdbrl", "x"))
    assert why == "fx.usdbrl is a value, not a table: it has no key 'x'"


def test_the_shipped_example_sweep_is_good():
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "scenarios" / "sweeps" / "seed_fx_users.toml"
    w = plan.prepare(example)
    assert len(w.cases) == 10 * 8 and w.sweep.map_axes() == ("fx.usdbrl", "inference.users.ceiling_users")
    assert w.base_point == (5.4, 8000.0, "focus") and {c[2] for c in w.cases} == {"spot"}
