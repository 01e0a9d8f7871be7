"""tco.costs.option_taxes: which tax rules an option has, on which lines, and their evaluation (the rates and rules
themselves are tests/test_taxes.py's and tests/test_tax_rules.py's).

Checked on the seed's options: a cloud option taxes its USD lines and changes none; an all-BRL option on an
inclusive invoice moves the taxes inside its prices out of them (the invoice total is kept: net + taxes inside = the
price) and its credits back; a hybrid's BRL lines are netted by its invoice credit. Properties: the taxes line is
linear in the taxed lines, and it is always Σ taxes − credits."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_costs import fleet, option
from tco.catalog import TaxProfile
from tco.costs import line_currency
from tco.costs.option_taxes import net_lines, option_taxes, stacked_taxes, tax_block, tax_plan, tax_plan_of
from tco.domain import LINES


def _option(res, name_start):
    return next(o for o in res.options if o.name.startswith(name_start))


def _lines(o):
    return {k: np.array(v, dtype=float) for k, v in o.costs.lines.items()}


def _run(o, lines=None, resolved=None):
    lines = _lines(o) if lines is None else lines
    line, comp, cur, share, brl_credits, rules, shown = option_taxes(resolved or o.resolved, lines, o.costs.currency)
    return lines, line, comp, cur, share, brl_credits, shown


# --- the plan -----------------------------------------------------------------------------------------------------

def test_a_cloud_option_taxes_its_dollar_lines(seed_results):
    o = _option(seed_results, "AWS us-east-1 — p5en (H200)")
    p = tax_plan(o.resolved, _lines(o), o.costs.currency)
    assert p.currency == "USD"
    assert set(p.taxed) == {k for k, v in o.costs.lines.items() if k != "taxes" and o.costs.currency[k] == "USD"
                            and np.any(v != 0)}
    assert p.netted == () and p.hybrid_netted == () and not p.hybrid_share


def test_an_all_brl_option_nets_its_inclusive_prices(seed_results):
    o = _option(seed_results, "Dedicado BR — 8x H200 (frotas")
    p = tax_plan(o.resolved, _lines(o), o.costs.currency)
    assert p.currency == "BRL" and o.resolved.brl_tax.method == "local_inclusive"
    assert set(p.netted) == set(p.taxed) == {"training_compute", "inference_compute", "setup"}


def test_a_hybrid_taxes_its_dollars_and_nets_its_reais(seed_results):
    o = _option(seed_results, "Híbrido")
    p = tax_plan(o.resolved, _lines(o), o.costs.currency)
    assert p.currency == "USD" and p.taxed == ("training_compute",)
    assert set(p.hybrid_netted) == {"inference_compute", "setup"} and p.hybrid_share


def test_a_line_that_is_zero_throughout_is_not_taxed(seed_results):
    o = _option(seed_results, "AWS us-east-1 — p5en (H200)")
    lines = _lines(o)
    lines["egress"][:] = 0.0
    assert "egress" not in tax_plan(o.resolved, lines, o.costs.currency).taxed


# --- the evaluation ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["AWS us-east-1 — p5en (H200)", "Azure", "GCP", "Híbrido"])
def test_the_engine_taxes_are_this_evaluation(seed_results, name):
    """The engine's taxes line and components are what option_taxes gives from the lines it taxes (a dollar line is
    never changed, so the engine's lines are its inputs; an all-BRL option's lines are already net and are not)."""
    o = _option(seed_results, name)
    _, line, comp, cur, share, _, _ = _run(o)
    np.testing.assert_allclose(line, o.costs.lines["taxes"], rtol=1e-12, atol=1e-9)
    for k, v in comp.items():
        np.testing.assert_allclose(v, o.costs.tax_components[k], rtol=1e-12, atol=1e-9)
    assert cur == o.costs.currency["taxes"]
    assert share == pytest.approx(o.costs.tax_uplift, rel=1e-12, abs=1e-15)


def test_the_taxes_line_is_taxes_less_credits(seed_results):
    for o in seed_results.options:
        _, line, comp, *_ = _run(o)
        expected = sum((v for k, v in comp.items() if k != "credits"), np.zeros(len(line))) - comp["credits"]
        np.testing.assert_allclose(line, expected, rtol=1e-12, atol=1e-9)
        assert all(np.all(v >= -1e-9) for v in comp.values())  # every component a positive amount


def test_a_cloud_option_lines_are_left_as_they_are(seed_results):
    o = _option(seed_results, "AWS us-east-1 — p5en (H200)")
    before = _lines(o)
    after, *_ = _run(o, {k: v.copy() for k, v in before.items()})
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])


def test_an_inclusive_invoice_keeps_its_total(seed_results):
    """Net price + the taxes inside it = the price paid, month by month; lucro real credits them all back."""
    o = _option(seed_results, "Dedicado BR — 8x H200 (frotas")
    gross = _lines(o)  # any BRL amounts serve as the invoice
    net, line, comp, *_ = _run(o, {k: v.copy() for k, v in gross.items()})
    inside = sum((v for k, v in comp.items() if k != "credits"), np.zeros(len(line)))
    netted = ("training_compute", "inference_compute", "setup")
    np.testing.assert_allclose(sum(net[k] for k in netted) + inside, sum(gross[k] for k in netted), rtol=1e-12)
    assert inside.sum() > 0
    assert o.resolved.regime == "lucro_real"
    np.testing.assert_allclose(comp["credits"], inside, rtol=1e-12)  # every tax inside is credited
    np.testing.assert_allclose(line, 0.0, atol=1e-6)


def test_a_buyer_on_simples_takes_no_credit(seed_results):
    o = _option(seed_results, "Dedicado BR — 8x H200 (frotas")
    simples = dataclasses.replace(o.resolved, regime="simples")
    _, line, comp, *_ = _run(o, resolved=simples)
    inside = sum(v.sum() for k, v in comp.items() if k != "credits")
    assert comp["credits"].sum() == 0.0
    assert line.sum() == pytest.approx(inside, rel=1e-12) and inside > 0


def test_a_hybrid_reais_are_netted_by_its_invoice_credit(seed_results):
    o = _option(seed_results, "Híbrido")
    gross = _lines(o)
    net, _, _, _, _, brl_credits, _ = _run(o, {k: v.copy() for k, v in gross.items()})
    moved = sum(gross[k] - net[k] for k in ("inference_compute", "setup"))
    np.testing.assert_allclose(moved, brl_credits, rtol=1e-12, atol=1e-9)
    assert brl_credits.sum() > 0


@settings(max_examples=25, deadline=None)
@given(k=st.floats(0.01, 100.0), which=st.sampled_from(["AWS us-east-1 — p5en (H200)", "Dedicado BR — 8x H200 (fr",
                                                        "Híbrido"]))
def test_taxes_are_linear_in_the_taxed_lines(seed_results, k, which):
    o = _option(seed_results, which)
    base = _lines(o)
    _, line, comp, *_ = _run(o, {x: v.copy() for x, v in base.items()})
    _, line_k, comp_k, *_ = _run(o, {x: v * k for x, v in base.items()})
    np.testing.assert_allclose(line_k, line * k, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(comp_k["credits"], comp["credits"] * k, rtol=1e-9, atol=1e-9)


# --- many options at once (the plan search's pairs) ------------------------------------------------------------------

def _por_dentro(iss: float, pis_cofins: float) -> TaxProfile:
    rates = {"irrf_rate": 0.0, "cide_rate": 0.0, "iss_rate": iss, "pis_cofins_rate": pis_cofins, "iof_rate": 0.0}
    return TaxProfile(f"local {iss}", "local_por_dentro", rates, False, "", "", "test", "2026", reform=False)


def test_stacked_taxes_by_hand():
    """Two options billed "por dentro" (ISS and PIS/COFINS inside a local invoice, no credits), taxed in one
    evaluation: the first stands for two cases, the second for one; each tax is rate / (1 − PIS/COFINS − ISS) ×
    the taxed amount, with each case's own rates, and each case is what option_taxes gives it alone."""
    a = option(fleet("cloud/a", "cloud", 1.0, pricing="on_demand"), tax=_por_dentro(0.05, 0.0365))
    b = option(fleet("cloud/b", "cloud", 1.0, pricing="on_demand"), tax=_por_dentro(0.02, 0.0925))
    currency = line_currency(a)
    h = 2
    compute = np.array([[1000.0, 2000.0], [10.0, 20.0], [1000.0, 2000.0]])  # cases × months [USD]
    lines = {k: np.zeros((3, h)) for k in LINES} | {"inference_compute": compute}
    plan_ = tax_plan_of(a, ("inference_compute",), currency)
    assert tax_plan_of(b, ("inference_compute",), currency) == plan_  # the same rules: one evaluation
    rows = stacked_taxes(plan_, [tax_block(a, plan_, h), tax_block(b, plan_, h)], [2, 1], lines, h)
    expected = np.array([[1000.0, 2000.0], [10.0, 20.0], [0.0, 0.0]]) * (0.05 + 0.0365) / (1 - 0.0365 - 0.05)
    expected[2] = np.array([1000.0, 2000.0]) * (0.02 + 0.0925) / (1 - 0.0925 - 0.02)
    np.testing.assert_allclose(rows["l_taxes"], expected, rtol=1e-12)  # e.g. 1000 × 0.0865 / 0.9135 = 94.69
    assert rows["l_taxes"][0, 0] == pytest.approx(94.69075, abs=1e-5)
    for case, opt in enumerate((a, a, b)):
        alone = {k: np.zeros(h) for k in LINES} | {"inference_compute": compute[case].copy()}
        line, *_ = option_taxes(opt, alone, currency)
        assert np.array_equal(rows["l_taxes"][case], line)  # to the bit


