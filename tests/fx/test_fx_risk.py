"""FX paths and the Monte Carlo: theory checks, reproducibility, bad history files."""

from __future__ import annotations

import math

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.fx import risk
from tco.fx import sums as risk_sums
from tco.catalog import load_catalog
from tco.cli import main
from tco.engine import run_scenario
from tco.fx.history import deterministic_path, load_history, parity_drift
from tco.scenario import load_text

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")


def scenario_with(**fx):
    text = SEED
    for k, v in fx.items():
        lines = [ln for ln in text.splitlines() if not ln.startswith(f"{k} =")]
        i = lines.index("[fx]")
        lines.insert(i + 1, f"{k} = {v!r}".replace("'", '"'))
        text = "\n".join(lines) + "\n"
    return load_text(text, "seed.toml")


def test_gbm_log_rate_at_month_12_matches_theory():
    # ln S_12 ~ N(ln S0 + (mu − σ²/2)·1, σ²·1)
    rng = np.random.default_rng(3)
    s0, mu, sigma, n = 5.4, 0.06, 0.15, 200_000
    x = np.log(risk.gbm_paths(rng, n, 12, s0, mu, sigma)[:, 11])
    mean_theory = np.log(s0) + (mu - 0.5 * sigma ** 2) * 1.0
    sd_theory = sigma * 1.0
    se_mean = sd_theory / np.sqrt(n)
    assert abs(x.mean() - mean_theory) < 4 * se_mean
    se_sd = sd_theory / np.sqrt(2 * (n - 1))  # antithetic pairs make the mean exact; sd has ~normal SE
    assert abs(x.std(ddof=1) - sd_theory) < 4 * se_sd * np.sqrt(2)


def test_gbm_mean_rate_is_the_deterministic_path():
    # centred on the base path (the Focus survey by default): E[S_m] = B_m
    s = scenario_with(model="gbm", volatility=0.13)
    det = deterministic_path(s.fx, 36, s.scenario.start)
    paths = risk.gbm_paths(np.random.default_rng(5), 100_000, 36, s.fx.usdbrl, 0.0, 0.13, log_base=np.log(det))
    assert np.allclose(paths.mean(axis=0), det, rtol=0.01)
    # the forward base path is the old parity drift S·e^(μ·m/12)
    s = scenario_with(model="gbm", volatility=0.13, base_path="forward")
    rng = np.random.default_rng(5)
    paths = risk.gbm_paths(rng, 100_000, 36, s.fx.usdbrl, risk.drift(s.fx), 0.13)
    det = deterministic_path(s.fx, 36)
    assert np.allclose(paths.mean(axis=0), det, rtol=0.01)
    # parity drift: ln(1.1375 / 1.0363)
    assert risk.drift(s.fx) == pytest.approx(np.log(1.1375 / 1.0363))
    assert parity_drift(0.10, 0.0) == pytest.approx(np.log(1.1))


def test_bootstrap_draws_only_returns_present_in_the_history():
    s = scenario_with(model="bootstrap")
    _, rates = load_history(s.fx, 36)
    hist = np.diff(np.log(rates))
    paths = risk.bootstrap_paths(np.random.default_rng(1), 500, 36, s.fx.usdbrl, hist, 6)
    drawn = np.diff(np.log(np.concatenate([np.full((500, 1), s.fx.usdbrl), paths], axis=1)), axis=1)
    assert np.isin(np.round(drawn, 12), np.round(hist, 12)).all()


def test_zero_volatility_gives_identical_percentiles_equal_to_deterministic():
    s = scenario_with(model="gbm", volatility=0.0)
    res = run_scenario(s, load_catalog(), paths=2000, seed=1)
    for o in res.options:
        for d in (o.tco, o.npv):
            assert d.p5 == pytest.approx(d.deterministic, rel=1e-12)
            assert d.p95 == pytest.approx(d.deterministic, rel=1e-12)
            assert d.mean == pytest.approx(d.deterministic, rel=1e-12)


def test_brl_only_options_have_no_spread_and_cloud_options_do():
    s = scenario_with(model="gbm", volatility=0.13)
    res = run_scenario(s, load_catalog(), paths=4000, seed=2)
    for o in res.options:
        if o.kind == "dedicated" and (o.resolved.training is None or o.resolved.training.kind == "dedicated"):
            assert o.tco.p5 == pytest.approx(o.tco.p95, rel=1e-12)
        else:
            assert o.tco.p95 > o.tco.p50 > o.tco.p5
    assert sum(o.prob_cheapest for o in res.options) == pytest.approx(1.0)


