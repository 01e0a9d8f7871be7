"""The shipped catalog held to sense: sourced, dated, honest statuses, commitments below on-demand,
regions within a band of each other, billing modes known, refused rows never used silently."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from tco.catalog import BR_BILLING, DATA_DIR, STATUSES, load_catalog
from tco.cli import main
from tco.costs import is_committed

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_STATUSES = ("listed", "estimate", "unverified", "not_offered", "anomalous")
MAX_AGE_MONTHS = 12
REGION_BAND = 1.25
"""The same instance and pricing may cost at most 25 % more in one region than in another unless the dearer
row's note says why (São Paulo is usually 1.6–1.7× us-east-1)."""
DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


def rows(name: str) -> list[dict]:
    with (DATA_DIR / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def age_months(as_of: str, ref: str) -> int:
    """Whole months from `as_of` to `ref`; a partial date (YYYY or YYYY-MM) counts from its first day (oldest)."""
    parts = as_of.split("-") + ["01", "01"][len(as_of.split("-")) - 1:]
    y, m, d = (int(x) for x in parts[:3])
    ry, rm, rd = (int(x) for x in ref.split("-"))
    return (ry - y) * 12 + rm - m - (1 if rd < d else 0)


def test_age_months_by_hand():
    assert age_months("2025-11-30", "2026-11-30") == 12
    assert age_months("2025-10", "2026-11-30") == 13
    assert age_months("2025-11-30", "2026-11-29") == 11
    assert age_months("2026", "2026-11-30") == 10  # a bare year counts from its first day


@pytest.mark.parametrize("name", ["cloud_offers.csv", "dedicated_offers.csv", "egress_tiers.csv", "storage.csv",
                                  "dedicated_landed.csv", "usdbrl_focus.csv"])
def test_every_row_has_a_source_and_a_date(name):
    for r in rows(name):
        assert r["source"].strip(), r
        as_of = r["as_of"].strip()
        if name in ("cloud_offers.csv", "dedicated_offers.csv") and r.get("status") in ("listed", "estimate"):
            assert DATE.match(as_of), f"{name}: {r.get('offer_id')} {r.get('pricing')} as_of {as_of!r} is not a date"
        else:
            assert as_of, r


@pytest.mark.parametrize("name", ["cloud_offers.csv", "dedicated_offers.csv"])
def test_statuses_come_from_the_allowed_set(name):
    assert set(SHIPPED_STATUSES) <= set(STATUSES)
    found = {r["status"] for r in rows(name)}
    assert found <= set(SHIPPED_STATUSES), found - set(SHIPPED_STATUSES)


def test_status_matches_the_price():
    for r in rows("cloud_offers.csv"):
        priced = bool(r["usd_per_hour"].strip())
        if r["status"] in ("listed", "estimate"):
            assert priced, f"{r['offer_id']} {r['pricing']} is {r['status']} without a price"
        if r["status"] == "not_offered":
            assert not priced, f"{r['offer_id']} {r['pricing']} is not_offered but has a price"


def test_no_listed_price_is_older_than_twelve_months(cat):
    assert cat.as_of == "2026-11-30"
    old = [(r["offer_id"], r["pricing"], r["as_of"]) for r in rows("cloud_offers.csv")
           if r["status"] == "listed" and age_months(r["as_of"], cat.as_of) > MAX_AGE_MONTHS]
    assert not old, f"listed rows older than {MAX_AGE_MONTHS} months at {cat.as_of}: {old}"


def test_a_commitment_costs_less_per_hour_than_on_demand(cat):
    checked = 0
    for offer in cat.cloud_offers.values():
        od = offer.prices.get("on_demand")
        if od is None or od.usd_per_hour is None:
            continue
        for pricing, p in offer.prices.items():
            if is_committed(pricing) and p.usd_per_hour is not None:
                assert p.usd_per_hour < od.usd_per_hour, (offer.offer_id, pricing)
                checked += 1
    assert checked > 100


def test_a_longer_commitment_is_not_dearer(cat):
    for offer in cat.cloud_offers.values():
        for pricing, p in offer.prices.items():
            if "3yr" in pricing and p.usd_per_hour is not None:
                one = offer.prices.get(pricing.replace("3yr", "1yr"))
                if one is not None and one.usd_per_hour is not None:
                    assert p.usd_per_hour <= one.usd_per_hour, (offer.offer_id, pricing)


def test_a_region_costs_within_a_band_of_another_unless_a_note_says_why():
    groups = defaultdict(list)
    for r in rows("cloud_offers.csv"):
        if r["usd_per_hour"].strip() and r["status"] != "anomalous":
            groups[(r["provider"], r["instance"], r["pricing"])].append(r)
    compared = 0
    for key, rs in groups.items():
        cheapest = min(float(r["usd_per_hour"]) for r in rs)
        for r in rs:
            ratio = float(r["usd_per_hour"]) / cheapest
            compared += len(rs) > 1
            if ratio > REGION_BAND:
                assert r["note"].strip(), f"{key} in {r['region']} is {ratio:.2f}x another region with no note saying why"
    assert compared > 50


def test_upfront_payments_belong_to_commitments_and_fit_the_effective_rate(cat):
    n = 0
    for offer in cat.cloud_offers.values():
        for pricing, p in offer.prices.items():
            if p.upfront_usd:
                n += 1
                assert is_committed(pricing) and p.term_months in (12, 36), (offer.offer_id, pricing)
                # all upfront: effective rate × 730 h × term months = the upfront (to the cent of a rounded rate)
                assert p.upfront_usd == pytest.approx(p.usd_per_hour * 730 * p.term_months, abs=0.01)
                assert p.recurring_usd_per_hour == pytest.approx(0.0, abs=1e-6)
    assert n > 50
    p = cat.cloud_offers["aws/us-east-1/p5.48xlarge"].prices["ri_3yr_standard_all_upfront_effective"]
    assert p.upfront_usd == pytest.approx(20.695053 * 8760 * 3, abs=0.01)  # 543,865.99 USD at the start


def test_every_provider_says_how_it_bills_a_brazilian_company(cat):
    providers = {o.provider for o in cat.cloud_offers.values()} | {o.provider for o in cat.dedicated_offers.values()}
    assert providers <= set(cat.providers), providers - set(cat.providers)
    for pid, pv in cat.providers.items():
        assert pv.br_billing in BR_BILLING and pv.br_billing_source.strip() and pv.as_of, pid
        assert pv.br_billing_status in ("sourced", "unverified"), pid
    assert cat.providers["aws"].br_billing == "local_entity" and cat.providers["aws"].br_billing_status == "sourced"
    assert "AWS Serviços Brasil" in cat.providers["aws"].br_billing_source
    assert cat.providers["gcp"].br_billing_status == "unverified"
    # Microsoft sells Azure to a direct Brazilian customer in USD (MCA FAQ; review 2026-12 M2): an import
    assert (cat.providers["azure"].br_billing, cat.providers["azure"].br_billing_status) == ("import", "sourced")
    for oid, o in cat.cloud_offers.items():
        assert o.br_billing == cat.providers[o.provider].br_billing, oid


def test_the_rows_the_review_found_wrong_are_fixed(cat):
    def price(oid, pricing):
        return cat.cloud_offers[oid].prices[pricing].usd_per_hour

    assert price("gcp/us-central1/a3-highgpu-8g", "on_demand") == pytest.approx(88.49, abs=0.01)
    assert price("gcp/us-central1/a3-ultragpu-8g", "on_demand") == pytest.approx(84.81, abs=0.01)
    assert "not generally available" in cat.cloud_offers["gcp/us-central1/a3-ultragpu-8g"].prices["on_demand"].note
    assert price("aws/us-east-1/p5.48xlarge", "capacity_block_effective") == pytest.approx(41.528)
    assert price("aws/us-east-1/p5en.48xlarge", "capacity_block_effective") == pytest.approx(54.92)
    assert "quarterly" in cat.cloud_offers["aws/us-east-1/p5en.48xlarge"].prices["capacity_block_effective"].note
    assert cat.cloud_offers["aws/us-east-2/p5e.48xlarge"].prices["capacity_block_effective"].status == "unverified"
    std = cat.egress["gcp_standard/us-central1"].tiers
    assert [(lo, hi) for lo, hi, _ in std[:3]] == [(0, 10 * 1024), (10 * 1024, 150 * 1024), (150 * 1024, 500 * 1024)]
    # the H200 commitments a 36-month decision needs
    assert price("aws/us-east-1/p5en.48xlarge", "savings_plan_ec2_3yr") == pytest.approx(27.34387)
    assert price("gcp/us-central1/a3-ultragpu-8g", "cud_3yr") == pytest.approx(37.208421)
    assert price("azure/eastus2/Standard_ND96isr_H200_v5", "reserved_3yr") == pytest.approx(42.22)


def test_brazilian_regions_say_which_gpus_they_lack(cat):
    for oid in ("aws/sa-east-1/p5en.48xlarge", "aws/sa-east-1/p6-b200.48xlarge",
                "azure/brazilsouth/Standard_ND96isr_H200_v5", "azure/brazilsouth/Standard_ND96isr_H100_v5",
                "gcp/southamerica-east1/a3-ultragpu-8g", "gcp/southamerica-east1/a3-highgpu-8g"):
        assert cat.cloud_offers[oid].prices["on_demand"].status == "not_offered", oid
    b300 = cat.cloud_offers["aws/sa-east-1/p6-b300.48xlarge"].prices["on_demand"]
    assert b300.status == "unverified" and b300.usd_per_hour is None  # launched Aug 2026, price not captured


def test_foreign_gpu_clouds_are_imports_priced_in_usd(cat):
    foreign = [o for o in cat.cloud_offers.values() if o.provider not in ("aws", "gcp", "azure")]
    assert {o.provider for o in foreign} >= {"lambda", "nebius", "coreweave", "gcore"}
    for o in foreign:
        assert o.br_billing == "import", o.offer_id
    gcore = cat.cloud_offers["gcore/global/8x-h200-sxm-baremetal"].prices
    assert gcore["reserved_3yr"].usd_per_hour == pytest.approx(2.20 * 8)  # 2.20 USD per GPU-hour × 8 GPUs


def test_focus_file_covers_the_fx_base_path_years():
    latest = max(r["edition"] for r in rows("usdbrl_focus.csv"))
    years = {int(r["year_end"]): float(r["usdbrl"]) for r in rows("usdbrl_focus.csv") if r["edition"] == latest}
    assert years == {2026: 5.42, 2027: 5.50, 2028: 5.50, 2029: 5.50}


# --- refused rows are never used silently ---------------------------------------------------------

SEED = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")


def _run(tmp_path, text, capsys, catalog_rows: str | None = None):
    if catalog_rows is not None:
        (tmp_path / "cat").mkdir()
        header = (DATA_DIR / "cloud_offers.csv").read_text(encoding="utf-8").splitlines()[0]
        (tmp_path / "cat" / "cloud_offers.csv").write_text(header + "\n" + catalog_rows, encoding="utf-8")
        text = text.replace('locale = "pt-BR"', 'locale = "pt-BR"\ncatalog_dir = "cat"', 1)
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["run", str(f), "-o", str(out), "--quiet", "--formats", "json", "--paths", "200"])
    return code, out, text, capsys.readouterr().err


