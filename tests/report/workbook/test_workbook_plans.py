"""tco.report.workbook.plans: the Plans sheet (each provider's best plan and runners-up from the plan search, and the
best plan against the cheapest option written).

Read back from the written workbook: groups cheapest first and each group's plans best first (plan_rows by hand), the
TCOs the search's, the multiple over the best plan = TCO / min(TCO), and the saving = the cheapest option's TCO (live,
from the Comparison) − the best plan's; every formula equals its cached value evaluated in-process, and the saving
follows an edit of the options' TCOs."""

from __future__ import annotations

import pytest

from tco.findings import GroupPlans, OverallPlans, Plan, PlanSearch
from tco.plan_results import ServingFleet
from tco.report.i18n import t
from tco.report.workbook.plans import plan_rows

SERVING = ServingFleet(offer="x/y", provider="x", region="y", kind="cloud", gpu="H100", gpus_per_server=8,
                       pricing="on_demand", price=1.0, price_unit="USD/h", status="listed", as_of="2026-11-01",
                       mode="always_on", committed_instances=None, burst_pricing=None, peak_instances=1,
                       tensor_parallel=8, tokens_per_second_per_user=30.0)
"""A serving fleet for the plans built by hand."""

LOC = "pt-BR"


@pytest.fixture(scope="module")
def sheet():
    return t("sh_plans", LOC)


def test_plan_rows_by_hand():
    def plan(tco: float) -> Plan:
        return Plan(name=f"Plan {tco:g}", group="g", fleet="separate", tco_brl=tco, npv_brl=tco, tax_profile="t",
                    tax_uplift_share=None, training=None, serving=SERVING, notes=(), option={})

    def group(best: float, *runners: float) -> GroupPlans:
        return GroupPlans(best=plan(best), runners_up=tuple(plan(r) for r in runners), candidates=1 + len(runners),
                          margin_brl=None, margin_share=None)

    plans = PlanSearch(search={}, hybrid=None, overall=OverallPlans(best=plan(3.0), runner_up=plan(4.0),
                                                                    margin_brl=1.0, margin_share=1 / 3),
                       by_provider={"b": group(5.0, 6.0), "a": group(3.0), "c": group(4.0)})
    assert [(g, n, p.tco_brl) for g, n, p in plan_rows(plans)] == [("a", 1, 3.0), ("c", 1, 4.0), ("b", 1, 5.0),
                                                                     ("b", 2, 6.0)]


def test_every_formula_is_its_cached_value(book, sheet):
    assert book.check_formulas(sheet) >= 10


def _table(book, sheet):
    head = next(c.row for (c,) in book.f[sheet].iter_rows(min_col=1, max_col=1) if c.value == t("plan_group", LOC))
    rows = []
    r = head + 1
    while isinstance(book.cached(sheet, r, 2), (int, float)):
        rows.append(r)
        r += 1
    return rows


def test_the_table_is_the_search(small_run, book, sheet):
    plans = small_run.analysis.plans
    expected = plan_rows(plans)
    rows = _table(book, sheet)
    assert len(rows) == len(expected)
    best = min(p.tco_brl for _, _, p in expected)
    for r, (g, n, p) in zip(rows, expected, strict=True):
        assert book.cached(sheet, r, 2) == n
        assert book.cached(sheet, r, 3) == pytest.approx(p.tco_brl, rel=1e-12)
        assert book.cached(sheet, r, 4) == pytest.approx(p.npv_brl, rel=1e-12)
        assert book.cached(sheet, r, 5) == pytest.approx(p.tco_brl / best, rel=1e-12)  # ≥ 1: × the best
        assert book.cached(sheet, r, 7).startswith(p.serving.offer)


def test_the_saving_against_the_options(small_run, book, sheet):
    vs = small_run.analysis.plans.vs_options
    rows = book.labels(sheet)
    r_opt, r_plan, r_save = (rows[t(k, LOC)] for k in ("plan_cheapest_option", "plan_best_plan", "plan_saving"))
    cheapest = min(o.tco.deterministic for o in small_run.options)
    assert book.cached(sheet, r_opt, 3) == pytest.approx(cheapest, rel=1e-12)
    assert book.cached(sheet, r_plan, 3) == pytest.approx(vs.best_plan_tco_brl, rel=1e-12)
    assert book.cached(sheet, r_save, 3) == pytest.approx(vs.best_plan_saving_brl, rel=1e-9)
    # the cheapest option is live: a cheaper option written in the Comparison moves the saving
    cmp_ = t("sh_comparison", LOC)
    first = next(r for r in range(4, 4 + len(small_run.options))
                 if book.cached(cmp_, r, 14) == pytest.approx(cheapest))
    edited = {(cmp_, f"N{first}"): cheapest - 1000.0}
    assert book.evaluate(sheet, r_opt, 3, edited) == pytest.approx(cheapest - 1000.0)


@pytest.mark.slow
def test_the_cheapest_option_is_the_ranked_one_when_constraints_leave_options_out(sheet):
    """The seed keeps its data in Brazil: its us-east-1 hybrid is the cheapest feasible option but is not ranked, so
    the cached 'cheapest option' is the ranking's first, as the live MIN over the Comparison's column N gives."""
    import tco
    from conftest import SEED
    from workbook_eval import written

    seed_results = tco.run(SEED, paths=50, sensitivity=False)  # with its plan search (the Plans sheet)
    seed_book = written(seed_results)
    cheapest_feasible = min(o.tco.deterministic for o in seed_results.options if o.feasible)
    ranked_first = seed_results.cheapest().tco.deterministic
    assert cheapest_feasible < ranked_first  # the case this test is about
    r_opt = seed_book.labels(sheet)[t("plan_cheapest_option", LOC)]
    assert seed_book.cached(sheet, r_opt, 3) == pytest.approx(ranked_first, rel=1e-12)
    assert seed_book.evaluate(sheet, r_opt, 3, {}) == pytest.approx(ranked_first, rel=1e-12)
