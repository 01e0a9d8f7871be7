"""Regression tests for the robustness review (reviews/2026-11-robustness.md, defects D1–D20).

Each test is named after the defect it pins. Tests with real processes (concurrent runs, SIGKILL,
SIGINT) use subprocess; the rest call ``tco.cli.main`` in-process.
"""

from __future__ import annotations

import csv
import json
import re
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tco.cli import main
from tco.report.ledger_csv import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
SEED_TEXT = SEED.read_text(encoding="utf-8")
SMALL_TEXT = SMALL.read_text(encoding="utf-8")
FAST = ["--quiet", "--formats", "json", "--no-sensitivity", "--paths", "500"]


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def sub(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text: str, start: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if ln.strip().startswith(start))


def bad(tmp_path, capsys, text: str, *, cmd: str = "validate") -> str:
    f = write(tmp_path, text)
    out = tmp_path / "out"
    args = [cmd, str(f)] + (["-o", str(out)] + FAST if cmd == "run" else [])
    assert main(args) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}


def _spawn(scenario: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tco", "run", str(scenario), "-o", str(out), "--quiet",
                             "--no-sensitivity", "--paths", "500", *extra], env=_env(), cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_temp(out: Path, proc: subprocess.Popen, timeout: float = 120.0) -> Path | None:
    """The run's private temporary folder once it holds a file (the run is writing), else None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        for d in out.glob(f".tco-{proc.pid}-*"):
            if any(d.iterdir()):
                return d
        time.sleep(0.005)
    return None


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


# ---------------------------------------------------------------------------------------------
# D1, D13, D14, D18: outputs under failure, concurrency, kills and interrupts


def _fail_workbook(monkeypatch):
    from tco.report import workbook

    def boom(*a, **k):
        raise OSError(28, "No space left on device", "x.xlsx")

    monkeypatch.setattr(workbook, "write", boom)


@pytest.mark.slow
def test_d1_failed_run_keeps_other_files(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "other_run.json").write_text('{"finished": true}', encoding="utf-8")
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    before = _snapshot(out)
    _fail_workbook(monkeypatch)
    assert main(["run", str(SMALL), "-o", str(out), "--quiet", "--formats", "json,csv,xlsx", "--paths", "500",
                 "--no-sensitivity"]) == 1  # a full disk is the machine's failure, not bad input (review 2026-12 M8)
    assert _snapshot(out) == before  # nothing replaced, nothing deleted
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []  # own temporary folder removed
    assert "No space left" in capsys.readouterr().err


@pytest.mark.slow
def test_d18_failed_run_into_a_new_nested_folder_leaves_no_folders(tmp_path, monkeypatch):
    _fail_workbook(monkeypatch)
    out = tmp_path / "a" / "b" / "c"
    assert main(["run", str(SMALL), "-o", str(out), "--quiet", "--formats", "json,xlsx", "--paths", "500",
                 "--no-sensitivity"]) == 1  # ENOSPC: exit 1 (review 2026-12 M8)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_d1_a_new_folder_that_another_run_filled_is_kept(tmp_path, monkeypatch):
    from tco import output as outputs

    out = tmp_path / "new"
    real = outputs._render

    def render_then_fail(res, v, doc, tmp, stem, formats, scenario_path):
        real(res, v, doc, tmp, stem, formats, scenario_path)
        (out / "someone_else.json").write_text("{}", encoding="utf-8")  # another run finished meanwhile
        raise OSError(5, "I/O error", "x")

    monkeypatch.setattr(outputs, "_render", render_then_fail)
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 1  # EIO: the machine's (review 2026-12 M8)
    assert sorted(p.name for p in out.iterdir()) == ["someone_else.json"]


@pytest.mark.slow
def test_two_concurrent_runs_into_one_folder_both_succeed(tmp_path):
    out = tmp_path / "shared_out"
    other = write(tmp_path, SMALL_TEXT, "other.toml")
    procs = [_spawn(SMALL, out, "--formats", "json,csv"), _spawn(other, out, "--formats", "json,csv"),
             _spawn(SMALL, out, "--formats", "json,csv")]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    names = sorted(p.name for p in out.iterdir())
    assert names == ["assistant_8b_l4.csv", "assistant_8b_l4.json", "other.csv", "other.json"]
    for n in ("assistant_8b_l4.json", "other.json"):
        assert json.loads((out / n).read_text(encoding="utf-8"))["ranking"]


@pytest.mark.slow
def test_d13_run_killed_mid_write_leaves_every_other_file_intact(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(SMALL), "-o", str(out), "--quiet", "--formats", "json,csv", "--paths", "500",
                 "--no-sensitivity"]) == 0
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    before = _snapshot(out)
    proc = _spawn(SMALL, out, "--formats", "json,csv,xlsx")
    tmp = _wait_for_temp(out, proc)
    assert tmp is not None, "the run never started writing"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert _snapshot(out) == before  # the killed run replaced nothing
    assert tmp.exists()  # its temporary folder is left …
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    assert not tmp.exists()  # … and removed by the next run, since its process is gone
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.slow
def test_d14_sigint_during_writing_exits_130_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    proc = _spawn(SMALL, out, "--formats", "json,csv,xlsx")
    tmp = _wait_for_temp(out, proc)
    assert tmp is not None, "the run never started writing"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    lines = err.decode().strip().splitlines()
    assert lines == ["interrupted (Ctrl-C)"]
    assert list(out.iterdir()) == []


@pytest.mark.slow
def test_d14_a_swallowed_interrupt_still_stops_the_files_moving_in(tmp_path, monkeypatch):
    from tco.output import interrupts
    from tco import output as outputs

    real = outputs._render

    def render_then_flag(*a, **k):
        real(*a, **k)
        interrupts._interrupted["flag"] = True  # as if a SIGINT landed where Python ignored the exception

    monkeypatch.setattr(outputs, "_render", render_then_flag)
    out = tmp_path / "out"
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 130
    assert not out.exists()


def test_d13_stale_temp_folders_of_dead_runs_are_cleaned_and_live_ones_kept(tmp_path):
    from tco.output import clean_stale

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".tco-{dead.pid}-abc123"
    stale.mkdir()
    (stale / "x.json").write_text("{}")
    live = tmp_path / f".tco-{os.getpid()}-zzz"
    live.mkdir()
    unrelated = tmp_path / ".tcox"
    unrelated.mkdir()
    assert clean_stale(tmp_path) == [stale]
    assert live.exists() and unrelated.exists()


_KILL_AFTER_JSON = """
import os, signal, sys
real = os.replace
def replace(src, dst):  # the real rename, then SIGKILL right after the JSON is in place: between two renames
    real(src, dst)
    if str(dst).endswith(".json"):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
