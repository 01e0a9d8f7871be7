"""The compiled evaluation (tco.expr.compiled) equals the tree walk (evaluate_tree) to the last bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tco.expr import In, Month, Rule, Scalar, evaluate, evaluate_tree
from tco.expr import compiled, stacked

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@pytest.fixture
def checked(monkeypatch):
    """Every evaluation during the test also walks the tree on copies of its inputs and rows, and records any row
    whose value differs by a bit."""
    seen = {"calls": 0, "rules": set(), "stacked": 0, "diffs": []}
    original = compiled.program

    def program(rules):
        run = original(rules)
        seen["stacked"] += bool(stacked.runs(tuple(rules)))

        def checking(i, r, t):
            i0, r0 = dict(i), dict(r)
            run(i, r, t)
            ref = evaluate_tree(rules, i0, len(t), r0)
            seen["calls"] += 1
            seen["rules"].add(tuple(rule.key for rule in rules))
            seen["diffs"] += [k for k in ref if not _same(ref[k], r[k])]
            seen["diffs"] += [k for k in r if k not in ref]
        return checking

    monkeypatch.setattr(compiled, "program", program)
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_compiled_equals_the_tree_on_every_rule_set_of_the_examples(path, checked):
    from tco import api

    api.run(str(path), paths=200)  # engine, Monte Carlo, plan search and the whole analysis
    assert checked["calls"] > 100
    assert checked["stacked"] > 0  # the hour rules ran stacked
    assert checked["diffs"] == []


def test_scalars_feed_later_rules_and_programs_are_kept():
    rules = (Scalar("n", In("k") * 3, "-", ""), Rule("y", In("c.n") * Month(), "-", ""))
    out = evaluate(rules, {"k": 2.0}, 3)
    assert out["n"].tolist() == [6.0, 6.0, 6.0] and out["y"].tolist() == [6.0 * 1, 6.0 * 2, 6.0 * 3]
    assert compiled.program(rules) is compiled.program(list(rules))