def test_same_seed_same_numbers():
    s = scenario_with(model="bootstrap")
    a = run_scenario(s, load_catalog(), paths=3000, seed=9)
    b = run_scenario(s, load_catalog(), paths=3000, seed=9)
    assert [o.tco.as_dict() for o in a.options] == [o.tco.as_dict() for o in b.options]


BAD_HISTORIES = [
    ("gap", "month,usdbrl\n2020-01,5.0\n2020-02,5.1\n2020-04,5.2\n" + "".join(
        f"2020-{m:02d},5.0\n" for m in range(5, 13)), "gap or disorder", 4),
    ("non-positive", "month,usdbrl\n2020-01,5.0\n2020-02,0\n", "must be positive", 3),
    ("bad date", "month,usdbrl\n2020-01,5.0\n20-02,5.1\n", "unparseable month", 3),
    ("too short", "month,usdbrl\n2020-01,5.0\n2020-02,5.1\n2020-03,5.2\n", "too few", None),
]


@pytest.mark.parametrize("name,body,fragment,line", BAD_HISTORIES, ids=[b[0] for b in BAD_HISTORIES])
def test_bad_history_csv_is_exit_2_with_file_and_line(tmp_path, capsys, name, body, fragment, line):
    hist = tmp_path / "hist.csv"
    hist.write_text(body, encoding="utf-8")
    text = SEED.replace('model = "gbm"', f'model = "bootstrap"\nhistory_csv = "{hist}"')
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "json"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "hist.csv" in err
    if line:
        assert f"hist.csv:{line}:" in err
    assert not out.exists() or not any(out.iterdir())


def test_option_groups_fit_the_memory_budget():
    # 16 B per path and option (TCO + NPV): 1e7 paths × 20 options in a 1 GiB budget go 6 at a time
    per_option = 16 * 10**7
    size = 2**30 // per_option
    assert size == 6
    groups = risk.option_groups(20, 10**7, 2**30)
    assert [list(g) for g in groups] == [list(range(6)), list(range(6, 12)), list(range(12, 18)), [18, 19]]
    # small runs stay in one group, so their numbers are exactly those of a single pass
    assert risk.option_groups(6, 10_000) == [range(6)]
    assert risk.option_groups(3, 10**9, 1) == [range(1), range(1, 2), range(2, 3)]  # at least one option each


def test_simulating_options_in_groups_gives_the_single_pass_results(monkeypatch):
    s = scenario_with(model="gbm", volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=4, simulate=False)
    one = risk.simulate(base, paths=6000, seed=4, keep_samples=True)
    # a budget of 2 options' arrays: the options go 2 at a time (7 options: 4 groups), each redrawing the same paths
    monkeypatch.setattr(risk, "WORK_BYTES", 16 * 6000 * 2)
    monkeypatch.setattr(risk.StreamPercentiles, "result", lambda self: None)  # as if a bracket missed: all kept
    n = len(base.options)
    assert len(risk.option_groups(n, 6000)) == (n + 1) // 2 and n > 2
    grouped = risk.simulate(base, paths=6000, seed=4, keep_samples=True)
    for a, b in zip(one, grouped, strict=True):
        np.testing.assert_allclose(b.tco_samples, a.tco_samples, rtol=1e-12)
        for q in ("mean", "p5", "p50", "p95"):
            assert getattr(b.tco, q) == pytest.approx(getattr(a.tco, q), rel=1e-12)
            assert getattr(b.npv, q) == pytest.approx(getattr(a.npv, q), rel=1e-12)
        for q in ("p5", "p50", "p95"):
            np.testing.assert_array_equal(b.fan_brl[q], a.fan_brl[q])
        assert b.prob_cheapest == a.prob_cheapest
    assert sum(o.prob_cheapest for o in grouped) == pytest.approx(1.0)


