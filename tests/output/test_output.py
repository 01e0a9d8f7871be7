"""tco.output: the files a run publishes (named after the stem, in the formats asked), the checks on formats,
names and the output folder, and the clean-up of temporary folders left by dead runs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tco.output import FORMATS, TEMP_PREFIX, check_output_dir, clean_stale, write_outputs
from tco.output.publish import COMMIT

from conftest import SMALL


def test_writes_the_formats_asked_and_nothing_else(small_run, tmp_path):
    out = tmp_path / "a" / "b"                                   # nested folders are created
    paths = write_outputs(small_run, out, "x", ["csv", "json"], sha="abc", scenario_path=str(SMALL))
    assert [p.name for p in paths] == ["x.json", "x.csv"]        # the formats' order, not the order asked
    assert sorted(p.name for p in out.iterdir()) == ["x.csv", "x.json"]   # no temporary folder left
    doc = json.loads((out / "x.json").read_text(encoding="utf-8"))
    assert doc["scenario"]["sha256"] == "abc" and doc["scenario"]["file"] == str(SMALL)
    assert [o["name"] for o in doc["options"]] == [o.name for o in small_run.options]


@pytest.mark.parametrize("formats", [["docx"], [], ["json", "html"]])
def test_unknown_formats_are_refused_before_anything_is_created(small_run, tmp_path, formats):
    with pytest.raises(ValueError, match=f"formats must be some of {', '.join(FORMATS)}"):
        write_outputs(small_run, tmp_path / "new", "x", formats, sha="", scenario_path=str(SMALL))
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("stem", ["", ".hidden", "a/b"])
def test_the_stem_must_be_a_plain_name(small_run, tmp_path, stem):
    with pytest.raises(ValueError, match="must be a plain file name not starting with '.'"):
        write_outputs(small_run, tmp_path, stem, ["json"], sha="", scenario_path=str(SMALL))


def test_check_output_dir(tmp_path):
    assert check_output_dir("  ") == "-o: the output folder name is empty; give a folder, e.g. -o output"
    f = tmp_path / "file"
    f.write_text("x")
    assert check_output_dir(str(f)) == f"-o {f}: exists and is not a folder"
    assert check_output_dir(str(tmp_path)) is None
    assert check_output_dir(str(tmp_path / "not-yet")) is None


def _dead_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_clean_stale_removes_dead_runs_folders_and_keeps_live_ones(tmp_path):
    dead = tmp_path / f"{TEMP_PREFIX}{_dead_pid()}-abc123"
    live = tmp_path / f"{TEMP_PREFIX}{os.getpid()}-xyz789"
    other = tmp_path / ".tco-not-ours-!"
    for d in (dead, live, other):
        d.mkdir()
    assert clean_stale(tmp_path) == [dead]
    assert live.is_dir() and other.is_dir()
    assert clean_stale(tmp_path / "absent") == []


def test_clean_stale_finishes_a_committed_generation(tmp_path):
    tmp = tmp_path / f"{TEMP_PREFIX}{os.getpid()}-gen1"
    tmp.mkdir()
    (tmp / "s.json").write_text("new", encoding="utf-8")
    (tmp / COMMIT).write_text(json.dumps({"files": ["s.json"]}), encoding="utf-8")
    (tmp_path / "s.json").write_text("old", encoding="utf-8")
    assert clean_stale(tmp_path) == [tmp]
    assert Path(tmp_path / "s.json").read_text(encoding="utf-8") == "new" and not tmp.exists()


def test_writers_run_with_the_long_lived_objects_frozen_and_hand_them_back(small_run, tmp_path, monkeypatch):
    """The objects alive before the writers are left out of the collector's scans while they run (gc.freeze), and
    returned after: a cycle that became garbage meanwhile is collected once the call is over; young objects are
    collected every 20 000 allocations meanwhile, the threshold restored after."""
    import gc
    import weakref

    from tco import output as outputs

    class Node:
        pass

    seen = {}
    real = outputs._render

    def spy(*a, **k):
        seen["frozen"], seen["threshold"] = gc.get_freeze_count(), gc.get_threshold()
        return real(*a, **k)

    monkeypatch.setattr(outputs, "_render", spy)
    before = gc.get_threshold()
    a = Node()
    a.me = a  # a cycle: only the cyclic collector frees it
    gone = weakref.ref(a)
    with outputs._long_lived_frozen():
        inside = gc.get_freeze_count()
        del a
        gc.collect()
        assert gone() is not None  # frozen: not scanned, not freed
    assert inside > 1000 and gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None
    write_outputs(small_run, tmp_path, "x", ["json"], sha="", scenario_path=str(SMALL))
    assert seen["frozen"] > 1000 and gc.get_freeze_count() == 0
    assert seen["threshold"] == (max(before[0], 20_000), *before[1:]) and gc.get_threshold() == before


def _first_generation(small_run, out: Path) -> dict[str, bytes]:
    write_outputs(small_run, out, "x", ["json", "csv"], sha="first", scenario_path=str(SMALL))
    return {p.name: p.read_bytes() for p in out.iterdir()}


def _rename_onto_fails(monkeypatch, name: str) -> None:
    """Moving a file of a run's temporary folder onto `name` fails (EPERM), as onto an immutable file."""
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst).name == name and Path(src).parent.name.startswith(TEMP_PREFIX):
            raise PermissionError(1, "Operation not permitted")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)