from tco.cli import main
main(["run", sys.argv[1], "-o", sys.argv[2], "--quiet", "--no-sensitivity", "--paths", "500", "--formats", "json,csv"])
"""


def _generation(folder: Path, stem: str) -> tuple[str, bytes]:
    """(the scenario hash the JSON records, the CSV's bytes) of the set named `stem`."""
    doc = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
    return doc["scenario"]["sha256"], (folder / f"{stem}.csv").read_bytes()


@pytest.mark.slow
def test_d13_a_run_killed_between_two_renames_is_rolled_forward_not_left_mixed(tmp_path):
    """A SIGKILL after the commit point, between moving the JSON and the CSV in, leaves the new JSON beside the
    old CSV for a moment; the next run into the folder (here with another scenario) finishes the killed run's
    generation before doing anything else, so the set is the killed run's, whole, and nothing else moved."""
    old = write(tmp_path, SMALL_TEXT, "s.toml")
    new_dir = tmp_path / "new"
    new_dir.mkdir()
    new = write(new_dir, SMALL_TEXT.replace("horizon_months = 24", "horizon_months = 30"), "s.toml")
    assert "horizon_months = 24" in SMALL_TEXT
    ref, out = tmp_path / "ref", tmp_path / "out"
    fast = ["--quiet", "--no-sensitivity", "--paths", "500", "--formats", "json,csv"]
    assert main(["run", str(new), "-o", str(ref)] + fast) == 0  # what the killed run would have written
    assert main(["run", str(old), "-o", str(out)] + fast) == 0
    want_old, want_new = _generation(out, "s"), _generation(ref, "s")
    assert want_old[0] != want_new[0] and want_old[1] != want_new[1]
    proc = subprocess.run([sys.executable, "-c", _KILL_AFTER_JSON, str(new), str(out)], env=_env(), cwd=str(ROOT),
                          capture_output=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    got = _generation(out, "s")
    assert got[0] == want_new[0] and got[1] == want_old[1]  # killed mid-publish: mixed for now …
    assert len(list(out.glob(".tco-*"))) == 1
    other = write(tmp_path, SMALL_TEXT, "other.toml")
    assert main(["run", str(other), "-o", str(out)] + fast) == 0  # … any next run into the folder finishes it
    assert _generation(out, "s") == want_new
    assert list(out.glob(".tco-*")) == []
    assert sorted(p.name for p in out.iterdir()) == ["other.csv", "other.json", "s.csv", "s.json"]


def test_d13_clean_stale_rolls_a_committed_generation_forward_and_trusts_only_plain_names(tmp_path):
    from tco.output import clean_stale
    from tco.output.publish import COMMIT

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    tmp = tmp_path / f".tco-{dead.pid}-abc123"
    tmp.mkdir()
    (tmp_path / "s.json").write_text("old json")
    (tmp_path / "s.csv").write_text("old csv")
    (tmp / "s.csv").write_text("new csv")  # the JSON had been moved in already
    (tmp_path / "s.json").write_text("new json")
    (tmp / "evil").write_text("x")
    (tmp / COMMIT).write_text(json.dumps({"files": ["s.json", "s.csv", "../escape", ".hidden", "evil/../x"]}))
    assert clean_stale(tmp_path) == [tmp]
    assert (tmp_path / "s.csv").read_text() == "new csv" and (tmp_path / "s.json").read_text() == "new json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv", "s.json"]
    assert not (tmp_path.parent / "escape").exists()


@pytest.mark.slow
def test_d13_concurrent_runs_of_one_name_publish_whole_sets(tmp_path):
    """Three different scenarios, all named s.toml, run at once into one folder: they publish one after the
    other under the folder lock, so the set left is one scenario's JSON with that same scenario's CSV."""
    fast = ["--quiet", "--no-sensitivity", "--paths", "500", "--formats", "json,csv"]
    want, scenarios = {}, []
    for months in (24, 30, 18):
        d = tmp_path / f"m{months}"
        d.mkdir()
        f = write(d, SMALL_TEXT.replace("horizon_months = 24", f"horizon_months = {months}"), "s.toml")
        assert main(["run", str(f), "-o", str(d / "ref")] + fast) == 0
        sha, csv_bytes = _generation(d / "ref", "s")
        want[sha] = csv_bytes
        scenarios.append(f)
    assert len(want) == 3
    out = tmp_path / "out"
    procs = [_spawn(f, out, "--formats", "json,csv") for f in scenarios]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    assert sorted(p.name for p in out.iterdir()) == ["s.csv", "s.json"]
    sha, csv_bytes = _generation(out, "s")
    assert want[sha] == csv_bytes


@pytest.mark.parametrize("args,fragment", [
    (["-o", ""], "output folder name is empty"),
    (["-o", "   "], "output folder name is empty"),
    (["--formats", ","], "no format given"),
    (["--formats", "json,docx"], "unknown format"),
])
def test_d18_output_arguments_are_checked(tmp_path, capsys, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    argv = ["run", str(SMALL), "--quiet"] + args
    if "-o" not in args:
        argv += ["-o", str(tmp_path / "out")]
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_d18_a_scenario_named_dot_toml_is_refused(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT, "..toml")
    assert main(["run", str(f), "-o", str(tmp_path / "out")] + FAST) == 2
    assert "rename the file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# D2, D6, D9: text is text


FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "=1+1"]


@pytest.mark.slow
def test_d2_csv_neutralises_formula_names_and_keeps_rows_whole(tmp_path):
    from tco.report.ledger_csv import text_cell

    assert text_cell("=1+1") == "'=1+1"
    assert text_cell("\t=TAB") == "'\t=TAB"
    assert text_cell("\r=CR") == "'\r=CR"
    assert text_cell("Dedicado BR") == "Dedicado BR"
    text = SMALL_TEXT
    names = [ln.split("=", 1)[1].strip() for ln in text.splitlines() if ln.startswith("name =")][1:]
    for old, new in zip(names, FORMULAS):
        text = sub(text, f"name = {old}", f"name = {json.dumps(new)}")
    f = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "csv", "--no-sensitivity",
                 "--paths", "500"]) == 0
    raw = (out / "s.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(raw.splitlines()))
    seen = {r["x_Option"] for r in rows}
    for name in FORMULAS[:len(names)]:
        assert "'" + name in seen
    for r in rows:  # every row is whole and no text cell starts a formula
        assert len(r) == len(COLUMNS) == 18 and None not in r  # x_TaxComponent beside the 17 of before
        for k in ("x_Option", "ProviderName", "ResourceType"):
            assert not r[k].startswith(("=", "+", "-", "@", "\t", "\r"))
    for line in raw.splitlines()[1:]:
        assert '"' + "'" in line or "=" not in line.split(",")[12]


@pytest.mark.parametrize("bad_name", ["A\x00B", "A\x1b]0;PWNED\x07", "tab\there", "line\nbreak", "cr\rhere",
                                      "bidi\u202eevil", "\x9bC1"])
def test_d6_control_characters_in_names_are_rejected_with_line_and_key(tmp_path, capsys, bad_name):
    text = sub(SMALL_TEXT, 'name = "Dedicado BR — 4x L4"', f"name = {json.dumps(bad_name)}")
    err = bad(tmp_path, capsys, text, cmd="run")
    assert f"s.toml:{line_of(text, 'name = ' + json.dumps(bad_name)[:4])}:" in err
    assert "[options[0].name]" in err and "control character" in err


@pytest.mark.slow
def test_d6_notes_may_hold_line_breaks_and_reach_the_json(tmp_path):
    text = sub(SMALL_TEXT, "[model]", 'notes = """first line\nsecond\tline"""\n\n[model]')
    f = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out)] + FAST) == 0
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    assert doc["scenario"]["notes"] == "first line\nsecond\tline"


