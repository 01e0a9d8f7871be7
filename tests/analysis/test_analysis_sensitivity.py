"""tco.analysis.sensitivity: the growth curve scaled, the tornado's rows, and variant runs of only the compared
options equal to full runs (the engine costs options independently)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.analysis import sensitivity
from tco.engine import run_scenario
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def seed(seed_2000_paths):
    return seed_2000_paths


def test_scale_users_scales_every_growth_model():
    s, _, _ = load(ROOT / "scenarios" / "pretrain_burst.toml")  # compound with a cap
    g = sensitivity.scale_users(s, 2.0).inference.users
    assert (g.start_users, g.max_users) == (1000, 10000)

def test_tornado_rows_cover_the_inputs_and_move_the_difference(seed):
    _, _, res = seed
    pair = sensitivity.kind_pair(res)
    t = sensitivity.tornado(res, paths=500, pair=pair)
    keys = {r.input for r in t.rows}
    assert keys == {k for k, *_ in sensitivity.SENSITIVITY}
    fx = next(r for r in t.rows if r.input == "usdbrl")
    # a dearer dollar widens the gap when dedicated leads, narrows it when a cloud option leads (the seed on the
    # Focus path: the 3-year Savings Plan)
    sign = 1.0 if pair[0].kind == "dedicated" else -1.0
    assert sign * fx.low_diff_brl < sign * t.base_diff_brl < sign * fx.high_diff_brl
    swings = [r.swing_brl for r in t.rows]
    assert swings == sorted(swings, reverse=True)

@pytest.mark.parametrize("key,v", [("cloud_price", 1.2), ("users", 0.5), ("tax", 0.8), ("discount_rate", 0.18)])
def test_variant_runs_of_only_the_compared_options_equal_full_runs(seed, key, v):
    """The analysis re-runs the engine with only the options it compares: each option's figures must be
    the very same floats as in a run with every option (the engine costs options independently)."""
    _, _, res = seed
    a, b = sensitivity.leaders(res)
    variants = sensitivity.Variants(res, {a.name, b.name}, 2000)
    got = variants.figures(key, v)
    s2, cat2 = sensitivity.variant(res, key, v)
    full = run_scenario(s2, cat2, simulate=False)
    want = {o.name: (o.npv.deterministic if key == "discount_rate" else o.tco.deterministic) for o in full.options}
    assert set(got) == {a.name, b.name}
    assert all(got[n] == want[n] for n in got)  # exact, not approximate
    assert variants.figures(key, v) is got  # asked again (the second tornado): not run again


def test_tornados_share_variant_runs(seed, monkeypatch):
    """enrich's two tornados (leaders, dedicated vs cloud) run each of the 20 variants once."""
    _, _, res = seed
    calls = []
    real = sensitivity.run_scenario
    monkeypatch.setattr(sensitivity, "run_scenario", lambda *a, **k: calls.append(1) or real(*a, **k))
    variants = sensitivity.Variants(res, {o.name for o in res.options}, 2000)
    sensitivity.tornado(res, variants=variants)
    pair = sensitivity.kind_pair(res)
    sensitivity.tornado(res, pair=pair, variants=variants)
    assert len(calls) == 2 * len(sensitivity.SENSITIVITY)
