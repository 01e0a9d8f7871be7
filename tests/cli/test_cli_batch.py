"""`python -m tco batch`: many scenarios in worker processes, failures isolated, summary and exit code."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest

from tco.cli import batch
from tco.cli.batch import BAD_INPUT, CRASHED, OK, Outcome
from tco.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "scenarios" / "assistant_8b_l4.toml"


def _broken(tmp_path: Path) -> Path:
    f = tmp_path / "broken.toml"
    f.write_text('[scenario]\nname = "unterminated\n', encoding="utf-8")
    return f


@pytest.mark.slow
def test_good_and_broken_in_one_batch(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["batch", str(GOOD), str(_broken(tmp_path)), "-o", str(out), "--jobs", "2"])
    assert rc == 2  # documented: 2 when a scenario had bad input and none crashed
    # the good scenario's four outputs exist and are complete
    doc = json.loads((out / "assistant_8b_l4.json").read_text(encoding="utf-8"))
    assert doc["scenario"]["name"] and len(doc["options"]) >= 2
    rows = list(csv.DictReader((out / "assistant_8b_l4.csv").open(encoding="utf-8")))
    assert len(rows) > 10
    import openpyxl

    wb = openpyxl.load_workbook(out / "assistant_8b_l4.xlsx")
    assert "Summary" in wb.sheetnames or "Resumo" in wb.sheetnames
    pdf = (out / "assistant_8b_l4.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF")
    assert not (out / "broken.json").exists()
    assert sorted(p.name for p in out.iterdir()) == [f"assistant_8b_l4.{x}" for x in ("csv", "json", "notes.txt", "pdf", "xlsx")]
    text = capsys.readouterr().out
    assert "broken.toml" in text and "bad input" in text and "TOML syntax error" in text
    assert "2 scenarios: 1 ok, 1 failed" in text


def test_outcomes_in_the_order_given_with_the_error(tmp_path):
    broken = _broken(tmp_path)
    got = batch.run_batch([str(broken), str(GOOD)], str(tmp_path / "o"), ("json",), jobs=2, sensitivity=False)
    assert [o.scenario for o in got] == [str(broken), str(GOOD)]
    assert [o.status for o in got] == [BAD_INPUT, OK]
    assert "broken.toml:2" in got[0].message and got[0].outputs == ()
    assert got[1].outputs == (str(tmp_path / "o" / "assistant_8b_l4.json"),)
    assert got[1].best and got[1].best_tco_brl > 0


def _explode(*args, **kwargs):
    raise RuntimeError("boom in the writer")


@pytest.mark.slow
def test_a_crash_is_exit_1_and_does_not_stop_the_others(tmp_path, monkeypatch, capsys):
    # in-process (jobs 1) so the patched writer is the one used
    calls = []

    def write(res, sha, path, out_dir, formats):
        calls.append(path)
        if "pretrain" in path:
            _explode()
        return []

    monkeypatch.setattr(batch, "_write", write)
    rc = main(["batch", str(ROOT / "scenarios" / "pretrain_burst.toml"), str(GOOD), "-o", str(tmp_path),
               "--jobs", "1", "--formats", "json", "--no-sensitivity"])
    assert rc == 1
    assert len(calls) == 2  # the second scenario ran after the first crashed
    text = capsys.readouterr().out
    assert "crashed" in text and "RuntimeError: boom in the writer" in text


def _die_on_broken(path, *args):
    if "die" in Path(path).name:
        os._exit(9)  # a worker killed mid-run (out of memory, signal)
    return Outcome(path, OK, seconds=0.0)


@pytest.mark.slow
def test_a_dying_worker_takes_no_other_scenario_with_it(tmp_path, monkeypatch):
    paths = [str(tmp_path / f"{n}.toml") for n in ("a", "die", "b", "c")]
    monkeypatch.setattr(batch, "run_one", _die_on_broken)
    got = batch.run_batch(paths, str(tmp_path), ("json",), jobs=2)
    assert [o.status for o in got] == [OK, CRASHED, OK, OK]
    assert "worker process died" in got[1].message
    assert batch.exit_code(got) == 1


def test_same_file_name_twice_is_refused_for_the_second(tmp_path):
    other = tmp_path / "x"
    other.mkdir()
    shutil.copy(GOOD, other / GOOD.name)
    got = batch.run_batch([str(GOOD), str(other / GOOD.name)], str(tmp_path / "o"), ("json",), jobs=1,
                          sensitivity=False)
    assert [o.status for o in got] == [OK, BAD_INPUT]
    assert "same file name as" in got[1].message and str(GOOD) in got[1].message


def test_review_l13_the_same_file_given_twice_runs_once(tmp_path):
    got = batch.run_batch([str(GOOD), str(GOOD)], str(tmp_path / "o"), ("json",), jobs=1, sensitivity=False)
    assert [o.status for o in got] == [OK, BAD_INPUT]
    assert got[1].message == f"given twice (as {GOOD}): it runs once"
    assert [p.name for p in (tmp_path / "o").iterdir()] == [f"{GOOD.stem}.json"]


@pytest.mark.parametrize("statuses,code", [
    ([OK, OK], 0), ([OK, BAD_INPUT], 2), ([OK, CRASHED], 1), ([BAD_INPUT, CRASHED], 1), ([], 0)])
def test_exit_code(statuses, code):
    assert batch.exit_code([Outcome("s.toml", s) for s in statuses]) == code


def test_names_are_printed_literally(tmp_path, capsys):
    odd = tmp_path / "[bold red]x[reverse].toml"
    odd.write_text("not toml at all = = =\n", encoding="utf-8")
    assert main(["batch", str(odd), "-o", str(tmp_path / "o"), "--jobs", "1"]) == 2
    assert "[bold red]x[reverse].toml" in capsys.readouterr().out


def test_batch_help_documents_the_exit_codes(capsys):
    assert main(["batch", "--help"]) == 0
    text = capsys.readouterr().out
    assert "exit codes: 0 all ok, 2 if any scenario had bad input" in text and "1 if any crashed" in text


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["batch", "--help"], ["validate", str(GOOD)]])
def test_help_and_validate_import_no_heavy_library(argv):
    # the batch subcommand's parser is built for every command: it must stay light
    import subprocess
    import sys

    code = ("import sys; from tco.cli import main; rc = main(sys.argv[1:]); "
            "heavy = sorted(m for m in ('matplotlib', 'weasyprint', 'xlsxwriter', 'pandas') if m in sys.modules); "
            "print('HEAVY', heavy); raise SystemExit(rc)")
    done = subprocess.run([sys.executable, "-c", code, *argv], check=False, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout


@pytest.mark.parametrize("argv", [["--jobs", "0"], ["--paths", "0"], ["--seed", "-1"], ["--jobs", "two"]])
def test_bad_numbers_are_exit_2_before_anything_runs(tmp_path, argv, capsys):
    out = tmp_path / "o"
    assert main(["batch", str(GOOD), "-o", str(out), *argv]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "must be" in err or "not a whole number" in err


def test_a_failing_scenario_never_removes_the_shared_output_folder(tmp_path):
    # a fresh output folder, one good and one failing scenario: the good one's file stays
    out = tmp_path / "fresh"
    broken = _broken(tmp_path)
    got = batch.run_batch([str(GOOD), str(broken)], str(out), ("json",), jobs=2, sensitivity=False)
    assert [o.status for o in got] == [OK, BAD_INPUT]
    assert (out / "assistant_8b_l4.json").is_file()
    # and when nothing is written, no empty folder is left behind
    empty = tmp_path / "never"
    batch.run_batch([str(broken)], str(empty), ("json",), jobs=1)
    assert not empty.exists()
