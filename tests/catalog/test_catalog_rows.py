"""Reading catalog files (tco.catalog.rows): numbers checked against their column's range, text kept
plain, every problem located by file, line and column and collected rather than raised."""

from __future__ import annotations

from tco.catalog.rows import Rows, all_given, read_text


def test_numbers_in_range_and_problems_located(tmp_path):
    p = tmp_path / "gpus.csv"
    p.write_text("gpu,memory_gb,count\nA,80,8\nB,-1,2.5\nC,,4\nD,abc,1\n", encoding="utf-8")
    r = Rows(p, ("gpu", "memory_gb"))
    got = [(r.num(line, row, "memory_gb", lo=0, lo_open=True), r.num(line, row, "count", lo=1, integer=True))
           for line, row in r.rows]
    assert got == [(80.0, 8.0), (None, None), (None, 4.0), (None, 1.0)]
    where = [(q.key, q.line) for q in r.problems]
    # B: −1 is not > 0 and 2.5 is not whole (line 3); C: memory missing (line 4); D: not a number (line 5)
    assert where == [("memory_gb", 3), ("count", 3), ("memory_gb", 4), ("memory_gb", 5)]
    assert "must be a finite number > 0" in r.problems[0].message


def test_missing_column_and_control_characters(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("gpu,source\nA,ok\u202etext\n", encoding="utf-8")
    assert [q.key for q in Rows(p, ("gpu", "as_of")).problems] == ["as_of"]
    r = Rows(p, ("gpu",))
    line, row = r.rows[0]
    assert r.text(line, row, "source") == "oktext" and r.problems[0].line == 2


def test_read_text_reports_non_utf8_with_its_line(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_bytes(b"a,b\n1,2\n\xff\n")
    problems: list = []
    assert read_text(p, problems) is None
    assert problems[0].line == 3 and "0xff" in problems[0].message


def test_all_given():
    assert all_given([1.0, 2.0]) == [1.0, 2.0]
    assert all_given([1.0, None]) is None