def test_factor_form_gives_the_textbook_gbm_costs_to_1e12():
    """The simulation multiplies the factors E = exp(σ√Δt·ΣZ) by weights u_m·S0·e^(d_m) (and uses 1/E for the
    mirror) instead of writing S = exp(ln S0 + d_m ± σ√Δt·ΣZ): the same draws, the same costs to the last
    bits. Tolerance: 1e-12 relative on each path's TCO and NPV (measured ~1e-15; the JSON's P5/P50/P95
    moved by at most 4e-15 relative when this form replaced the path form)."""
    s = scenario_with(model="gbm", volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=2, simulate=False)
    n, h = 3001, len(base.months)  # odd: the last chunk's mirror is one path short
    out = risk.simulate(base, paths=n, seed=2, keep_samples=True)
    # textbook GBM around the base path B, the same draws: ln S_m = ln B_m − (σ²/2)·m/12 ± σ·√(1/12)·Σ_{k≤m} Z_k,
    # the 1,501 drawn paths (< risk_paths.DRAW: one group) drawn month by month
    z = np.random.default_rng(2).standard_normal((h, (n + 1) // 2)).T
    w = 0.13 * np.sqrt(1 / 12) * np.cumsum(z, axis=1)
    d = np.log(base.fx_path) - 0.5 * 0.13 ** 2 / 12 * np.arange(1, h + 1)
    rates = np.exp(np.concatenate([d + w, d - w[: n - (n + 1) // 2]]))
    disc = (1 + s.scenario.discount_rate) ** (-np.arange(1, h + 1) / 12)
    from tco import finance

    np.testing.assert_allclose(finance.discount_factors(h, s.scenario.discount_rate), disc, rtol=1e-12)
    for o, r in zip(out, base.options, strict=True):
        b, u = base.ledger.by_currency(r.name)
        tco = b.sum() + rates @ u
        np.testing.assert_allclose(o.tco_samples, tco, rtol=1e-12)
        assert o.tco.p50 == pytest.approx(np.percentile(tco, 50), rel=1e-12)
        npv = b @ disc + rates @ (u * disc)
        assert o.npv.mean == pytest.approx(npv.mean(), rel=1e-12)
        assert o.npv.p95 == pytest.approx(np.percentile(npv, 95), rel=1e-12)


@pytest.mark.parametrize("model", ["gbm", "bootstrap"])
def test_fan_of_the_simulation_is_the_fan_of_the_analysis(model):
    """simulate's per-month fan and fx_fan (the analysis's chart): the same rates (bootstrap: the first chunk's
    paths, drawn by the products' loop and by rate_paths; GBM: the exact quantiles)."""
    s = scenario_with(model=model, volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=3, simulate=False)
    out = risk.simulate(base, paths=7001, seed=3)
    fan = risk.fx_fan(base, 7001, 3)
    for o in out:
        b, u = base.ledger.by_currency(o.name)
        for q in ("p5", "p50", "p95"):
            np.testing.assert_array_equal(o.fan_brl[q], b + u * fan[q])


def test_gbm_fan_is_the_lognormal_quantiles_worked_by_hand():
    """Month 12 at σ = 0.13: ln S_12 ~ N(ln B_12 − 0.13²·12/24, 0.13²·12/12), so
    P95 = B_12·e^(−0.00845 + 0.13 × 1.6448536) = B_12·e^(0.2053810), P50 = B_12·e^(−0.00845),
    P5 = B_12·e^(−0.00845 − 0.2138310) = B_12·e^(−0.2222810); and 200,000 GBM paths' own percentiles agree."""
    s = scenario_with(model="gbm", volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=3, simulate=False)
    b12 = base.fx_path[11]
    fan = risk.gbm_fan(base)
    assert fan[:, 11] == pytest.approx([b12 * math.exp(-0.2222810), b12 * math.exp(-0.00845),
                                        b12 * math.exp(0.2053810)], rel=1e-7)
    h = len(base.months)
    paths = risk.gbm_paths(np.random.default_rng(5), 200_000, h, s.fx.usdbrl, 0.0, 0.13,
                           log_base=np.log(np.asarray(base.fx_path, dtype=float)))
    sampled = np.percentile(paths, [5, 50, 95], axis=0)
    np.testing.assert_allclose(sampled, fan, rtol=0.006)  # 200,000 paths: P5/P95 within ~0.3 % (2σ)


def test_zero_volatility_fan_is_the_base_path_three_times():
    s = scenario_with(model="gbm", volatility=0.0)
    base = run_scenario(s, load_catalog(), seed=3, simulate=False)
    fan = risk.gbm_fan(base)
    for row in fan:
        np.testing.assert_allclose(row, base.fx_path, rtol=1e-15)


def test_cheapest_is_argmin_with_infeasible_rows_at_infinity():
    rng = np.random.default_rng(9)
    tco = rng.integers(0, 5, (4, 2000)).astype(float)  # many ties: the earlier row must win them
    feasible = np.array([True, False, True, True])
    idx, val = risk._cheapest(tco, feasible)
    ranked = np.where(feasible[:, None], tco, np.inf)
    np.testing.assert_array_equal(idx, np.argmin(ranked, axis=0))
    np.testing.assert_array_equal(val, ranked.min(axis=0))
    idx, val = risk._cheapest(tco, np.zeros(4, dtype=bool))  # nothing feasible: row 0, as argmin of all-inf
    assert not idx.any() and np.isinf(val).all()


def test_cheapest_counts_by_hand():
    # options A (constant 10), B (infeasible), C, D on 4 paths; C = 9, 10, 12, 8 and D = 9, 11, 10, 8
    # path 0: C 9 < A 10, D 9 ties C → C; path 1: A 10 ties C 10 → A; path 2: D 10 ties A 10 → A; path 3: C 8 = D → C
    from types import SimpleNamespace as Opt

    options = [Opt(feasible=True), Opt(feasible=False), Opt(feasible=True), Opt(feasible=True)]
    sums = np.array([[9.0, 10.0, 12.0, 8.0], [9.0, 11.0, 10.0, 8.0]])
    brl = [(10.0, 0.0), (1.0, 0.0), (0.0, 0.0), (0.0, 0.0)]  # B would be cheapest everywhere, but is infeasible
    assert risk._wins(options, brl, [2, 3], sums, 4).tolist() == [2, 0, 2, 0]
    assert risk._wins([Opt(feasible=False)] * 2, brl, [], None, 1).tolist() == [1, 0]  # none feasible: option 0


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 7), m=st.integers(1, 40), data=st.data())
def test_cheapest_counts_are_argmins_counts(seed, n, m, data):
    """_wins (prefix and suffix minima) counts what _cheapest (argmin, infeasible at +inf, ties to the earlier
    option) picks, with constant (BRL-only) options among the simulated ones and many ties."""
    from types import SimpleNamespace as Opt

    rng = np.random.default_rng(seed)
    feasible = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    live = sorted(data.draw(st.sets(st.integers(0, n - 1))))
    if data.draw(st.booleans()):  # many ties: the prefix and suffix minima
        sums = rng.integers(0, 4, (len(live), m)).astype(float)
        brl = [(float(rng.integers(0, 4)), 0.0) for _ in range(n)]
    else:  # continuous values, ties improbable: the counts of the minimum
        sums = rng.random((len(live), m))
        brl = [(float(rng.random()), 0.0) for _ in range(n)]
    tco = np.array([sums[live.index(j)] if j in live else np.full(m, brl[j][0]) for j in range(n)])
    idx, _ = risk._cheapest(tco, np.array(feasible))
    got = risk._wins([Opt(feasible=f) for f in feasible], brl, live, sums, m)
    np.testing.assert_array_equal(got, np.bincount(idx, minlength=n))
    assert got.sum() == m


def test_cheapest_counts_fall_back_on_ties_and_nan():
    # two options with the same costs on every path: the earlier takes all; a NaN path: counted by the order rule
    from types import SimpleNamespace as Opt

    row = np.array([3.0, 1.0, 2.0])
    assert risk._wins_without_ties([row, row.copy()], 3) is None
    assert risk._wins([Opt(feasible=True)] * 2, [(0.0, 0.0)] * 2, [0, 1], np.array([row, row]), 3).tolist() == [3, 0]
    assert risk._wins_without_ties([np.array([1.0, np.nan]), 2.0], 2) is None
    assert risk._wins_without_ties([np.array([1.0, 3.0]), 2.0], 2) == [1, 1]  # path 0: the array, path 1: the 2.0


@pytest.mark.parametrize("model", ["gbm", "bootstrap"])
def test_same_seed_same_bits_however_the_work_is_cut(monkeypatch, model):
    """Every path's sums come from matrix products of one shape (BLOCK paths, padded): the block size and the
    groups of rows computed again from all paths (as when a percentile's bracket misses) change how the work is
    cut, not one bit of the results."""
    s = scenario_with(model=model, volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=5, simulate=False)
    n = 5001  # odd: a chunk's last path has no mirror; blocks of 256 leave a short last block
    runs = []
    for block, budget in ((2048, None), (256, None), (4096, 16 * n * 2), (64, 16 * n)):
        monkeypatch.setattr(risk_sums, "BLOCK", block)
        monkeypatch.setattr(risk, "WORK_BYTES", budget or risk.WORK_BYTES)
        if budget:  # all paths kept, one or two rows at a time
            monkeypatch.setattr(risk.StreamPercentiles, "result", lambda self: None)
        runs.append(risk.simulate(base, paths=n, seed=5, keep_samples=True))
    assert len(risk.option_groups(6, n, 16 * n)) == 6  # the last run: one option per group
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            assert a.tco == b.tco and a.npv == b.npv and a.prob_cheapest == b.prob_cheapest
            np.testing.assert_array_equal(a.tco_samples, b.tco_samples)
            for q in ("p5", "p50", "p95"):
                np.testing.assert_array_equal(a.fan_brl[q], b.fan_brl[q])


@pytest.mark.slow
def test_same_seed_same_json_with_one_or_two_blas_threads(tmp_path):
    """OpenBLAS splits a product between threads when allowed: the JSON is the same bytes either way."""
    import os
    import subprocess
    import sys

    out = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        d = tmp_path / threads
        subprocess.run([sys.executable, "-m", "tco", "run", str(ROOT / "scenarios" / "seed_70b_h200.toml"), "-o",
                        str(d), "--quiet", "--formats", "json", "--paths", "6000", "--seed", "3"], check=True, env=env)
        out.append((d / "seed_70b_h200.json").read_bytes())
    assert out[0] == out[1]


def test_many_chunks_give_numpys_percentiles_and_the_chunked_mean():
    """Past one chunk the paths are not kept: the percentiles are still np.percentile's, bit for bit, and the mean
    is the sum over chunks of each chunk's sum, over the number of paths (np.mean's own sum up to one chunk)."""
    s = scenario_with(model="gbm", volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=6, simulate=False)
    n = risk.CHUNK + 3001
    out = risk.simulate(base, paths=n, seed=6, keep_samples=True)
    for o in out:
        x = o.tco_samples
        assert [o.tco.p5, o.tco.p50, o.tco.p95] == np.percentile(x, [5, 50, 95]).tolist()
        assert o.tco.mean == (np.add.reduce(x[:risk.CHUNK]) + np.add.reduce(x[risk.CHUNK:])) / n
        assert o.tco.mean == pytest.approx(x.mean(), rel=1e-14)


def test_options_without_usd_costs_only_draw_the_fans_paths():
    """All options in BRL: nothing to simulate but the fan; each costs its BRL total on every path."""
    from dataclasses import replace

    s = scenario_with(model="gbm", volatility=0.13)
    base = run_scenario(s, load_catalog(), seed=8, simulate=False)
    brl_only = [o for o in base.options if not np.any(base.ledger.by_currency(o.name)[1])]
    assert len(brl_only) >= 2
    res = replace(base, options=brl_only)
    seen = []
    out = risk.simulate(res, paths=70_000, seed=8, progress=lambda d, n: seen.append((d, n)))
    assert seen == [(70_000, 70_000)]
    totals = [base.ledger.by_currency(o.name)[0].sum() for o in brl_only]
    ok = [t if o.feasible else np.inf for o, t in zip(brl_only, totals, strict=True)]
    for o, t in zip(out, totals, strict=True):
        assert o.tco.p5 == o.tco.p50 == o.tco.p95 == t
        assert o.tco.mean == pytest.approx(t, rel=1e-15)
        assert o.prob_cheapest == (1.0 if t == min(ok) and o.feasible else 0.0)
    fan = risk.fx_fan(res, 70_000, 8)
    b, u = base.ledger.by_currency(brl_only[0].name)
    np.testing.assert_array_equal(out[0].fan_brl["p50"], b + u * fan["p50"])
