"""tco.costs.single: one fleet rule at a time on plain values (tiered egress, the net tax share, the yearly price
factor, a job's hours filling months, the ratchet, servers by hour), worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tco.catalog import load_catalog
from tco.costs.single import (UnverifiedPriceError, egress_cost_usd, inference_servers_by_hour, ratchet, spread_hours,
                             tax_uplift, yearly_factor)
from test_costs import REPLICA


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


# ---------------------------------------------------------------------------------------------
# Egress


def test_egress_aws_us_east_1_first_100_gb_free(cat):
    t = cat.egress["aws/us-east-1"]
    assert egress_cost_usd(0.0, t) == 0.0
    assert egress_cost_usd(100.0, t) == 0.0
    assert egress_cost_usd(150.0, t) == pytest.approx((150 - 100) * 0.09)  # 4.50


def test_egress_aws_us_east_1_crossing_two_tiers(cat):
    t = cat.egress["aws/us-east-1"]
    # 20,000 GB: 100 free, 100–10,340 at 0.09, 10,340–20,000 at 0.085
    expected = 100 * 0.0 + (10_340 - 100) * 0.09 + (20_000 - 10_340) * 0.085  # 921.60 + 821.10 = 1,742.70
    assert egress_cost_usd(20_000.0, t) == pytest.approx(expected)
    assert expected == pytest.approx(1742.70)


def test_egress_aws_us_east_1_all_tiers(cat):
    t = cat.egress["aws/us-east-1"]
    expected = ((10_340 - 100) * 0.09 + (51_300 - 10_340) * 0.085 + (153_700 - 51_300) * 0.07
                + (200_000 - 153_700) * 0.05)
    assert egress_cost_usd(200_000.0, t) == pytest.approx(expected)


def test_egress_is_vectorised_and_resets_each_month(cat):
    t = cat.egress["aws/us-east-1"]
    # two months of 5,000 GB each: every month gets its own free 100 GB and starts in the first paid tier
    got = egress_cost_usd(np.array([5_000.0, 5_000.0, 0.0]), t)
    np.testing.assert_allclose(got, [(5_000 - 100) * 0.09, (5_000 - 100) * 0.09, 0.0])


def test_egress_gcp_has_no_free_tier(cat):
    t = cat.egress["gcp_premium/us-central1"]
    expected = 1024 * 0.12 + (2000 - 1024) * 0.11
    assert egress_cost_usd(2000.0, t) == pytest.approx(expected)


def test_egress_unverified_tier_raises_only_when_reached(cat):
    t = cat.egress["gcp_premium/southamerica-east1"]
    assert egress_cost_usd(1000.0, t) == pytest.approx(1000 * 0.12)  # inside the verified first tier
    with pytest.raises(UnverifiedPriceError, match="no verified price above 1024 GB"):
        egress_cost_usd(2000.0, t)


def test_egress_dedicated_table_is_free(cat):
    assert egress_cost_usd(1e6, cat.egress["none/dedicated"]) == 0.0


# ---------------------------------------------------------------------------------------------
# Taxes


def test_tax_uplift_import_direct_sp(cat):
    # brazil_fx_tax.md §3.4 worked example, P = 100: V = 100 / 0.85
    p = 100.0
    v = p / (1 - 0.15)                                  # 117.65
    irrf = v - p                                        # 17.65
    cide = 0.10 * v                                     # 11.76
    iss = 0.029 * v                                     # 3.41
    pis_cofins = 0.0925 * v * (1 + 0.029) / (1 - 0.0925)  # 12.34
    iof = 0.035 * p                                     # 3.50
    expected = (irrf + cide + iss + pis_cofins + iof) / p
    assert (round(irrf, 2), round(cide, 2), round(iss, 2), round(pis_cofins, 2), round(iof, 2)) == (
        17.65, 11.76, 3.41, 12.34, 3.50)
    assert tax_uplift(cat.taxes["import_direct_sp"]) == pytest.approx(expected)
    assert round(expected * 100, 2) == 48.66


def test_tax_uplift_import_direct_sp_lucro_real_credits_pis_cofins(cat):
    v = 1 / (1 - 0.15)
    expected = (v - 1) + 0.10 * v + 0.029 * v + 0.035
    assert tax_uplift(cat.taxes["import_direct_sp_lucro_real"]) == pytest.approx(expected)
    assert round(expected * 100, 2) == 36.32


def test_tax_uplift_aws_brazil_local(cat):
    expected = 1 / (1 - 0.0925 - 0.029) - 1
    assert tax_uplift(cat.taxes["aws_brazil_local"]) == pytest.approx(expected)
    assert round(expected * 100, 2) == 13.83


def test_tax_uplift_none(cat):
    assert tax_uplift(cat.taxes["none"]) == 0.0


def test_shipped_tax_profiles_are_the_seven_tested():
    # the four above; brazil_local_entity_sp, brl_invoice_sp and import_non_technical_sp in tests/test_taxes.py
    assert set(load_catalog().taxes) == {"import_direct_sp", "import_direct_sp_lucro_real", "aws_brazil_local", "none",
                                         "brazil_local_entity_sp", "brl_invoice_sp", "import_non_technical_sp"}


# ---------------------------------------------------------------------------------------------
# Small helpers


def test_yearly_factor_steps_once_per_year():
    months = np.arange(1, 26)
    f = yearly_factor(months, 0.04)
    np.testing.assert_allclose(f[:12], 1.0)             # months 1–12
    np.testing.assert_allclose(f[12:24], 1.04)          # months 13–24
    assert f[24] == pytest.approx(1.04 ** 2)            # month 25
    np.testing.assert_allclose(yearly_factor(months, -0.1)[12], 0.9)


def test_spread_hours_fills_months_in_order():
    days = np.array([31.0, 28.0, 31.0, 30.0])
    # 1,000 h from month 1: 31 × 24 = 744 h in January, the remaining 256 h in February
    np.testing.assert_allclose(spread_hours(1000.0, 1, days), [744, 1000 - 744, 0, 0])
    # from month 2: February holds 28 × 24 = 672 h, March the remaining 328 h
    np.testing.assert_allclose(spread_hours(1000.0, 2, days), [0, 672, 1000 - 672, 0])
    # more than fits: the horizon is filled and the rest dropped
    np.testing.assert_allclose(spread_hours(10_000.0, 3, days), [0, 0, 744, 720])
    np.testing.assert_allclose(spread_hours(0.0, 1, days), [0, 0, 0, 0])


def test_ratchet_never_releases():
    np.testing.assert_array_equal(ratchet(np.array([0, 2, 1, 3, 0, 2])), [0, 2, 2, 3, 3, 3])
    assert len(ratchet(np.array([]))) == 0


# ---------------------------------------------------------------------------------------------
# Servers by hour of the day


def test_inference_servers_by_hour():
    # utilisation 0.5: replicas = ceil(rps / 0.5), servers = ceil(replicas / 2)
    rps = np.array([[0.0, 0.4, 1.2, 0.8, 2.0, 1e-12]])
    # 0 → 0; 0.4 → 1 replica → 1 server; 1.2 → 3 → 2; 0.8 → 2 → 1; 2.0 → 4 → 2; a trickle still needs 1
    np.testing.assert_array_equal(inference_servers_by_hour(rps, REPLICA, 0.5, "none"), [[0, 1, 2, 1, 2, 1]])
    # n+1: 0 → 0; 1 + 1 = 2 → 1; 3 + 1 = 4 → 2; 2 + 1 = 3 → 2; 4 + 1 = 5 → 3; 1 + 1 = 2 → 1
    np.testing.assert_array_equal(inference_servers_by_hour(rps, REPLICA, 0.5, "n+1"), [[0, 1, 2, 2, 3, 1]])
