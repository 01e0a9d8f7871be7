"""tco.report.workbook.model: the Timeline (months across the columns: dates, days, demand, USD/BRL, discount
factors) and the Sizing sheet (each option's replica and training cluster), read back from the written workbook.

Every sampled formula equals its cached value when evaluated in-process; the cached rows are the engine's (users,
requests, tokens, egress, the USD/BRL base path, (1 + r)^(−t/12)); days per month by the calendar; and the Sizing
sheet's replica capacity is the engine's for each option."""

from __future__ import annotations

import calendar

import numpy as np
import pytest

from tco.report.i18n import t

LOC = "pt-BR"


def _timeline_row(book, key):
    s = t("sh_timeline", LOC)
    return s, book.row_of(s, t(key, LOC))


def test_every_timeline_formula_is_its_cached_value(small_run, book):
    assert book.check_formulas(t("sh_timeline", LOC), horizon=len(small_run.months)) > 50


@pytest.mark.slow
def test_every_sizing_formula_is_its_cached_value(book):
    assert book.check_formulas(t("sh_sizing", LOC)) > 100


def test_days_follow_the_calendar(small_run, book):
    s, r = _timeline_row(book, "days")
    h = len(small_run.months)
    expected = [calendar.monthrange(int(m[:4]), int(m[5:]))[1] for m in small_run.months]  # Feb 2028 has 29
    assert book.month_values(s, r, h) == expected
    s, rh = _timeline_row(book, "hours_month")
    assert book.month_values(s, rh, h) == [d * 24 for d in expected]


@pytest.mark.parametrize(("key", "attr"), [("users", "users"), ("requests", "requests"), ("tokens", "tokens"),
                                           ("col_egress", "egress_gb")])
def test_demand_rows_are_the_engine_demand(small_run, book, key, attr):
    s = t("sh_timeline", LOC)
    r = book.row_of(s, t(key, LOC))
    got = book.month_values(s, r, len(small_run.months))
    np.testing.assert_allclose(got, getattr(small_run, attr), rtol=1e-12, atol=1e-9)
    if key != "users":  # a flow: its whole-horizon total in column C
        assert book.cached(s, r, 3) == pytest.approx(float(np.sum(getattr(small_run, attr))), rel=1e-12)


def test_the_rate_row_is_the_base_path(small_run, book):
    s = t("sh_timeline", LOC)
    r = book.row_of(s, "USD/BRL")
    np.testing.assert_allclose(book.month_values(s, r, len(small_run.months)), small_run.fx_path, rtol=1e-12)


def test_discount_factors(small_run, book):
    s = t("sh_timeline", LOC)
    r = book.row_of(s, t("df", LOC))
    rate = small_run.scenario.scenario.discount_rate
    h = len(small_run.months)
    expected = (1 + rate) ** (-np.arange(1, h + 1) / 12)  # month-end cash flows
    np.testing.assert_allclose(book.month_values(s, r, h), expected, rtol=1e-12)


def test_users_row_reads_the_users_inputs(book):
    s = t("sh_timeline", LOC)
    users = book.row_of(s, t("users", LOC))
    f = book.formula(s, users, 6)
    assert f.startswith("=lv_users*(") and ("in_start_users" in f or "in_end_users" in f)


def test_sizing_capacity_is_the_engine_replica(small_run, book):
    s = t("sh_sizing", LOC)
    cap = book.row_of(s, t("cap", LOC))
    for i, o in enumerate(small_run.options):
        assert book.cached(s, cap, 3 + i) == pytest.approx(o.replica.requests_per_second, rel=1e-9)


@pytest.mark.slow
def test_an_nvfp4_fleet_on_b200_evaluates_to_the_engine(tmp_path):
    """The small example served in NVFP4 on AWS p6-b200 (one option, on demand): the Sizing sheet's formulas, with the
    weight GEMMs at c_fp4_gemm_share of the FP4 peak (in_o1_inf_fp4_gemm = 1), evaluate (tests/workbook_eval.py) to
    the engine's cached values."""
    import re

    from pathlib import Path

    import tco
    from workbook_eval import written

    text = (Path(__file__).resolve().parents[3] / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
    head, _, _ = text.partition("[[options]]")
    head = head.replace('precision = "fp8"        #', 'precision = "fp4"        #', 1)
    assert re.search(r'^precision = "fp4"', head, re.M)
    option = ('[[options]]\nname = "AWS us-east-1 — p6-b200"\nlabel = "AWS p6-b200"\n'
              'training_offer = "aws/us-east-1/p6-b200.48xlarge"\ninference_offer = "aws/us-east-1/p6-b200.48xlarge"\n'
              'pricing = "on_demand"\n')
    path = tmp_path / "fp4.toml"
    path.write_text(head + option, encoding="utf-8")
    res = tco.run(path, paths=50, seed=7, analysis=False, plans=False)
    book = written(res)
    assert book.name_values("in_o1_inf_fp4_gemm") == [1] and book.name_values("c_fp4_gemm_share") == [0.78]
    assert book.check_formulas(t("sh_sizing", LOC)) > 100
