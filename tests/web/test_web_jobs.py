"""The desk's jobs (tco.web.jobs): the answer or the problems of a scenario, and every file of a run, each in a
temporary folder of its own; what `tco validate` and `tco run` say and write for the same text."""

import json
import os
from pathlib import Path

import pytest

from tco.cli import main
from tco.web import jobs

ROOT = Path(__file__).resolve().parents[2]
SMALL = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
SEED = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")


def test_safe_stem_keeps_no_path():
    assert jobs.safe_stem("../../etc/passwd") == "etc_passwd"
    assert jobs.safe_stem("C:\\x\\proposta cliente.toml") == "C_x_proposta_cliente_toml"
    assert jobs.safe_stem("...") == "proposta"
    assert len(jobs.safe_stem("a" * 500)) == 60


def test_problems_are_validates_words(tmp_path, capsys):
    bad = SMALL.replace("tokens_per_second_per_user = ", 'tokens_per_second_per_user = "fast" # ', 1)
    assert bad != SMALL
    got = jobs.check(bad, "mine")
    (tmp_path / "mine.toml").write_text(bad, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["validate", "mine.toml"]) == 2
    finally:
        os.chdir(cwd)
    said = [line.strip() for line in capsys.readouterr().err.splitlines()[1:]]
    assert [p["text"] for p in got["problems"]] == said
    assert got["problems"][0]["key"] == "inference.tokens_per_second_per_user"


@pytest.mark.parametrize("key, line", [("catalog_dir", '[scenario]\ncatalog_dir = "../../etc"'),
                                       ("history_csv", '[fx]\nhistory_csv = "/etc/passwd"')])
def test_a_scenario_naming_another_file_is_refused_before_loading(key, line):
    section = line.split("\n")[0]
    text = SMALL.replace(section, line, 1)
    got = jobs.check(text, "x")
    assert [p["key"].split(".")[-1] for p in got["problems"]] == [key]
    assert "reads no other file" in got["problems"][0]["message"]


def test_the_answer_runs_reduced_paths_and_leaves_no_folder(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    text = SMALL.replace('model = "fixed"', 'model = "gbm"\nvolatility = 0.1\npaths = 2000', 1)
    got = jobs.check(text, "small")
    a = got["answer"]
    assert a["paths"] == jobs.EDIT_PATHS and a["full_paths"] == 2000 and a["reduced"] is True
    assert list(tmp_path.iterdir()) == []  # the job's folder is gone


@pytest.mark.slow
def test_files_are_tco_runs_files(tmp_path, monkeypatch):
    got = jobs.files(SMALL, "small")["files"]
    assert sorted(got) == ["small.csv", "small.json", "small.notes.txt", "small.pdf", "small.toml", "small.xlsx"]
    assert got["small.toml"] == SMALL.encode("utf-8")
    (tmp_path / "small.toml").write_bytes(got["small.toml"])
    monkeypatch.chdir(tmp_path)
    assert main(["run", "small.toml", "-o", "out", "--formats", "json", "--quiet"]) == 0
    assert (tmp_path / "out" / "small.json").read_bytes() == got["small.json"]
    assert json.loads(got["small.json"])["scenario"]["file"] == "small.toml"


@pytest.mark.slow
def test_two_tabs_at_once_never_mix_outputs():
    """Two jobs running together in two workers: each answer and each file set is its own scenario's."""
    a = SMALL.replace('end_users = 1500', 'end_users = 1600', 1)
    b = SMALL.replace('end_users = 1500', 'end_users = 9000', 1).replace('name = "', 'name = "B ', 1)
    assert a != SMALL and b != SMALL
    alone = {k: jobs.check(t, k)["answer"]["ranked"] for k, t in (("a", a), ("b", b))}
    pool = jobs.pool(2)
    try:
        checks = {k: pool.submit(jobs.check, t, k) for k, t in (("a", a), ("b", b))}
        files = {k: pool.submit(jobs.files, t, k) for k, t in (("a", a), ("b", b))}
        together = {k: f.result(timeout=300)["answer"]["ranked"] for k, f in checks.items()}
        docs = {k: json.loads(f.result(timeout=300)["files"][f"{k}.json"]) for k, f in files.items()}
    finally:
        pool.shutdown()
    assert together == alone
    assert alone["a"] != alone["b"]
    assert docs["a"]["scenario"]["file"] == "a.toml" and docs["b"]["scenario"]["name"].startswith("B ")
    assert not docs["a"]["scenario"]["name"].startswith("B ")


def test_an_internal_error_is_said_not_raised(monkeypatch):
    from tco import api
    from tco.errors import InternalError

    def broken(*a, **kw):
        raise InternalError("non-finite amount in option 'x'")

    monkeypatch.setattr(api, "run", broken)
    assert jobs.check(SMALL, "s")["problems"][0]["text"] == "internal error: non-finite amount in option 'x'"
    assert jobs.files(SMALL, "s")["problems"][0]["message"].startswith("internal error:")


def test_a_job_past_its_time_is_stopped_in_the_worker_and_the_timer_cleared():
    """`timed` stops the job itself (SIGALRM in the worker's main thread): a 5 s sleep under a 0.05 s limit comes
    back as the page's problem well before 5 s, and neither the timer nor the handler outlives the job."""
    import signal
    import time

    handler = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    got = jobs.timed(time.sleep, 0.05, 5)
    assert time.monotonic() - t0 < 2.0
    assert got == {"problems": [jobs._internal(jobs.JobTimeout("the job took longer than 0.05 s"))]}
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is handler
    assert jobs.timed(divmod, 5, 7, 2) == (3, 1)  # a job within its time: its own result, the timer cleared
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.slow
def test_a_worker_that_stopped_a_job_serves_the_next_one():
    """The desk's real pool (forkserver, one worker): a job past its time is stopped and the same process answers
    the next job at once (before, a timed-out job kept its worker busy until it ended)."""
    import time

    pool = jobs.pool(1)
    try:
        first = pool.submit(os.getpid).result(timeout=120)
        t0 = time.monotonic()
        stopped = pool.submit(jobs.timed, time.sleep, 0.2, 60).result(timeout=30)
        assert "took longer than 0.2 s" in stopped["problems"][0]["message"] and time.monotonic() - t0 < 10
        assert pool.submit(os.getpid).result(timeout=10) == first
    finally:
        pool.shutdown(cancel_futures=True)
