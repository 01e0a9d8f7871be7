"""The shortcuts `validate`'s speed rests on give what the long way gives (issue 13, part 6: `validate` under
0.3 s of CPU). Each is checked against the computation it spares."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

import tco.plan  # noqa: F401  (loads tco.plan.precheck, whose name the package gives to its function)
from tco.expr.base import along_months

precheck = sys.modules["tco.plan.precheck"]


def test_ladder_levels_share_the_servers_by_hour_of_one_replica_capacity(monkeypatch):
    # One replica takes 10 req/s at full utilisation, one per server; busiest hour 25 req/s in year 1, 45 in year 2
    # and 3 (a 3-year term covers all 36 months). Servers: ⌈25/10⌉ = 3, ⌈45/10⌉ = 5.
    rps = np.zeros((36, 24))
    rps[:12, 12], rps[12:, 12] = 25.0, 45.0
    inference = SimpleNamespace(utilization_target_share=1.0, redundancy="none", start_month=1)
    ctx = SimpleNamespace(s=SimpleNamespace(inference=inference), rps=rps, h=36)
    rep = SimpleNamespace(requests_per_second=10.0, replicas_per_server=1)
    one_year = (3 + 1) + (5 + 1) + (5 + 1)  # three 1-year terms: levels 0..3, 0..5, 0..5
    three_years = 5 + 1  # one 3-year term whose peak is 5 servers
    calls = []
    real = precheck.inference_servers_by_hour
    monkeypatch.setattr(precheck, "inference_servers_by_hour", lambda *a: calls.append(a) or real(*a))
    known: dict = {}
    assert precheck.ladder_levels(ctx, SimpleNamespace(pricing="reserved_1yr"), rep, known) == one_year
    assert precheck.ladder_levels(ctx, SimpleNamespace(pricing="reserved_3yr"), rep, known) == three_years
    assert len(calls) == 1  # the second offer of the same hardware reads the first one's servers
    assert precheck.ladder_levels(ctx, SimpleNamespace(pricing="reserved_3yr"), rep) == three_years  # alone: same
    other = SimpleNamespace(requests_per_second=5.0, replicas_per_server=1)  # ⌈45/5⌉ = 9 servers at the peak
    assert precheck.ladder_levels(ctx, SimpleNamespace(pricing="reserved_3yr"), other, known) == 9 + 1
    assert len(calls) == 3


@pytest.mark.parametrize("value, horizon", [
    (np.arange(1.0, 5.0), 4),                 # a row already of H months
    (np.arange(8.0).reshape(2, 4), 4),        # two cases of a row (leading axis)
    ([1, 2, 3], 3),                           # a list of ints
])
def test_along_months_of_a_row_already_that_shape_is_a_read_only_view(value, horizon):
    got = along_months(value, horizon)
    expected = np.broadcast_to(np.asarray(value, dtype=float), np.shape(value))
    assert got.dtype == np.float64 and got.shape == expected.shape and np.array_equal(got, expected)
    assert not got.flags.writeable
    with pytest.raises(ValueError):
        got[..., 0] = 7.0


@pytest.mark.parametrize("value, horizon, shape", [(2.5, 3, (3,)), (np.array([1.5]), 4, (4,)),
                                                   (np.array([[1.0], [2.0]]), 3, (2, 3))])
def test_along_months_still_broadcasts_a_scalar_or_one_month(value, horizon, shape):
    got = along_months(value, horizon)
    assert got.shape == shape and not got.flags.writeable
    assert np.array_equal(got, np.broadcast_to(np.asarray(value, dtype=float), shape))


def test_a_stacked_run_falls_back_to_each_rules_own_closure_built_when_first_needed(monkeypatch):
    """The stacked step's per-rule closures are built only when a step falls back to them (rows that are not one
    float row of H months, e.g. cases on a leading axis); the fallback then equals the tree walk, at every call."""
    from tco.expr import Row, Rule, evaluate_tree
    from tco.expr import compiled, stacked

    h = 3
    rules = tuple(Rule(f"x_{k}", Row(f"d_{k}") * 2 + 1, "-", "") for k in range(4))  # one template, 4 rows
    assert stacked.runs(rules) == [(0, 4, [0], [[f"d_{k}"] for k in range(4)])]
    built = []
    real = compiled.closure
    monkeypatch.setattr(compiled, "closure", lambda expr, rows=None: built.append(rows is None) or real(expr, rows))
    run = compiled.compile_rules(rules)
    assert built == [False]  # the stacked closure only
    flat = {f"d_{k}": np.arange(h, dtype=float) + k for k in range(4)}  # x_k = 2 (t - 1 + k) + 1, by hand below
    r = dict(flat)
    run({}, r, np.arange(1.0, h + 1))
    assert built == [False] and np.array_equal(r["x_2"], np.array([5.0, 7.0, 9.0]))  # 2·2+1, 2·3+1, 2·4+1
    cases = {f"d_{k}": np.stack([np.arange(h, dtype=float) + k, np.full(h, 10.0 * k)]) for k in range(4)}
    for _ in range(2):  # (2, H) rows: not stackable, each rule alone, twice (closures built once)
        r = dict(cases)
        run({}, r, np.arange(1.0, h + 1))
        ref = evaluate_tree(list(rules), {}, h, dict(cases))
        assert all(np.array_equal(r[f"x_{k}"], ref[f"x_{k}"]) for k in range(4))
        assert np.array_equal(r["x_3"][1], np.full(h, 61.0))  # 2·30 + 1
    assert built == [False] + [True] * 4