def test_an_anomalous_price_is_refused_with_its_location(tmp_path, capsys):
    row = ('aws/us-east-1/p5en.48xlarge,aws,us-east-1,p5en.48xlarge,H200-SXM-141GB,8,spot,1.0,,,anomalous,'
           '"test row",2026-09-25,too cheap to be true\n')
    text = SEED.replace('pricing = "on_demand"', 'pricing = "spot"', 1)
    code, out, text, err = _run(tmp_path, text, capsys, row)
    assert code == 2 and not out.exists()
    n = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith('pricing = "spot"'))
    assert f"s.toml:{n}:" in err and "anomalous" in err and "too cheap to be true" in err


def test_a_not_offered_row_is_refused(tmp_path, capsys):
    text = SEED.replace('inference_offer = "aws/us-east-1/p5en.48xlarge"',
                        'inference_offer = "azure/brazilsouth/Standard_ND96isr_H200_v5"', 1)
    code, out, _, err = _run(tmp_path, text, capsys)
    assert code == 2 and not out.exists()
    assert "not_offered" in err and "azure/brazilsouth/Standard_ND96isr_H200_v5" in err


def test_an_unverified_price_is_used_with_a_warning(tmp_path, capsys):
    gcp = 'inference_offer = "gcp/us-central1/a3-ultragpu-8g"'
    assert gcp in SEED
    text = SEED.replace(gcp, gcp + '\npricing = "spot"', 1)  # an undated spot snapshot
    code, out, text, err = _run(tmp_path, text, capsys)
    assert code == 0, err
    notices = json.loads((out / "s.json").read_text(encoding="utf-8"))["notices"]
    assert any(n["code"] == "price_status" and n["params"] == {"offer": "gcp/us-central1/a3-ultragpu-8g",
                                                               "status": "unverified"} for n in notices), notices


def test_an_unknown_status_in_a_users_catalog_is_a_located_error(tmp_path, capsys):
    row = ('aws/us-east-1/p5en.48xlarge,aws,us-east-1,p5en.48xlarge,H200-SXM-141GB,8,spot,10.0,,,listd,'
           '"test row",2026-09-25,\n')
    code, out, _, err = _run(tmp_path, SEED, capsys, row)
    assert code == 2 and not out.exists()
    assert "cloud_offers.csv:2:" in err and "[status]" in err and "listed" in err
