"""tco.resolve.fleet: an offer as an option uses it (catalog row, price at the option's pricing, the scenario's own
price or quote) and how its provider bills a Brazilian CNPJ.

Each branch by hand against the shipped catalog: cloud and dedicated prices, overrides, upfront commitments, refused
statuses, unknown names with the closest valid ones, quotes, and the billing rules (offer's own mode, the provider's
entry, the unknown provider taken as an import)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest

from tco.resolve.fleet import DEFAULT_PROFILE, as_quote, billing_of, fleet_of

F = "s.toml"


@pytest.fixture(scope="module")
def cat(seed_inputs):
    return seed_inputs.catalog


def _fleet(cat, offer_id, pricing="on_demand", usd=None, brl=None, setup=None, term=None):
    problems: list = []
    f = fleet_of(cat, offer_id, pricing, usd, brl, setup, term, "options[0].inference_offer", problems, F, 7,
                 "options[0].pricing", 9)
    return f, problems


# --- cloud --------------------------------------------------------------------------------------------------------

def test_a_cloud_offer_at_its_pricing(cat):
    f, problems = _fleet(cat, "aws/us-east-1/p5en.48xlarge", "savings_plan_ec2_3yr")
    p = cat.offer("aws/us-east-1/p5en.48xlarge").prices["savings_plan_ec2_3yr"]
    assert problems == []
    assert (f.kind, f.currency, f.price_unit, f.pricing) == ("cloud", "USD", "USD/h", "savings_plan_ec2_3yr")
    assert (f.price, f.price_source, f.price_as_of, f.price_status) == (p.usd_per_hour, p.source, p.as_of, p.status)
    assert (f.gpus_per_server, f.gpu.gpu, f.provider, f.region) == (8, "H200-SXM-141GB", "aws", "us-east-1")
    assert (f.setup_fee_brl, f.min_term_months, f.upfront_usd) == (0.0, 0, 0.0)


def test_the_scenario_price_wins(cat):
    f, problems = _fleet(cat, "aws/us-east-1/p5en.48xlarge", "on_demand", usd=50.0)
    assert problems == []
    assert (f.price, f.price_status, f.price_source, f.price_as_of) == (50.0, "scenario_override",
                                                                        "price given in the scenario", "scenario")


def test_an_all_upfront_commitment_carries_its_upfront_and_term(cat):
    f, _ = _fleet(cat, "aws/us-east-1/p5.48xlarge", "ri_3yr_standard_all_upfront_effective")
    p = cat.offer("aws/us-east-1/p5.48xlarge").prices["ri_3yr_standard_all_upfront_effective"]
    assert f.upfront_usd == p.upfront_usd > 0 and f.upfront_term_months == 36
    # the scenario's own hourly price replaces the catalog's effective rate, and with it the upfront
    g, _ = _fleet(cat, "aws/us-east-1/p5.48xlarge", "ri_3yr_standard_all_upfront_effective", usd=20.0)
    assert (g.upfront_usd, g.upfront_term_months) == (0.0, 0)


def test_a_missing_pricing_names_the_priced_ones_at_the_pricing_key(cat):
    f, (p,) = _fleet(cat, "aws/us-east-1/p5en.48xlarge", "reserved_1yr")
    assert f is None
    assert (p.file, p.key, p.line) == (F, "options[0].pricing", 9)
    assert "has no 'reserved_1yr' price (not in the catalog)" in p.message
    assert "savings_plan_ec2_1yr" in p.message and "usd_per_hour" in p.message


def test_a_price_marked_not_offered_is_refused(cat):
    f, (p,) = _fleet(cat, "aws/sa-east-1/p5en.48xlarge", "on_demand")
    assert f is None and "not_offered" in p.message
    # given in the scenario, it is used
    g, problems = _fleet(cat, "aws/sa-east-1/p5en.48xlarge", "on_demand", usd=80.0)
    assert problems == [] and g.price == 80.0


def test_an_unknown_offer_suggests_the_closest(cat):
    f, (p,) = _fleet(cat, "aws/us-east-1/p5en.48xlarg")
    assert f is None and (p.key, p.line) == ("options[0].inference_offer", 7)
    assert "unknown offer 'aws/us-east-1/p5en.48xlarg'" in p.message
    assert "aws/us-east-1/p5en.48xlarge" in p.message


# --- dedicated ----------------------------------------------------------------------------------------------------

def test_a_dedicated_offer_is_billed_monthly_in_reais(cat):
    f, problems = _fleet(cat, "br-dedicated/sp/h200-nvl-1x")
    o = cat.offer("br-dedicated/sp/h200-nvl-1x")
    assert problems == []
    assert (f.kind, f.currency, f.price_unit, f.pricing) == ("dedicated", "BRL", "BRL/month", "monthly")
    assert (f.price, f.setup_fee_brl, f.min_term_months) == (o.brl_per_month, o.setup_fee_brl, o.min_term_months)
    assert (f.price_status, f.price_source) == (o.status, o.source)


def test_a_dedicated_quote_overrides_price_setup_and_term(cat):
    f, _ = _fleet(cat, "br-dedicated/sp/h200-nvl-1x", brl=14000.0, setup=0.0, term=6)
    assert (f.price, f.setup_fee_brl, f.min_term_months) == (14000.0, 0.0, 6)
    assert (f.price_status, f.price_source, f.price_as_of) == ("scenario_override", "price given in the scenario",
                                                               "scenario")
    # a price alone keeps the catalog's setup and term
    g, _ = _fleet(cat, "br-dedicated/sp/h200-nvl-1x", brl=14000.0)
    o = cat.offer("br-dedicated/sp/h200-nvl-1x")
    assert (g.setup_fee_brl, g.min_term_months) == (o.setup_fee_brl, o.min_term_months)


# --- quotes ---------------------------------------------------------------------------------------------------------

def _opt(**kw):
    base = dict(quote_source=None, quote_valid_until=None, usd_per_hour=None, brl_per_month=None,
                training_usd_per_hour=None, training_brl_per_month=None)
    return SimpleNamespace(**(base | kw))


def _line(*key):
    return {("options", 0, "quote_source"): 11, ("options", 0, "quote_valid_until"): 12}.get(key)


def test_a_dated_price_is_a_quote(cat):
    f, _ = _fleet(cat, "br-dedicated/sp/h200-nvl-1x", brl=14000.0)
    o = _opt(quote_source="Provedor X, proposta 12", quote_valid_until=dt.date(2027, 1, 31), brl_per_month=14000.0)
    problems: list = []
    q = as_quote(o, 0, f, None, 14000.0, _line, problems, F)
    assert problems == []
    assert (q.price_status, q.price_as_of) == ("quote", "2027-01-31")
    assert q.price_source == "quote: Provedor X, proposta 12 (valid until 2027-01-31)"
    assert q.price == 14000.0


def test_a_quote_without_a_date_or_a_date_without_a_price_is_named(cat):
    f, _ = _fleet(cat, "br-dedicated/sp/h200-nvl-1x")
    problems: list = []
    assert as_quote(_opt(quote_source="X"), 0, f, None, None, _line, problems, F) is f
    assert (problems[0].key, problems[0].line) == ("options[0].quote_valid_until", 11)
    assert "validity date" in problems[0].message
    problems = []
    assert as_quote(_opt(quote_valid_until=dt.date(2027, 1, 31)), 0, f, None, None, _line, problems, F) is f
    assert (problems[0].key, problems[0].line) == ("options[0].quote_valid_until", 12)
    assert "brl_per_month" in problems[0].message


# --- billing ---------------------------------------------------------------------------------------------------------

def test_aws_bills_through_its_brazilian_entity(cat):
    f, _ = _fleet(cat, "aws/us-east-1/p5en.48xlarge")
    b = billing_of(cat, f)
    assert (b.provider, b.mode, b.profile, b.status) == ("aws", "local_entity", "aws_brazil_local", "sourced")
    assert b.source and b.as_of == "2020-11-01"


def test_a_foreign_cloud_without_an_entity_is_an_import(cat):
    oid = next(i for i in cat.offer_ids if i.startswith("lambda/"))
    f, _ = _fleet(cat, oid, next(iter(cat.offer(oid).prices)))
    b = billing_of(cat, f)
    assert (b.mode, b.profile, b.status) == ("import", "import_direct_sp", "unverified")


def test_an_unknown_provider_is_taken_as_an_unverified_import(cat):
    f, _ = _fleet(cat, "aws/us-east-1/p5en.48xlarge")
    bare = SimpleNamespace(offer=lambda oid: SimpleNamespace(), billing={})  # no billing information at all
    b = billing_of(bare, f)
    assert (b.mode, b.profile, b.status) == ("import", DEFAULT_PROFILE["import"], "unverified")
    assert "no billing information for provider 'aws'" in b.source
