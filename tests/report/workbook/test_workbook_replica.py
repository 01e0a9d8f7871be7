"""tco.report.workbook.replica: the candidate layouts below the Sizing sheet's main table, one column per tensor-
parallel degree the engine tried, every term a live formula of its sizing rule.

Read back from the written workbook: one column per candidate with its degree, each term cached at the engine's value,
the formulas equal to their cached values (evaluated in-process), the chosen layout (the main table picks the highest
score by INDEX/MATCH) the engine's, and the number formats by hand."""

from __future__ import annotations

import pytest

from tco.report.i18n import t
from tco.report.workbook.replica import ROWS, fmt_of

LOC = "pt-BR"


def _block(book, i):
    s = t("sh_sizing", LOC)
    head = book.row_of(s, t("sz_candidates", LOC, i=i))
    rows = {}
    for r in range(head + 1, head + 3 + len(ROWS) + 1):
        label = book.cached(s, r, 1)
        if isinstance(label, str):
            rows.setdefault(label, r)
    return s, head, rows


def test_one_column_per_candidate_layout(small_run, book):
    for i, o in enumerate(small_run.options, start=1):
        s, head, rows = _block(book, i)
        assert book.cached(s, head, 2) == o.name
        tp_row = rows[t("tp", LOC)]
        got = [book.cached(s, tp_row, 3 + j) for j in range(len(o.replica_candidates))]
        assert got == [c["tp"] for c in o.replica_candidates]
        assert book.cached(s, tp_row, 3 + len(o.replica_candidates)) is None  # no extra column


def test_the_terms_are_the_engine_values(small_run, book):
    o = small_run.options[0]  # the 4× L4 server: tensor parallel 1, 2 and 4 tried
    s, _, rows = _block(book, 1)
    score = rows[t("score", LOC)]
    cap = rows[t("cap", LOC)]
    for j, c in enumerate(o.replica_candidates):
        assert book.cached(s, score, 3 + j) == pytest.approx(c["score"], rel=1e-12)
        assert book.cached(s, cap, 3 + j) == pytest.approx(c["cap"], rel=1e-12)
        assert str(book.formula(s, score, 3 + j)).startswith("=")


def test_the_best_score_is_the_engine_layout(small_run, book):
    for i, o in enumerate(small_run.options, start=1):
        s, _, rows = _block(book, i)
        score = rows[t("score", LOC)]
        scores = [book.cached(s, score, 3 + j) for j in range(len(o.replica_candidates))]
        best = scores.index(max(scores))
        assert o.replica_candidates[best]["tp"] == o.replica.tensor_parallel


def test_candidate_formulas_are_their_cached_values(small_run, book):
    s, head, rows = _block(book, 1)
    last = max(rows.values())
    n = 0
    for r in range(head, last + 1):
        for c in range(3, 3 + len(small_run.options[0].replica_candidates)):
            if isinstance(book.formula(s, r, c), str) and book.formula(s, r, c).startswith("="):
                got, want = book.evaluate(s, r, c), book.cached(s, r, c)
                if isinstance(want, (int, float)) and not isinstance(want, bool):
                    assert float(got) == pytest.approx(float(want), rel=1e-9, abs=1e-9), (r, c)
                else:
                    assert got == want, (r, c)
                n += 1
    assert n > 3 * 30


def test_number_formats():
    assert fmt_of("batch") == "calc_int" and fmt_of("score") == "calc_num4" and fmt_of("touch") == "calc_pct"
    seconds = next(k for k, u in ROWS if u == "s" and k not in ("batch",))
    assert fmt_of(seconds) == "calc_num6"  # times in seconds keep six decimals
    from tco.report.workbook.replica import FORMATS

    other = next(k for k, u in ROWS if u not in ("s", "") and k not in FORMATS)  # e.g. bytes, FLOPs
    assert fmt_of(other) == "calc_sci"
