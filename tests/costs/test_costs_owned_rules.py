"""The owned fleet's rules (tco.costs.owned_rules), evaluated with numpy on hand-worked cases: one server's landed
capex, a PRICE loan with grace, the depreciation shield, power and colocation, the resale and the tax on its gain."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.costs.owned_rules import Accumulate, Window, owned_rules
from tco.expr import Const, In, Row, XlContext, evaluate
from tco.expr.rules import evaluate_tree

H = 6
BASE = {"o.own_hw": 100_000.0, "o.own_usd": 1.0, "o.own_ii": 0.18, "o.own_ipi": 0.0975, "o.own_pis": 0.021,
        "o.own_cofins": 0.0965, "o.own_icms": 0.18, "o.own_credit": 1.0, "o.own_cash": 1.0, "o.own_rate": 0.0,
        "o.own_term": 1.0, "o.own_grace": 0.0, "o.own_life": 60.0, "o.own_ir": 0.34, "o.own_resale": 0.25,
        "o.own_resale_age": 2.0, "o.own_kw": 10.0, "o.own_pue": 1.5, "o.own_tariff": 500.0, "o.own_colo": 1000.0,
        "o.own_contract": 0.0, "o.own_xc": 2.0, "o.own_xc_price": 1500.0, "o.own_maint": 0.03, "o.own_ins": 0.0,
        "o.own_staff_h": 10.0, "o.own_staff_rate": 100.0, "o.own_refresh": 0.0, "horizon": float(H)}


def run(held, inputs=None, fx=5.0, hours=720.0):
    """The rules evaluated; ``o.own_usd`` (1 = a USD price, the default here; 0 = a BRL quote) picks their shape."""
    rows = {"held": np.asarray(held, dtype=float), "fx": np.full(H, fx), "hours": np.full(H, hours)}
    inp = BASE | (inputs or {})
    usd = bool(inp.pop("o.own_usd"))
    return evaluate(owned_rules("held", usd), inp, H, rows=rows)


def test_one_server_capex_is_the_landed_cost():
    # customs value 100,000 USD; II 18 000; IPI 9.75 % × 118 000 = 11 505; PIS 2 100; COFINS 9 650;
    # ICMS por dentro: 18 % × (100 000 + 18 000 + 11 505 + 2 100 + 9 650) / 0.82 = 30 897.56;
    # landed = 141 255 / 0.82 − (2 100 + 9 650) credited = 172 262.195 − 11 750 = 160 512.195 USD
    landed_usd = (100_000 + 18_000 + 11_505 + 2_100 + 9_650) / 0.82 - (2_100 + 9_650)
    r = run([1, 1, 1, 1, 1, 1])
    assert r["own_mult"][0] == pytest.approx(landed_usd / 100_000)
    assert r["own_capex"][0] == pytest.approx(landed_usd)
    assert r["own_capex_brl"][0] == pytest.approx(landed_usd * 5.0)
    assert r["own_cash"][0] == pytest.approx(landed_usd)  # cash: all of it, in USD
    assert r["own_capex"][1:].sum() == 0.0  # bought once, kept
    assert r["own_pay"].sum() == 0.0 and r["own_payoff"].sum() == 0.0


def test_price_table_with_grace():
    # borrow 100 % of R$ 1 000 (hw 200 BRL × multiple 5 with no taxes... set multiple 1: hw = 1 000 BRL, no taxes)
    no_tax = {"o.own_usd": 0.0, "o.own_hw": 1_000.0, "o.own_ii": 0.0, "o.own_ipi": 0.0, "o.own_pis": 0.0,
              "o.own_cofins": 0.0, "o.own_icms": 0.0, "o.own_credit": 0.0, "o.own_cash": 0.0,
              "o.own_rate": 1.01 ** 12 - 1, "o.own_term": 4.0, "o.own_grace": 1.0}
    r = run([1, 1, 1, 1, 1, 1], no_tax)
    i = 0.01
    pmt = 1_000 * i / (1 - 1.01 ** -3)  # 340.02211...: three level instalments after one month of grace
    assert r["own_i"][0] == pytest.approx(i)
    assert r["own_borrow"][0] == pytest.approx(1_000.0)
    # month 1 buys; month 2 interest only (10); months 3-5 the PRICE instalment; month 6 nothing
    assert r["own_pay"] == pytest.approx([0, 10.0, pmt, pmt, pmt, 0])
    bal3 = 1_000 * 1.01 - pmt
    bal4 = bal3 * 1.01 - pmt
    assert r["own_bal"] == pytest.approx([1_000, 1_000, bal3, bal4, 0, 0], abs=1e-9)
    assert r["own_interest"] == pytest.approx([0, 10.0, 10.0, bal3 * 0.01, bal4 * 0.01, 0], abs=1e-9)
    assert r["own_payoff"].sum() == pytest.approx(0.0, abs=1e-9)  # repaid within the horizon


def test_balloon_pays_the_balance_off_in_the_last_month():
    no_tax = {"o.own_usd": 0.0, "o.own_hw": 1_200.0, "o.own_ii": 0.0, "o.own_ipi": 0.0, "o.own_pis": 0.0,
              "o.own_cofins": 0.0, "o.own_icms": 0.0, "o.own_credit": 0.0, "o.own_cash": 0.0, "o.own_rate": 0.0,
              "o.own_term": 12.0, "o.own_grace": 0.0}
    r = run([1, 1, 1, 1, 1, 1], no_tax)
    # no interest: 100 a month from month 2; after 5 instalments 1 200 − 500 = 700 is left, paid in month 6
    assert r["own_pay"] == pytest.approx([0, 100, 100, 100, 100, 100])
    assert r["own_payoff"] == pytest.approx([0, 0, 0, 0, 0, 700])


def test_depreciation_shield_power_colocation_and_resale():
    no_tax = {"o.own_usd": 0.0, "o.own_hw": 60_000.0, "o.own_ii": 0.0, "o.own_ipi": 0.0, "o.own_pis": 0.0,
              "o.own_cofins": 0.0, "o.own_icms": 0.0, "o.own_credit": 0.0}
    r = run([0, 1, 1, 1, 1, 1], no_tax)
    # depreciation 60 000 / 60 = 1 000 a month from the month of purchase (month 2); shield 34 % = 340
    assert r["own_dep"] == pytest.approx([0, 1_000, 1_000, 1_000, 1_000, 1_000])
    assert r["own_shield"] == pytest.approx([0, 340, 340, 340, 340, 340])
    # power: 1 server × 10 kW × PUE 1.5 × 720 h × R$ 500/MWh / 1 000 = R$ 5 400
    assert r["own_power"] == pytest.approx([0, 5_400, 5_400, 5_400, 5_400, 5_400])
    # colocation: 10 kW × R$ 1 000 + 2 cross-connects × R$ 1 500 = R$ 13 000 while a server is held
    assert r["own_colo"] == pytest.approx([0, 13_000, 13_000, 13_000, 13_000, 13_000])
    # upkeep: 60 000 × 3 % / 12 = 150; staff 10 h × 100 = 1 000
    assert r["own_upkeep"][1] == pytest.approx(150.0) and r["own_staff"][1] == pytest.approx(1_000.0)
    # resale: 25 % at 2 months of age, so × 0.25^(1/2) = 0.5 a month; bought in month 2, age 4 in month 6:
    # 60 000 × 0.5^4 = 3 750; book value 60 000 − 5 × 1 000 = 55 000; tax on the gain 34 % × (3 750 − 55 000)
    assert r["own_resale"] == pytest.approx([0, 0, 0, 0, 0, 3_750])
    assert r["own_book"][-1] == pytest.approx(55_000)
    assert r["own_gain_tax"][-1] == pytest.approx(0.34 * (3_750 - 55_000))
    # the cash view: running costs − shield, and in the last month − resale + the (negative) tax on the gain
    run_month = 5_400 + 13_000 + 150 + 1_000
    assert r["own_net"][2] == pytest.approx(run_month - 340)
    assert r["own_net"][-1] == pytest.approx(run_month - 340 - 3_750 + 0.34 * (3_750 - 55_000))
    # the accounting view: depreciation + interest (none: cash) + running costs
    assert r["own_expense"][2] == pytest.approx(1_000 + run_month)


def test_contracted_kw_is_billed_whatever_the_draw():
    r = run([0, 1, 2, 2, 2, 2], {"o.own_contract": 50.0, "o.own_xc": 0.0})
    assert r["own_colo"] == pytest.approx([50_000.0] * H)


def test_tree_walk_and_compiled_form_agree():
    rows = {"held": np.array([0, 1, 1, 3, 3, 2.0]), "fx": np.linspace(5, 6, H), "hours": np.full(H, 720.0)}
    fin = {"o.own_cash": 0.3, "o.own_rate": 0.15, "o.own_term": 5.0, "o.own_grace": 2.0, "o.own_refresh": 2.0}
    a = evaluate(owned_rules("held"), BASE | fin, H, rows=dict(rows))
    b = evaluate_tree(owned_rules("held"), BASE | fin, H, rows=dict(rows))
    for k in a:
        assert np.allclose(a[k], b[k], rtol=0, atol=1e-9), k


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0.0, 0.5), term=st.integers(2, 12), grace=st.integers(0, 5), price=st.floats(1.0, 1e6))
def test_loan_repays_its_principal_at_its_own_rate(rate, term, grace, price):
    """Whatever the rate, term and grace: the instalments and payoff discounted at the loan's rate are the principal."""
    if grace >= term:
        grace = term - 1
    no_tax = {"o.own_usd": 0.0, "o.own_hw": price, "o.own_ii": 0.0, "o.own_ipi": 0.0, "o.own_pis": 0.0,
              "o.own_cofins": 0.0, "o.own_icms": 0.0, "o.own_credit": 0.0, "o.own_cash": 0.0, "o.own_rate": rate,
              "o.own_term": float(term), "o.own_grace": float(grace)}
    r = run([1] * H, no_tax)
    i = (1 + rate) ** (1 / 12) - 1
    flows = r["own_pay"] + r["own_payoff"]
    pv = sum(f / (1 + i) ** t for t, f in enumerate(flows))  # month 1 = purchase (t = 0)
    assert pv == pytest.approx(price, rel=1e-9)


