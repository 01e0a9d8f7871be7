"""tco.results: which options may be ranked, and the two problems a run refuses (nothing to cost, nothing
feasible), with file, line and key."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tco.domain import Dist
from tco.results import constraint_problem, infeasible_problem, rankable, workload_problem


def _slow(o, tps=3.0):
    return replace(o, replica=replace(o.replica, target_met=False, tokens_per_second_per_user=tps))


def test_feasible_reads_the_replica(seed_results):
    o = seed_results.options[0]
    assert o.feasible and o.replica.target_met
    assert not _slow(o).feasible
    assert _slow(o, 7.25).achieved_tokens_per_second_per_user == 7.25


def test_rankable_keeps_feasible_options_in_order(seed_results):
    a, b, c = [o for o in seed_results.options if not o.resolved.breaches][:3]
    assert rankable([a, _slow(b), c]) == [a, c]
    assert rankable([_slow(a)]) == []


def _breaking(o, *codes):
    return replace(o, resolved=replace(o.resolved, breaches=codes))


def test_rankable_leaves_out_the_options_that_break_the_clients_constraints(seed_results):
    # the seed asks for the data in Brazil: its us-east-1 options are costed and shown, never ranked
    res = seed_results
    abroad = [o for o in res.options if o.resolved.breaches]
    assert abroad and all(o not in rankable(res.options) for o in abroad)
    assert {o.name for o in abroad} >= {"AWS us-east-1 — p5en (H200), Savings Plan 3 anos",
                                        "Híbrido — treino AWS p5en sob demanda, serviço Dedicado BR 1x H200 NVL"}
    a, b = [o for o in res.options if not o.resolved.breaches][:2]
    assert rankable([a, _breaking(b, "serving_outside_brazil")]) == [a]


def test_constraint_problem_names_the_constraint_and_the_nearest_options(seed_results):
    res = seed_results
    assert constraint_problem(res, "s.toml", None) is None
    opts = [_breaking(o, "training_outside_brazil") for o in res.options]
    p = constraint_problem(replace(res, options=opts), "s.toml", {("proposal", "constraints"): 141})
    assert (p.file, p.line, p.key) == ("s.toml", 141, "proposal.constraints")
    assert "no option meets the client's constraints (data_in_brazil = 'both')" in p.message
    cheapest = min(opts, key=lambda o: o.tco.deterministic)
    assert f"{cheapest.name!r} breaks training_outside_brazil" in p.message
    # no feasible option at all is the infeasible problem's, not this one
    assert constraint_problem(replace(res, options=[_slow(o) for o in opts]), "s.toml", None) is None


def test_workload_problem_names_the_free_option(seed_results):
    res = seed_results
    assert workload_problem(res, "s.toml", {}) is None
    free = replace(res.options[1], tco=Dist.point(0.0))
    p = workload_problem(replace(res, options=[res.options[0], free]), "s.toml", {("inference", "users"): 27})
    assert (p.file, p.line, p.key) == ("s.toml", 27, "inference.users")
    assert f"{free.name!r} costs R$ 0 over the horizon" in p.message
    # without the key's own line, the section's line
    p = workload_problem(replace(res, options=[free]), "s.toml", {("inference",): 20})
    assert p.line == 20


def test_infeasible_problem_names_the_fastest(seed_results):
    res = seed_results
    assert infeasible_problem(res, "s.toml", None) is None
    slow = [_slow(res.options[0], 4.0), _slow(res.options[1], 12.5), _slow(res.options[2], 9.0)]
    p = infeasible_problem(replace(res, options=slow), "s.toml", {("inference", "tokens_per_second_per_user"): 33})
    assert (p.key, p.line) == ("inference.tokens_per_second_per_user", 33)
    target = res.scenario.inference.tokens_per_second_per_user
    assert f"({target:g} tokens/s per user)" in p.message
    assert f"the fastest, {slow[1].name!r}, reaches 12.5 tokens/s per user" in p.message
    # one feasible option is enough; no options at all is not this problem
    assert infeasible_problem(replace(res, options=slow + [res.options[3]]), "s.toml", None) is None
    assert infeasible_problem(replace(res, options=[]), "s.toml", None) is None


def test_ranked_cheapest_and_option_by_hand(seed_results):
    """The seed's options: ranked by deterministic TCO (the infeasible and those outside the client's constraints
    left out), the cheapest of each kind the first of that kind in the ranking, an option found by name, a missing
    name listing the options."""
    res = seed_results
    feasible = [o for o in res.options if o.feasible and not o.resolved.breaches]
    assert len(feasible) < len(res.options)  # the seed keeps its data in Brazil: its us-east-1 options are not ranked
    assert [o.name for o in res.ranked()] == [o.name for o in sorted(feasible, key=lambda o: o.tco.deterministic)]
    tcos = [o.tco.deterministic for o in res.ranked()]
    assert tcos == sorted(tcos) and res.cheapest() is res.ranked()[0]
    for kind in ("cloud", "dedicated", "hybrid"):
        of_kind = [o for o in feasible if o.kind == kind]
        assert res.cheapest(kind) is (min(of_kind, key=lambda o: o.tco.deterministic) if of_kind else None)
    assert res.cheapest("no such kind") is None
    first = res.options[0]
    assert res.option(first.name) is first
    with pytest.raises(KeyError, match="no option named 'nope'; the options are"):
        res.option("nope")


def test_repr_is_a_few_lines(seed_results):
    text = repr(seed_results)
    lines = text.splitlines()
    assert len(lines) == len(seed_results.options) + 2 and len(text) < 2_000
    assert lines[1].startswith("  1. OptionResult(") and "TCO R$ " in lines[1]
    best = seed_results.cheapest()
    assert repr(best) == f"OptionResult({best.name!r}, {best.kind}, TCO R$ {best.tco.deterministic:,.0f})"
