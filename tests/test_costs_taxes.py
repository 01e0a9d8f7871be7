"""tco.costs_taxes: which tax rules an option has, on which lines, and their evaluation (the rates and rules
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

from tco.costs_taxes import option_taxes, tax_plan


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
