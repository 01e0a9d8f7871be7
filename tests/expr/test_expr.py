"""The expression layer: each Excel function paired with its numpy meaning, checked against an Excel
evaluator in-process (the `formulas` package) on edge values; the rules of tco.timeline rendered and
recalculated for random inputs. LibreOffice stays the end-to-end check (tests/test_workbook.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco import timeline
from tco.constants import ALL as NAMED
from tco.expr import (
    AND, CHOOSE, EXP, FUNCS, IF, INT, LN, MAX, MIN, ROUNDUP, SUM, Const, Env, Fill, Fn, In, Month, Pick, Prev, Ratchet,
    ISNUMBER, NOT, OR, YEAR, Blank, Row, Rule, XlContext, evaluate,
)

formulas = pytest.importorskip("formulas")


def excel(text: str, **cells: float) -> float:
    """Evaluate one formula in-process as Excel would; ``cells`` give the referenced cells' values."""
    func = formulas.Parser().ast(text)[1].compile()
    out = func(*(cells[name] for name in func.inputs))
    value = np.asarray(out, dtype=object).ravel()[0]
    return float(value)


CTX = XlContext(col="F", prev="E", row_of=lambda key: {"t": 3, "x": 8, "y": 9}[key], name_of=lambda n: n.upper() + "1")


def both(expr, **env_inputs) -> tuple[float, float]:
    """(numpy value, Excel value) of a scalar expression with no row references."""
    value = expr.np(Env(env_inputs, 1))
    return float(np.asarray(value).ravel()[0]), excel("=" + expr.xl(CTX), **{k.upper() + "1": v
                                                                           for k, v in env_inputs.items()})


# --- one pair per function, on edge values ---------------------------------------------------

@pytest.mark.parametrize("x", [3.0000000001, 3.0, -2.5, 0.0, 1e-12, 41.2])
def test_roundup_rounds_away_from_zero(x):
    np_v, xl_v = both(ROUNDUP(In("a")), a=x)
    assert np_v == xl_v == math.copysign(math.ceil(abs(x)), x) + 0.0


@pytest.mark.parametrize("x", [-2.5, 2.5, -0.0, 7.0, 1e9 + 0.5])
def test_int_floors(x):
    np_v, xl_v = both(INT(In("a")), a=x)
    assert np_v == xl_v == math.floor(x)


@pytest.mark.parametrize("a,b", [(1.0, -1.0), (0.0, 0.0), (-3.0, -2.0), (1e308, 1e307)])
def test_max_min(a, b):
    assert both(MAX(In("a"), In("b")), a=a, b=b) == (max(a, b), max(a, b))
    assert both(MIN(In("a"), In("b")), a=a, b=b) == (min(a, b), min(a, b))


@pytest.mark.parametrize("c", [0.0, 1.0, -1.0, 0.5])
def test_if_treats_any_nonzero_as_true(c):
    assert both(IF(In("c"), 1, 2), c=c) == ((1.0, 1.0) if c != 0 else (2.0, 2.0))


@pytest.mark.parametrize("x", [0.0, 0.5, -30.0, 1.0])
def test_exp(x):
    np_v, xl_v = both(EXP(In("a")), a=x)
    assert np_v == pytest.approx(xl_v, rel=1e-15) and np_v == pytest.approx(math.exp(x), rel=1e-15)


@pytest.mark.parametrize("x", [1.0, 2.0, 1e-9, 1.14 / 1.04])
def test_ln(x):
    np_v, xl_v = both(LN(In("a")), a=x)
    assert np_v == pytest.approx(xl_v, rel=1e-15, abs=1e-300) and np_v == pytest.approx(math.log(x), abs=1e-300)


def test_every_function_has_a_pair_test():
    tested = {"ROUNDUP", "INT", "MAX", "MIN", "IF", "EXP", "LN", "ABS", "AND", "SUM", "CHOOSE", "YEAR", "ISNUMBER", "OR",
              "NOT"}
    assert set(FUNCS) <= tested
    assert both(Fn("ABS", (In("a"),)), a=-2.5) == (2.5, 2.5)


