"""The tax rules declared once (tco.costs.tax_rules): evaluated with numpy by hand-worked cases, rendered as the formulas the
workbook writes, and the invariants of the block (it balances; credits never exceed what they recover)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.costs import tax_rules as tr
from tco.expr import Rule, XlContext, evaluate

RATES = {"irrf": 0.15, "cide": 0.10, "iss": 0.029, "pis_cofins": 0.0925, "cbs": 0.0, "ibs": 0.0, "iof": 0.035}
FLAGS_NONE = {"o.credit": 0.0, "o.cr_pis_cofins": 0.0, "o.cr_cbs": 0.0, "o.cr_ibs": 0.0}


def block(method: str, base: float, rates: dict | None = None, flags: dict | None = None) -> dict[str, float]:
    """Every row of the block for one month, the rates given as rate rows."""
    rows = {"rate_" + k: np.array([v]) for k, v in (rates or RATES).items()} | {"base": np.array([base])}
    out = evaluate(tr.component_rules(method, ("base",)), flags or FLAGS_NONE, 1, rows=rows)
    return {k: float(v[0]) for k, v in out.items()}


def test_import_gross_up_by_hand():
    # brazil_fx_tax.md §3.4, P = 100: V = 100 / 0.85 = 117.647…
    p = 100.0
    v = 1 / (1 - 0.15)
    got = block("import_gross_up", p)
    assert got["gross_up"] == pytest.approx(v)
    assert got["tx_irrf"] == pytest.approx((v - 1) * p)  # 17.65
    assert got["tx_cide"] == pytest.approx(0.10 * v * p)  # 11.76
    assert got["tx_iss"] == pytest.approx(0.029 * v * p)  # 3.41
    assert got["tx_pis_cofins"] == pytest.approx(0.0925 * v * (1 + 0.029) / (1 - 0.0925) * p)  # 12.34
    assert got["tx_iof"] == pytest.approx(0.035 * p)  # 3.50
    assert got["tx_credits"] == 0.0
    assert round(got["l_taxes"], 2) == 48.66  # 17.65 + 11.76 + 3.41 + 12.34 + 3.50


def test_local_inclusive_moves_creditable_taxes_out_of_the_price():
    # a BRL invoice of R$ 1000 in 2027: CBS 9.11 %, IBS 0.1 % "por fora" → inside = (0.0911 + 0.001)/(1.0921)
    rates = dict.fromkeys(RATES, 0.0) | {"cbs": 0.0911, "ibs": 0.001}
    rows = {"rate_" + k: np.array([v]) for k, v in rates.items()} | {"g_x": np.array([1000.0])}
    flags = FLAGS_NONE | {"o.cr_cbs": 1.0, "o.cr_ibs": 1.0}  # lucro real / presumido: CBS and IBS credited
    out = evaluate(tr.component_rules("local_inclusive", ("g_x",), ("x",)), flags, 1, rows=rows)
    inside = (0.0911 + 0.001) / (1 + 0.0911 + 0.001)
    assert out["tax_inside"][0] == pytest.approx(inside)
    assert out["l_x"][0] == pytest.approx(1000.0 * (1 - inside))  # the price net of the taxes inside
    assert out["tx_cbs"][0] == pytest.approx(1000.0 * 0.0911 / 1.0921)
    assert out["tx_credits"][0] == pytest.approx(1000.0 * inside)
    assert out["l_taxes"][0] == pytest.approx(0.0)  # moved out and credited back: the cost is the net price
    assert out["tx_irrf"][0] == 0.0 and out["gross_up"][0] == 0.0  # rows present, not applicable


def test_reform_periods_replace_and_scale_rates_by_month():
    # two periods: 2027-01..2028-12 (PIS/COFINS × 0, CBS 9.11 %) and 2029 (ISS × 0.9, IBS 1.87 %)
    months = ["2026-12", "2027-01", "2028-12", "2029-06"]
    dates = np.array([tr.month_serial(m) for m in months])
    inputs = {"o.pis_cofins": 0.0925, "o.iss": 0.029, "o.cbs": 0.0, "o.ibs": 0.0,
              "rf1_from": tr.month_serial("2027-01"), "rf1_until": tr.month_serial("2028-12"), "rf1_pc": 0.0,
              "rf1_iss": 1.0, "rf1_cbs": 0.0911, "rf1_ibs": 0.001,
              "rf2_from": tr.month_serial("2029-01"), "rf2_until": tr.month_serial("2029-12"), "rf2_pc": 0.0,
              "rf2_iss": 0.9, "rf2_cbs": 0.0921, "rf2_ibs": 0.0187}
    rules = tr.rate_rules(("iss", "pis_cofins", "cbs", "ibs"), 2)
    rows = evaluate(rules, inputs, 4, rows={"date": dates})
    assert list(rows["rate_pis_cofins"]) == [0.0925, 0.0925 * 0.0, 0.0925 * 0.0, 0.0925 * 0.0]
    assert list(rows["rate_iss"]) == [0.029, 0.029 * 1.0, 0.029 * 1.0, 0.029 * 0.9]
    assert list(rows["rate_cbs"]) == [0.0, 0.0911, 0.0911, 0.0921]
    assert list(rows["rate_ibs"]) == [0.0, 0.001, 0.001, 0.0187]
    assert list(rows["rate_irrf"]) == [0.0] * 4  # not a tax of this method: present, 0


def test_month_serial_is_excels_date():
    assert tr.month_serial("2027-01") == 46388.0  # Excel: DATE(2027,1,1) = 46388
    assert tr.month_serial("1900-03") == 61.0


def _ctx(rows: dict[str, int]) -> XlContext:
    return XlContext(col="F", prev="E", row_of=rows.__getitem__, name_of=lambda n: "in_o1_" + n[2:] if n.startswith(
        "o.") else "in_" + n)


def test_rendered_formulas_read_each_row_and_rate_table_by_name():
    rows = {"date": 2, "rate_irrf": 10, "rate_pis_cofins": 13, "rate_iss": 12, "gross_up": 17, "tax_base": 19,
            "tx_irrf": 20, "tx_pis_cofins": 23, "tx_cbs": 24, "tx_ibs": 25, "tx_credits": 27}
    by_key = {r.key: r for r in tr.component_rules("import_gross_up", ("base",)) + tr.rate_rules(tr.TAXES, 1)}
    ctx = _ctx(rows)
    assert by_key["tx_irrf"].formula(ctx) == "=(F17-1)*F19"
    assert by_key["gross_up"].formula(ctx) == "=1/(1-F10)"
    assert by_key["rate_irrf"].formula(ctx) == "=in_o1_irrf"
    assert by_key["rate_pis_cofins"].formula(ctx) == "=in_o1_pis_cofins*IF(AND(F2>=in_rf1_from,F2<=in_rf1_until),in_rf1_pc,1)"
    assert by_key["rate_cbs"].formula(ctx) == "=IF(AND(F2>=in_rf1_from,F2<=in_rf1_until),in_rf1_cbs,in_o1_cbs)"
    assert by_key["tx_credits"].formula(ctx) == "=MAX(in_o1_credit,in_o1_cr_pis_cofins)*F23+in_o1_cr_cbs*F24+in_o1_cr_ibs*F25"


def test_every_method_has_the_same_rows():
    keys = [[r.key for r in tr.option_rules(m, 2, ("l_a",))] for m in tr.USES]
    assert all(k == keys[0] for k in keys)
    assert len(keys[0]) == 7 + 2 + 1 + 7 + 2  # rates, gross-up and inside share, base, taxes, credits and line


rate = st.floats(0.0, 0.3)


@settings(max_examples=60, deadline=None)
@given(method=st.sampled_from(list(tr.USES)), base=st.floats(0.0, 1e7), rates=st.fixed_dictionaries(
    {k: rate for k in tr.TAXES}), flags=st.fixed_dictionaries({k: st.sampled_from([0.0, 1.0]) for k in FLAGS_NONE}))
def test_block_balances_and_credits_recover_at_most_what_was_charged(method, base, rates, flags):
    got = block(method, base, rates, flags)
    charged = sum(got["tx_" + k] for k in tr.USES[method])
    assert got["l_taxes"] == pytest.approx(charged - got["tx_credits"], rel=1e-12, abs=1e-6)
    creditable = sum(got["tx_" + k] for k in tr.CREDITABLE if k in tr.USES[method])
    assert -1e-9 <= got["tx_credits"] <= creditable + 1e-6
    assert all(got["tx_" + k] == 0.0 for k in tr.TAXES if k not in tr.USES[method])


def test_a_rule_per_row_key_is_unique():
    rules = tr.option_rules("import_gross_up", 3, ("l_a", "l_b"), (), ("local_inclusive", 3, ("c",)))
    keys = [r.key for r in rules]
    assert len(keys) == len(set(keys))
    assert all(isinstance(r, Rule) and r.doc for r in rules)
