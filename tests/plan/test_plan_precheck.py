"""The plan search's input checks without the search (tco.plan.precheck): what validate runs, and a limit that
bounds the plans the search scores, not the ladder's levels multiplied over its terms."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tco import api, plan
from tco.errors import InputError
from tco.plan.precheck import ladder_levels

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"


@pytest.fixture(scope="module")
def seed():
    return api.load(SEED)


def _with_plan(inp, **upd):
    s = inp.scenario
    return s.model_copy(update={"plan": s.plan.model_copy(update=upd)})


def test_ladder_levels_add_over_terms_by_hand():
    # 1-year terms over 24 months; one replica takes 10 req/s at full utilisation, one replica per server.
    # Busiest hour: 25 req/s in year 1 → ⌈25/10⌉ = 3 servers; 45 req/s in year 2 → 5 servers.
    rps = np.zeros((24, 24))
    rps[:12, 12], rps[12:, 12] = 25.0, 45.0
    inference = SimpleNamespace(utilization_target_share=1.0, redundancy="none", start_month=1)
    ctx = SimpleNamespace(s=SimpleNamespace(inference=inference), rps=rps, h=24)
    rep = SimpleNamespace(requests_per_second=10.0, replicas_per_server=1)
    expected = (3 + 1) + (5 + 1)  # levels 0..3 in year 1, 0..5 in year 2; the product 4 × 6 = 24 is never costed
    assert ladder_levels(ctx, SimpleNamespace(pricing="reserved_1yr"), rep) == expected


def test_the_limit_bounds_the_plans_scored(seed):
    n = plan.precheck(seed.scenario, seed.catalog)
    with pytest.raises(InputError) as exc:
        plan.precheck(_with_plan(seed, max_candidates=n - 1), seed.catalog, file="x.toml")
    assert exc.value.problems[0].key == "plan.max_candidates" and f"{n:,}" in exc.value.problems[0].message
    found = plan.search(_with_plan(seed, max_candidates=n), seed.catalog)
    assert found.overall.best.tco_brl > 0


def test_a_heavier_load_with_millions_of_covered_plans_is_searched(seed):
    # 1,200 output tokens: the committed ladders cover ~29 M plans (levels multiplied over terms), which the old
    # limit counted and refused (run exited 2); the search scores a few thousand
    s = seed.scenario
    s = s.model_copy(update={"proposal": s.proposal.model_copy(update={"constraints": None})})  # the whole catalog
    heavy = s.model_copy(update={"inference": s.inference.model_copy(update={"output_tokens_per_request": 1200})})
    scored = plan.precheck(heavy, seed.catalog)
    found = plan.search(heavy, seed.catalog)
    assert scored <= heavy.plan.max_candidates < found.search.candidates
    assert found.overall.best.tco_brl > 0


def test_validate_checks_the_plan_section_without_searching(seed, monkeypatch):
    def no_search(*a, **k):
        raise AssertionError("validate ran the plan search")

    monkeypatch.setattr(plan, "search", no_search)
    api.check(seed)  # a sound seed passes without the search
    bad = api.Inputs(_with_plan(seed, max_candidates=1), seed.catalog, seed.path, seed.sha256, seed.key_lines)
    with pytest.raises(InputError) as exc:
        api.check(bad)
    assert exc.value.problems[0].key == "plan.max_candidates"


def test_no_offer_can_serve_is_found_without_costing(seed):
    s = seed.scenario
    fast = s.model_copy(update={"inference": s.inference.model_copy(update={"tokens_per_second_per_user": 1e6})})
    with pytest.raises(InputError) as exc:
        plan.precheck(fast, seed.catalog, file="x.toml")
    assert "no plan fits" in exc.value.problems[0].message