@pytest.mark.parametrize("serial", [61.0, 366.0, 367.0, 46387.0, 46752.0, 46753.0, 46753.75, 47118.0])
def test_year_of_a_date_serial(serial):
    # 46752 = 2027-12-31, 46753 = 2028-01-01 (a day's fraction keeps its day), 47118 = 2028-12-31, 61 = 1900-03-01
    # (from there on Excel counts from 1899-12-30; before it, its fictitious 1900-02-29 shifts serials by a day)
    assert both(YEAR(In("d")), d=serial) == (excel(f"=YEAR({serial})"),) * 2
    assert both(YEAR(In("d")), d=46753.75)[0] == 2028.0 and both(YEAR(In("d")), d=46752.0)[0] == 2027.0


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0), (-1.0, 0.0)])
def test_or_not_isnumber(a, b):
    assert both(OR(In("a"), In("b")), a=a, b=b) == (float(a != 0 or b != 0),) * 2
    assert both(NOT(In("a")), a=a) == (float(a == 0),) * 2
    assert both(ISNUMBER(In("a")), a=a) == (1.0, 1.0)


def test_a_blank_is_nan_and_not_a_number():
    # Excel: IF(a>0,"",a) is text where a > 0, and ISNUMBER of it 0; numpy: NaN, and ISNUMBER 0
    x = IF(In("a") > 0, Blank(), In("a"))
    assert x.xl(CTX) == 'IF(A1>0,"",A1)'
    assert np.isnan(x.np(Env({"a": 2.0}, 1))) and ISNUMBER(x).np(Env({"a": 2.0}, 1)) == 0.0
    assert excel("=ISNUMBER(IF(A1>0,\"\",A1))", A1=2.0) == 0.0 and excel("=ISNUMBER(IF(A1>0,\"\",A1))", A1=-2.0) == 1.0


@pytest.mark.parametrize("i", [1.0, 2.0, 3.0, 2.9])
def test_choose_picks_the_index_th_value(i):
    # Excel truncates a fractional index (2.9 → the 2nd value)
    assert both(CHOOSE(In("i"), 10, 20, 30), i=i) == ((10.0, 20.0, 30.0)[int(i) - 1],) * 2


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0), (-1.0, 2.0)])
def test_and_sum(a, b):
    assert both(AND(In("a"), In("b")), a=a, b=b) == (float(bool(a) and bool(b)),) * 2
    assert both(SUM(In("a"), In("b"), 0.5), a=a, b=b) == (a + b + 0.5,) * 2


# --- operators: precedence and association as Excel reads them --------------------------------

@pytest.mark.parametrize("build,expected", [
    (lambda a, b, c: a - (b - c), 2 - (3 - 5)),
    (lambda a, b, c: a - b - c, 2 - 3 - 5),
    (lambda a, b, c: a / (b * c), 2 / (3 * 5)),
    (lambda a, b, c: a / b * c, 2 / 3 * 5),
    (lambda a, b, c: a ** b ** Const(2.0), 2 ** 3 ** 2),      # Python's ** is right-associative, Excel's ^ is not
    (lambda a, b, c: (a ** b) ** Const(2.0), (2 ** 3) ** 2),
    (lambda a, b, c: -a ** Const(2.0), -(2 ** 2)),            # Excel reads -2^2 as 4: the node keeps Python's meaning
    (lambda a, b, c: (1 + a) ** (-Month() / 12), (1 + 2) ** (-1 / 12)),
    (lambda a, b, c: (a > b) * 10 + (b >= Const(3.0)) + (c < a) + (a <= Const(2.0)) + a.eq(2), 0 + 1 + 0 + 1 + 1),
    (lambda a, b, c: a * Const(-1.5), -3.0),
])
def test_operators_render_with_the_same_meaning(build, expected):
    expr = build(In("a"), In("b"), In("c"))
    env = Env({"a": 2.0, "b": 3.0, "c": 5.0}, 1)
    np_v = float(np.asarray(expr.np(env)).ravel()[0])
    xl_v = excel("=" + expr.xl(CTX), A1=2.0, B1=3.0, C1=5.0, F3=1.0)
    assert np_v == pytest.approx(expected, rel=1e-15)
    assert xl_v == pytest.approx(expected, rel=1e-14)


