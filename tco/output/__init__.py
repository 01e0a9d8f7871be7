"""Writing a run's files safely: nothing half-written, nothing of anyone else's touched.

Each run renders its files into a private temporary folder inside the output folder
(``.tco-<pid>-<random>/``, same file system, so a rename is atomic) and then publishes them: under an
exclusive lock on the output folder (``flock``, released by the kernel even when the process is
killed) it writes a commit record (``.commit``, by rename: the commit point) into its temporary folder,
renames each file into place and removes the record. A run that fails, is interrupted or is killed
before its commit point touches nothing but its own temporary folder; the next run removes temporary
folders whose process is gone. A run killed after its commit point (between two renames, D13) leaves
its record, and the next run into the folder rolls that generation forward (moves the rest of its
files in) under the lock before anything else is published: a set of outputs is never left mixed
with an older one once another run has looked at the folder, and a newer generation never lands
under the rest of an older one. Two runs into one folder both succeed, and two runs of one scenario
publish one after the other (each set whole). A nested output folder that a failed run created and
left empty is removed again, with ``rmdir`` only (never a recursive delete).

SIGINT (Ctrl-C) is turned into a flag as well as an exception (``tco.output.interrupts``), so an interrupt that Python
swallows (one landing in a weakref callback) still stops the files from being moved into place.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from tco.output.interrupts import interrupted, sigint_deferred
from tco.output.publish import COMMIT, folder_lock, publish, roll_forward

FORMATS = ("json", "csv", "xlsx", "pdf")
TEMP_PREFIX = ".tco-"
_TEMP_RE = re.compile(r"^\.tco-(\d+)-[A-Za-z0-9_]+$")
_LEGACY_RE = re.compile(r"^\.tco-[A-Za-z0-9_]{8}$")
LEGACY_STALE_SECONDS = 24 * 3600.0
"""Temporary folders of tco 0.1.0 (no process id in the name) are removed once a day old."""

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


def _temp_dirs(out_dir: Path) -> list[Path]:
    try:
        entries = list(out_dir.iterdir())
    except OSError:
        return []
    return [p for p in entries if p.name.startswith(TEMP_PREFIX) and p.is_dir() and not p.is_symlink()
            and (_TEMP_RE.match(p.name) or _LEGACY_RE.match(p.name))]


def _recover(out_dir: Path) -> list[Path]:
    """Roll forward every committed generation left in `out_dir` and remove its folder; the caller holds the
    folder lock, so a record present now belongs to a run that was killed while publishing."""
    done = []
    for tmp in _temp_dirs(out_dir):
        if (tmp / COMMIT).is_file():
            roll_forward(tmp, out_dir)
            shutil.rmtree(tmp, ignore_errors=True)
            done.append(tmp)
    return done


def clean_stale(out_dir: Path) -> list[Path]:
    """Finish the generations that killed runs had committed (D13) and remove the temporary folders left in
    `out_dir` by runs that were killed; return the folders removed."""
    if not out_dir.is_dir():
        return []
    with folder_lock(out_dir):
        removed = _recover(out_dir)
    now = time.time()
    for p in _temp_dirs(out_dir):
        m = _TEMP_RE.match(p.name)
        try:
            stale = (m is not None and not _pid_alive(int(m.group(1)))) or (
                m is None and now - p.stat().st_mtime > LEGACY_STALE_SECONDS)
        except OSError:  # removed meanwhile
            continue
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


@contextmanager
def _long_lived_frozen():
    """The objects alive now (the results, catalogs, modules) left out of the cyclic garbage collector's scans while
    the writers run, and handed back to it after; young objects collected in batches of 20 000, not 700.

    The writers allocate a great deal (15 k workbook formulas, a PDF's boxes), which sets off collections: each
    full one walked every object of the run so far (about 300 k) again, and a young one ran every 700
    allocations, scanning whatever was alive at that moment. Frozen (``gc.freeze``), the run's objects are not
    walked; garbage the writers make is still collected, and ``gc.unfreeze`` returns the frozen objects to the
    oldest generation, so nothing is kept for longer than the call. Together: about 0.25 s less CPU per run of
    the seed (its collections 0.54 s -> 0.2 s)."""
    import gc

    from tco.plain import plain

    if plain("gc"):  # TCO_PLAIN: the collector as Python sets it (tco.plain)
        yield
        return
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 20_000), *threshold[1:])
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def _as_costed(tmp: Path, scenario_path: str, sha: str) -> Path:
    """The scenario file the PDF attaches: a copy, in the temporary folder under its own name, of the bytes the run
    read and hashed (review L14: the file as it was when the PDF was written went in, edits made during the run
    included). A file changed since it was read is an InputError; without a hash (a scenario not read from a file) or
    a file, the path as given."""
    import hashlib

    from tco.errors import InputError, Problem
    from tco.scenario import MAX_SCENARIO_BYTES, read_limited

    src = Path(scenario_path)
    if not sha or not src.is_file():
        return src
    raw = read_limited(src, MAX_SCENARIO_BYTES, "scenario file")
    if hashlib.sha256(raw).hexdigest() != sha:
        raise InputError([Problem(scenario_path, "", "the scenario file changed while the run read and costed it: "
                                  "the proposal would attach another scenario than the one costed; run it again")])
    copy = tmp / ".attach" / src.name
    copy.parent.mkdir()
    copy.write_bytes(raw)
    return copy


def _render(res, v, doc: dict, tmp: Path, stem: str, formats: list[str], scenario_path: str) -> None:
    """Each format into `tmp` (the JSON document `doc` as built, every other renderer from the results `res` and
    their view `v`); the PDF attaches the scenario file at `scenario_path` (the copy _as_costed made)."""
    from tco.report import json_out, ledger_csv

    if "json" in formats:
        (tmp / f"{stem}.json").write_text(json_out.dumps(doc), encoding="utf-8")
    if "csv" in formats:
        (tmp / f"{stem}.csv").write_text(ledger_csv.render(res), encoding="utf-8")
    if "xlsx" in formats:
        from xlsxwriter.exceptions import FileCreateError

        from tco.report import workbook

        try:
            workbook.write(res, v, tmp / f"{stem}.xlsx")
        except FileCreateError as exc:  # xlsxwriter wraps the OSError of a full disk (M8): hand on the OSError
            cause = exc.args[0] if exc.args and isinstance(exc.args[0], OSError) else OSError(str(exc))
            raise cause from None
    if "pdf" in formats:
        from tco.report import proposal

        xlsx = tmp / f"{stem}.xlsx"
        if xlsx.exists():  # the client's copy is attached (no notices, plans or internal references); the seller's
            from tco.report.workbook import client  # full workbook stays <stem>.xlsx

            (tmp / "client").mkdir()
            xlsx = tmp / "client" / f"{stem}.xlsx"
            client.write(res, v, xlsx)
        proposal.write(res, tmp / f"{stem}.pdf", attachments=[Path(scenario_path)] + ([xlsx] if xlsx.exists() else []),
                       v=v)
        from tco.report.proposal import notes_txt  # the engine's notices, for the seller (not in the client's PDF)

        (tmp / f"{stem}.notes.txt").write_text(notes_txt.render(res, v), encoding="utf-8")


def write_outputs(res, out_dir: Path, stem: str, formats: list[str], *, sha: str, scenario_path: str) -> list[Path]:
    """Write `formats` (json, csv, xlsx, pdf) of `res` as ``out_dir/<stem>.<format>``; return the paths.

    All files are rendered first into a private temporary folder inside `out_dir`, then renamed into
    place; on any failure (or SIGINT) nothing outside that folder is changed and a folder this call
    created is removed again if it is still empty."""
    from tco.report import json_out, view

    out_dir = Path(out_dir)
    _check_request(formats, stem)
    _check_inputs(res, out_dir, stem, formats, scenario_path)
    with _long_lived_frozen():
        v = view.build(res)  # what every renderer reads; the JSON document is one of them
        doc = json_out.build(res, sha, scenario_path, v)  # refuses non-finite money before anything is created
    created = _make_dirs(out_dir)
    tmp = None
    try:
        clean_stale(out_dir)
        tmp = _private_temp(out_dir)
        with _long_lived_frozen():
            attach = _as_costed(tmp, scenario_path, sha) if "pdf" in formats else Path(scenario_path)
            _render(res, v, doc, tmp, stem, formats, str(attach))
        if interrupted():
            raise KeyboardInterrupt
        names = [f"{stem}.{fmt}" for fmt in (*FORMATS, "notes.txt")  # the formats' order, then the seller's notes
                 if (tmp / f"{stem}.{fmt}").exists()]
        with sigint_deferred():  # all files are moved in; a kill after the commit point is finished by the next run
            with folder_lock(out_dir):
                _recover(out_dir)  # a killed run's committed set first, so it never lands on top of this one
                return publish(tmp, out_dir, names)
    except BaseException as exc:
        if tmp is not None:  # the temporary folder goes before the folders this call created are checked for empty
            shutil.rmtree(tmp, ignore_errors=True)
        _remove_if_empty(created)
        if isinstance(exc, OSError) and _inside(exc.filename, tmp):  # name the output folder, not the hidden one (L5)
            raise OSError(exc.errno, exc.strerror or str(exc), str(out_dir)) from None
        raise
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _check_request(formats: list[str], stem: str) -> None:
    """Refuse unknown formats and an output name that is not a plain file name (a programming error: the CLI
    checks both before)."""
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats must be some of {', '.join(FORMATS)}, got {formats!r}")
    if not stem or stem.startswith(".") or "/" in stem or os.sep in stem:
        raise ValueError(f"output name {stem!r} must be a plain file name not starting with '.'")


def _check_inputs(res, out_dir: Path, stem: str, formats: list[str], scenario_path: str) -> None:
    """An InputError when a file of this set would land on a file the run reads: ``run s.json -o .`` replaced the
    scenario with its own JSON (exit 0; red team 2026-12d O1), as would ``-o`` naming the folder of the calibration,
    FX history or catalog overlay whose name a format takes (``models.toml -o cat --formats csv``)."""
    from tco.errors import InputError, Problem
    from tco.files import entry, input_files

    names = [f"{stem}.{fmt}" for fmt in formats] + ([f"{stem}.notes.txt"] if "pdf" in formats else [])
    reads = input_files(getattr(res, "scenario", None), scenario_path)
    inputs = {entry(f): f for f in reads if os.path.isfile(f)}
    hits = [(n, inputs[entry(out_dir / n)]) for n in names if entry(out_dir / n) in inputs]
    if hits:
        raise InputError([Problem(str(out_dir / n), "-o", f"would replace {f}, which this run reads; write the "
                                  "output to another folder (-o) or rename the input", None) for n, f in hits])


def _private_temp(out_dir: Path) -> Path:
    """A new temporary folder of this process inside `out_dir` (named so the next run can tell it is stale)."""
    try:
        return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=out_dir))
    except PermissionError as exc:
        raise _not_writable(out_dir, exc) from None
    except OSError as exc:  # a read-only file system, a symlink loop, a dangling symlink: named as -o (L5)
        raise OSError(exc.errno, exc.strerror or str(exc), str(out_dir)) from None


def _inside(filename, folder: Path | None) -> bool:
    """True when an OSError's file name is `folder` or inside it (a temporary name the user never gave)."""
    if folder is None or not filename:
        return False
    f, d = os.path.abspath(str(filename)), os.path.abspath(folder)
    return f == d or f.startswith(d + os.sep)


def check_output_dir(out: str) -> str | None:
    """A message if `-o` cannot name an output folder, else None."""
    if not out.strip():
        return "-o: the output folder name is empty; give a folder, e.g. -o output"
    p = Path(out)
    if p.exists() and not p.is_dir():
        return f"-o {out}: exists and is not a folder"
    return None