def test_window_and_accumulate_render_as_formulas():
    ctx = XlContext(col="F", prev="E", row_of={"t": 3, "x": 9, "r": 10}.__getitem__, name_of=lambda n: f"in_{n}",
                    row_range=lambda k: f"$E${ {'t': 3, 'x': 9}[k]}:$J${ {'t': 3, 'x': 9}[k]}".replace(" ", ""))
    w = Window("x", Const(1.0), In("grace"))
    assert w.xl(ctx) == "SUMPRODUCT(($E$3:$J$3>=F3-(in_grace))*($E$3:$J$3<=F3-(1)),$E$9:$J$9)"
    assert Accumulate("r", Const(1.0) + In("i"), Row("x")).xl(ctx) == "(1+in_i)*E10+(x_placeholder)".replace(
        "x_placeholder", "F9")


def test_ledger_parts_add_up_to_the_owned_lines():
    from tco.costs.owned_rules import ledger_parts

    fin = {"o.own_cash": 0.25, "o.own_rate": 0.12, "o.own_term": 12.0, "o.own_grace": 1.0}
    r = run([1, 1, 2, 2, 2, 2], fin, fx=5.0)
    dollar, brl = ledger_parts(r, usd=True)
    assert np.allclose(sum(dollar.values()), r["own_setup"], rtol=0, atol=1e-9)
    assert np.allclose(sum(brl.values()), r["own_brl"], rtol=0, atol=1e-9)
    assert (dollar["resale"] <= 0).all() and (dollar["depreciation_shield"] <= 0).all()


