"""The ledger (tco.ledger) by hand: a two-month toy option with a USD compute line and a BRL setup, its
totals, currency split, USD share and long form (taxes one row per component, credits negative)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tco.domain import Currency, Role
from tco.ledger import COLUMNS, Ledger, Series, in_brl, month_total

FLEET = SimpleNamespace(provider="aws", region="us-east-1", offer_id="aws/us-east-1/p5", pricing="on_demand")
RATE = np.array([5.0, 6.0])


def toy() -> Ledger:
    usd = np.array([100.0, 200.0])
    compute = Series("A", "inference_compute", Role.INFERENCE, Currency.USD, FLEET, usd, np.array([10.0, 20.0]),
                     usd * RATE)
    setup = Series("A", "setup", Role.INFERENCE, Currency.BRL, FLEET, np.array([50.0, 0.0]), None,
                   np.array([50.0, 0.0]))
    taxes = Series("A", "taxes", Role.SHARED, Currency.USD, FLEET, np.array([8.0, 0.0]), None,
                   np.array([40.0, 0.0]), {"irrf": np.array([10.0, 0.0]), "credits": np.array([2.0, 0.0])})
    return Ledger(("2027-01", "2027-02"), RATE, (compute, setup, taxes))


def test_totals_and_currency_split_by_hand():
    led = toy()
    # month 1: 100 US$ × 5 + R$ 50 + 8 US$ × 5 = R$ 590; month 2: 200 × 6 = R$ 1,200
    assert led.total_brl("A").tolist() == [100 * 5 + 50 + 8 * 5, 200 * 6]
    brl, usd = led.by_currency("A")
    assert brl.tolist() == [50.0, 0.0] and usd.tolist() == [108.0, 200.0]
    assert led.usd_share_brl("A") == pytest.approx(500 + 1200 + 40)
    assert led.has_usd()
    assert led.line("A", "setup").unit == "" and led.line("A", "inference_compute").unit == "server-hours"


def test_long_form_rows_add_up_to_the_lines():
    rows = list(toy().rows())
    assert all(len(r) == len(COLUMNS) for r in rows)
    month1 = [r for r in rows if r[4] == "2027-01"]
    # compute, setup, IRRF 10 and the credit −2 (the taxes line 8 = 10 − 2)
    assert [(r[2], r[3], r[6]) for r in month1] == [("inference_compute", "", 100.0), ("setup", "", 50.0),
                                                    ("taxes", "irrf", 10.0), ("taxes", "credits", -2.0)]
    assert sum(r[10] for r in month1) == pytest.approx(590.0)
    assert [r[2] for r in rows if r[4] == "2027-02"] == ["inference_compute"]   # zero amounts left out
    assert month1[0][7] == 10.0 and month1[0][9] == 5.0                          # quantity, the month's rate


def test_in_brl_and_month_total_by_hand():
    """A USD line × the month's rate, a BRL line × 1.0; the total adds the lines one after the other from zero, on
    one option or on cases stacked on a leading axis (the plan search's pairs), each case the same to the bit."""
    usd, brl = np.array([100.0, 200.0]), np.array([50.0, 0.0])
    np.testing.assert_array_equal(in_brl(usd, Currency.USD, RATE), [100.0 * 5.0, 200.0 * 6.0])
    np.testing.assert_array_equal(in_brl(brl, "BRL", RATE), brl)
    total = month_total([in_brl(usd, "USD", RATE), in_brl(brl, "BRL", RATE)], 2)
    np.testing.assert_array_equal(total, [500.0 + 50.0, 1200.0 + 0.0])
    cases = month_total([in_brl(np.stack([usd, usd * 0.1]), "USD", RATE), in_brl(np.stack([brl, brl]), "BRL", RATE)], 2)
    np.testing.assert_array_equal(cases[0], total)
    np.testing.assert_array_equal(cases[1], [10.0 * 5.0 + 50.0, 20.0 * 6.0 + 0.0])
    np.testing.assert_array_equal(toy().total_brl("A"), month_total([x.amount_brl for x in toy().of("A")], 2))
