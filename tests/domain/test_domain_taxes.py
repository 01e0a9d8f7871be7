"""The tax vocabulary (tco.domain.taxes): words every stage speaks, kept consistent with the rules that use them."""

from __future__ import annotations

from tco.costs import tax_rules, taxes
from tco.domain import BillingMode, TaxMethod, TaxRegime
from tco.domain import taxes as words


def test_every_tax_has_a_rate_key_in_the_same_order():
    assert words.RATE_KEYS == tuple(f"{t}_rate" for t in words.TAXES)


def test_credits_close_the_components():
    assert words.COMPONENTS == words.TAXES + ("credits",)


def test_regimes_credit_only_taxes_that_exist():
    assert set(words.REGIMES) == {r.value for r in TaxRegime}
    for credited in words.REGIMES.values():
        assert set(credited) <= set(words.TAXES)
    assert words.REGIMES["simples"] == ()


def test_methods_and_billing_modes_are_the_enums_values():
    assert words.METHODS == tuple(m.value for m in TaxMethod)
    assert words.BILLING_MODES == tuple(m.value for m in BillingMode)


def test_the_cost_stage_speaks_the_same_words():
    """tco.costs re-exports the vocabulary rather than restating it: the same objects."""
    assert taxes.TAXES is words.TAXES and tax_rules.TAXES is words.TAXES
    assert taxes.ReformPeriod is words.ReformPeriod and taxes.REGIMES is words.REGIMES
