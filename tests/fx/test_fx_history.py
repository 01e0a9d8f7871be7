"""The USD/BRL base path: Focus survey interpolation, spot, forward and list, worked by hand; its checks;
the Monte Carlo centred on it; every output naming it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from tco.fx import history as fxmod
from tco.fx import risk
from tco.catalog import DATA_DIR, load_catalog
from tco.cli import main
from tco.engine import run_scenario
from tco.scenario import load_text

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")


def seed_with(*lines: str) -> str:
    """The seed with its [fx] section replaced by ``lines``."""
    head, rest = SEED.split("[fx]\n", 1)
    tail = rest[rest.index("\n[[options]]"):]
    return head + "[fx]\n" + "\n".join(lines) + "\n" + tail


def test_focus_path_interpolates_december_figures_from_the_spot_by_hand():
    rates = {2026: 5.42, 2027: 5.50, 2028: 5.60}
    # start 2027-01: month 0 is Dec 2026, the spot 5.40 (newer than the Dec-2026 figure, which is not used);
    # Dec 2027 (t = 12) is 5.50, Dec 2028 (t = 24) is 5.60, then 5.60 holds
    path = fxmod.focus_monthly(rates, 5.40, "2027-01", 30)
    assert path[0] == pytest.approx(5.40 + (5.50 - 5.40) * 1 / 12)       # 5.408333
    assert path[5] == pytest.approx(5.40 + (5.50 - 5.40) * 6 / 12)       # 5.45
    assert path[11] == pytest.approx(5.50)
    assert path[17] == pytest.approx(5.50 + (5.60 - 5.50) * 6 / 12)      # Jun 2028: 5.55
    assert path[23] == pytest.approx(5.60)
    assert path[29] == pytest.approx(5.60)                               # held after the last year-end
    # start 2026-07: month 0 is Jun 2026 (spot 5.20); Dec 2026 is six months later at 5.42
    path = fxmod.focus_monthly(rates, 5.20, "2026-07", 8)
    assert path[2] == pytest.approx(5.20 + (5.42 - 5.20) * 3 / 6)        # Sep 2026: 5.31
    assert path[5] == pytest.approx(5.42)
    assert path[6] == pytest.approx(5.42 + (5.50 - 5.42) * 1 / 12)       # Jan 2027
    # every year-end before the start: the spot, then the last figure... none is after month 0: flat spot
    assert np.allclose(fxmod.focus_monthly({2020: 4.0}, 5.0, "2027-01", 5), 5.0)


def test_the_seed_defaults_to_the_latest_focus_edition():
    s = load_text(SEED, "seed.toml")
    assert fxmod.base_path(s.fx) == "focus"
    table = fxmod.focus_table()
    latest = max(table)
    assert fxmod.focus_edition(s.fx) == latest
    rates = table[latest]["rates"]
    path = fxmod.deterministic_path(s.fx, 36, s.scenario.start)
    # seed: spot 5.40 from Dec 2026, the latest edition's Dec-2027 figure at t = 12
    assert path[0] == pytest.approx(5.40 + (rates[2027] - 5.40) / 12)
    assert path[11] == pytest.approx(rates[2027])
    assert path[35] == pytest.approx(rates[2029])


def test_focus_file_rows_are_dated_and_sourced():
    with open(DATA_DIR / "usdbrl_focus.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        assert r["source"].strip() and r["as_of"][:7] >= r["edition"], r
        assert r["status"] in ("listed", "unverified", "estimate"), r
        assert 1.0 < float(r["usdbrl"]) < 20.0


@pytest.mark.parametrize("lines, expected", [
    (('usdbrl = 5.0', 'base_path = "spot"'), lambda t: 5.0 + 0 * t),
    (('usdbrl = 5.0', 'base_path = "forward"', "brl_rate = 0.10", "usd_rate = 0.0"),
     lambda t: 5.0 * 1.1 ** (t / 12)),
    (('usdbrl = 5.0', 'model = "parity"', "brl_rate = 0.10", "usd_rate = 0.0"),   # parity: the forward's old name
     lambda t: 5.0 * 1.1 ** (t / 12)),
    (('usdbrl = 5.0', 'base_path = "list"', "path = [5.0, 5.5, 6.0]"),
     lambda t: np.minimum(5.0 + 0.5 * (t - 1), 6.0)),
    (('usdbrl = 5.0', 'base_path = "spot"', 'model = "gbm"', "drift = 0.12"),
     lambda t: 5.0 * np.exp(0.12 * t / 12)),
])
def test_base_paths_by_hand(lines, expected):
    s = load_text(seed_with(*lines), "seed.toml")
    t = np.arange(1, 37, dtype=float)
    assert np.allclose(fxmod.deterministic_path(s.fx, 36, s.scenario.start), expected(t), rtol=1e-12)


def test_engine_converts_usd_at_the_base_path():
    spot = run_scenario(load_text(seed_with('usdbrl = 5.0', 'base_path = "spot"'), "s.toml"), load_catalog())
    lst = run_scenario(load_text(seed_with('usdbrl = 5.0', 'base_path = "list"', "path = [6.0]"), "s.toml"),
                       load_catalog())
    assert np.allclose(spot.fx_path, 5.0) and np.allclose(lst.fx_path, 6.0)
    for a, b in zip(spot.options, lst.options):
        usd_a = spot.ledger.by_currency(a.name)[1]
        usd_b = lst.ledger.by_currency(b.name)[1]
        assert np.allclose(usd_a, usd_b)
        # a flat rate 6.0 against 5.0: the USD part of the TCO costs 6/5 as much in BRL
        brl_a, brl_b = spot.ledger.by_currency(a.name)[0], lst.ledger.by_currency(b.name)[0]
        assert b.tco.deterministic - brl_b.sum() == pytest.approx((a.tco.deterministic - brl_a.sum()) * 6.0 / 5.0,
                                                                   rel=1e-9)


@pytest.mark.parametrize("lines, key, fragment", [
    (('usdbrl = 5.0', 'base_path = "list"'), "fx", "needs `path`"),
    (('usdbrl = 5.0', 'base_path = "spot"', "path = [5.0]"), "fx", "only read with base_path = 'list'"),
    (('usdbrl = 5.0', 'focus_edition = "1999-01"'), "fx", "editions:"),
    (('usdbrl = 5.0', 'model = "parity"', 'base_path = "focus"'), "fx", "cannot be combined"),
    (('usdbrl = 5.0', "drift = 0.1"), "fx", "only read with model 'gbm'"),
    (('usdbrl = 5.0', 'base_path = "survey"'), "fx.base_path", "focus"),
    (('usdbrl = 5.0', 'base_path = "list"', "path = [5.0, -1.0]"), "fx.path", ""),
])
def test_bad_fx_inputs_name_file_line_and_key(tmp_path, capsys, lines, key, fragment):
    f = tmp_path / "bad.toml"
    f.write_text(seed_with(*lines), encoding="utf-8")
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and key in err and fragment in err
    line = SEED.split("[fx]\n", 1)[0].count("\n") + 1  # the [fx] header's line
    assert f":{line}" in err or f":{line + 1}" in err or f":{line + 2}" in err or f":{line + 3}" in err


def test_bootstrap_paths_chain_onto_the_base_path(tmp_path):
    # a history growing exactly 1 % a month: demeaned, every return is 0, so every path is the base path
    hist = tmp_path / "h.csv"
    rows = ["month,usdbrl"] + [f"{2000 + i // 12}-{i % 12 + 1:02d},{4.0 * 1.01 ** i!r}" for i in range(60)]
    hist.write_text("\n".join(rows) + "\n", encoding="utf-8")
    s = load_text(seed_with("usdbrl = 5.0", 'model = "bootstrap"', f'history_csv = "{hist}"', "paths = 50"),
                  "s.toml")
    res = run_scenario(s, load_catalog(), paths=50, seed=1)
    chunk = next(risk.rate_paths(res, 50, 1))
    assert np.allclose(chunk, res.fx_path[None, :], rtol=1e-9)


@pytest.mark.slow
def test_outputs_name_the_base_path(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(seed_with('usdbrl = 5.4', 'base_path = "forward"'), encoding="utf-8")
    assert main(["run", str(f), "-o", str(tmp_path / "out"), "--paths", "200"]) == 0
    out = capsys.readouterr().out
    assert "custo a termo (hedge)" in out
    doc = json.loads((tmp_path / "out" / "s.json").read_text(encoding="utf-8"))
    assert doc["fx"]["base_path"] == "forward" and doc["assumptions"]["fx"]["base_path"] == "forward"
    assert "brl_rate" in doc["fx"]["base_path_source"]
    # forward: (1.1375/1.0363) − 1 a year, as the JSON states
    assert doc["fx"]["base_path_annual_change_rate"] == pytest.approx(1.1375 / 1.0363 - 1, rel=1e-9)


def test_a_horizon_past_the_surveys_last_year_end_says_the_last_median_holds():
    # the seed from 2027-01 for 60 months runs to 2031-12; the latest edition stops at December 2029
    text = seed_with("usdbrl = 5.4").replace("horizon_months = 36", "horizon_months = 60", 1)
    assert "horizon_months = 60" in text
    s = load_text(text, "s.toml")
    from tco.timeline.fx_base import focus_notices

    held = [n for n in focus_notices(s.fx, s.scenario.start, 60) if n.code == "fx_focus_held"]
    assert held and held[0].params == {"edition": max(fxmod.focus_table()), "year": "2029"}
    path = fxmod.deterministic_path(s.fx, 60, s.scenario.start)
    assert np.allclose(path[35:], path[35])  # December 2029 (t = 36) onwards: the last median


def test_base_annual_change_is_read_from_the_evaluated_path():
    """(S_H / S_1)^(12 / (H − 1)) − 1 over the path the engine evaluated; one month has no change."""
    from tco.fx.history import base_annual_change

    thirteen = np.linspace(5.0, 5.5, 13)  # 12 steps = one year, 5.0 → 5.5
    assert base_annual_change(thirteen) == pytest.approx(5.5 / 5.0 - 1)  # 0.10
    twenty_five = np.array([5.0] + [5.2] * 23 + [6.05])  # two years, 5.0 → 6.05 = 1.21×
    assert base_annual_change(twenty_five) == pytest.approx(1.21 ** (12 / 24) - 1)  # 0.10 a year
    assert base_annual_change(np.array([5.3])) == 0.0


def test_next_month_rolls_the_year_over():
    from tco.fx.history import _next_month

    assert _next_month("2026-11") == "2026-12"
    assert _next_month("2026-12") == "2027-01"  # December → January of the next year
    assert _next_month("0999-12") == "1000-01"
