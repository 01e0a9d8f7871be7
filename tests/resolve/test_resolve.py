"""Resolving a scenario against the catalog (tco.resolve): what each option's names become, the defaults
it takes (egress, storage, tax profile by billing) and the problems reported with file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.catalog import load_catalog
from tco.errors import InputError
from tco.resolve import resolve
from tco.scenario import load, load_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


@pytest.fixture(scope="module")
def assistant(cat):
    s, _, lines = load(ROOT / "scenarios" / "assistant_8b_l4.toml")
    return resolve(s, cat, "assistant_8b_l4.toml", lines)


def test_dedicated_shared_fleet_takes_brl_prices_free_egress_and_included_disks(assistant, cat):
    model, opts = assistant
    ded = opts[0]
    offer = cat.dedicated_offers["br-dedicated/sp/l4-4x"]
    assert model.model == "llama-3.1-8b"
    assert (ded.kind, ded.fleet, ded.autoscale) == ("dedicated", "shared", False)
    assert (ded.inference.currency, ded.inference.price) == ("BRL", offer.brl_per_month)
    assert ded.egress.egress_id == "none/dedicated"
    assert (ded.storage_id, ded.storage_usd_per_gb_month) == ("included", 0.0)
    assert ded.billing is None                    # all-BRL: no foreign provider to bill the CNPJ


def test_cloud_option_takes_the_pricing_row_and_the_region_defaults(assistant, cat):
    _, opts = assistant
    aws = opts[1]
    assert aws.inference.price == cat.cloud_offers["aws/sa-east-1/g6.xlarge"].prices["on_demand"].usd_per_hour
    assert aws.autoscale                          # on demand with separate fleets: serving follows the load
    assert aws.egress.egress_id == "aws/sa-east-1"
    assert aws.storage_id == "aws-s3/sa-east-1"
    assert aws.billing is not None and aws.tax.profile_id == aws.billing.profile   # no `taxes` key: by billing
    reserved = opts[2]
    assert reserved.tax.profile_id == "aws_brazil_local" and not reserved.autoscale


SCENARIO = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text()


def test_unknown_offer_and_model_are_reported_together(cat):
    text = SCENARIO.replace('id = "llama-3.1-8b"', 'id = "llama-9"').replace(
        'inference_offer = "aws/sa-east-1/g6.xlarge"\npricing = "on_demand"',
        'inference_offer = "aws/sa-east-1/g6.xlarg"\npricing = "on_demand"')
    s = load_text(text, "x.toml")
    with pytest.raises(InputError) as exc:
        resolve(s, cat, "x.toml")
    keys = {p.key for p in exc.value.problems}
    assert {"model.id", "options[1].inference_offer"} <= keys
    msg = next(p.message for p in exc.value.problems if p.key == "options[1].inference_offer")
    assert "g6.xlarge" in msg                     # the closest valid name


def test_reserved_autoscale_is_refused(cat):
    text = SCENARIO.replace('pricing = "reserved_1yr"\nautoscale = false', 'pricing = "reserved_1yr"\nautoscale = true')
    with pytest.raises(InputError) as exc:
        resolve(load_text(text, "x.toml"), cat, "x.toml")
    assert [p.key for p in exc.value.problems] == ["options[2].autoscale"]
