"""tco.cli.workers: the batch's workers end with it; SIGINT and SIGTERM to the batch process stop it in seconds with
exit 130 or 143, a summary of what finished, and no process left (review 2026-12 M6). The signal tests run a real
batch in its own session and look for any process of that session afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tco.cli import workers
from tco.output import interrupts

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"


@pytest.fixture(autouse=True)
def clear_flag():
    """The interrupt flag of tco.output.interrupts cleared after each test (the hold sets it, and a flag left set would
    stop every later write of this process)."""
    yield
    interrupts._interrupted["flag"] = False


def test_guarded_runs_the_function_and_says_so():
    interrupts._interrupted["flag"] = False
    assert workers.guarded(lambda a, b: a + b, 2, 3) == ("done", 5)


def test_guarded_after_a_sigint_runs_nothing():
    interrupts._interrupted["flag"] = True
    try:
        assert workers.guarded(lambda: pytest.fail("ran after the interrupt")) == ("interrupted", False)
    finally:
        interrupts._interrupted["flag"] = False


def test_guarded_turns_an_interrupt_while_running_into_interrupted():
    interrupts._interrupted["flag"] = False

    def interrupted_midway():
        raise KeyboardInterrupt

    assert workers.guarded(interrupted_midway) == ("interrupted", True)


def test_stop_signals_raise_sigterm_as_keyboard_interrupt_and_remember_it():
    with workers.stop_signals() as got:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs at the next bytecode
    assert got["signal"] == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def test_stop_signals_let_the_hold_of_the_renames_keep_a_sigterm_back():
    """While files are renamed into place (interrupts.sigint_deferred) a SIGTERM waits like a SIGINT."""
    with workers.stop_signals() as got:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.sigint_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)
                renamed = True  # reached: the signal was held
    assert renamed and got["signal"] == signal.SIGTERM


# ---------------------------------------------------------------------------------------------
# real processes


def _session_pids(sid: int) -> list[int]:
    """Every live process of session `sid` (the batch started as a session leader), zombies left out."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # fields: state ppid pgrp session …
            out.append(int(d.name))
    return out


def _start_batch(tmp_path: Path, n: int = 8, jobs: int = 2):
    text = SMALL.read_text(encoding="utf-8")
    files = []
    for i in range(n):
        f = tmp_path / f"s{i:02d}.toml"
        f.write_text(text, encoding="utf-8")
        files.append(str(f))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tco", "batch", *files, "--jobs", str(jobs), "-o", str(out),
                             "--formats", "json", "--no-sensitivity", "--paths", "200"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (out.is_dir() and any(out.glob("*.json"))):
        time.sleep(0.1)  # wait for a first scenario written: the workers are busy
    assert proc.poll() is None, proc.communicate()
    return proc, out


def _stop(proc, sig) -> tuple[int, str, str, float]:
    t0 = time.monotonic()
    os.kill(proc.pid, sig)  # the main process only, not the group
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        left = _session_pids(proc.pid)
        for pid in left:  # never leave them on the machine, whatever the test says
            os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes left behind: {left}"
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - t0


def _check_outputs(out: Path) -> None:
    import json

    assert not list(out.glob(".tco-*")), "a temporary folder was left"
    for f in out.glob("*.json"):
        json.loads(f.read_text(encoding="utf-8"))  # whole


@pytest.mark.slow  # a real batch in its own session
def test_m6_batch_sigterm_leaves_no_worker(tmp_path):
    proc, out = _start_batch(tmp_path)
    code, stdout, stderr, took = _stop(proc, signal.SIGTERM)
    assert code == 143, stderr
    assert took < STOP_BOUND
    assert "interrupted (SIGTERM):" in stderr and "of 8 scenarios finished" in stderr and "Traceback" not in stderr
    assert "interrupted" in stdout  # the summary names what did not finish
    _check_outputs(out)


@pytest.mark.slow  # a real batch in its own session
def test_m6_batch_sigint_stops_scheduling_and_exits_130(tmp_path):
    proc, out = _start_batch(tmp_path, n=12)
    code, stdout, stderr, took = _stop(proc, signal.SIGINT)
    assert code == 130, stderr
    assert took < STOP_BOUND
    assert "interrupted (Ctrl-C):" in stderr and "Traceback" not in stderr
    finished = int(stderr.split("interrupted (Ctrl-C): ")[1].split(" of")[0])
    # the rest was not run: a scenario stopped while its files were being renamed into place finishes the renames
    # (whole, reported as stopped), so up to one per worker more than the finished ones may be there
    assert finished < 12 and finished <= len(list(out.glob("*.json"))) <= finished + 2
    _check_outputs(out)


@pytest.mark.slow  # a real batch in its own session
def test_m6_batch_in_one_process_stops_on_sigterm_with_143(tmp_path):
    proc, out = _start_batch(tmp_path, n=4, jobs=1)
    code, stdout, stderr, took = _stop(proc, signal.SIGTERM)
    assert code == 143 and "interrupted (SIGTERM):" in stderr and "of 4 scenarios finished" in stderr
    assert took < STOP_BOUND
    _check_outputs(out)


STOP_BOUND = workers.STOP_SECONDS + 10.0
"""A stopped batch ends within the workers' grace time plus the summary (the machine's 2 cores are shared)."""
