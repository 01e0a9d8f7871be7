"""The owned-hardware catalog (tco/catalog/data/owned.csv): every figure with unit, status, source and date; the
financing lines complete."""

from __future__ import annotations

from tco.catalog.owned import financing_lines, load_owned
from tco.scenario.owned import Owned


def test_every_figure_has_unit_status_source_and_date():
    figs = load_owned()
    for key, f in figs.items():
        assert f.unit and f.status and f.source and len(f.as_of) == 10, key
        assert f.status in ("listed", "sourced", "estimate", "unverified", "not_found"), key


def test_financing_lines_have_rate_term_and_grace_within_the_schema():
    figs = load_owned()
    assert financing_lines(figs) == ["bndes_finame", "bank_capex"]
    for line in financing_lines(figs):
        term, grace = figs[f"financing.{line}.months"].value, figs[f"financing.{line}.grace_months"].value
        Owned(payment=line, financing_rate=figs[f"financing.{line}.rate"].value, financing_months=int(term),
              grace_months=int(grace))
        assert 0 <= grace < term


def test_colocation_is_the_cbre_average_converted_at_the_landed_rate():
    # 217.30 USD/kW-month × 5.42 BRL/USD = 1 177.766 → 1 177.77; cross-connect 300 USD × 5.42 = 1 626
    figs = load_owned()
    assert figs["colocation_brl_per_kw_month"].value == round(217.30 * 5.42, 2)
    assert figs["cross_connect_brl_per_month"].value == 300 * 5.42
