"""Writing a run's files safely: nothing half-written, nothing of anyone else's touched.

Each run renders its files into a private temporary folder inside the output folder
(``.tco-<pid>-<random>/``, same file system, so a rename is atomic) and then renames each file into
place. A run that fails, is interrupted or is killed touches nothing but its own temporary folder;
the next run removes temporary folders whose process is gone. Two runs into one folder both
succeed (the last rename of a name wins). A nested output folder that a failed run created and left
empty is removed again, with ``rmdir`` only (never a recursive delete).

SIGINT (Ctrl-C) is turned into a flag as well as an exception, so an interrupt that Python swallows
(one landing in a weakref callback) still stops the files from being moved into place.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

FORMATS = ("json", "csv", "xlsx", "pdf")
TEMP_PREFIX = ".tco-"
_TEMP_RE = re.compile(r"^\.tco-(\d+)-[A-Za-z0-9_]+$")
_LEGACY_RE = re.compile(r"^\.tco-[A-Za-z0-9_]{8}$")
LEGACY_STALE_SECONDS = 24 * 3600.0
"""Temporary folders of tco 0.1.0 (no process id in the name) are removed once a day old."""

_interrupted = {"flag": False}


def interrupted() -> bool:
    """True once a SIGINT arrived since ``catch_sigint`` was entered."""
    return _interrupted["flag"]


@contextmanager
def catch_sigint():
    """Record SIGINT in a flag (checked before files are moved in) and raise KeyboardInterrupt."""
    def handler(signum, frame):
        _interrupted["flag"] = True
        raise KeyboardInterrupt

    _interrupted["flag"] = False
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _sigint_deferred():
    """Hold SIGINT back while the files are renamed into place; it is delivered (and raises) right after."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, ValueError, OSError):  # no POSIX signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def clean_stale(out_dir: Path) -> list[Path]:
    """Remove temporary folders left in `out_dir` by runs that were killed; return what was removed."""
    removed: list[Path] = []
    try:
        entries = list(out_dir.iterdir())
    except OSError:
        return removed
    now = time.time()
    for p in entries:
        if not p.is_dir() or p.is_symlink():
            continue
        m = _TEMP_RE.match(p.name)
        stale = (m is not None and not _pid_alive(int(m.group(1)))) or (
            m is None and _LEGACY_RE.match(p.name) is not None and now - p.stat().st_mtime > LEGACY_STALE_SECONDS)
        if stale:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def _make_dirs(out_dir: Path) -> list[Path]:
    """Create `out_dir` and missing parents; return the folders this call created, outermost first."""
    missing = []
    p = out_dir
    while not p.exists() and p.parent != p:
        missing.append(p)
        p = p.parent
    created: list[Path] = []
    for d in reversed(missing):
        try:
            d.mkdir()
            created.append(d)
        except FileExistsError:  # another run created it meanwhile: not ours to remove
            continue
        except PermissionError as exc:
            _remove_if_empty(created)
            raise _not_writable(d.parent, exc) from None
    return created


def _remove_if_empty(created: list[Path]) -> None:
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:  # not empty (another run's files) or gone: leave it
            break


def _not_writable(out_dir: Path, exc: OSError) -> OSError:
    return OSError(exc.errno, f"output folder is not writable ({exc.strerror})", str(out_dir))


def _render(res, doc, tmp: Path, stem: str, formats: list[str], scenario_path: str) -> None:
    from tco.report import json_out, ledger_csv

    if "json" in formats:
        (tmp / f"{stem}.json").write_text(json_out.dumps(doc), encoding="utf-8")
    if "csv" in formats:
        (tmp / f"{stem}.csv").write_text(ledger_csv.render(res), encoding="utf-8")
    if "xlsx" in formats:
        from tco.report import workbook

        workbook.write(res, doc, tmp / f"{stem}.xlsx")
    if "pdf" in formats:
        from tco.report import proposal

        xlsx = tmp / f"{stem}.xlsx"
        proposal.write(res, tmp / f"{stem}.pdf", attachments=[Path(scenario_path)] + ([xlsx] if xlsx.exists() else []))
        from tco.report import notes_txt  # the engine's notices, for the seller (not in the client's PDF)

        (tmp / f"{stem}.notes.txt").write_text(notes_txt.render(res), encoding="utf-8")


def write_outputs(res, out_dir: Path, stem: str, formats: list[str], *, sha: str, scenario_path: str) -> list[Path]:
    """Write `formats` (json, csv, xlsx, pdf) of `res` as ``out_dir/<stem>.<format>``; return the paths.

    All files are rendered first into a private temporary folder inside `out_dir`, then renamed into
    place; on any failure (or SIGINT) nothing outside that folder is changed and a folder this call
    created is removed again if it is still empty."""
    from tco.report import json_out

    out_dir = Path(out_dir)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats must be some of {', '.join(FORMATS)}, got {formats!r}")
    if not stem or stem.startswith(".") or "/" in stem or os.sep in stem:
        raise ValueError(f"output name {stem!r} must be a plain file name not starting with '.'")
    doc = json_out.build(res, sha, scenario_path)  # refuses non-finite money before anything is created
    created = _make_dirs(out_dir)
    tmp = None
    try:
        clean_stale(out_dir)
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=out_dir))
        except PermissionError as exc:
            raise _not_writable(out_dir, exc) from None
        _render(res, doc, tmp, stem, formats, scenario_path)
        if interrupted():
            raise KeyboardInterrupt
        with _sigint_deferred():  # all files are moved in, or (on a kill) as few renames as possible are lost
            written = []
            for fmt in (*FORMATS, "notes.txt"):  # the order of the formats, not of the file system
                f = tmp / f"{stem}.{fmt}"
                if f.exists():
                    dest = out_dir / f.name
                    os.replace(f, dest)
                    written.append(dest)
        return written
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp = None
        _remove_if_empty(created)
        raise
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def check_output_dir(out: str) -> str | None:
    """A message if `-o` cannot name an output folder, else None."""
    if not out.strip():
        return "-o: the output folder name is empty; give a folder, e.g. -o output"
    p = Path(out)
    if p.exists() and not p.is_dir():
        return f"-o {out}: exists and is not a folder"
    return None
