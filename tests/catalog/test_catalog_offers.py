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


DEDICATED_HEAD = ("offer_id,provider,gpu,gpu_count,brl_per_month,setup_fee_brl,min_term_months,indexation,status,"
                  "source,as_of,brl_per_month_low,brl_per_month_high\n")


def _problems(load, tmp_path, name: str, text: str) -> list[tuple[int | None, str, str]]:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    problems: list = []
    load([p], problems)
    return [(q.line, q.key, q.message) for q in problems]


def test_review_m8_a_price_row_names_its_source_and_a_date_not_in_the_future(tmp_path):
    rows = DEDICATED_HEAD + ("br-x/a,br-x,G,8,10000,0,12,ipca,quote,,2026-11-01,,\n"       # no source
                             "br-x/b,br-x,G,8,10000,0,12,ipca,quote,Acme quote 7,yesterday,,\n"
                             "br-x/c,br-x,G,8,10000,0,12,ipca,quote,Acme quote 8,2099-01-01,,\n"
                             "br-x/d,br-x,G,8,10000,0,12,ipca,quote,Acme quote 9,undated (phone call),,\n"
                             "br-x/e,br-x,G,8,10000,0,12,ipca,quote,Acme quote 10,2025-2026 (secondary),,\n")
    got = _problems(load_dedicated, tmp_path, "dedicated_offers.csv", rows)
    assert [(line, key) for line, key, _ in got] == [(2, "source"), (3, "as_of"), (4, "as_of")]
    assert "after today" in got[2][2] and "must start with a date" in got[1][2]


def test_review_m8_duplicates_provider_prefix_indexation_and_price_range(tmp_path):
    rows = DEDICATED_HEAD + ("br-x/a,br-x,G,8,10000,0,12,ipca,quote,q,2026-11-01,9000,11000\n"
                             "br-x/a,br-x,G,8,12000,0,12,ipca,quote,q,2026-11-01,,\n"          # given twice
                             "br-x/b,aws,G,8,10000,0,12,ipca,quote,q,2026-11-01,,\n"          # id of another provider
                             "br-x/c,br-x,G,8,10000,0,12,igpm-x,quote,q,2026-11-01,,\n"       # unknown index
                             "br-x/d,br-x,G,8,10000,0,12,ipca,quote,q,2026-11-01,12000,9000\n")  # low > central > high
    got = _problems(load_dedicated, tmp_path, "dedicated_offers.csv", rows)
    assert [(line, key) for line, key, _ in got] == [(3, "offer_id"), (4, "provider"), (5, "indexation"),
                                                      (6, "brl_per_month")]
    assert "already given on line 2" in got[0][2]
    assert got[3][2].endswith("got 12000 ≤ 10000 ≤ 9000")


def test_review_m8_an_upfront_payment_cannot_exceed_the_rate_over_its_term(tmp_path):
    # 0.5 USD/h effective over 12 months is at most 0.5 × 730 × 12 = 4,380 USD (+1 % rounding = 4,423.80)
    ok = CLOUD_HEAD + "a/r/x,a,r,x,G,8,reserved_1yr,0.5,listed,page,2026-01-01,12,4380\n"
    bad = CLOUD_HEAD + "a/r/x,a,r,x,G,8,reserved_1yr,0.5,listed,page,2026-01-01,12,1000000000\n"
    assert _problems(load_cloud, tmp_path, "cloud_offers.csv", ok) == []
    got = _problems(load_cloud, tmp_path, "cloud_offers.csv", bad)
    assert [(line, key) for line, key, _ in got] == [(2, "upfront_usd")]
    assert "0.5 USD/h × 730 h × 12 months = 4,380.00 USD" in got[0][2]


def test_review_m8_one_offer_and_pricing_once_per_file(tmp_path):
    rows = CLOUD_HEAD + ("a/r/x,a,r,x,G,8,on_demand,1.0,listed,page,2026-01-01,,\n"
                         "a/r/x,a,r,x,G,8,on_demand,2.0,listed,page,2026-01-01,,\n"
                         "a/r/x,a,r,x,G,8,spot,0.5,listed,page,2026-01-01,,\n")
    got = _problems(load_cloud, tmp_path, "cloud_offers.csv", rows)
    assert [(line, key) for line, key, _ in got] == [(3, "offer_id")]
    assert got[0][2].startswith("offer 'a/r/x' with pricing 'on_demand' is already given on line 2")
