"""The Catalog sheet's rows (tco.report.workbook.catalog): egress tiers, tax profiles and storage spread into the
table's columns, one row each."""

from __future__ import annotations

from tco.report.view_catalog import catalog_rows
from tco.report.workbook.catalog import (
    EGRESS_COLUMNS, STORAGE_COLUMNS, TAX_COLUMNS, TRANSLATED, egress_tiers, tax_profiles,
)


def test_each_egress_tier_is_a_row_under_its_table():
    tables = [{"egress_id": "aws", "tiers": [[0, 10240, 0.09], [10240, None, 0.085]], "as_of": "2026-01",
               "source": "AWS"}]
    rows = egress_tiers(tables)
    assert [(r["tier_from_gb"], r["tier_to_gb"], r["usd_per_gb"]) for r in rows] == [(0, 10240, 0.09),
                                                                                   (10240, None, 0.085)]
    assert all(set(r) == set(EGRESS_COLUMNS) and r["egress_id"] == "aws" for r in rows)


def test_a_tax_profile_spreads_its_rates_into_the_columns():
    rates = {"irrf_rate": 0.15, "cide_rate": 0.10, "iss_rate": 0.05, "pis_cofins_rate": 0.0925, "cbs_rate": 0.0,
             "ibs_rate": 0.0, "iof_rate": 0.0038}
    (row,) = tax_profiles([{"profile_id": "import_direct_sp", "method": "import_gross_up", "rates": rates,
                            "pis_cofins_creditable": True, "as_of": "2026-01", "source": "RFB"}])
    assert set(row) == set(TAX_COLUMNS)
    assert row["iof_rate"] == 0.0038 and row["pis_cofins_creditable"] == "True"
    assert TRANSLATED["method"] == "taxm" and TRANSLATED["pis_cofins_creditable"] == "yesno"


def test_storage_is_one_row_per_option(seed_results):
    """The view's storage rows (tco.report.view_catalog): one per option in the scenario's order, the sheet's
    columns, each the option's resolved storage price."""
    rows = catalog_rows(seed_results).storage
    assert [r["option"] for r in rows] == [o.name for o in seed_results.options]
    assert all(set(r) == set(STORAGE_COLUMNS) for r in rows)
    assert [r["usd_per_gb_month"] for r in rows] == [o.resolved.storage_usd_per_gb_month for o in seed_results.options]