@pytest.mark.slow
def test_d9_terminal_prints_names_literally(tmp_path, capsys):
    from tco.report.terminal import plain

    assert plain("[link=http://evil.example]clk[/link]") == "\\[link=http://evil.example]clk\\[/link]"
    assert plain("A\x1b]0;T\x07") == "A\\x1b]0;T\\x07"
    text = sub(SMALL_TEXT, 'name = "Dedicado BR — 4x L4"', 'name = "[bold red]RICH[/] clk"')
    f = write(tmp_path, text)
    assert main(["run", str(f), "-o", str(tmp_path / "out"), "--formats", "json", "--no-sensitivity",
                 "--paths", "500"]) == 0
    out = capsys.readouterr().out
    assert "[bold red]RICH[/] clk" in out
    assert "\x1b" not in out


# ---------------------------------------------------------------------------------------------
# D3, D10, D11, D16, D17: finite, bounded, strict


NON_FINITE = [
    ("storage_gb = 2000", "inference.storage_gb"),
    ("usdbrl = 5.40", "fx.usdbrl"),
    ("discount_rate = 0.14", "scenario.discount_rate"),
    ("requests_per_user_per_day = 30", "inference.requests_per_user_per_day"),
]


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e308"])
@pytest.mark.parametrize("old,key", NON_FINITE, ids=[k for _, k in NON_FINITE])
def test_d3_non_finite_and_huge_numbers_are_rejected(tmp_path, capsys, old, key, value):
    name, _ = old.split(" = ")
    text = sub(SEED_TEXT, old, f"{name} = {value}")
    err = bad(tmp_path, capsys, text)
    assert f"s.toml:{line_of(text, name + ' =')}:" in err and f"[{key}]" in err
    if value in ("inf", "-inf", "nan"):
        assert "finite" in err
    else:
        assert "less than or equal to" in err  # the limit is named