def test_a_file_that_can_be_neither_linked_nor_copied_stops_the_run_before_anything_moves(small_run, tmp_path,
                                                                                         monkeypatch):
    """Review M1: x.csv's copy cannot be kept (no hard link, no read), so the run stops before its commit point;
    the error names x.csv, not a temporary file, and both files are the first generation's."""
    out = tmp_path / "out"
    before = _first_generation(small_run, out)
    real_link, real_copy = os.link, shutil.copy2

    def refused(real):
        def call(src, dst, *a, **k):
            if Path(src).name == "x.csv":
                raise PermissionError(1, "Operation not permitted")
            return real(src, dst, *a, **k)
        return call

    monkeypatch.setattr(os, "link", refused(real_link))
    monkeypatch.setattr(shutil, "copy2", refused(real_copy))
    with pytest.raises(OSError) as err:
        write_outputs(small_run, out, "x", ["json", "csv"], sha="second", scenario_path=str(SMALL))
    assert err.value.filename == str(out / "x.csv") and "nothing was written" in err.value.strerror
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_without_hard_links_the_previous_files_are_copied(small_run, tmp_path, monkeypatch):
    """A FAT or network folder has no hard links: the run still replaces its files (each kept as a copy first)."""
    out = tmp_path / "out"
    _first_generation(small_run, out)

    def no_links(src, dst, *a, **k):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    write_outputs(small_run, out, "x", ["json", "csv"], sha="second", scenario_path=str(SMALL))
    assert json.loads((out / "x.json").read_text(encoding="utf-8"))["scenario"]["sha256"] == "second"
    assert sorted(p.name for p in out.iterdir()) == ["x.csv", "x.json"]


def test_a_rename_failing_after_the_commit_point_puts_every_file_back(small_run, tmp_path, monkeypatch):
    """x.json is replaced, then x.csv's rename fails: x.json is restored from its hard link."""
    out = tmp_path / "out"
    before = _first_generation(small_run, out)
    _rename_onto_fails(monkeypatch, "x.csv")
    with pytest.raises(OSError) as err:
        write_outputs(small_run, out, "x", ["json", "csv"], sha="second", scenario_path=str(SMALL))
    assert err.value.filename == str(out / "x.csv")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before   # the first generation, whole
    assert json.loads(before["x.json"])["scenario"]["sha256"] == "first"


def test_a_failed_first_publish_leaves_no_file(small_run, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    _rename_onto_fails(monkeypatch, "x.csv")
    with pytest.raises(OSError):
        write_outputs(small_run, out, "x", ["json", "csv"], sha="", scenario_path=str(SMALL))
    assert list(out.iterdir()) == []   # x.json, moved in first, is removed again
