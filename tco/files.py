"""Files the toolkit writes whole, at a path the user names (``plan --json``, ``calibrate -o`` and ``--report``): only
regular files, whole or not at all, keeping the mode of the file replaced; and which OSErrors are the machine's.

The output folder's files go through ``tco.output`` (a private temporary folder, then one published generation);
this module is below every stage folder, so any of them may write a file through it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from tco.errors import InputError, Problem

MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG})
"""OSErrors of the machine, not of the path given (a full disk or quota, an I/O error, a file too large): exit 1,
where a path that cannot be written (permissions, a read-only file system, a missing folder) is exit 2."""


def kind(mode: int) -> str:
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
    if name.endswith(("/", os.sep)):  # realpath drops the slash: `-o newdir/` wrote a file named newdir
        return "ends with a slash, so it names a folder: tco writes a file here; give a file name"
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
        return (f"is {kind(st.st_mode)}{via}, not a regular file: tco writes only regular files (whole, by "
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
    write_all([(path, data)])


def write_all(files: list[tuple[str | Path, str | bytes]]) -> None:
    """Several files as ``write_whole`` writes one, all or none: every one is written to its temporary name first and
    renamed over its target only when all were written, so a second file that cannot be written (``calibrate``'s
    report) leaves the first (the calibration) as it was, not replaced by a run that then reports failure."""
    import tempfile

    for path, _ in files:
        if (problem := target_problem(path)) is not None:
            raise InputError([Problem(str(path), "", problem, None)])
    done: list[tuple[str, Path]] = []  # (temporary name, target) of each file written
    current = ""
    try:
        for path, data in files:
            current = str(path)
            real = Path(os.path.realpath(path))
            try:
                mode = stat.S_IMODE(os.stat(real).st_mode)
            except FileNotFoundError:
                mode = 0o666 & ~_umask()
            raw = data.encode("utf-8", errors="surrogateescape") if isinstance(data, str) else data
            fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
            done.append((tmp, real))
            with os.fdopen(fd, "wb") as fh:
                os.fchmod(fh.fileno(), mode)
                fh.write(raw)
        for (tmp, real), (path, _) in zip(done, files):
            current = str(path)
            os.replace(tmp, real)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), current) from None
    finally:
        for tmp, _ in done:
            if os.path.lexists(tmp):
                os.unlink(tmp)


def entry(path: str | Path) -> str:
    """The directory entry `path` names: its folder resolved (symbolic links, `..`), its last part as given. Two names
    of one entry are one file a rename would replace (a hard link elsewhere is another entry, left as it was)."""
    p = os.path.abspath(str(path))
    return os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))


def input_files(scenario, path: str | Path) -> list[str]:
    """The files a run of `scenario` (read from `path`) reads: the scenario file, its calibration and FX history, and
    the files of its catalog folder (relative names resolved from the scenario's folder, as the loader does)."""
    out = [str(path)]
    if scenario is None:
        return out
    out += [str(x) for x in (scenario.inference.calibration, scenario.fx.history_csv) if x]
    if scenario.scenario.catalog_dir:
        from tco.catalog import CATALOG_FILES  # the names the loader reads there (not the folder's other files)

        folder = Path(path).parent / scenario.scenario.catalog_dir
        out += [str(folder / n) for n in CATALOG_FILES if (folder / n).is_file()]
    return out