def test_d3_percent_hint_only_for_numbers_that_look_like_percents(tmp_path, capsys):
    err = bad(tmp_path, capsys, sub(SEED_TEXT, "discount_rate = 0.14", "discount_rate = nan"))
    assert "looks like a percent" not in err
    err = bad(tmp_path, capsys, sub(SEED_TEXT, "discount_rate = 0.14", "discount_rate = 14"))
    assert "0.14 for 14 %" in err


def test_d3_json_writer_refuses_nan_money(tmp_path):
    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.errors import InternalError
    from tco.output import write_outputs
    from tco.scenario import load

    s, sha, lines = load(SMALL)
    res = run_scenario(s, load_catalog(), lines=lines, simulate=False)
    o = res.options[0]
    broken = replace(res, options=[replace(o, tco=replace(o.tco, mean=float("nan")))] + res.options[1:])
    out = tmp_path / "out"
    with pytest.raises(InternalError, match=r"tco_brl\.mean is nan"):
        write_outputs(broken, out, "s", ["json", "csv"], sha=sha, scenario_path=str(SMALL))
    assert not out.exists()


def test_d10_paths_is_capped_like_fx_paths(tmp_path, capsys):
    assert main(["run", str(SMALL), "-o", str(tmp_path / "o"), "--paths", "100000000", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "10,000,000" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("start", ["0000-01", "1989-12", "2201-01", "9999-12"])
def test_d11_start_year_is_bounded(tmp_path, capsys, start):
    text = sub(SEED_TEXT, 'start = "2027-01"', f'start = "{start}"')
    err = bad(tmp_path, capsys, text, cmd="run")
    assert f"s.toml:{line_of(text, 'start =')}: [scenario.start]" in err and "1990" in err and "2200" in err


@pytest.mark.parametrize("old,new,key", [
    ("horizon_months = 36", 'horizon_months = "36"', "scenario.horizon_months"),
    ("horizon_months = 36", "horizon_months = 36.0", "scenario.horizon_months"),
    ("usdbrl = 5.40", 'usdbrl = "5.40"', "fx.usdbrl"),
])
def test_d16_strict_types(tmp_path, capsys, old, new, key):
    err = bad(tmp_path, capsys, sub(SEED_TEXT, old, new))
    assert f"[{key}]" in err


def test_d16_autoscale_text_is_not_a_boolean(tmp_path, capsys):
    text = sub(SMALL_TEXT, "autoscale = true", 'autoscale = "no "')
    err = bad(tmp_path, capsys, text)
    assert "autoscale]" in err and "true or false" in err


@pytest.mark.parametrize("old,new,fragment", [
    ("target_days = 14", "target_days = 1e-9", "greater than or equal to 0.1"),
    ("end_users = 1500", "end_users = 1e12", "less than or equal to 10000000000"),
    ('name = "Dedicado BR — 4x L4"', 'name = "   "', "visible character"),
    ('name = "Dedicado BR — 4x L4"', f'name = "{"N" * 201}"', "at most 200 characters"),
])
def test_d17_implausible_inputs_are_refused(tmp_path, capsys, old, new, fragment):
    text = SMALL_TEXT if old in SMALL_TEXT else SEED_TEXT
    err = bad(tmp_path, capsys, sub(text, old, new))
    assert fragment in err


def test_d17_plausibility_warnings():
    from tco.scenario import load_text, plausibility

    text = sub(SMALL_TEXT, 'users = { model = "linear", start_users = 300, end_users = 1500 }',
               'users = { model = "logistic", start_users = 3000, ceiling_users = 2000 }')
    notices = plausibility(load_text(text))
    assert any(n.code == "users_ceiling_below_start" and n.params == {"ceiling": 2000, "start": 3000} for n in notices)
    from tco.report.notices import line

    assert "(2,000) is below the starting users (3,000)" in line(notices[0], "en")


# ---------------------------------------------------------------------------------------------
# D4: infeasible is not a price


def _tps(tmp_path, tps: int) -> Path:
    """The L4 example at `tps` tokens/s per user: at 40 the 4x L4 server reaches it (40.6) and the single L4s do
    not (30.9), since issue 21's serving model (at 30 all four reached it)."""
    return write(tmp_path, sub(SMALL_TEXT, "tokens_per_second_per_user = 15", f"tokens_per_second_per_user = {tps}"))


@pytest.mark.slow
def test_d4_infeasible_option_is_not_ranked(tmp_path):
    f = _tps(tmp_path, 40)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "json", "--paths", "500"]) == 0
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    feas = {o["name"]: o for o in doc["options"] if o["feasible"]}
    infeas = {o["name"]: o for o in doc["options"] if not o["feasible"]}
    assert feas and infeas
    for o in infeas.values():
        assert o["achieved_tokens_per_second_per_user"] < 40
        assert doc["probability_cheapest"][o["name"]] == 0.0
    for o in feas.values():
        assert o["achieved_tokens_per_second_per_user"] >= 40 - 1e-9
    assert sorted(doc["ranking"]) == sorted(feas) and sorted(doc["infeasible"]) == sorted(infeas)
    assert doc["cheapest"] in feas
    comparators = [r["option"] for r in doc["breakevens"]["usdbrl"]] + \
        [r["versus"] for r in doc["breakevens"]["usdbrl"] + doc["breakevens"]["payback"]]
    assert not set(comparators) & set(infeas)
    assert doc["sensitivity"]["leaders"]["leader"] in feas
    assert doc["sensitivity"]["leaders"]["challenger"] in (None, *feas)
    assert any("infeasible" in w for w in doc["warnings"])


