"""The cloud prices of the catalog reconciled with the public price lists they were read from.

`reconcile_reference.csv` (next to this file) holds one published figure per row: the catalog key (`offer_id`,
`pricing`), the date the publisher gives it, the figure as published (a plain number, or the publisher's own
arithmetic such as `3.00*8` for a per-GPU price times the GPUs, or `183722/8760` for a whole-term price over the
term's hours) and the document it comes from (`SOURCES` below). Two rules:

* same key, same date: the catalog row carries the published figure, to the digits published (a figure published as
  `0.524` agrees with a catalog `0.52392`; `27.834` does not agree with `27.84`);
* a catalog row dated before the newest published figure of its key (or not dated at all) is stale.

A catalog row dated after every figure of its key has a newer source of its own: the older figures are history and
are not compared. `python -m pytest tests/catalog/test_catalog_reconcile.py` lists every row that breaks a rule."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from tco.catalog import DATA_DIR

REFERENCE = Path(__file__).with_name("reconcile_reference.csv")
VAN = "https://github.com/tsaol/aws-gpu/blob"
SOURCES = {
    "vantage-2025-11-30": f"instances.vantage.sh data (AWS Price List, Linux) in {VAN}/"
                          "2d0108c7bd261c8e40493fbd35135437bd6c9099/data/gpu_instances_raw.json (commit 2025-11-30)",
    "vantage-2026-01-21": f"instances.vantage.sh transcription 'Last updated: 2026-01-21', {VAN}/77fcd9f/data/",
    "vantage-2026-08-26": f"instances.vantage.sh transcription 'Last updated: 2026-08-26', {VAN}/"
                          "299375be7a2b940b53b3d80ec79fd66ee688f4fa/data/ (g6, g6e, p5, p5en, p6-b300, all_gpu_instances.js)",
    "note-2026-09": "public research note 'Raw Cloud GPU Instance Pricing — 2026 Research' (Sep 2026): AWS via "
                    "instances.vantage.sh (updated 2026-09-17), GCP accelerator-optimized pricing page (Iowa), Azure "
                    "Retail Prices API (East US, Linux), lambda.ai/pricing, CoreWeave via gputracker.dev; its GCP, "
                    "Azure, Lambda and CoreWeave readings carry the date of its AWS reading, as the catalog rows do",
    "gcp-page-2026-09-17": "GCP GPU pricing page (https://cloud.google.com/products/compute/gpus-pricing), accessed "
                           "2026-09-17, as quoted in a public source list of that date",
    "gcp-cud-2026-09-07": "'LLM self-hosting source snapshot · 2026-09-07' (GCP accelerator-optimized pricing page, "
                          "resource CUD columns)",
    "terms-2026-09-27": "public code catalog 'Published term prices' (TERM_CATALOG_AS_OF 2026-09-27): AWS Price List and "
                        "Savings Plans files and Capacity Blocks page (2026-09-25), Azure Retail Prices API, GCP pricing "
                        "and DWS pages, neocloud price pages",
    "dstack-2026-08-06": "dstack `dstack offer` output in https://github.com/dstackai/dstack/pull/4110 (2026-08-06)",
    "aws-capacity-blocks-2024": "AWS EC2 Capacity Blocks pricing page (https://aws.amazon.com/ec2/capacityblocks/pricing/), "
                                "before its 2025-01-01 update",
    "skypilot-gcp-017e2502": "https://github.com/skypilot-org/skypilot-catalog/blob/"
                             "017e2502fb63c7a28757acd94002b2d6099d3e3d/catalogs/v7/gcp/vms.csv (undated; VM + GPU rows)",
    "skypilot-azure-098741e7": "https://github.com/skypilot-org/skypilot-catalog/blob/"
                               "098741e70562f65d7af1cceb81e33b284f742604/catalogs/v6/azure/vms.csv (undated)",
}
ISO = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
NUMBER = re.compile(r"^\d+(\.\d+)?$")


def published_value(text: str) -> float:
    """A published figure: a number, or numbers joined by `*` and `/`, worked left to right."""
    tokens = re.split(r"([*/])", text)
    assert all(NUMBER.match(t) for t in tokens[::2]), text
    value = float(tokens[0])
    for op, num in zip(tokens[1::2], tokens[2::2]):
        value = value * float(num) if op == "*" else value / float(num)
    return value


def decimals(text: str) -> float:
    """Digits after the point of a plain number; a product or quotient is exact (infinitely many)."""
    if not NUMBER.match(text):
        return float("inf")
    return len(text.split(".")[1]) if "." in text else 0


def agrees(catalog: str, published: str) -> bool:
    """The catalog figure equals the published one to the digits the coarser of the two carries."""
    if not catalog.strip():
        return False
    digits = min(decimals(catalog), decimals(published))
    tolerance = 0.5 * 10 ** -digits if digits != float("inf") else 0.0
    return abs(float(catalog) - published_value(published)) <= tolerance * (1 + 1e-9) + 1e-9


def day(as_of: str) -> str:
    """A date as YYYY-MM-DD, a partial date counted from its first day."""
    parts = as_of.split("-")
    return "-".join(parts + ["01"] * (3 - len(parts)))


def same_day(a: str, b: str) -> bool:
    """Equal, or one ISO date a prefix of the other (a month-only `2026-09` is the same reading as `2026-09-17`)."""
    return a == b or (bool(ISO.match(a)) and bool(ISO.match(b)) and (a.startswith(b) or b.startswith(a)))


def older(catalog_as_of: str, ref_as_of: str) -> bool:
    """The catalog row predates a dated published figure (an undated catalog row predates every dated one)."""
    if not ISO.match(ref_as_of) or same_day(catalog_as_of, ref_as_of):
        return False
    return not ISO.match(catalog_as_of) or day(catalog_as_of) < day(ref_as_of)


def reconcile(catalog: dict[tuple[str, str], dict], reference: list[dict]) -> tuple[list[str], list[str], int]:
    """(mismatches, stale rows, figures compared) of the catalog rows against the published figures."""
    mismatches, stale, compared = [], [], 0
    newest: dict[tuple[str, str], dict] = {}
    for ref in reference:
        key = (ref["offer_id"], ref["pricing"])
        row = catalog[key]
        if same_day(row["as_of"], ref["as_of"]):
            compared += 1
            if not agrees(row["usd_per_hour"], ref["published"]):
                mismatches.append(f"{key[0]} {key[1]} {row['as_of']}: catalog {row['usd_per_hour'] or '(blank)'}, "
                                  f"published {ref['published']} ({ref['source']})")
        if ISO.match(ref["as_of"]) and (key not in newest or day(ref["as_of"]) > day(newest[key]["as_of"])):
            newest[key] = ref
    for key, ref in sorted(newest.items()):
        row = catalog[key]
        if older(row["as_of"], ref["as_of"]):
            stale.append(f"{key[0]} {key[1]}: catalog {row['usd_per_hour']} as of {row['as_of']}, "
                         f"published {ref['published']} on {ref['as_of']} ({ref['source']})")
    return mismatches, stale, compared


def read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def catalog() -> dict[tuple[str, str], dict]:
    return {(r["offer_id"], r["pricing"]): r for r in read(DATA_DIR / "cloud_offers.csv")}


@pytest.fixture(scope="module")
def reference() -> list[dict]:
    return read(REFERENCE)


def test_published_arithmetic_by_hand():
    assert published_value("16.298") == 16.298
    assert published_value("3.00*8") == pytest.approx(24.0)
    assert published_value("4.639*0.75*8") == pytest.approx(27.834)  # Verda: 25 % off 4.639 USD/GPU-h, 8 GPUs
    assert published_value("183722/8760") == pytest.approx(20.972831)  # Azure ND A100 v4, 1 year: 183,722 USD / 8,760 h


def test_agreement_is_to_the_digits_published():
    assert agrees("0.52392", "0.524")  # |0.52392 - 0.524| = 0.00008 <= 0.0005
    assert agrees("13.921094", "13.921")
    assert agrees("20.97", "183722/8760")  # 20.97283 to 2 decimals
    assert not agrees("27.84", "4.639*0.75*8")  # |27.84 - 27.834| = 0.006 > 0.005
    assert not agrees("8.59075", "16.298")
    assert not agrees("", "1.0")
    with pytest.raises(AssertionError):
        published_value("3.00+8")


def test_dates_by_hand():
    assert same_day("2026-09", "2026-09-17") and same_day("undated", "undated")
    assert not same_day("2026-09-17", "2026-09-25")
    assert older("2025-11-30", "2026-09-17") and older("undated", "2025-11-30")
    assert older("2026-08", "2026-09-17")  # a month counts from its first day
    assert not older("2026-09-25", "2026-09-17")  # the catalog has a newer source
    assert not older("undated", "undated") and not older("2025-11-30", "2024 (before 2025-01-01 update)")


def test_reconcile_finds_a_wrong_price_and_a_stale_row():
    catalog = {("a/r/x", "spot"): {"usd_per_hour": "8.59075", "as_of": "2025-11-30"},
               ("a/r/x", "on_demand"): {"usd_per_hour": "21.957642", "as_of": "2026-09-25"}}
    reference = [{"offer_id": "a/r/x", "pricing": "spot", "as_of": "2025-11-30", "published": "8.61", "source": "s"},
                 {"offer_id": "a/r/x", "pricing": "spot", "as_of": "2026-09-17", "published": "16.298", "source": "s"},
                 {"offer_id": "a/r/x", "pricing": "on_demand", "as_of": "2026-09-17", "published": "21.96", "source": "s"}]
    mismatches, stale, compared = reconcile(catalog, reference)
    assert compared == 1 and len(mismatches) == 1 and "published 8.61" in mismatches[0]  # |8.59075 - 8.61| > 0.005
    assert stale == ["a/r/x spot: catalog 8.59075 as of 2025-11-30, published 16.298 on 2026-09-17 (s)"]


def test_every_reference_row_names_a_catalog_row_and_a_known_source(catalog, reference):
    assert len(reference) > 400
    unknown = [(r["offer_id"], r["pricing"]) for r in reference if (r["offer_id"], r["pricing"]) not in catalog]
    assert unknown == []
    assert {r["source"] for r in reference} <= set(SOURCES)
    for r in reference:
        published_value(r["published"])


def test_the_catalog_carries_every_published_figure_of_its_date(catalog, reference):
    mismatches, _, compared = reconcile(catalog, reference)
    assert compared > 250
    assert mismatches == [], "\n".join(mismatches)


def test_no_catalog_row_is_older_than_a_published_figure(catalog, reference):
    _, stale, _ = reconcile(catalog, reference)
    assert stale == [], "\n".join(stale)