@pytest.mark.parametrize("name", ["AWS us-east-1 — p5en (H200)", "Azure", "Dedicado BR — 8x H200 (frotas", "Híbrido"])
def test_each_stacked_case_is_its_option_alone_to_the_bit(seed_results, name):
    o = _option(seed_results, name)
    base = {k: np.array(v, dtype=float) for k, v in o.costs.rows.items() if k.startswith("l_")}
    gross = {k[2:]: v for k, v in base.items()}
    plan_ = tax_plan(o.resolved, gross, o.costs.currency)
    h = len(gross["setup"])
    scales = (1.0, 0.37, 3.0)
    lines = {k: np.stack([v * s for s in scales]) for k, v in gross.items()}
    rows = stacked_taxes(plan_, [tax_block(o.resolved, plan_, h)], [len(scales)], lines, h)
    net_lines(plan_, rows, lines)
    for case, s in enumerate(scales):
        alone = {k: v * s for k, v in gross.items()}
        line, *_ = option_taxes(o.resolved, alone, o.costs.currency)
        assert np.array_equal(np.broadcast_to(rows["l_taxes"], (len(scales), h))[case], line)
        for k in plan_.netted + plan_.hybrid_netted:
            assert np.array_equal(lines[k][case], alone[k])
        if s == 1.0:  # and the engine's own taxes line
            assert np.array_equal(line, o.costs.lines["taxes"])