def test_d4_rankable_uses_target_met():
    from tco.engine import rankable

    class R:
        def __init__(self, met):
            self.target_met = met

    class Resolved:
        breaches = ()  # within the client's constraints

    from tco.engine import OptionResult

    opts = [OptionResult.__new__(OptionResult) for _ in range(3)]
    for o, met in zip(opts, (True, False, True)):
        object.__setattr__(o, "replica", R(met))
        object.__setattr__(o, "resolved", Resolved())
    assert rankable(opts) == [opts[0], opts[2]]
    assert [o.feasible for o in opts] == [True, False, True]


def test_d4_no_feasible_option_is_exit_2_with_line(tmp_path, capsys):
    f = _tps(tmp_path, 500)
    assert main(["run", str(f), "-o", str(tmp_path / "out")] + FAST) == 2
    err = capsys.readouterr().err
    text = f.read_text(encoding="utf-8")
    assert f"s.toml:{line_of(text, 'tokens_per_second_per_user')}: [inference.tokens_per_second_per_user]" in err
    assert "no option meets" in err and "tokens/s per user" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_d4_workbook_and_terminal_mark_infeasible_options(tmp_path, capsys):
    import openpyxl

    f = _tps(tmp_path, 40)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--formats", "xlsx", "--no-sensitivity", "--paths", "500"]) == 0
    term = capsys.readouterr().out
    assert re.search(r"inviável: \d+,\d tokens/s por usuário", term)  # the scenario's locale is pt-BR
    wb = openpyxl.load_workbook(out / "s.xlsx", data_only=True)
    ws = wb["Comparação"]
    rows = [r for r in ws.iter_rows(min_row=4, max_row=7, values_only=True)]
    by_rank = {r[1]: r[5] for r in rows}
    assert sorted(v for v in by_rank.values() if v != "inviável") == [1]
    assert list(by_rank.values()).count("inviável") == 3


# ---------------------------------------------------------------------------------------------
# D5: the catalog overlay is validated


DED_HEAD = ("offer_id,provider,gpu,gpu_count,brl_per_month,setup_fee_brl,min_term_months,indexation,status,"
            "derivation,source,as_of\n")


