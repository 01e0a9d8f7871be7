"""tco.costs.totals_rules: the BRL conversion, total, cumulative, discounted, TCO, NPV and tax uplift, each worked by
hand; the formula each renders; and the engine's option results are these rules' rows."""

from __future__ import annotations

import numpy as np
import pytest

from tco.costs import totals_rules
from tco.domain import LINES
from tco.expr import XlContext

FX = np.array([5.0, 6.0])
DF = np.array([0.5, 0.25])


def _lines(**given: list[float]) -> dict[str, np.ndarray]:
    return {k: np.array(given.get(k, [0.0, 0.0])) for k in LINES}


def test_totals_by_hand():
    # setup 100 BRL in month 1; inference 10 and 20 USD at 5 and 6 BRL/USD: 50 and 120 BRL; taxes 1 and 2 USD: 5, 12
    lines = _lines(setup=[100.0, 0.0], inference_compute=[10.0, 20.0], taxes=[1.0, 2.0])
    cur = {k: "BRL" if k == "setup" else "USD" for k in LINES}
    out = totals_rules.totals(lines, cur, FX, DF)
    np.testing.assert_array_equal(out["b_setup"], [100.0, 0.0])
    np.testing.assert_array_equal(out["b_inference_compute"], [50.0, 120.0])
    np.testing.assert_array_equal(out["b_taxes"], [5.0, 12.0])
    np.testing.assert_array_equal(out["total"], [100.0 + 50.0 + 5.0, 120.0 + 12.0])  # 155, 132
    np.testing.assert_array_equal(out["cum"], [155.0, 155.0 + 132.0])  # 155, 287
    np.testing.assert_array_equal(out["disc"], [155.0 * 0.5, 132.0 * 0.25])  # 77.5, 33
    assert out["tco"][0] == 287.0
    assert out["npv"][0] == 77.5 + 33.0  # 110.5


def test_totals_equal_the_month_total_of_the_ledger_to_the_bit():
    from tco.ledger import in_brl, month_total

    rng = np.random.default_rng(3)
    lines = {k: rng.uniform(0, 1e6, 24) for k in LINES}
    cur = {k: ("USD" if j % 2 else "BRL") for j, k in enumerate(LINES)}
    fx, df = rng.uniform(4, 7, 24), rng.uniform(0.5, 1, 24)
    out = totals_rules.totals(lines, cur, fx, df)
    total = month_total((in_brl(lines[k], cur[k], fx) for k in LINES), 24)
    np.testing.assert_array_equal(out["total"], total)
    assert out["tco"][0] == float(total.sum()) and out["npv"][0] == float(total @ df)


def test_uplift_by_hand():
    # taxes 15 + 25 = 40 on a taxed amount 100 + 100 = 200: 40 / 200 = 0.2; nothing taxed: 0
    assert totals_rules.uplift(np.array([100.0, 100.0]), np.array([15.0, 25.0])) == pytest.approx(0.2, abs=0)
    assert totals_rules.uplift(np.zeros(2), np.zeros(2)) == 0.0


def test_formulas():
    rows = {"b_" + k: 20 + j for j, k in enumerate(LINES)} | {"l_inference_compute": 12, "fx": 5, "df": 6,
                                                              "total": 30, "cum": 31, "t": 3,
                                                              "tax_base": 40, "l_taxes": 41}
    ctx = XlContext("G", "F", rows.__getitem__, lambda n: n, row_range=lambda k: f"$E${rows[k]}:$P${rows[k]}")
    assert totals_rules.brl_rule("inference_compute", "USD").formula(ctx) == "=G12*G5"
    assert totals_rules.brl_rule("inference_compute", "BRL").formula(ctx) == "=G12"
    assert totals_rules.TOTAL.formula(ctx) == "=G20+G21+G22+G23+G24+G25"
    assert totals_rules.CUM.formula(ctx) == "=F31+G30"
    assert totals_rules.DISC.formula(ctx) == "=G30*G6"
    assert totals_rules.TCO.formula(ctx) == "=SUM($E$30:$P$30)"
    assert totals_rules.NPV.formula(ctx) == "=SUMPRODUCT($E$30:$P$30,$E$6:$P$6)"
    assert totals_rules.UPLIFT.formula(ctx) == "=IF(SUM($E$40:$P$40)>0,SUM($E$41:$P$41)/SUM($E$40:$P$40),0)"


def test_rules_are_kept_per_currencies():
    cur = ("BRL",) * len(LINES)
    assert totals_rules.rules(cur) is totals_rules.rules(cur)
