"""The table: sorted by case, Parquet with the sweep's hash; resuming refuses another sweep's table; publishing
is all or nothing."""

import pytest

from tco.errors import InputError
from tco.sweep import table


def _rows():
    return [{"case": 1, "option": "a", "x": 2.0, "error": None}, {"case": 0, "option": "b", "x": 1.0, "error": None},
            {"case": 0, "option": "a", "x": 1.0, "error": None}]


def test_frame_sorts_by_case_keeping_the_options_order():
    df = table.frame(_rows(), ["case", "x", "option", "error"])
    assert df["case"].tolist() == [0, 0, 1] and df["option"].tolist() == ["b", "a", "a"]
    assert list(df.columns) == ["case", "x", "option", "error"]


def test_parquet_round_trip_and_resume_check(tmp_path):
    df = table.frame(_rows(), ["case", "x", "option", "error"])
    p = tmp_path / "t.parquet"
    table.write_parquet(df, p, "abc", 2)
    assert [r["case"] for r in table.read_done(p, "abc", 2)] == [0, 0, 1]
    assert table.read_done(tmp_path / "none.parquet", "abc", 2) is None
    with pytest.raises(InputError, match="written by a different sweep file"):
        table.read_done(p, "other", 2)
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="not a readable sweep table"):
        table.read_done(tmp_path / "junk.parquet", "abc", 2)


def test_publish_is_all_or_nothing(tmp_path):
    out = tmp_path / "new" / "out"

    def fails(tmp):
        (tmp / "a.txt").write_text("a")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        table.publish_files(out, fails)
    assert not out.exists()  # the folder this call made is gone again

    def works(tmp):
        (tmp / "a.txt").write_text("a")
        return ["a.txt"]

    assert table.publish_files(out, works) == [out / "a.txt"]
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]
