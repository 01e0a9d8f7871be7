"""`python -m tco plan --json FILE` (review L13): a target that cannot be a file is refused before the search, with
exit 2 and nothing written; the file is written whole (a temporary name beside it, then renamed)."""

from __future__ import annotations

import pytest

from tco import plan
from tco.cli import main

from conftest import SMALL


@pytest.fixture
def no_search(monkeypatch):
    """Fails the test if the plan search starts."""
    def refuse(*a, **k):
        raise AssertionError("the search ran before the --json target was checked")
    monkeypatch.setattr(plan, "search", refuse)


@pytest.mark.parametrize("target,words", [
    ("{dir}", "is a folder; give a file name"),
    ("{dir}/missing/plan.json", "does not exist"),
    ("  ", "the file name is empty"),
])
def test_review_l13_a_bad_json_target_stops_before_the_search(tmp_path, capsys, no_search, target, words):
    name = target.format(dir=tmp_path)
    assert main(["plan", str(SMALL), "--json", name]) == 2
    assert words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_plan_json_is_written_whole_and_replaces_the_old_file(tmp_path, capsys):
    js = tmp_path / "plan.json"
    js.write_text("old", encoding="utf-8")
    assert main(["plan", str(SMALL), "--json", str(js)]) == 0
    assert js.read_text(encoding="utf-8").startswith("{") and [p.name for p in tmp_path.iterdir()] == ["plan.json"]
