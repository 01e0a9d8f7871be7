"""The library API: what the CLI, a batch runner or a notebook call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tco
from tco.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"


@pytest.mark.slow
def test_run_and_write_match_the_cli(tmp_path):
    from tco.cli import main

    res = tco.run(SEED, paths=200, seed=3, sensitivity=False)
    written = tco.write(res, tmp_path / "api", formats=("json", "csv"))
    assert sorted(p.name for p in written) == ["seed_70b_h200.csv", "seed_70b_h200.json"]
    assert main(["run", str(SEED), "-o", str(tmp_path / "cli"), "--paths", "200", "--seed", "3",
                 "--no-sensitivity", "--formats", "json,csv", "--quiet"]) == 0
    for name in ("seed_70b_h200.json", "seed_70b_h200.csv"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_load_then_run_reuses_the_inputs():
    inputs = tco.load(SEED)
    res = tco.run(inputs, analysis=False)
    assert res.source_path == str(SEED) and res.source_sha256 == inputs.sha256
    assert not res.analysis.ran and res.analysis.breakevens is None  # analysis=False skips the decision analysis
    assert [o.name for o in res.options] == [o.name for o in inputs.scenario.options]


def test_check_raises_every_problem(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SEED.read_text(encoding="utf-8").replace('inference_offer = "', 'inference_offer = "nope/', 1),
                   encoding="utf-8")
    with pytest.raises(InputError) as err:
        tco.check(bad)
    assert "inference_offer" in str(err.value) and "bad.toml" in str(err.value)


def test_write_rejects_an_unknown_format(tmp_path):
    res = tco.run(SEED, analysis=False)
    with pytest.raises(ValueError, match="unknown format"):
        tco.write(res, tmp_path, formats=("json", "docx"))
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_ledger_totals_are_the_engine_totals():
    res = tco.run(SEED, analysis=False)
    for o in res.options:
        assert res.ledger.total_brl(o.name).sum() == pytest.approx(o.tco.deterministic, rel=1e-12)
        brl, usd = res.ledger.by_currency(o.name)
        # BRL part + USD part × rate of each month = the BRL total, month by month
        assert (brl + usd * res.fx_path) == pytest.approx(o.total_brl, rel=1e-12)
    frame = res.ledger.frame()
    assert set(frame["option"]) == {o.name for o in res.options}
    by_option = frame.groupby("option")["amount_brl"].sum()
    for o in res.options:
        assert by_option[o.name] == pytest.approx(o.tco.deterministic, rel=1e-9)


def test_json_notices_are_structured():
    from tco.report import json_out

    res = tco.run(SEED, analysis=False)
    doc = json.loads(json_out.dumps(json_out.build(res, "x", str(SEED))))
    assert doc["notices"] and all(set(n) == {"code", "option", "params"} for n in doc["notices"])
    assert len(doc["warnings"]) == len(doc["notices"])
