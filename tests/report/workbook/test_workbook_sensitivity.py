"""tco.report.workbook.sensitivity: the Sensitivity sheet (the engine's tornado) and its live rows.

The rows whose input moves the TCO along a straight line (USD/BRL, cloud prices, dedicated prices) are formulas:
difference at multiple m = base difference + (m − 1) × (challenger's part − leader's part). That closed form is
held to the engine's own tornado, which re-ran the engine at each end; then the sheet: every formula equals its
cached value when evaluated in-process, the live rows cache the engine's differences, the others carry its values."""

from __future__ import annotations

import pytest
from workbook_eval import written

from tco.report.i18n import t
from tco.report.workbook.sensitivity import LIVE_SENS, live_diff

LOC = "pt-BR"


@pytest.fixture(scope="module")
def tornado(small_run):
    block = small_run.analysis.sensitivity.as_dict()["leaders"]
    assert block["rows"]
    return block


@pytest.mark.parametrize("key", sorted(LIVE_SENS))
def test_the_closed_form_is_what_the_engine_got_by_re_running(small_run, key):
    checked = 0
    for block in small_run.analysis.sensitivity.as_dict().values():
        if not isinstance(block, dict):
            continue
        for row in block.get("rows") or []:
            if row["input"] != key or row.get("metric", "tco") != "tco":
                continue
            for end in ("low", "high"):
                got = live_diff(small_run, block["leader"], block["challenger"], key, row[end])
                assert got == pytest.approx(row[f"{end}_diff_brl"], rel=1e-9), (block["leader"], end)
                checked += 1
    assert checked >= 2


def test_at_multiple_one_the_difference_is_the_base(small_run, tornado):
    tco = {o.name: o.tco.deterministic for o in small_run.options}
    base = tco[tornado["challenger"]] - tco[tornado["leader"]]
    for key in LIVE_SENS:
        assert live_diff(small_run, tornado["leader"], tornado["challenger"], key, 1.0) == pytest.approx(base)
    assert tornado["base_diff_brl"] == pytest.approx(base)


def test_the_usd_row_by_hand(small_run, tornado):
    """USD/BRL × 1.2: the difference moves by 0.2 × (challenger's USD part − leader's), each part the BRL value of its
    dollar lines."""
    def usd(name):
        o = next(x for x in small_run.options if x.name == name)
        return sum(float(o.lines_brl[k].sum()) for k in o.lines_brl if o.costs.currency[k] == "USD")

    tco = {o.name: o.tco.deterministic for o in small_run.options}
    a, b = tornado["leader"], tornado["challenger"]
    expected = tco[b] - tco[a] + (1.2 - 1) * (usd(b) - usd(a))
    assert live_diff(small_run, a, b, "usdbrl", 1.2) == pytest.approx(expected, rel=1e-12)


def test_every_formula_of_the_sheet_is_its_cached_value(small_run):
    book = written(small_run)
    assert book.check_formulas(t("sh_sensitivity", LOC)) >= 2 * len(small_run.analysis.sensitivity.as_dict()["leaders"]["rows"])


def _block_of_row(book, s, r, sens: dict) -> dict:
    """The tornado block a sheet row belongs to: the pair written above it ("challenger − leader")."""
    pair_label = t("sens_pair", LOC)
    above = max(c.row for (c,) in book.f[s].iter_rows(min_col=1, max_col=1, max_row=r) if c.value == pair_label)
    pair = book.cached(s, above, 2)
    return next(b for b in sens.values() if isinstance(b, dict) and b.get("rows")
                and f"{b['challenger']} − {b['leader']}" == pair)


def test_live_rows_are_formulas_and_cache_the_engine_differences(small_run):
    book = written(small_run)
    s = t("sh_sensitivity", LOC)
    live = t("sens_live", LOC)
    sens = small_run.analysis.sensitivity.as_dict()
    found = 0
    for (cell,) in book.f[s].iter_rows(min_col=11, max_col=11):
        if cell.value != live:
            continue
        r = cell.row
        found += 1
        block = _block_of_row(book, s, r, sens)
        label = book.cached(s, r, 1)
        row = next(x for x in block["rows"] if t(f"sens_in_{x['input']}", LOC) == label)
        assert row["input"] in LIVE_SENS
        assert str(book.formula(s, r, 6)).startswith(f"=E{r}+(C{r}-1)*")
        assert book.cached(s, r, 6) == pytest.approx(row["low_diff_brl"], rel=1e-9)
        assert book.cached(s, r, 7) == pytest.approx(row["high_diff_brl"], rel=1e-9)
        assert book.cached(s, r, 8) == pytest.approx(abs(row["high_diff_brl"] - row["low_diff_brl"]), rel=1e-9)
    assert found >= 2


def test_other_rows_carry_the_engine_values(small_run, tornado):
    book = written(small_run)
    s = t("sh_sensitivity", LOC)
    engine = t("sens_engine", LOC)
    rows = [c.row for (c,) in book.f[s].iter_rows(min_col=11, max_col=11) if c.value == engine]
    assert rows
    for r in rows:
        assert not str(book.formula(s, r, 6)).startswith("=")  # a value, not a formula
        # deviations from the base: low − base and high − base
        assert book.cached(s, r, 9) == pytest.approx(book.cached(s, r, 6) - book.cached(s, r, 5), abs=1e-6)
