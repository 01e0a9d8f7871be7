"""tco.output.publish: one generation renamed into place, the replaced files kept until it is whole, put back on failure."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tco.output.publish import COMMIT, PREVIOUS_PREFIX, folder_lock, publish, roll_forward


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    tmp = out / ".tco-1-abc"
    tmp.mkdir(parents=True)
    return out, tmp


def test_publish_moves_every_file_and_leaves_no_record(tmp_path):
    out, tmp = _folders(tmp_path)
    (out / "a.json").write_text("old")
    for name, text in (("a.json", "new"), ("a.csv", "rows")):
        (tmp / name).write_text(text)
    with folder_lock(out):
        written = publish(tmp, out, ["a.json", "a.csv"])
    assert written == [out / "a.json", out / "a.csv"]
    assert (out / "a.json").read_text() == "new" and (out / "a.csv").read_text() == "rows"
    assert not (tmp / COMMIT).exists()
    assert (tmp / f"{PREVIOUS_PREFIX}a.json").read_text() == "old"   # the copy, removed with the folder


def test_publish_puts_the_folder_back_when_a_rename_fails(tmp_path, monkeypatch):
    out, tmp = _folders(tmp_path)
    (out / "a.json").write_text("old")
    for name in ("a.json", "a.csv", "a.pdf"):
        (tmp / name).write_text("new " + name)
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst).name == "a.pdf":
            raise PermissionError(1, "Operation not permitted")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError) as err:
        publish(tmp, out, ["a.json", "a.csv", "a.pdf"])
    assert err.value.filename == str(out / "a.pdf")
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["a.json"]   # a.csv (new) removed again
    assert (out / "a.json").read_text() == "old"                                # a.json back from its copy
    assert not (tmp / COMMIT).exists()


def test_roll_forward_moves_only_the_recorded_plain_names(tmp_path):
    out, tmp = _folders(tmp_path)
    for name in ("s.json", f"{PREVIOUS_PREFIX}s.json"):
        (tmp / name).write_text(name)
    (tmp / COMMIT).write_text(json.dumps({"files": ["s.json", f"{PREVIOUS_PREFIX}s.json", "../x"]}))
    roll_forward(tmp, out)
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["s.json"]
    assert not (tmp / COMMIT).exists()
