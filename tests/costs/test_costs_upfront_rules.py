"""tco.costs.upfront_rules: the hourly part of a partly-upfront commitment, the months terms start (one case or a batch of
committed levels at once), and the rules (numpy) rendered as workbook formulas."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.expr import In, Rule, XlContext, evaluate
from tco.costs.upfront_rules import Renewals, hourly_price, upfront_cost, upfront_rules


def _hourly_part(price: float, upfront: float, term: int) -> float:
    """The ``hourly_part`` rule of a fleet paying `upfront` per instance each `term` months."""
    shape = SimpleNamespace(upfront_term=term, commit_terms=0)
    inputs = {"o.inf_price": price, "o.upfront": upfront, "o.up_term": float(term)}
    return float(evaluate(upfront_rules(shape, "paid"), inputs, 1, rows={"paid": np.zeros(1)})["hourly_part"][0])


def test_hourly_part_by_hand():
    # 12-month term, 8,760 USD upfront → 8760 / (12 × 730) = 1.0 USD/h off an effective 3.5 USD/h
    assert _hourly_part(3.5, 8760.0, 12) == pytest.approx(3.5 - 8760.0 / (12 * 730))
    assert _hourly_part(3.5, 8760.0, 12) == pytest.approx(2.5)


def test_hourly_part_all_upfront_and_none():
    assert _hourly_part(1.0, 12 * 730 * 1.0, 12) == 0.0      # all upfront: nothing hourly
    assert _hourly_part(1.0, 12 * 730 * 5.0, 12) == 0.0      # never negative
    assert _hourly_part(2.0, 0.0, 12) == 2.0                  # nothing upfront
    # no term (nothing paid upfront: costs._shape gives the fleet no upfront term): no rules, the price itself
    assert hourly_price(SimpleNamespace(upfront_term=0, commit_terms=0)).xl(_ctx()) == "in_o.inf_price"


def _term_starts(committed: np.ndarray, term: int, first: int) -> np.ndarray:
    """The ``upfronts`` rule of a committed baseline: instances starting a term each month."""
    shape = SimpleNamespace(upfront_term=term, commit_terms=1)
    inputs = {"inf_start": float(first), "o.up_term": float(term), "o.inf_price": 1.0, "o.upfront": 0.0}
    return evaluate(upfront_rules(shape, "paid"), inputs, committed.shape[-1], rows={"commit": committed})["upfronts"]


def test_term_starts_by_hand():
    committed = np.array([0, 0, 3, 3, 3, 3, 4, 4], dtype=float)
    # first serving month 3, 2-month terms → terms start in months 3, 5, 7
    np.testing.assert_array_equal(_term_starts(committed, 2, 3), [0, 0, 3, 0, 3, 0, 4, 0])


def test_term_starts_keeps_leading_axes():
    levels = np.array([[1.0] * 6, [2.0] * 6])
    out = _term_starts(levels, 3, 1)                            # months 1 and 4
    np.testing.assert_array_equal(out, [[1, 0, 0, 1, 0, 0], [2, 0, 0, 2, 0, 0]])


@given(st.lists(st.integers(0, 9), min_size=1, max_size=30), st.integers(1, 12), st.integers(1, 30))
def test_term_starts_sum_is_the_level_at_each_start(levels, n, first):
    k = np.array(levels, dtype=float)
    out = _term_starts(k, n, first)
    starts = [t for t in range(1, len(k) + 1) if t >= first and (t - first) % n == 0]
    assert out.sum() == sum(k[t - 1] for t in starts)


def _rows(shape, paid_row, inputs, horizon):
    rows = evaluate([Rule("paid", In("paid_in"), "instances", "")] if paid_row else [], inputs, horizon)
    return evaluate(upfront_rules(shape, "paid"), inputs, horizon, rows=rows)


def test_no_upfront_term_no_rules():
    shape = SimpleNamespace(upfront_term=0, commit_terms=0)
    assert upfront_rules(shape, "paid") == []
    assert hourly_price(shape).xl(_ctx()) == "in_o.inf_price"


def test_fleet_renewals_by_hand():
    # instances paid: 2, 2, 3, 3, 3, 1 with a 2-month upfront term
    # added: 2, 0, 1, 0, 0, 0; starts r_t = x_t + r_{t-2}: 2, 0, 1+2=3, 0+0=0, 0+3=3, 0+0=0
    shape = SimpleNamespace(upfront_term=2, commit_terms=0)
    inputs = {"paid_in": np.array([2, 2, 3, 3, 3, 1.0]), "o.inf_price": 4.0, "o.upfront": 730.0, "o.up_term": 2.0}
    rows = _rows(shape, True, inputs, 6)
    np.testing.assert_array_equal(rows["new_inst"], [2, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(rows["upfronts"], [2, 0, 3, 0, 3, 0])
    # hourly part: 4 − 730 / (2 × 730) = 3.5
    assert rows["hourly_part"][0] == 4.0 - 730.0 / (2 * 730)
    cost = evaluate([Rule("cost", upfront_cost(shape), "USD", "")], {"o.upfront": 730.0}, 6, rows=dict(rows))
    np.testing.assert_array_equal(cost["cost"], [2 * 730, 0, 3 * 730, 0, 3 * 730, 0])
    assert hourly_price(shape).xl(_ctx()) == "in_c.hourly_part"


def test_committed_terms_start_at_the_term_boundaries():
    # serving from month 2, 3-month terms: starts in months 2 and 5, at the committed level of those months
    shape = SimpleNamespace(upfront_term=3, commit_terms=2)
    inputs = {"inf_start": 2.0, "o.up_term": 3.0, "o.inf_price": 1.0, "o.upfront": 0.0}
    rows = evaluate([Rule("commit", In("commit_in"), "instances", "")], {**inputs, "commit_in":
                    np.array([0, 5, 5, 5, 7, 7, 7.0])}, 7)
    rows = evaluate(upfront_rules(shape, "paid"), inputs, 7, rows=rows)
    np.testing.assert_array_equal(rows["upfronts"], [0, 5, 0, 0, 7, 0, 0])


def _ctx(col="H"):
    return XlContext(col=col, prev=chr(ord(col) - 1), row_of={"upfronts": 20, "new_inst": 19, "t": 3}.__getitem__,
                     name_of=lambda n: f"in_{n}", first="$D")


def test_renewals_render_to_the_cell_n_months_back():
    node = Renewals("upfronts", In("x"), 2)
    # columns: D blank, E month 1, F month 2, G month 3; G reads E (two months back)
    assert node.xl(_ctx("F")) == "in_x"
    assert node.xl(_ctx("G")) == "in_x+E20"
    assert node.xl(_ctx("H")) == "in_x+F20"
