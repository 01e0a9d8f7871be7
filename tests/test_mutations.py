"""Finite or rejected: scenarios made by mutating the shipped examples either fail cleanly or give sane totals.

Each example is parsed, one to three of its values are mutated (types, signs, magnitudes including
inf, nan and 1e308, missing keys, odd text with control characters and `=cmd` formulas), and the
result is written back as TOML and run. The property: exit 2 naming the file, a line and a key, with
nothing written; or exit 0 with finite, non-negative totals. Exit 1 (a traceback or an internal
error) is always a failure.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.cli import main
from tco.web.tomlw import dumps

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "scenarios").glob("*.toml"))}


# the scenario writer is the sales desk's (tco.web.tomlw: no web dependency), so the mutations and the page write
# TOML one way


def test_the_writer_round_trips_every_example():
    for doc in EXAMPLES.values():
        assert tomllib.loads(dumps(doc)) == doc


# ---------------------------------------------------------------------------------------------
# mutations


def _leaves(doc, prefix=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield prefix + (k,)
            yield from _leaves(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            if isinstance(v, (dict, list)):
                yield from _leaves(v, prefix + (i,))


ODD_TEXT = st.one_of(
    st.sampled_from(["=cmd|' /C calc'!A0", "+1+1", "@SUM(1)", "-2+3", "\t=TAB", "\r=CR", "[bold]x[/]", "   ", "",
                     "A\x00B", "\x1b]0;T\x07", "36", "yes", "no ", "aws/us-east-1/nope", "N" * 300, "ç ã — 😀"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
)
NUMBERS = st.sampled_from([math.inf, -math.inf, math.nan, 1e308, -1e308, 1e-308, -1.0, 0, 0.0, -1, 10**30, 1e12,
                           0.5, 3, 2.0, 240, 241, 100.0])
REPLACEMENT = st.one_of(NUMBERS, ODD_TEXT, st.booleans(), st.just([]), st.just({}), st.just([1.0] * 24),
                        st.lists(NUMBERS, max_size=3))
DELETE = object()


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(EXAMPLES)))
    doc = json.loads(json.dumps(EXAMPLES[name]))  # a deep copy (the examples hold only JSON types)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_leaves(doc))
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        old = parent[path[-1]]
        kind = draw(st.sampled_from(["replace", "scale", "nudge", "nudge", "delete"]))
        if kind == "delete":
            if isinstance(parent, dict):
                del parent[path[-1]]
            continue
        if kind in ("scale", "nudge") and isinstance(old, (int, float)) and not isinstance(old, bool):
            factors = [-1, 10.0, 1e6, 1e-6, 1e300] if kind == "scale" else [0.5, 2, 3, 0.1, 1.5]
            parent[path[-1]] = old * draw(st.sampled_from(factors))  # an int times an int stays an int
            continue
        if kind == "nudge":
            continue
        parent[path[-1]] = draw(REPLACEMENT)
    return dumps(doc)


PROBLEM = re.compile(r"^  (?P<file>[^:]+):(?:(?P<line>\d+):)? (?:\[(?P<key>.*?)\] )?(?P<msg>.+)$")


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(text=mutated())
def test_mutated_examples_are_rejected_cleanly_or_give_finite_non_negative_totals(tmp_path_factory, text):
    tmp = tmp_path_factory.mktemp("mut")
    f = tmp / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp / "out"
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", str(f), "-o", str(out), "--formats", "json,csv", "--quiet", "--no-sensitivity",
                     "--paths", "200"])
    err = err.getvalue()
    assert code in (0, 2), f"exit {code}:\n{err}\n{text}"
    if code == 2:
        assert not out.exists(), "nothing may be written on bad input"
        lines = err.splitlines()
        assert lines[0].startswith("error: ")
        problems = [PROBLEM.match(ln) for ln in lines[1:]]
        assert problems and all(problems), err
        for m in problems:
            assert m["file"] == str(f), err  # the scenario is the only file a mutation touches
            syntax = m["msg"].startswith("TOML syntax error")
            top_level_missing = m["msg"] == "required key is missing" and m["key"] and "." not in m["key"]
            assert m["line"] or top_level_missing or m["key"] == "", err
            assert m["key"] or syntax, err
        return
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    for o in doc["options"]:
        for k in ("tco_brl", "npv_brl"):
            for q in ("deterministic", "mean", "p5", "p50", "p95"):
                v = o[k][q]
                assert isinstance(v, float) and math.isfinite(v) and v >= 0, (o["name"], k, q, v)
    assert (out / "s.csv").exists()


@pytest.mark.parametrize("value", ["inf", "nan", "1e308", "-1"])
def test_a_non_finite_value_in_every_numeric_key_is_rejected_with_its_line(tmp_path, capsys, value):
    """Deterministic sweep: each numeric key of the seed example, set to `value`, is refused with file, line and key
    (or, where the value is valid, gives finite non-negative totals)."""
    seed = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
    keys = [(i, m.group(1)) for i, ln in enumerate(seed.splitlines()) if (m := re.match(r"^(\w+) = -?[\d.]+\s*(#.*)?$", ln))]
    assert len(keys) > 15
    for i, key in keys:
        lines = seed.splitlines()
        lines[i] = f"{key} = {value}"
        f = tmp_path / "s.toml"
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        code = main(["validate", str(f)])
        err = capsys.readouterr().err
        if value in ("inf", "nan", "1e308"):
            assert code == 2, (key, value)
            assert f"s.toml:{i + 1}:" in err and f".{key}]" in err, (key, err)
        else:
            assert code in (0, 2), (key, err)