def test_row_prev_and_ratchet_render_to_cells():
    assert Row("x").xl(CTX) == "F8" and Prev("x").xl(CTX) == "E8" and Month().xl(CTX) == "F3"
    assert Ratchet("y", Row("x")).xl(CTX) == "MAX(E9,F8)"
    assert Pick("u", Row("x")).xl(CTX) == "INDEX(U1,MIN(F8,ROWS(U1)))"
    first = XlContext(col="E", prev=None, row_of=CTX.row_of, name_of=CTX.name_of)
    assert Prev("x").xl(first) == "0"


def test_fill_spreads_a_job_over_months_by_hand():
    # 1,000 h from month 2, at most 744, 672, 744, 720 h a month: 0, 672, 328 (= 1,000 − 672), 0
    rules = [Rule("cap", In("cap") + 0, "h", "hours in the month"),
             Rule("job", Fill("job", In("total"), Row("cap"), Month() >= 2), "h", "the job's hours")]
    rows = evaluate(rules, {"cap": np.array([744.0, 672.0, 744.0, 720.0]), "total": 1000.0}, 4)
    np.testing.assert_array_equal(rows["job"], [0.0, 672.0, 1000.0 - 672.0, 0.0])
    ctx = XlContext(col="G", prev="F", row_of={"t": 3, "cap": 5, "job": 6}.__getitem__, name_of=lambda n: "in_" + n)
    assert rules[1].formula(ctx) == "=IF(G3>=2,MAX(0,MIN(G5,in_total-SUM($D6:F6))),0)"
    # the same, recalculated as Excel would for month 3: 1,000 − (0 + 672) = 328
    assert excel("=IF(A1>=2,MAX(0,MIN(B1,C1-SUM(D1:E1))),0)", A1=3, B1=744, C1=1000,
                 **{"D1:E1": np.array([[0.0, 672.0]])}) == 328.0


def test_evaluate_prev_ratchet_and_pick_by_hand():
    rules = [Rule("x", In("need") + 0, "-", "need as given"),
             Rule("paid", Ratchet("paid", Row("x")), "-", "never falls"),
             Rule("added", MAX(Row("paid") - Prev("paid"), 0), "-", "servers added"),
             Rule("u", Pick("list", Month()), "-", "the t-th value, the last holds")]
    rows = evaluate(rules, {"need": np.array([2.0, 1.0, 3.0, 3.0]), "list": [10.0, 20.0]}, 4)
    np.testing.assert_array_equal(rows["paid"], [2, 2, 3, 3])   # max(2), max(2,1), max(2,3), max(3,3)
    np.testing.assert_array_equal(rows["added"], [2, 0, 1, 0])  # 2 − 0, 2 − 2, 3 − 2, 3 − 3
    np.testing.assert_array_equal(rows["u"], [10, 20, 20, 20])


# --- the timeline rules: numpy against Excel for random inputs --------------------------------

