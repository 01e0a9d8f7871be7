"""tco.report.workbook.calc: one calculation sheet per option, read back from the written workbook.

Every formula sampled (the first, a middle and the last month, and the constants and totals) equals its cached value
when evaluated in-process from the cells it references (tests/workbook_eval.py): a formula reading the wrong row or
month shows as a mismatch. The cached values are the engine's: each cost line in BRL, the monthly total, its sum (the
TCO) and the discounted sum (the NPV). Written for the L4 example (a shared dedicated fleet and three clouds) and the
seed (separate fleets and a hybrid)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from workbook_eval import written

from tco.domain import LINES
from tco.report.i18n import t

LOC = "pt-BR"


@pytest.fixture(scope="module")
def small(small_run):
    return written(small_run)


@pytest.fixture(scope="module")
def seed(seed_results):
    return written(seed_results)


def _sheet(i):
    return t("sh_calc", LOC, i=i)


@pytest.mark.parametrize("i", [1, 2, 3, 4])
def test_every_sampled_formula_of_a_calc_sheet_is_its_cached_value(small_run, small, i):
    assert small.check_formulas(_sheet(i), horizon=len(small_run.months)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Dedicado BR — 8x H200 (frotas separadas)", "Híbrido"])
def test_separate_and_hybrid_sheets_too(seed_results, seed, name):
    i = next(j for j, o in enumerate(seed_results.options, 1) if o.name.startswith(name))
    assert seed.check_formulas(_sheet(i), horizon=36) > 100


def test_the_sheet_names_its_option(small_run, small):
    for i, o in enumerate(small_run.options, start=1):
        assert small.cached(_sheet(i), 1, 3) == o.name


@pytest.mark.parametrize("i", [1, 2, 3, 4])
def test_lines_in_reais_total_tco_and_npv_are_the_engine_values(small_run, small, i):
    o = small_run.options[i - 1]
    s = _sheet(i)
    h = len(small_run.months)
    rows = small.labels(s)
    for k in LINES:
        r = rows[t("line_" + k, LOC) + " (R$)"]
        np.testing.assert_allclose(small.month_values(s, r, h), o.lines_brl[k], rtol=1e-12, atol=1e-9)
    total = small.name_values(f"out_o{i}_total")
    np.testing.assert_allclose(total, o.total_brl, rtol=1e-12, atol=1e-9)
    assert small.name_values(f"out_o{i}_tco")[0] == pytest.approx(o.tco.deterministic, rel=1e-12)
    assert small.name_values(f"out_o{i}_npv")[0] == pytest.approx(o.npv.deterministic, rel=1e-12)


def test_the_total_is_the_sum_of_the_lines_in_reais(small):
    s = _sheet(1)
    rows = small.labels(s)
    r = rows[t("total_brl", LOC)]
    line_rows = sorted(rows[t("line_" + k, LOC) + " (R$)"] for k in LINES)
    assert small.formula(s, r, 5) == "=" + "+".join(f"E{x}" for x in line_rows)


def test_cumulative_and_discounted_rows(small_run, small):
    o = small_run.options[0]
    s = _sheet(1)
    rows = small.labels(s)
    h = len(small_run.months)
    cum = small.month_values(s, rows[t("cumulative", LOC)], h)
    np.testing.assert_allclose(cum, np.cumsum(o.total_brl), rtol=1e-12)
    disc = small.month_values(s, rows[t("discounted", LOC)], h)
    r = small_run.scenario.scenario.discount_rate
    df = (1 + r) ** (-np.arange(1, h + 1) / 12)  # month-end cash flows, (1 + r)^(−t/12)
    np.testing.assert_allclose(disc, o.total_brl * df, rtol=1e-9)
    assert sum(disc) == pytest.approx(o.npv.deterministic, rel=1e-9)


def test_dollar_lines_convert_at_the_timeline_rate(small_run, small):
    i, o = next((j, x) for j, x in enumerate(small_run.options, 1) if x.kind == "cloud")
    s = _sheet(i)
    rows = small.labels(s)
    r = rows[t("line_inference_compute", LOC) + " (R$)"]
    h = len(small_run.months)
    f = small.formula(s, r, 5)
    a, b = re.fullmatch(r"=E(\d+)\*E(\d+)", f).groups()  # the dollar line × the month's rate, both rows of the sheet
    usd = o.costs.lines["inference_compute"]
    np.testing.assert_allclose(small.month_values(s, int(a), h), usd, rtol=1e-12)
    np.testing.assert_allclose(small.month_values(s, int(b), h), small_run.fx_path, rtol=1e-12)
    np.testing.assert_allclose(small.month_values(s, r, h), usd * small_run.fx_path, rtol=1e-12)
