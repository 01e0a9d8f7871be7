"""The sales desk's work, done in worker processes: check and answer a scenario (Monte Carlo reduced), or run it
in full and write its files through ``tco.write``.

Each job gets a fresh temporary folder, writes the scenario there as ``<stem>.toml``, works inside it (the
worker's current folder, so the JSON names the file ``<stem>.toml`` exactly as `tco run <stem>.toml` does in
the folder it is downloaded to) and removes it before it returns. A worker runs one job at a time, so two
browser tabs never share a folder; what comes back to the server is the answer's text or the files' bytes.
No path from the form reaches the file system: the stem is reduced to safe characters, and a scenario that names
another file (``catalog_dir``, ``history_csv``, ``calibration``) is refused before it is loaded.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

EDIT_PATHS = 500
"""Monte Carlo paths while editing [paths] (the seed's 10,000 cost ~5x as much); the downloads use the scenario's."""
JOB_SECONDS = 600
"""Longest a job may take before the page says so [s]: the worker stops the job then (``timed``)."""
STUCK_SECONDS = 30
"""Grace past JOB_SECONDS before the server gives up on a worker that did not stop its job (one held inside a C
call, where Python's signal handler cannot run) and replaces the pool, ending its processes [s]."""


class JobTimeout(Exception):
    """A job ran past its time; raised inside the worker by SIGALRM (``timed``)."""


def timed(fn, seconds: float, *args):
    """`fn(*args)` stopped after `seconds` by an interval timer in this worker process, so the worker is free for
    the next job instead of finishing one nobody waits for; a stopped job is a problem the page shows. Python runs
    signal handlers in the main thread only: elsewhere (a thread pool in tests) the job runs unbounded and the
    server's own deadline (JOB_SECONDS + STUCK_SECONDS) applies."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return fn(*args)

    def stop(signum, frame):
        raise JobTimeout(f"the job took longer than {seconds:g} s")

    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    except JobTimeout as exc:
        return {"problems": [_internal(exc)]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def safe_stem(text: str) -> str:
    """A file stem made of letters, digits, '-' and '_' only (at most 60 characters; 'proposta' when none is left).

    >>> safe_stem("../../etc/passwd")
    'etc_passwd'
    """
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_-")[:60]
    return stem or "proposta"


@contextlib.contextmanager
def _inside_temp_folder():
    """A fresh temporary folder, made the current folder for the job and removed after it."""
    import shutil

    was = os.getcwd()
    tmp = tempfile.mkdtemp(prefix="tco-desk-")
    try:
        os.chdir(tmp)
        yield Path(tmp)
    finally:
        os.chdir(was)
        shutil.rmtree(tmp, ignore_errors=True)


def _problem(p) -> dict:
    return {"key": p.key, "line": p.line, "message": p.message, "text": str(p)}


def _internal(exc: Exception) -> dict:
    return {"key": "", "line": None, "message": f"internal error: {exc}", "text": f"internal error: {exc}"}


def _refused(text: str, file: str) -> list[dict]:
    """Problems for a scenario that names another file (the desk reads none); [] otherwise, or when the text does
    not parse (tco.load then says where)."""
    from tco.errors import InputError, Problem
    from tco.scenario.toml import loads
    from tco.web.fields import path_keys

    try:
        data = loads(text, file)
    except (InputError, ValueError):
        return []
    return [_problem(Problem(file, k, "the sales desk reads no other file named in a scenario; remove the key, or "
                             "ask an engineer to run it with `python -m tco run`")) for k in path_keys(data)]


def check(text: str, stem: str, locale: str | None = None) -> dict:
    """The answer for scenario `text` ({"answer": …}), or its problems ({"problems": […]}) exactly as `tco validate`
    words them, with `<stem>.toml` as the file's name. The Monte Carlo runs EDIT_PATHS paths at most."""
    from tco import api
    from tco.errors import InputError, InternalError
    from tco.web import answer

    stem = safe_stem(stem)
    with _inside_temp_folder() as tmp:
        name = f"{stem}.toml"
        refused = _refused(text, name)
        if refused:
            return {"problems": refused}
        (tmp / name).write_bytes(text.encode("utf-8"))
        try:
            inp = api.with_locale(api.load(name), locale)
            full = inp.scenario.fx.paths
            paths = min(EDIT_PATHS, full)
            res = api.run(inp, paths=paths, analysis=False)
        except InputError as exc:
            return {"problems": [_problem(p) for p in exc.problems]}
        except InternalError as exc:  # what `tco run` reports as "internal error" (exit 1): said, never half shown
            return {"problems": [_internal(exc)]}
        return {"answer": answer.build(res, paths, full)}


def files(text: str, stem: str) -> dict:
    """Every file `tco run <stem>.toml` writes (json, csv, xlsx, pdf, notes.txt) and the scenario itself, as
    {"files": {name: bytes}}, the Monte Carlo at the scenario's own paths; or {"problems": […]}."""
    from tco import api
    from tco.errors import InputError, InternalError

    stem = safe_stem(stem)
    with _inside_temp_folder() as tmp:
        name = f"{stem}.toml"
        refused = _refused(text, name)
        if refused:
            return {"problems": refused}
        (tmp / name).write_bytes(text.encode("utf-8"))
        try:
            res = api.run(name)
        except InputError as exc:
            return {"problems": [_problem(p) for p in exc.problems]}
        except InternalError as exc:
            return {"problems": [_internal(exc)]}
        (tmp / "out").mkdir()
        written = api.write(res, "out")
        out = {p.name: p.read_bytes() for p in written}
        notes = tmp / "out" / f"{stem}.notes.txt"
        if notes.is_file():
            out[notes.name] = notes.read_bytes()
        out[name] = (tmp / name).read_bytes()
        return {"files": out}


def warm() -> None:
    """Import what a job needs, once per worker (the first answer is then as fast as the next)."""
    import tco.api  # noqa: F401
    import tco.engine  # noqa: F401
    import tco.web.answer  # noqa: F401


def pool(workers: int):
    """A pool of `workers` processes (forkserver: no copy of the server's threads), each warmed up."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=warm)