@pytest.mark.parametrize("file,body,key,fragment,line", [
    ("dedicated_offers.csv", DED_HEAD + "br-dedicated/sp/l4-4x,br-dedicated,L4,4,-5000,0,1,ipca,x,y,z,2026-11\n",
     "brl_per_month", "> 0", 2),
    ("dedicated_offers.csv", DED_HEAD + "br-dedicated/sp/l4-4x,br-dedicated,L4,0,5000,0,1,ipca,x,y,z,2026-11\n",
     "gpu_count", "≥ 1", 2),
    ("dedicated_offers.csv", DED_HEAD + "br-dedicated/sp/l4-4x,br-dedicated,L4,4,nan,0,1,ipca,x,y,z,2026-11\n",
     "brl_per_month", "finite", 2),
    ("dedicated_offers.csv", DED_HEAD + "br-dedicated/sp/l4-4x,br-dedicated,L4,4,inf,0,1,ipca,x,y,z,2026-11\n",
     "brl_per_month", "finite", 2),
    ("gpus.csv", "gpu,memory_gb,bandwidth_tbs,bf16_dense_tflops,source,as_of\nL4,-24,0.3,121,s,2026\n",
     "memory_gb", "> 0", 2),
    ("models.csv", "model,params_b,active_params_b,layers,kv_heads,head_dim,source,as_of\nm,8,8,0,8,128,s,2026\n",
     "layers", "whole number ≥ 1", 2),
    ("tax_profiles.toml", '[profiles.x]\nirrf_rate = "quinze"\n', "profiles.x.irrf_rate", "fraction", None),
    ("defaults.toml", "training = 3\n", "training", "table", None),
])
def test_d5_catalog_overlay_numbers_are_range_checked(tmp_path, capsys, file, body, key, fragment, line):
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / file).write_text(body, encoding="utf-8")
    text = sub(SMALL_TEXT, "[model]", 'catalog_dir = "cat"\n\n[model]')
    err = bad(tmp_path, capsys, text, cmd="run")
    where = f"{cat / file}:{line}:" if line else f"{cat / file}:"
    assert where in err and f"[{key}]" in err and fragment in err, err


def test_d5_catalog_decoding_errors_are_located(tmp_path, capsys):
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "gpus.csv").write_bytes(b"gpu,memory_gb,bandwidth_tbs,bf16_dense_tflops,source,as_of\nL4,24,0.3,121,S\xe3o,2026\n")
    err = bad(tmp_path, capsys, sub(SMALL_TEXT, "[model]", 'catalog_dir = "cat"\n\n[model]'))
    assert f"{cat / 'gpus.csv'}:2:" in err and "UTF-8" in err


def test_d5_catalog_dir_without_catalog_files_warns(tmp_path, capsys):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root:x:0:0", encoding="utf-8")
    f = write(tmp_path, sub(SMALL_TEXT, "[model]", 'catalog_dir = "etc"\n\n[model]'))
    assert main(["validate", str(f)]) == 0
    assert "não tem nenhum arquivo de catálogo" in capsys.readouterr().err  # notice catalog_dir_empty, in pt-BR


def test_d5_fits_on_no_gpu_does_not_suggest_fp8_when_already_fp8(tmp_path, capsys):
    text = sub(SMALL_TEXT, 'id = "llama-3.1-8b"', 'id = "llama-3.1-405b"')  # fp8 already; 405 GB on 4 × 24 GB
    f = write(tmp_path, text)
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert "fits on no GPU count" in err and "model.precision = 'fp8'" not in err


# ---------------------------------------------------------------------------------------------
# D7: workbook checks


@pytest.mark.slow
def test_d7_workbook_checks_cache_their_real_result(tmp_path):
    import openpyxl

    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.report import view, workbook
    from tco.scenario import load

    s, sha, lines = load(SMALL)
    res = run_scenario(s, load_catalog(), lines=lines, simulate=False)
    o = res.options[0]
    setup = o.costs.lines["setup"].copy()
    setup[0] = -100.0  # a negative cost the engine must never produce: the check must say FALSE
    costs = replace(o.costs, lines={**o.costs.lines, "setup": setup})
    broken = replace(res, options=[replace(o, costs=costs)] + res.options[1:])
    workbook.write(broken, view.build(res), tmp_path / "w.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "w.xlsx", data_only=True)
    cached = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, bool)]
    assert False in cached  # the sign check and the master check are cached FALSE, not a hard-coded TRUE
    good = tmp_path / "g.xlsx"
    workbook.write(res, view.build(res), good)
    wb = openpyxl.load_workbook(good, data_only=True)
    cached = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, bool)]
    assert cached and all(cached)


# ---------------------------------------------------------------------------------------------
# D8, D19: size and time


