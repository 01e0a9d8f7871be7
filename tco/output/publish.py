"""Publishing one generation of a run's files into the output folder (``tco.output`` has the whole story).

Under the folder's lock (``folder_lock``) the caller first rolls forward what killed runs had committed, then
``publish`` writes the commit record and renames the files into place; ``roll_forward`` finishes a committed
generation that a killed run left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path

from tco.errors import InputError, Problem
from tco.files import kind

PREVIOUS_PREFIX = ".prev-"
"""A replaced file's hard-linked copy in the temporary folder, kept until the generation is in place."""

COMMIT = ".commit"
"""The commit record in a temporary folder: the files it publishes (JSON). Present = committed, not finished."""


@contextmanager
def folder_lock(out_dir: Path):
    """Exclusive advisory lock on the output folder itself (no lock file), for publishing and recovery;
    without ``fcntl`` (Windows) no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(out_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def roll_forward(tmp: Path, out_dir: Path) -> None:
    """Move the rest of a committed generation's files into place and drop its record (hold the folder lock)."""
    try:
        names = json.loads((tmp / COMMIT).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):  # unreadable record: nothing to trust, nothing moved
        names = []
    for name in names:
        if not isinstance(name, str) or name != Path(name).name or name.startswith("."):
            continue  # only plain file names of this folder
        src = tmp / name
        if src.is_file():
            os.replace(src, out_dir / name)
    (tmp / COMMIT).unlink(missing_ok=True)


def publish(tmp: Path, out_dir: Path, names: list[str]) -> list[Path]:
    """Move `names` from `tmp` into `out_dir` as one generation; the caller holds `folder_lock(out_dir)`.

    Each file it replaces is first hard-linked (or copied) into `tmp` (``.prev-<name>``), and a rename that fails
    after the commit point (onto an immutable file, another owner's) puts every file back as it was, so a failed
    publish never leaves the folder mixed."""
    kept = _keep_previous(tmp, out_dir, names)
    part = tmp / (COMMIT + ".part")
    part.write_text(json.dumps({"files": names}), encoding="utf-8")
    os.replace(part, tmp / COMMIT)  # the commit point
    written: list[Path] = []
    try:
        for name in names:
            dest = out_dir / name
            _replace(tmp / name, dest)
            written.append(dest)
    except OSError:
        _put_back(written, kept)
        (tmp / COMMIT).unlink(missing_ok=True)
        raise
    (tmp / COMMIT).unlink()
    return written


def _keep_previous(tmp: Path, out_dir: Path, names: list[str]) -> dict[Path, Path | None]:
    """{destination: its hard-linked copy in `tmp`, or None where there is no file yet}. Where the file system
    has no hard links (FAT, some network shares) the file is copied instead; a file that can be neither linked
    nor copied stops the run here, before its commit point."""
    kept: dict[Path, Path | None] = {}
    for name in names:
        dest = out_dir / name
        try:
            st = dest.lstat()
        except FileNotFoundError:
            kept[dest] = None
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):  # a symlink is replaced, never followed

            raise InputError([Problem(str(dest), "", f"exists and is {kind(st.st_mode)}, not a regular file: tco "
                                      "replaces only regular files; move it away or choose another -o", None)])
        if stat.S_ISREG(st.st_mode):  # the new file keeps the mode of the one it replaces (H1)
            os.chmod(tmp / name, stat.S_IMODE(st.st_mode))
        copy = tmp / f"{PREVIOUS_PREFIX}{name}"
        try:
            os.link(dest, copy)
        except OSError:
            try:
                shutil.copy2(dest, copy)
            except OSError as exc:
                raise OSError(exc.errno, f"cannot replace this existing file ({exc.strerror}); nothing was "
                              "written", str(dest)) from None
        kept[dest] = copy
    return kept


def _replace(src: Path, dest: Path) -> None:
    """Rename `src` onto `dest`; a failure names the destination, not the temporary file."""
    try:
        os.replace(src, dest)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot replace this file ({exc.strerror}); the folder was left as it was",
                      str(dest)) from None


def _put_back(written: list[Path], kept: dict[Path, Path | None]) -> None:
    """Undo the renames done so far: each replaced file back from its copy, each new file removed."""
    for dest in reversed(written):
        copy = kept.get(dest)
        if copy is None:
            dest.unlink(missing_ok=True)
        else:
            os.replace(copy, dest)

