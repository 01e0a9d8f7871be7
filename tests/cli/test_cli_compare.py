"""`tco diff` and `tco render` on the command line; `run -o -` prints the JSON and writes nothing."""

import json
from pathlib import Path

from tco.cli import main

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "seed_70b_h200.toml"


def test_run_to_stdout_then_render_and_diff_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(SEED), "-o", "-", "--paths", "50", "--no-sensitivity"]) == 0
    text = capsys.readouterr().out
    doc = json.loads(text)
    assert doc["cheapest"] and not Path("-").exists() and list(tmp_path.iterdir()) == []
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    assert main(["render", "r.json", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["cheapest"] == doc["cheapest"] and len(got["options"]) == len(doc["options"])
    assert main(["render", "r.json"]) == 0
    assert "cheapest:" in capsys.readouterr().out
    assert main(["diff", "r.json", "r.json", "--quiet"]) == 0  # nothing changed
    assert main(["diff", "r.json", "r.json", "--format", "markdown"]) == 0
    assert "The ranking is the same." in capsys.readouterr().out


def test_render_refuses_a_scenario_and_diff_a_missing_file(tmp_path, capsys):
    assert main(["render", str(SEED)]) == 2
    assert "render reads a JSON result" in capsys.readouterr().err
    assert main(["diff", str(tmp_path / "no.json"), str(tmp_path / "no.json")]) == 2
    assert "no.json" in capsys.readouterr().err

