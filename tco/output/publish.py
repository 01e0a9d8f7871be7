"""Publishing one generation of a run's files into the output folder (``tco.output`` has the whole story).

Under the folder's lock (``folder_lock``) the caller first rolls forward what killed runs had committed, then
``publish`` writes the commit record and renames the files into place; ``roll_forward`` finishes a committed
generation that a killed run left behind.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path

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
            from tco.errors import InputError, Problem

            raise InputError([Problem(str(dest), "", f"exists and is {_kind(st.st_mode)}, not a regular file: tco "
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


MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG})
"""OSErrors of the machine, not of the path given (a full disk or quota, an I/O error, a file too large): exit 1,
where a path that cannot be written (permissions, a read-only file system, a missing folder) is exit 2."""


def _kind(mode: int) -> str:
    """What a file that is not regular is, in words."""
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return word
    return "a special file"


def target_problem(path: str | Path) -> str | None:
    """Why a whole file cannot be written at `path` (a name given on the command line), else None: it must name a
    regular file or nothing yet, in a folder that exists. A symbolic link is followed to what it names (that file is
    written, the link kept); a device, FIFO, socket or folder there (``/dev/stdout``, ``/dev/null``) is refused."""
    name = str(path)
    if not name.strip():
        return "the file name is empty"
    real = Path(os.path.realpath(name))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        if not real.parent.is_dir():
            return f"the folder {real.parent} does not exist"
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISREG(st.st_mode):
        via = f" ({real})" if str(real) != os.path.abspath(name) else ""
        return (f"is {_kind(st.st_mode)}{via}, not a regular file: tco writes only regular files (whole, by "
                "renaming a finished copy over the old one); give a file name")
    return None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_whole(path: str | Path, data: str | bytes) -> None:
    """`data` into the regular file `path` whole or not at all: written beside it under a temporary name, then renamed
    over it. A symbolic link is followed (the file it names is replaced, the link kept); the file keeps the mode of the
    one it replaces, or gets the umask's (0666 less the umask) when new. A target that is not a regular file is an
    InputError; an OSError names `path`, never the temporary file."""
    import tempfile

    from tco.errors import InputError, Problem

    if (problem := target_problem(path)) is not None:
        raise InputError([Problem(str(path), "", problem, None)])
    real = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    raw = data.encode("utf-8", errors="surrogateescape") if isinstance(data, str) else data
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(raw)
        os.replace(tmp, real)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
