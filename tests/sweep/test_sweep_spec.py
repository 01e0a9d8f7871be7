"""The sweep file's own checks: one way per axis, an empty range or distribution, unknown keys, map axes; every
problem located (file, line, key)."""

import pytest

from tco.errors import InputError
from tco.sweep import spec


def _problems(path) -> list[str]:
    with pytest.raises(InputError) as exc:
        spec.load(path)
    return [str(p) for p in exc.value.problems]


def test_a_good_file_loads_with_its_lines_and_hash(sweep_file):
    from sweep_files import FX_BY_TERM

    p = sweep_file(FX_BY_TERM, 'design = "grid"')
    sweep, lines, sha = spec.load(p)
    assert [a.column for a in sweep.axes] == ["fx.usdbrl", "fx.paths", "options[Dedicado BR — 8x H200].min_term_months"]
    assert lines[("axes", 0, "key")] == 6  # [sweep], base, design, blank, blank, [[axes]] on line 5
    assert len(sha) == 64
    assert sweep.map_axes() == ("fx.usdbrl", "fx.paths")


def test_an_empty_range_is_named_with_its_line(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\nrange = { start = 5.0, stop = 4.0, step = 0.1 }\n')
    (msg,) = _problems(p)
    assert f"{p}:6:" in msg and "axes[0].range" in msg and "empty range" in msg


def test_two_ways_for_one_axis_and_an_unknown_setting(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\nvalues = [5.0]\nrange = { start = 4.0, stop = 5.0, step = 0.5 }\n',
                   "desing = 'lhs'")
    msgs = _problems(p)
    assert any("sweep.desing" in m and ":3:" in m for m in msgs)
    assert any("exactly one of values, range or distribution" in m for m in msgs)


def test_distribution_parameters_are_checked(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\ndistribution = { kind = "triangular", low = 4.0, high = 6.0 }\n')
    (msg,) = _problems(p)
    assert "takes low, mode, high; missing mode" in msg


def test_a_map_axis_must_be_an_axis(sweep_file):
    p = sweep_file('[[axes]]\nkey = "fx.usdbrl"\nvalues = [5.0]\n[[axes]]\nkey = "fx.volatility"\nvalues = [0.1]\n'
                   '[map]\nx = "fx.usdbr"\n')
    (msg,) = _problems(p)
    assert "map.x = 'fx.usdbr' is not one of the axes" in msg and "did you mean 'fx.usdbrl'" in msg


def test_a_toml_syntax_error_names_the_file(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[sweep\nbase = 1\n")
    (msg,) = _problems(p)
    assert str(p) in msg and "TOML syntax error" in msg
