"""tco.catalog.types: the Catalog's look-ups (offers by id, the network of an offer, the catalog date) and the
named limits and statuses."""

from __future__ import annotations

from tco.catalog.types import BR_BILLING, STATUS_ALIASES, STATUSES, Catalog, Interconnect


def _cat(**kw):
    return Catalog(gpus={}, models={}, cloud_offers=kw.get("cloud", {}), dedicated_offers=kw.get("ded", {}), egress={},
                   storage={}, taxes={}, defaults=kw.get("defaults", {}), interconnect=kw.get("net", {}))


def test_network_for_own_row_then_provider_wildcard():
    own = Interconnect("aws/us-east-1/p5.48xlarge", 3200.0, "listed", "AWS", "2026")
    wild = Interconnect("aws/*/p5.48xlarge", 1600.0, "listed", "AWS", "2026")
    cat = _cat(net={own.key: own, wild.key: wild})
    assert cat.network_for("aws/us-east-1/p5.48xlarge") is own
    assert cat.network_for("aws/sa-east-1/p5.48xlarge") is wild
    assert cat.network_for("gcp/us-east4/a3") is None
    assert cat.network_for("odd-id") is None


def test_offer_ids_and_lookup(seed_inputs):
    cat = seed_inputs.catalog
    ids = cat.offer_ids
    assert ids == sorted(set(cat.cloud_offers) | set(cat.dedicated_offers))
    assert cat.offer("aws/us-east-1/p5en.48xlarge").provider == "aws"
    assert cat.offer("br-dedicated/sp/hgx-h200-8x").kind == "dedicated"
    assert cat.offer("nope") is None


def test_as_of_from_defaults():
    assert _cat(defaults={"catalog": {"as_of": "2026-11-30"}}).as_of == "2026-11-30"
    assert _cat().as_of == ""


def test_statuses():
    assert STATUSES[:2] == ("listed", "estimate") and "quote" in STATUSES
    assert all(v in STATUSES for v in STATUS_ALIASES.values())
    assert set(BR_BILLING) == {"local_entity", "import"}
