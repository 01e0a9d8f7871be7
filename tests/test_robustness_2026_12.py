"""Regression tests for the robustness review of 2026-12-01 (reviews/2026-12-robustness.md: H1, M1–M8, L1–L14).

Each test is named after the defect it pins and fails on the code the review ran (commit 0f48d84). The commands run
in-process through ``tco.cli.main``; only the signal tests start real processes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from tco.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
SMALL_TEXT = SMALL.read_text(encoding="utf-8")
FAST = ["--quiet", "--formats", "json", "--no-sensitivity", "--paths", "200"]


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def sub(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# ---------------------------------------------------------------------------------------------
# H1: `plan --json PATH` writes only regular files, keeps the mode of the one it replaces


@pytest.fixture
def no_search(monkeypatch):
    """The plan search replaced by a failure: a refused target must stop the command before it."""
    from tco import plan

    def refuse(*a, **k):
        raise AssertionError("the search ran before the --json target was checked")

    monkeypatch.setattr(plan, "search", refuse)


def test_h1_plan_json_refuses_a_fifo(tmp_path, capsys, no_search):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    assert main(["plan", str(SMALL), "--json", str(fifo)]) == 2
    assert "a FIFO (named pipe), not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO


def test_h1_plan_json_refuses_a_symlink_to_a_device(tmp_path, capsys, no_search):
    """`--json /dev/stdout` is a symlink to /proc/self/fd/1; under pytest fd 1 is a capture file, so /dev/null
    stands for the device it names on a terminal."""
    link = tmp_path / "out.json"
    link.symlink_to("/dev/null")
    assert main(["plan", str(SMALL), "--json", str(link)]) == 2
    assert "a character device (/dev/null), not a regular file" in capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == "/dev/null"


def test_h1_plan_json_refuses_a_device_node(tmp_path, capsys, no_search):
    dev = tmp_path / "nulldev"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    assert main(["plan", str(SMALL), "--json", str(dev)]) == 2
    assert "a character device, not a regular file" in capsys.readouterr().err
    assert stat.S_ISCHR(dev.lstat().st_mode)


def test_h1_plan_json_keeps_the_mode_of_the_file_it_replaces_and_follows_a_file_symlink(tmp_path, capsys):
    js = tmp_path / "plan.json"
    js.write_text("old", encoding="utf-8")
    js.chmod(0o644)
    link = tmp_path / "latest.json"
    link.symlink_to(js.name)
    assert main(["plan", str(SMALL), "--json", str(link)]) == 0
    assert stat.S_IMODE(js.stat().st_mode) == 0o644  # mkstemp's 0600 was kept before
    assert link.is_symlink() and js.read_text(encoding="utf-8").startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "plan.json"]


def test_h1_a_new_file_gets_the_umask_mode(tmp_path):
    from tco.output.publish import write_whole

    old = os.umask(0o027)
    try:
        write_whole(tmp_path / "new.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~0o027  # 0640


def test_h1_run_refuses_a_fifo_where_an_output_file_goes(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "assistant_8b_l4.json")
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 2
    assert "a FIFO (named pipe), not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO((out / "assistant_8b_l4.json").lstat().st_mode)
    assert [p.name for p in out.iterdir()] == ["assistant_8b_l4.json"]


def test_h1_run_keeps_the_mode_of_the_files_it_replaces(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    (out / "assistant_8b_l4.json").chmod(0o640)
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    assert stat.S_IMODE((out / "assistant_8b_l4.json").stat().st_mode) == 0o640


# ---------------------------------------------------------------------------------------------
# M8: a full disk while a writer runs is one line naming the path and the cause, exit 1, nothing half-written


def _full_disk(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_m8_full_disk_in_the_workbook_is_exit_1_with_the_folder_and_the_cause(tmp_path, capsys, monkeypatch):
    import xlsxwriter.workbook

    def full(self, *a, **k):
        from xlsxwriter.exceptions import FileCreateError

        raise FileCreateError(OSError(errno.ENOSPC, "No space left on device", str(self.filename)))

    monkeypatch.setattr(xlsxwriter.workbook.Workbook, "close", full)
    out = tmp_path / "out"
    args = ["run", str(SMALL), "-o", str(out), "--quiet", "--formats", "json,xlsx", "--no-sensitivity", "--paths", "200"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err == f"error: {out}: No space left on device\n"
    assert not out.exists()  # the folder this run made is removed again: nothing half-written


def test_m8_full_disk_in_plan_json_is_exit_1_and_the_old_file_stays(tmp_path, capsys, monkeypatch):
    js = tmp_path / "plan.json"
    js.write_text("old", encoding="utf-8")
    monkeypatch.setattr(os, "replace", _full_disk)
    assert main(["plan", str(SMALL), "--json", str(js)]) == 1
    assert capsys.readouterr().err.endswith(f"error: {js}: No space left on device\n")
    assert js.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == ["plan.json"]


# ---------------------------------------------------------------------------------------------
# L5: every OSError of the output folder names -o (or the --json file), never a hidden temporary name


@pytest.mark.parametrize("case", ["dangling", "loop"])
def test_l5_symlink_output_folder_errors_name_the_folder_not_the_temp_folder(tmp_path, capsys, case):
    target = tmp_path / "o"
    if case == "dangling":
        target.symlink_to(tmp_path / "missing")
    else:
        (tmp_path / "loop2").symlink_to(target)
        target.symlink_to(tmp_path / "loop2")
    assert main(["run", str(SMALL), "-o", str(target)] + FAST) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {target}: ") and ".tco-" not in err


def test_l5_read_only_file_system_names_the_output_folder(tmp_path, capsys, monkeypatch):
    from tco import output

    def erofs(prefix, dir):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(dir) / f"{prefix}abcd"))

    monkeypatch.setattr(output.tempfile, "mkdtemp", erofs)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 2
    assert capsys.readouterr().err == f"error: {out}: Read-only file system\n"


def test_l5_plan_json_in_an_unwritable_folder_names_the_file(tmp_path, capsys, monkeypatch):
    import tempfile

    def erofs(prefix, suffix, dir):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(dir) / f"{prefix}xyz{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", erofs)
    js = tmp_path / "x.json"
    assert main(["plan", str(SMALL), "--json", str(js)]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"error: {js}: Read-only file system\n") and ".tmp" not in err


# ---------------------------------------------------------------------------------------------
# M7: escape sequences in keys, [plan] keys and file names never reach the terminal raw

ESC = "\x1b]0;PWNED\x07\x1b[2J"
ESC_TOML = "\\u001b]0;PWNED\\u0007\\u001b[2J"


def _no_raw_escape(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;PWNED\\x07\\x1b[2J" in text


def test_m7_an_unknown_key_with_escapes_is_shown_not_sent(tmp_path, capsys):
    f = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", f'[scenario]\n"{ESC_TOML}" = 1\n'))
    assert main(["validate", str(f)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_a_plan_storage_key_with_escapes_is_shown_not_sent(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT + f'\n[plan]\nstorage_usd_per_gb_month = {{ "{ESC_TOML}" = 0.02 }}\n')
    assert main(["validate", str(f)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_a_file_name_with_escapes_is_shown_not_sent_by_validate_and_errors(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT, f"f{ESC}.toml")
    assert main(["validate", str(f)]) == 0
    _no_raw_escape(capsys.readouterr().out)
    g = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", "[scenario]\nnope = 1\n"), f"g{ESC}.toml")
    assert main(["validate", str(g)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_the_batch_summary_shows_escapes_in_file_names(tmp_path, capsys):
    g = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", "[scenario]\nnope = 1\n"), f"g{ESC}.toml")
    assert main(["batch", str(g), "-o", str(tmp_path / "out"), "--jobs", "1", "--formats", "json"]) == 2
    _no_raw_escape(capsys.readouterr().out)


def test_m7_printable_shows_bidi_overrides_and_keeps_tabs_newlines_and_accents():
    from tco.errors import printable

    assert printable("a\u202eb\tç\nd\x9be") == "a\\u202eb\tç\nd\\x9be"
