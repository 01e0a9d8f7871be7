"""tco.files: a file written whole at a path the user names: only regular files, the old mode kept, the umask's for
a new one, a symlink followed to its file, a failure naming the path with nothing left beside it."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from tco.errors import InputError
from tco.files import MACHINE_ERRNOS, kind, target_problem, write_whole


def test_a_new_file_or_a_regular_one_is_a_fine_target(tmp_path):
    assert target_problem(tmp_path / "new.json") is None
    (tmp_path / "old.json").write_text("x")
    assert target_problem(tmp_path / "old.json") is None


@pytest.mark.parametrize("make,word", [(os.mkfifo, "a FIFO (named pipe)"), (os.mkdir, "a folder")])
def test_special_files_are_refused_by_kind(tmp_path, make, word):
    make(tmp_path / "t")
    assert target_problem(tmp_path / "t").startswith(f"is {word}, not a regular file")
    with pytest.raises(InputError, match="not a regular file"):
        write_whole(tmp_path / "t", "{}")


def test_an_empty_name_and_a_missing_folder_are_refused(tmp_path):
    assert target_problem("  ") == "the file name is empty"
    assert target_problem(tmp_path / "no" / "x.json") == f"the folder {tmp_path / 'no'} does not exist"


def test_kind_names_a_character_device():
    assert kind(os.stat("/dev/null").st_mode) == "a character device"


def test_write_whole_keeps_the_mode_and_follows_a_symlink_to_its_file(tmp_path):
    f = tmp_path / "a.json"
    f.write_text("old")
    f.chmod(0o604)
    (tmp_path / "link").symlink_to(f.name)
    write_whole(tmp_path / "link", "new")
    assert f.read_text() == "new" and stat.S_IMODE(f.stat().st_mode) == 0o604 and (tmp_path / "link").is_symlink()


def test_write_whole_new_file_mode_is_0666_less_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        write_whole(tmp_path / "n.txt", b"bytes")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o600  # 0o666 & ~0o077


def test_a_failed_write_names_the_path_and_leaves_nothing(tmp_path, monkeypatch):
    def full(*a):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError) as got:
        write_whole(tmp_path / "x.json", "{}")
    assert got.value.filename == str(tmp_path / "x.json") and got.value.errno in MACHINE_ERRNOS
    assert list(tmp_path.iterdir()) == []


def test_write_all_writes_every_file_or_none(tmp_path, monkeypatch):
    """The second file cannot be written (its temporary file fails on a full disk): the first keeps its old bytes,
    no temporary file is left, and the error names the second file."""
    from tco.files import write_all

    a, b = tmp_path / "a.toml", tmp_path / "b.md"
    a.write_text("old")
    real_fdopen = os.fdopen
    calls = []

    def fdopen(fd, *args, **kw):
        calls.append(fd)
        if len(calls) == 2:
            os.close(fd)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fdopen(fd, *args, **kw)

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(OSError) as got:
        write_all([(a, "new"), (b, "report")])
    assert got.value.filename == str(b) and a.read_text() == "old" and sorted(tmp_path.iterdir()) == [a]
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    write_all([(a, "new"), (b, "report")])
    assert (a.read_text(), b.read_text()) == ("new", "report")