def test_a_usd_price_puts_the_flows_of_the_price_in_usd_and_the_total_is_the_cash_view():
    fin = {"o.own_cash": 0.25, "o.own_rate": 0.12, "o.own_term": 12.0, "o.own_grace": 1.0}
    fx = 5.0
    r = run([1, 1, 2, 2, 2, 2], fin, fx=fx)
    # in BRL: setup (USD) × fx + the BRL line = the purchases' cash part in BRL + the cash view
    assert np.allclose(r["own_setup"] * fx + r["own_brl"], r["own_cash"] * fx + r["own_net"], rtol=1e-12)
    assert np.allclose(r["own_brl"], r["own_power"] + r["own_colo"] + r["own_staff"])
    # a BRL price: the price line is the cash part alone, everything else in BRL
    b = run([1, 1, 2, 2, 2, 2], fin | {"o.own_usd": 0.0}, fx=fx)
    assert np.allclose(b["own_setup"], b["own_cash"]) and np.allclose(b["own_brl"], b["own_net"])


def test_a_refresh_sells_and_rebuys_each_server_after_its_term():
    """One server bought in month 1 (R$ 60 000, no taxes), replaced every 2 months, horizon 6: bought in months 1, 3
    and 5; sold at 2 months of age in months 3 and 5 (25 % resale at 2 months: R$ 15 000), the last one sold with
    the fleet in month 6 at 1 month of age (× 0.25^(1/2) = 0.5: R$ 30 000). A 4-month tax life: R$ 15 000 a month
    for the 2 months each server is held, book value 60 000 − 2 × 15 000 = 30 000 at each sale; the one sold in
    month 6 has 60 000 − 2 × 15 000 = 30 000 left too (depreciated in months 5 and 6)."""
    no_tax = {"o.own_usd": 0.0, "o.own_hw": 60_000.0, "o.own_ii": 0.0, "o.own_ipi": 0.0, "o.own_pis": 0.0,
              "o.own_cofins": 0.0, "o.own_icms": 0.0, "o.own_credit": 0.0, "o.own_life": 4.0, "o.own_refresh": 2.0}
    r = run([1, 1, 1, 1, 1, 1], no_tax)
    assert r["own_buy"] == pytest.approx([1, 0, 1, 0, 1, 0])
    assert r["own_capex_brl"] == pytest.approx([60_000, 0, 60_000, 0, 60_000, 0])
    assert r["own_dep"] == pytest.approx([15_000] * 6)  # each server: its first 2 months (min(life 4, refresh 2))
    assert r["own_sold_mv"] == pytest.approx([0, 0, 15_000, 0, 15_000, 0])
    assert r["own_sold_book"] == pytest.approx([0, 0, 30_000, 0, 30_000, 0])  # 60 000 × (1 − 2/4)
    assert r["own_resale"] == pytest.approx([0, 0, 15_000, 0, 15_000, 30_000])
    assert r["own_book"][-1] == pytest.approx(30_000)
    # tax on the gain: 34 % × (15 000 − 30 000) at each refresh, 34 % × (30 000 − 30 000) = 0 at the horizon
    assert r["own_gain_tax"] == pytest.approx([0, 0, 0.34 * -15_000, 0, 0.34 * -15_000, 0])
    assert r["own_gross"] == pytest.approx([60_000] * 6)  # one server held at a time


@settings(max_examples=30, deadline=None)
@given(k=st.floats(0.1, 10.0), cash=st.floats(0.0, 1.0), refresh=st.sampled_from([0.0, 2.0, 3.0]))
def test_the_flows_of_the_price_scale_with_the_price(k, cash, refresh):
    """Whatever the payment and refresh: scaling the server price by k scales every flow of the price (loan, upkeep,
    resale, shield, tax on the gain) by k and leaves power, colocation and staff alone."""
    fin = {"o.own_cash": cash, "o.own_rate": 0.2, "o.own_term": 4.0, "o.own_grace": 1.0, "o.own_refresh": refresh}
    held = [1, 1, 2, 2, 3, 3]
    a, b = run(held, fin), run(held, fin | {"o.own_hw": BASE["o.own_hw"] * k})
    assert np.allclose(b["own_of_price"], k * a["own_of_price"], rtol=1e-9, atol=1e-6)
    assert np.allclose(b["own_cash"], k * a["own_cash"], rtol=1e-9, atol=1e-6)
    for row in ("own_power", "own_colo", "own_staff"):
        assert np.array_equal(a[row], b[row])
