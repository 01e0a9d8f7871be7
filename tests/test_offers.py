"""tco.catalog.offers: price files read into offers (each price with status, source and date), unknown statuses
and billing modes named with the closest valid one, egress tiers that must be contiguous."""

from __future__ import annotations

from dataclasses import replace

from tco.catalog.offers import load_cloud, load_dedicated, load_egress, load_providers, load_storage, with_billing
from tco.catalog.types import DATA_DIR

CLOUD_HEAD = "offer_id,provider,region,instance,gpu,gpu_count,pricing,usd_per_hour,status,source,as_of,term_months,upfront_usd\n"
EGRESS_HEAD = "egress_id,tier_from_gb,tier_to_gb,usd_per_gb,status,source,as_of\n"


def test_cloud_rows_of_one_offer_gather_their_prices(tmp_path):
    p = tmp_path / "cloud_offers.csv"
    p.write_text(CLOUD_HEAD + "a/r/x,a,r,x,G,8,on_demand,10.5,listed,page,2026-01-01,,\n"
                 "a/r/x,a,r,x,G,8,reserved_1yr,6.0,estimate,page,2026-01-01,12,8760\n"
                 "a/r/x,a,r,x,G,8,spot,,not_offered,page,2026-01-01,,\n", encoding="utf-8")
    problems = []
    offers = load_cloud([p], problems)
    assert problems == []
    o = offers["a/r/x"]
    assert o.gpu_count == 8 and sorted(o.prices) == ["on_demand", "reserved_1yr", "spot"]
    assert o.prices["on_demand"].usd_per_hour == 10.5 and o.prices["on_demand"].status == "listed"
    r = o.prices["reserved_1yr"]
    assert (r.usd_per_hour, r.status, r.term_months, r.upfront_usd) == (6.0, "estimate", 12, 8760)
    assert o.prices["spot"].usd_per_hour is None and o.prices["spot"].status == "not_offered"


def test_unknown_status_suggests_the_closest(tmp_path):
    p = tmp_path / "cloud_offers.csv"
    p.write_text(CLOUD_HEAD + "a/r/x,a,r,x,G,8,on_demand,1.0,listd,page,2026,,\n", encoding="utf-8")
    problems = []
    load_cloud([p], problems)
    assert [(q.line, q.key) for q in problems] == [(2, "status")]
    assert problems[0].message == "unknown status 'listd'; did you mean 'listed'?"


def test_shipped_dedicated_offers_are_estimates_with_a_landed_range():
    problems = []
    ded = load_dedicated([DATA_DIR / "dedicated_offers.csv"], problems)
    assert problems == []
    o = ded["br-dedicated/sp/hgx-h200-8x"]
    assert o.gpu_count == 8 and o.brl_per_month > 0 and o.min_term_months >= 1
    assert o.source and o.as_of and o.kind == "dedicated" and o.region == "br"


def test_providers_billing_modes(tmp_path):
    p = tmp_path / "providers.csv"
    p.write_text("provider,br_billing,br_billing_source,as_of\nacme,local_entty,site,2026\nzed,import,site,2026\n",
                 encoding="utf-8")
    problems = []
    prov = load_providers([p], problems)
    assert [(q.line, q.key) for q in problems] == [(2, "br_billing")]
    assert "did you mean 'local_entity'" in problems[0].message
    assert prov["zed"].br_billing == "import" and prov["zed"].br_billing_status == "unverified"
    cloud = load_cloud([DATA_DIR / "cloud_offers.csv"], [])
    some = {k: v for k, v in cloud.items() if v.provider == "aws"}
    billed = with_billing(some, {"aws": replace(prov["zed"], provider="aws")})
    assert all(o.br_billing == "import" and o.br_billing_source == "site" for o in billed.values())
    assert with_billing(some, {}) == some                                  # no provider row: unchanged


def test_egress_tiers_contiguous_and_sorted(tmp_path):
    p = tmp_path / "egress_tiers.csv"
    p.write_text(EGRESS_HEAD + "e,100,1000,0.05,listed,s,2026\ne,0,100,0.0,listed,s,2026\ne,1000,,0.02,listed,s,2026\n"
                 "gap,0,10,0.1,listed,s,2026\ngap,20,,0.1,listed,s,2026\nbad,5,5,0.1,listed,s,2026\n",
                 encoding="utf-8")
    problems = []
    eg = load_egress([p], problems)
    assert eg["e"].tiers == ((0.0, 100.0, 0.0), (100.0, 1000.0, 0.05), (1000.0, None, 0.02))
    msgs = {(q.key, q.line): q.message for q in problems}
    assert msgs[("tier_to_gb", 7)] == "tier ends (5 GB) before it starts (5 GB)"
    assert msgs[("gap", None)] == "egress tiers are not contiguous at 20.0 GB"


def test_a_user_egress_file_replaces_the_whole_table(tmp_path):
    p = tmp_path / "egress_tiers.csv"
    p.write_text(EGRESS_HEAD + "aws/us-east-1,0,,0.01,quote,my quote,2026-11\n", encoding="utf-8")
    problems = []
    eg = load_egress([DATA_DIR / "egress_tiers.csv", p], problems)
    assert eg["aws/us-east-1"].tiers == ((0.0, None, 0.01),) and eg["aws/us-east-1"].source == "my quote"
    assert problems == []


def test_storage(tmp_path):
    p = tmp_path / "storage.csv"
    p.write_text("storage_id,usd_per_gb_month,status,source,as_of\ns3,0.023,listed,AWS,2026\nx,,unverified,-,\n",
                 encoding="utf-8")
    st = load_storage([p], [])
    assert st["s3"].usd_per_gb_month == 0.023 and st["x"].usd_per_gb_month is None
