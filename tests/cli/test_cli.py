"""The command line as engineers use it: outputs, contract keys, reproducibility, exit codes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tco.cli import main
from tco.costs import LINES

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_example_runs_and_meets_the_json_contract(tmp_path, scenario):
    assert main(["run", str(scenario), "-o", str(tmp_path), "--formats", "json,csv", "--quiet", "--paths", "2000"]) == 0
    doc = json.loads((tmp_path / f"{scenario.stem}.json").read_text(encoding="utf-8"))
    assert set(doc["scenario"]) >= {"name", "start", "horizon_months"}
    assert set(doc["fx"]) >= {"model", "paths", "seed"}
    assert doc["fx"]["paths"] == 2000
    h = doc["scenario"]["horizon_months"]
    for opt in doc["options"]:
        for key in ("tco_brl", "npv_brl"):
            assert set(opt[key]) == {"deterministic", "mean", "p5", "p50", "p95"}
            assert opt[key]["p5"] <= opt[key]["p50"] <= opt[key]["p95"]
        assert isinstance(opt["egress_brl"], float)
        assert len(opt["monthly"]) == h
        first = opt["monthly"][0]
        assert set(first) == {"month", "total_brl"} | {f"{k}_brl" for k in LINES}
        assert first["month"] == doc["scenario"]["start"]
        total = sum(m["total_brl"] for m in opt["monthly"])
        assert total == pytest.approx(opt["tco_brl"]["deterministic"], rel=1e-12)
        for m in opt["monthly"]:
            assert m["total_brl"] == pytest.approx(sum(m[f"{k}_brl"] for k in LINES), rel=1e-12, abs=1e-9)
        # sizing figures an engineer can check
        assert opt["sizing"]["replica"]["decode_tokens_per_second"] > 0
        assert len(opt["sizing"]["inference_gpus"]) == h
    # the FOCUS-style ledger adds up to the same totals
    rows = list(csv.DictReader((tmp_path / f"{scenario.stem}.csv").open(encoding="utf-8")))
    for opt in doc["options"]:
        ledger = sum(float(r["x_BilledCostBRL"]) for r in rows if r["x_Option"] == opt["name"])
        assert ledger == pytest.approx(opt["tco_brl"]["deterministic"], rel=1e-9)
    assert {"BillingPeriodStart", "BilledCost", "BillingCurrency", "ServiceCategory", "ProviderName"} <= set(rows[0])


@pytest.mark.slow
def test_two_runs_give_byte_identical_json(tmp_path):
    seed = ROOT / "scenarios" / "seed_70b_h200.toml"
    for d in ("a", "b"):
        assert main(["run", str(seed), "-o", str(tmp_path / d), "--formats", "json", "--quiet", "--paths", "3000"]) == 0
    a = (tmp_path / "a" / "seed_70b_h200.json").read_bytes()
    b = (tmp_path / "b" / "seed_70b_h200.json").read_bytes()
    assert a == b


@pytest.mark.slow
def test_seed_changes_the_percentiles_not_the_deterministic(tmp_path):
    seed = ROOT / "scenarios" / "seed_70b_h200.toml"
    docs = []
    for s in (1, 2):
        assert main(["run", str(seed), "-o", str(tmp_path / str(s)), "--formats", "json", "--quiet",
                     "--paths", "2000", "--seed", str(s)]) == 0
        docs.append(json.loads((tmp_path / str(s) / "seed_70b_h200.json").read_text()))
    cloud = [i for i, o in enumerate(docs[0]["options"]) if o["kind"] == "cloud"][0]
    a, b = docs[0]["options"][cloud]["tco_brl"], docs[1]["options"][cloud]["tco_brl"]
    assert a["deterministic"] == b["deterministic"]
    assert a["p95"] != b["p95"]
    assert docs[1]["fx"]["seed"] == 2


def test_validate_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["validate", str(ROOT / "scenarios" / "seed_70b_h200.toml")]) == 0
    assert "ok" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_help_teaches(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "run" in out and "validate" in out and "exit codes" in out
    assert main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--seed" in out and "--paths" in out and "-o" in out


def test_bad_arguments_exit_2(capsys):
    assert main(["frobnicate"]) == 2
    assert main(["run", str(ROOT / "scenarios" / "seed_70b_h200.toml"), "--formats", "docx"]) == 2


def test_init_writes_a_valid_starter_and_refuses_to_overwrite(tmp_path, capsys):
    f = tmp_path / "new.toml"
    assert main(["init", str(f)]) == 0
    assert main(["validate", str(f)]) == 0
    assert main(["init", str(f)]) == 2


def test_offers_lists_the_catalog(capsys):
    assert main(["offers", "--gpu", "H200"]) == 0
    out = capsys.readouterr().out
    assert "p5en.48xlarge" in out and "hgx-h200-8x" in out


def test_catalog_dir_overrides_a_price(tmp_path):
    src = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
    cat = tmp_path / "cat"
    cat.mkdir()
    header = ("offer_id,provider,gpu,gpu_count,brl_per_month,setup_fee_brl,min_term_months,indexation,status,"
              "derivation,source,as_of\n")
    (cat / "dedicated_offers.csv").write_text(
        header + "br-dedicated/sp/l4-4x,br-dedicated,L4,4,7000,0,3,ipca,quote,,Quote #123 from a provider,2026-11-30\n",
        encoding="utf-8")
    f = tmp_path / "s.toml"
    f.write_text(src.replace('locale = "pt-BR"', 'locale = "pt-BR"\ncatalog_dir = "cat"'), encoding="utf-8")
    assert main(["run", str(f), "-o", str(tmp_path / "o"), "--formats", "json", "--quiet"]) == 0
    doc = json.loads((tmp_path / "o" / "s.json").read_text())
    ded = doc["options"][0]["inference_offer"]
    assert ded["price"] == 7000 and ded["source"] == "Quote #123 from a provider"


@pytest.mark.slow
def test_json_is_byte_identical_across_processes_and_hash_seeds(tmp_path):
    """Set iteration order and absolute paths must not leak into the JSON: run in fresh interpreters
    with different PYTHONHASHSEED values, from different working folders."""
    import os
    import subprocess
    import sys

    outs = []
    for i, hash_seed in enumerate(("1", "2", "12345")):
        cwd = tmp_path / f"cwd{i}"
        cwd.mkdir()
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        for name in ("seed_70b_h200.toml", "pretrain_burst.toml"):
            subprocess.run([sys.executable, "-m", "tco", "run", str(ROOT / "scenarios" / name), "-o", str(cwd / "o"),
                            "--formats", "json", "--quiet", "--paths", "500"], check=True, cwd=cwd, env=env)
        outs.append([(cwd / "o" / n).read_bytes() for n in ("seed_70b_h200.json", "pretrain_burst.json")])
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--paths", "0"], ["--seed", "x"]])
def test_bad_numbers_on_the_command_line_exit_2(tmp_path, capsys, args):
    out = tmp_path / "o"
    assert main(["run", str(ROOT / "scenarios" / "assistant_8b_l4.toml"), "-o", str(out), *args]) == 2
    assert not out.exists()
    assert "Traceback" not in capsys.readouterr().err


def test_output_folder_that_is_a_file_is_exit_2(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    assert main(["run", str(ROOT / "scenarios" / "assistant_8b_l4.toml"), "-o", str(f), "--quiet"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_unwritable_output_folder_is_exit_2_and_leaves_nothing(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "sub").write_text("a file where a folder is needed")
    out = ro / "sub" / "deeper"
    assert main(["run", str(ROOT / "scenarios" / "assistant_8b_l4.toml"), "-o", str(out), "--quiet",
                 "--formats", "json"]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


def test_init_into_a_missing_folder_is_exit_2(tmp_path, capsys):
    assert main(["init", str(tmp_path / "nope" / "x.toml")]) == 2


@pytest.mark.slow
def test_review_l14_locale_flag_is_the_files_locale(tmp_path):
    """`run --locale en` on a pt-BR file writes what the same file with `locale = "en"` writes (the JSON byte for byte
    but for the source file's name and hash)."""
    small = ROOT / "scenarios" / "assistant_8b_l4.toml"
    en_file = tmp_path / small.name
    en_file.write_text(small.read_text(encoding="utf-8").replace('locale = "pt-BR"', 'locale = "en"', 1),
                       encoding="utf-8")
    args = ["--formats", "json", "--quiet", "--paths", "2000"]
    assert main(["run", str(small), "-o", str(tmp_path / "flag"), "--locale", "en", *args]) == 0
    assert main(["run", str(en_file), "-o", str(tmp_path / "file"), *args]) == 0
    flag = json.loads((tmp_path / "flag" / f"{small.stem}.json").read_text(encoding="utf-8"))
    file = json.loads((tmp_path / "file" / f"{small.stem}.json").read_text(encoding="utf-8"))
    for doc in (flag, file):
        assert set(doc["scenario"]) >= {"file", "sha256"}
        doc["scenario"].pop("file"), doc["scenario"].pop("sha256")
    assert flag == file
    assert flag["scenario"]["locale"] == "en"


def test_validate_quiet_and_json(capsys):
    """`validate --quiet` prints nothing; `--json` the outcome and the notices in English."""
    assert main(["validate", str(ROOT / 'scenarios' / 'seed_70b_h200.toml'), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["validate", str(ROOT / 'scenarios' / 'seed_70b_h200.toml'), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    options = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8").count("[[options]]")
    assert got["ok"] is True and got["options"] == options and got["horizon_months"] == 36
    assert any("estimativa" not in n and "br-dedicated" in n for n in got["notices"])  # English lines
