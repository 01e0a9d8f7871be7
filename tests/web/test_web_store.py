"""Saved proposals in SQLite (tco.web.store)."""

import datetime as dt

import pytest

from tco.web import store


def test_save_list_get_and_status(tmp_path):
    when = dt.datetime(2026, 12, 1, 10, 0, 0)
    a = store.save(tmp_path, "[scenario]\nname = 'a'\n", number="NE-1", client="Cliente A", name="a", stem="a", now=when)
    b = store.save(tmp_path, "[scenario]\nname = 'b'\n", number="NE-2", client="Cliente B", name="b", stem="b",
                   now=when + dt.timedelta(hours=1))
    assert [r["number"] for r in store.listed(tmp_path)] == ["NE-2", "NE-1"]  # newest first
    assert store.get(tmp_path, a)["scenario"] == "[scenario]\nname = 'a'\n"
    assert store.get(tmp_path, a)["status"] == "draft"
    assert store.set_status(tmp_path, b, "sent") is True
    assert store.get(tmp_path, b)["status"] == "sent"
    assert store.set_status(tmp_path, 999, "sent") is False
    assert store.get(tmp_path, 999) is None


def test_the_same_text_is_one_proposal_and_keeps_its_status(tmp_path):
    a = store.save(tmp_path, "x = 1\n", number="N", client="C", name="n", stem="s")
    store.set_status(tmp_path, a, "signed")
    assert store.save(tmp_path, "x = 1\n", number="N", client="C", name="n", stem="s") == a
    assert [r["status"] for r in store.listed(tmp_path)] == ["signed"]


def test_unknown_status_is_refused(tmp_path):
    a = store.save(tmp_path, "x = 1\n", number="", client="", name="", stem="s")
    with pytest.raises(ValueError, match="unknown status 'lost'"):
        store.set_status(tmp_path, a, "lost")


def test_no_database_yet_lists_nothing(tmp_path):
    assert store.listed(tmp_path / "none") == []
    assert store.get(tmp_path / "none", 1) is None
    assert not (tmp_path / "none").exists()  # reading never creates the folder