def test_d8_long_values_map_lines_in_linear_time():
    from tco.scenario import key_lines

    for n in (100_000, 1_000_000):
        text = SEED_TEXT.replace('name = "Dedicado BR — 8x H200"', f'name = "{"A" * n}"', 1)
        t0 = time.perf_counter()
        lines = key_lines(text)
        assert time.perf_counter() - t0 < 1.0
        assert lines[("options", 0, "name")] == line_of(text, 'name = "AAA')
    inline = key_lines('[inference]\nusers = { model = "logistic", start_users = 10, ceiling_users = 20 }\n')
    assert inline[("inference", "users", "start_users")] == 2 and inline[("inference", "users", "ceiling_users")] == 2


def test_d8_long_names_are_refused_quickly(tmp_path, capsys):
    text = SEED_TEXT.replace('name = "Dedicado BR — 8x H200"', f'name = "{"A" * 100_000}"', 1)
    t0 = time.perf_counter()
    err = bad(tmp_path, capsys, text)
    assert time.perf_counter() - t0 < 10.0
    assert "[options[0].name]" in err and "200 characters" in err
    assert "(100,000 characters)" in err and len(err) < 1000  # the value is not echoed in full


def test_d19_scenario_must_be_a_small_regular_file(tmp_path, capsys):
    for path, fragment in (("/dev/zero", "not a regular file"), (str(tmp_path), "a folder")):
        assert main(["validate", path]) == 2
        assert fragment in capsys.readouterr().err
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    assert main(["validate", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    big = tmp_path / "big.toml"
    big.write_text(SEED_TEXT + "\n#" + "x" * 1_100_000 + "\n", encoding="utf-8")
    assert main(["validate", str(big)]) == 2
    assert "1,000,000" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# D12, D15: validate and messages


@pytest.mark.parametrize("body,fragment", [
    (b"month,usdbrl\n2020-01,4.0\n2020-02,inf\n", "finite"),
    (b"month,usdbrl\n2020-01,4.0\n2020-02,\xe94\n", "not UTF-8"),
    (None, "needs columns"),
])
def test_d12_validate_checks_the_fx_history(tmp_path, capsys, body, fragment):
    hist = tmp_path / "h.csv"
    if body is None:
        hist.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    else:
        hist.write_bytes(body)
    text = sub(SEED_TEXT, 'model = "gbm"', 'model = "bootstrap"\nhistory_csv = "h.csv"')
    err = bad(tmp_path, capsys, text)
    assert "h.csv" in err and fragment in err


def test_d15_a_byte_order_mark_is_accepted(tmp_path, capsys):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + SMALL_TEXT.encode("utf-8"))
    assert main(["validate", str(f)]) == 0


def test_d15_duplicate_option_names_have_a_line(tmp_path, capsys):
    text = sub(SMALL_TEXT, 'name = "AWS São Paulo — g6.xlarge (L4)"', 'name = "Dedicado BR — 4x L4"')
    err = bad(tmp_path, capsys, text)
    lines = [i for i, ln in enumerate(text.splitlines(), 1) if ln.strip() == 'name = "Dedicado BR — 4x L4"']
    assert f"s.toml:{lines[1]}: [options[1].name]" in err and "unique" in err


def test_d15_key_in_the_wrong_section_names_its_section(tmp_path, capsys):
    err = bad(tmp_path, capsys, sub(SEED_TEXT, "horizon_months = 36", "horizon_months = 36\nusdbrl = 5.0"))
    assert "[scenario.usdbrl]" in err and "belongs in [fx]" in err


def test_d15_bad_daily_profile_is_one_plain_message(tmp_path, capsys):
    err = bad(tmp_path, capsys, sub(SEED_TEXT, 'daily_profile = "business_hours"', 'daily_profile = "busy"'))
    assert "1 problem in the input" in err and "literal[" not in err and "list[" not in err
    assert "'flat', 'business_hours' or a list of 24" in err


def test_d15_section_key_after_a_table_explains_toml(tmp_path, capsys):
    text = sub(SEED_TEXT, "[[options]]", "options = []\n\n[[options]]")
    err = bad(tmp_path, capsys, text)
    assert "[fx.options]" in err and "[[options]] table" in err


def test_d15_unwritable_output_folder_names_the_folder(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root can write into a read-only folder")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert main(["run", str(SMALL), "-o", str(ro)] + FAST) == 2
        err = capsys.readouterr().err
        assert f"{ro}: output folder is not writable" in err and ".tco-" not in err
    finally:
        ro.chmod(0o755)


# ---------------------------------------------------------------------------------------------
# D20


def test_d20_offers_with_no_match_says_so(capsys):
    assert main(["offers", "--gpu", "NO-SUCH-GPU"]) == 0
    out = capsys.readouterr().out
    assert "no offer uses a GPU matching 'NO-SUCH-GPU'" in out and "H200" in out


def test_seed_11_with_20000_paths_draws_the_proposal_chart():
    """A deterministic value outside its own P5–P95 band draws (the whisker spans the band itself)."""
    from tco.report.proposal import charts

    svg = charts.tco_bars(["a", "b"], [100.0, 200.0], [(110.0, 130.0), (150.0, 250.0)], "en", lambda k: "BRL",
                          "P5–P95")
    assert "<svg" in (svg["svg"] if isinstance(svg, dict) else svg)


@pytest.mark.slow
def test_finite_totals_are_non_negative_on_the_examples(tmp_path):
    for sc in sorted((ROOT / "scenarios").glob("*.toml")):
        assert main(["run", str(sc), "-o", str(tmp_path)] + FAST) == 0
        doc = json.loads((tmp_path / f"{sc.stem}.json").read_text(encoding="utf-8"))
        for o in doc["options"]:
            vals = np.array([o["tco_brl"][k] for k in ("deterministic", "mean", "p5", "p50", "p95")])
            assert np.isfinite(vals).all() and (vals >= 0).all()


@pytest.mark.slow
def test_d15_permission_denied_names_the_output_folder_not_the_temp_folder(tmp_path, capsys, monkeypatch):
    from tco import output as outputs

    def denied(prefix, dir):
        raise PermissionError(13, "Permission denied", str(Path(dir) / f"{prefix}abcd"))

    monkeypatch.setattr(outputs.tempfile, "mkdtemp", denied)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 2
    err = capsys.readouterr().err
    assert f"error: {out}: output folder is not writable (Permission denied)" in err and ".tco-" not in err


@pytest.mark.slow
def test_d3_a_nan_result_is_exit_1_with_one_line_and_nothing_written(tmp_path, capsys, monkeypatch):
    from tco import analysis

    real = analysis.enrich

    def nan_total(res, sensitivity=True):
        res = real(res, sensitivity=sensitivity)
        o = res.options[0]
        return replace(res, options=[replace(o, tco=replace(o.tco, deterministic=float("nan")))] + res.options[1:])

    monkeypatch.setattr(analysis, "enrich", nan_total)
    out = tmp_path / "out"
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("internal error: option") and "tco_brl.deterministic is nan" in err[0]
    assert not out.exists()


def test_cost_per_million_tokens_is_finite_or_none():
    from tco.finance import cost_per_million_tokens

    assert cost_per_million_tokens(1000.0, 2e6) == 1000.0 / (2e6 / 1e6)  # = 500 BRL per million tokens
    assert cost_per_million_tokens(1000.0, 0.0) is None
    assert cost_per_million_tokens(1000.0, 1e-308) is None  # 1000 / 1e-314 overflows: no meaningful figure


def _no_workload(users: str) -> str:
    text = sub(SMALL_TEXT, 'users = { model = "linear", start_users = 300, end_users = 1500 }', users)
    return sub(sub(text, 'method = "lora"', 'method = "none"'), "storage_gb = 200", "storage_gb = 0")


def test_a_scenario_with_nothing_to_cost_is_exit_2(tmp_path, capsys):
    text = _no_workload('users = { model = "linear", start_users = 0, end_users = 0 }')
    err = bad(tmp_path, capsys, text, cmd="run")
    assert f"s.toml:{line_of(text, 'users =')}: [inference.users] nothing to cost" in err


@pytest.mark.slow
def test_a_fraction_of_a_user_gives_finite_outputs(tmp_path):
    from tco.report import fmt

    assert fmt.money(3e302, "pt-BR") == "R$ " + fmt.scientific(3e302, "pt-BR")  # beyond babel's decimal precision
    text = _no_workload('users = { model = "linear", start_users = 1e-300, end_users = 1e-300 }')
    f = write(tmp_path, text)
    assert main(["run", str(f), "-o", str(tmp_path / "out"), "--quiet", "--formats", "json,csv", "--paths", "200"]) == 0
    doc = json.loads((tmp_path / "out" / "s.json").read_text(encoding="utf-8"))
    for o in doc["options"]:
        cpm = o["cost_per_million_tokens_brl"]
        assert cpm is None or (np.isfinite(cpm) and cpm > 0)
        assert np.isfinite(o["tco_brl"]["deterministic"]) and o["tco_brl"]["deterministic"] > 0


@pytest.mark.slow
def test_d4_the_proposal_never_recommends_an_infeasible_option(tmp_path):
    f = _tps(tmp_path, 40)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "json,pdf", "--no-sensitivity",
                 "--paths", "500"]) == 0
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    text = subprocess.run(["pdftotext", "-layout", str(out / "s.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    flat = " ".join(text.split())
    assert "Fora da comparação por não atingirem a velocidade exigida de 40 tokens/s por usuário" in flat
    from tco.report import fmt

    speeds = {o["name"]: o["achieved_tokens_per_second_per_user"] for o in doc["options"]}
    from tco.scenario import load

    label = {o.name: o.label or o.name for o in load(str(f))[0].options}  # the proposal shows short labels
    for name in doc["infeasible"]:
        assert f"{label[name]} (atinge {fmt.number(speeds[name], 'pt-BR', 1)} tokens/s)" in flat
    assert label[doc["cheapest"]] in flat