def _excel_row(rule: Rule, month: int, inputs: dict, rows: dict) -> float:
    """Render ``rule`` for month ``month`` with every input and row in a cell of its own, then evaluate."""
    names = {n: f"IN{i}" for i, n in enumerate(sorted(k for k, v in inputs.items() if v is not None), start=1)}
    keys = {k: i for i, k in enumerate(sorted(rows), start=10)}
    ctx = XlContext(col="F", prev="E", row_of=lambda key: keys[key], name_of=lambda n: names[n])
    cells = {f"{names[n]}": float(inputs[n]) for n in names if not isinstance(inputs[n], list)}
    cells |= {f"F{keys[k]}": float(v[month - 1]) for k, v in rows.items()}
    cells |= {f"E{keys[k]}": float(v[month - 2]) if month > 1 else 0.0 for k, v in rows.items()}
    cells |= {c.name.upper(): c.value for c in NAMED}  # the named constants' cells (tco.constants)
    text = rule.formula(ctx)
    func = formulas.Parser().ast(text)[1].compile()
    args = [cells[name.replace("$", "")] for name in func.inputs]
    return float(np.asarray(func(*args), dtype=object).ravel()[0])


positive = st.floats(min_value=0.01, max_value=1e6, allow_nan=False, allow_infinity=False)
rate = st.floats(min_value=-0.5, max_value=2.0, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(start=positive, end=positive, g=rate, cap=positive, ceiling=positive, steep=st.floats(0.0, 3.0),
       inf_start=st.integers(1, 6), horizon=st.integers(6, 30), model=st.sampled_from(["linear", "compound", "logistic"]),
       capped=st.booleans())
def test_users_rule_numpy_equals_excel(start, end, g, cap, ceiling, steep, inf_start, horizon, model, capped):
    rule = timeline.users_rule(model, capped)
    inputs = {"start_users": start, "end_users": end, "growth_rate": g, "max_users": cap, "ceiling_users": ceiling,
              "steepness": steep, "horizon": float(horizon), "inf_start": float(inf_start)}
    rows = evaluate((timeline.K, rule), inputs, horizon)
    for month in (1, inf_start, horizon):
        expected = rows["users"][month - 1]
        got = _excel_row(rule, month, inputs, {"t": rows["t"], "k": rows["k"]})
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(usdbrl=st.floats(0.5, 20.0), brl=st.floats(0.0, 0.5), usd=st.floats(0.0, 0.2), drift=st.floats(-0.3, 0.3),
       model=st.sampled_from(["spot", "forward"]), drift_given=st.booleans(),
       r=st.floats(0.0, 0.5), month=st.integers(1, 120))
def test_fx_and_discount_rules_numpy_equal_excel(usdbrl, brl, usd, drift, model, drift_given, r, month):
    # the focus and list base paths read a list input (INDEX over a range): tests/test_fx.py and the workbook tests
    inputs = {"usdbrl": usdbrl, "brl_rate": brl, "usd_rate": usd, "fx_drift": drift, "discount_rate": r}
    for rule in (timeline.fx_rule(model, drift_given), timeline.DF):
        rows = evaluate((rule,), inputs, 120)
        got = _excel_row(rule, month, inputs, {"t": rows["t"]})
        assert got == pytest.approx(rows[rule.key][month - 1], rel=1e-12)


def test_requests_tokens_egress_rules_by_hand():
    # 1,000 users × 20 req/day × 31 days × 5/7 = 442,857.14 requests; × (500 + 300) tokens; × 4 kB = 1.771 GB
    inputs = {"rpud": 20.0, "adpw": 5.0, "in_tokens": 500.0, "out_tokens": 300.0, "egress_kb": 4.0}
    rows = evaluate((timeline.REQUESTS, timeline.TOKENS, timeline.EGRESS), inputs, 1,
                    rows={"users": np.array([1000.0]), "days": np.array([31.0])})
    requests = 1000 * 20 * 31 * (5 / 7)
    assert rows["requests"][0] == pytest.approx(requests, rel=1e-15)
    assert rows["tokens"][0] == pytest.approx(requests * 800, rel=1e-15)
    assert rows["egress"][0] == pytest.approx(requests * 4 * 1000 / 1e9, rel=1e-15)
    for rule in (timeline.REQUESTS, timeline.TOKENS, timeline.EGRESS):
        assert _excel_row(rule, 1, inputs, rows) == pytest.approx(rows[rule.key][0], rel=1e-12)
