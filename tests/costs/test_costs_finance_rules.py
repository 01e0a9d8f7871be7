"""tco.costs.finance_rules: sums by contract and calendar year, the part of the cost some lines make with their taxes,
the committed amount and its share of the TCO, each worked by hand, and the formulas they render."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco.costs import finance_rules as fr
from tco.domain import LINES
from tco.expr import XlContext


def test_yearly_by_hand():
    # 14 months from November 2027: contract year 1 = months 1-12 (1 + … + 12 = 78), year 2 = 13 + 14 = 27;
    # calendar 2027 = Nov, Dec (1 + 2 = 3), 2028 = Jan-Dec (3 + … + 14 = 102); over the horizon 105
    months = [f"{2027 + (10 + m) // 12}-{(10 + m) % 12 + 1:02d}" for m in range(14)]
    by_contract, by_calendar, whole = fr.yearly([float(m + 1) for m in range(14)], months)
    assert (by_contract, by_calendar, whole) == ([78.0, 27.0], [3.0, 102.0], 105.0)


def test_contract_year_sums_are_the_slices_to_the_bit():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1e6, 36)
    months = [f"{2027 + m // 12}-{m % 12 + 1:02d}" for m in range(36)]
    by_contract, by_calendar, whole = fr.yearly(x, months)
    assert by_contract == [float(x[12 * y:12 * (y + 1)].sum()) for y in range(3)] == by_calendar
    assert whole == float(x.sum())


def _option(lines: dict, brl: dict, currency: dict, tco: float):
    full = {k: np.asarray(lines.get(k, [0.0] * 3), dtype=float) for k in LINES}
    return SimpleNamespace(costs=SimpleNamespace(lines=full, currency=currency), tco=SimpleNamespace(deterministic=tco),
                           lines_brl={k: np.asarray(brl.get(k, [0.0] * 3), dtype=float) for k in LINES},
                           total_brl=np.zeros(3))


def test_committed_with_its_taxes_by_hand():
    # a USD inference line of 100, 100, 200 (BRL 500, 500, 1000 at 5 BRL/USD); taxes 10, 10, 0 USD on a taxed amount
    # of inference + egress = 100 + 0, 100 + 0, 200 + 0 → ratio 0.1, 0.1, 0; a commitment of 2 months from month 2:
    # 500 × 1.1 + 1000 × 1 = 1550; the TCO 3100 → share 0.5
    cur = {k: "USD" if k in ("inference_compute", "egress", "taxes") else "BRL" for k in LINES}
    o = _option({"inference_compute": [100, 100, 200], "taxes": [10, 10, 0]},
                {"inference_compute": [500, 500, 1000]}, cur, 3100.0)
    assert fr.taxed_lines(cur) == ("inference_compute", "egress")
    amount, share = fr.committed(o, ["inference_compute"], 2, 2)
    assert amount == pytest.approx(550.0 + 1000.0, rel=1e-15) and share == pytest.approx(0.5, rel=1e-15)
    # a month with nothing taxed reads the ratio as 0 (no division by zero); a line outside the taxed amount as it is
    o0 = _option({}, {"setup": [7, 0, 0]}, cur, 0.0)
    assert fr.committed(o0, ["setup"], 1, 3) == (7.0, 0.0)  # TCO 0: share 0


def test_formulas():
    ranges = {"x": "X", "year": "Y", "date": "D", "t": "T", "b_inference_compute": "B", "l_inference_compute": "L",
              "l_egress": "E", "l_taxes": "TX", "b_setup": "S"}
    names = {"y": "F$5", "cal": "J$5", "start": "E9", "term": "D9", "c.tco": "out_o1_tco", "c.committed": "F9"}
    ctx = XlContext("", None, lambda k: 0, names.__getitem__, row_range=ranges.__getitem__)
    assert fr.BY_CONTRACT_YEAR.formula(ctx) == "=SUMPRODUCT((Y=F$5-1)*(X))"
    assert fr.BY_CALENDAR_YEAR.formula(ctx) == "=SUMPRODUCT((YEAR(D)=J$5)*(X))"
    assert fr.OVER_HORIZON.formula(ctx) == "=SUM(X)"
    rule = fr.committed_rule(("inference_compute", "setup"), ("inference_compute", "egress"))
    assert rule.formula(ctx) == "=SUMPRODUCT(((T>=E9)*(T<E9+D9))*(B*(1+TX/(L+E+(L+E=0)))+S))"
    assert fr.SHARE_OF_TCO.formula(ctx) == "=IF(out_o1_tco>0,F9/out_o1_tco,0)"


def test_break_even_part_formulas():
    ranges = {"b_inference_compute": "BI", "b_egress": "BE", "l_training_compute": "LT", "l_taxes": "TX",
              "b_training_compute": "BT"}
    ctx = XlContext("", None, lambda k: 0, {"c.tco": "out_o2_tco", "c.usd_part": "E7"}.__getitem__,
                    row_range=ranges.__getitem__)
    assert fr.usd_part_rule(("inference_compute", "egress")).formula(ctx) == "=SUM(BI)+SUM(BE)"
    assert fr.usd_part_rule(()).formula(ctx) == "=0"
    assert fr.BRL_PART.formula(ctx) == "=out_o2_tco-E7"
    taxed = fr.price_part_rule("dedicated_part", ("training_compute",), ("training_compute",))
    assert taxed.formula(ctx) == "=SUMPRODUCT(BT*(1+TX/(LT+(LT=0))))"
    assert fr.price_part_rule("cloud_part", (), ()).formula(ctx) == "=SUMPRODUCT(0)"


def _against_leader(**given: float) -> dict:
    base = {"tco": 130.0, "i": 2.0, "lead_pos": 1.0, "usd": 100.0, "brl": 30.0, "cloud": 80.0, "tco_lead": 100.0,
            "usd_lead": 10.0, "brl_lead": 90.0, "cloud_lead": 20.0, "min_multiple": 0.001, "trial_cloud": 1.0,
            "trial_fx": 1.0, "spot": 5.0}
    return fr.multiples(**(base | given))


def test_multiples_by_hand():
    # FX: 90 + 10k = 30 + 100k → k* = 60/90 = 0.667, at a spot of 5: 3.33 BRL/USD; cloud prices: 100 + 20(m − 1) =
    # 130 + 80(m − 1) → m* = 1 − 30/60 = 0.5; at the trial multiples 1: TCO 130 + 0·80 = 130, 30 + 1·100 = 130;
    # both multiples below 1, none above
    v = _against_leader()
    assert v["fx_k"] == (90.0 - 30.0) / (100.0 - 10.0) and v["fx_rate"] == v["fx_k"] * 5.0
    assert v["cloud_m"] == 0.5 and v["trial_cloud_tco"] == 130.0 and v["trial_fx_tco"] == 130.0
    assert (v["fx_k_below"], v["fx_k_above"], v["cloud_m_below"], v["cloud_m_above"]) == (v["fx_k"], None, 0.5, None)


def test_multiples_blank_for_the_leader_an_unranked_option_and_no_crossing():
    assert set(_against_leader(i=1.0).values()) == {None}  # the leader itself
    assert set(_against_leader(tco=float("nan")).values()) == {None}  # not ranked: its TCO is blank
    v = _against_leader(usd=10.0, cloud=20.0)  # the same USD and cloud parts: the lines never cross
    assert v["fx_k"] is None and v["cloud_m"] is None and v["fx_rate"] is None
    assert _against_leader(brl=90.0 + 1e-7)["fx_k"] is None  # k* ≈ −1e-9: below the smallest multiple


def test_multiple_formulas():
    names = {"tco": "D7", "i": "B7", "lead_pos": "$B$20", "usd": "E7", "brl": "F7", "cloud": "G7", "tco_lead": "DL",
             "usd_lead": "EL", "brl_lead": "FL", "cloud_lead": "GL", "min_multiple": "be_min_multiple",
             "spot": "in_usdbrl", "c.fx_k": "I7", "trial_cloud": "$B$29", "trial_fx": "$B$31"}
    ctx = XlContext("", None, lambda k: 0, names.__getitem__)
    skip = "OR(NOT(ISNUMBER(D7)),B7=$B$20)"
    assert fr.FX_MULTIPLE.formula(ctx) == (f'=IF({skip},"",IF(E7=EL,"",IF((FL-F7)/(E7-EL)>be_min_multiple,'
                                           '(FL-F7)/(E7-EL),"")))')
    assert fr.FX_RATE.formula(ctx) == '=IF(ISNUMBER(I7),I7*in_usdbrl,"")'
    assert fr.TRIAL_CLOUD.formula(ctx) == f'=IF({skip},"",D7+($B$29-1)*G7)'
    assert fr.TRIAL_FX.formula(ctx) == f'=IF({skip},"",F7+$B$31*E7)'
    assert fr.side("fx_k", True).formula(ctx) == '=IF(ISNUMBER(I7),IF(I7<1,I7,""),"")'