@pytest.mark.parametrize("name, zeroed", [("AWS us-east-1 — p5en (H200)", ("egress",)),
                                          ("Dedicado BR — 8x H200 (frotas", ("setup",)),
                                          ("Híbrido", ("inference_compute", "setup"))])
def test_a_zero_line_counted_live_changes_no_amount(seed_results, name, zeroed):
    """What lets the plan search tax pairs with the same rules together: a line that is zero throughout, taxed or
    netted anyway (a hybrid's BRL invoice with nothing on it), adds 0 to the taxed amount and stays 0."""
    o = _option(seed_results, name)
    gross = {k[2:]: np.array(v, dtype=float) for k, v in o.costs.rows.items() if k.startswith("l_")}
    for k in zeroed:
        assert np.any(gross[k])
        gross[k][:] = 0.0
    own = tax_plan(o.resolved, gross, o.costs.currency)
    wide = tax_plan_of(o.resolved, tuple(k for k in LINES if k != "taxes"), o.costs.currency)
    assert wide != own and not set(zeroed) & set(own.taxed + own.netted + own.hybrid_netted)
    h = len(gross["setup"])
    got = []
    for p in (own, wide):
        lines = {k: v[None, :].copy() for k, v in gross.items()}
        rows = stacked_taxes(p, [tax_block(o.resolved, p, h)], [1], lines, h)
        net_lines(p, rows, lines)
        got.append([np.broadcast_to(x, (1, h)) for x in [rows["l_taxes"]] + [lines[k] for k in LINES if k != "taxes"]])
    for x, y in zip(*got):
        assert np.array_equal(x, y)
