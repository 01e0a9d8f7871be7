"""tco.report.workbook.client: the workbook the PDF attaches for the client has no engine notice, no plan search,
no internal reference and not how the provider's own price is built; the seller's full workbook keeps them."""

from __future__ import annotations

import pytest

from tco.report.workbook import client

LEAKS = ("Avisos do motor", "Engine warnings", "substitua", "tco/catalog/data", "shared/reviews", "brazil_fx_tax",
         "dedicated_landed", "Estimate from", "STAND-IN")


def test_clean_source_by_hand():
    assert client.clean_source("AWS Price List 2026-07-28; shared/reviews/2026-11-prices-and-taxes.md §2 1c") == \
        "AWS Price List 2026-07-28"
    assert client.clean_source("BCB Focus (brazil_fx_tax.md §2.3), Jan 2026") == "BCB Focus , Jan 2026"
    assert client.clean_source("STAND-IN: no public egress price for Gcore …").startswith("Preço substituto")
    assert client.clean_source("Estimate from tco/catalog/data/dedicated_landed.csv …", own=True).startswith(
        "Preço do provedor")
    assert client.clean_source("shared/reviews/x.md") == "—"


def test_client_doc_drops_the_sellers_parts():
    doc = {"plans": {"overall": {}}, "notices": [1], "warnings": ["w"],
           "catalog_rows": {"offers": [{"kind": "dedicated", "source": "Estimate from tco/catalog/data/x.csv"},
                                       {"kind": "cloud", "source": "AWS list; shared/reviews/r.md §1"}],
                            "files": [{"path": "tco/catalog/data/gpus.csv"}]},
           "options": [{"storage": {"source": "S3 (cloud_prices_specs.md 3.2)"}}]}
    out = client.client_doc(doc)
    assert not {"plans", "notices", "warnings"} & set(out)
    offers = out["catalog_rows"]["offers"]
    assert offers[0]["source"].startswith("Preço do provedor") and offers[1]["source"] == "AWS list"
    assert out["catalog_rows"]["files"] == [] and out["options"][0]["storage"]["source"] == "S3"
    assert doc["plans"] and doc["catalog_rows"]["files"]  # the seller's document is untouched


@pytest.fixture(scope="module")
def books(seed_inputs, tmp_path_factory):
    """(the client's workbook, the seller's) of the seed's run with its plan search, as strings by sheet."""
    import openpyxl

    from tco import api
    from tco.report import json_out, workbook

    res = api.run(seed_inputs, analysis=False)
    doc = json_out.build(res)
    folder = tmp_path_factory.mktemp("books")
    client.write(res, doc, folder / "client.xlsx")
    workbook.write(res, doc, folder / "seller.xlsx")
    out = []
    for name in ("client.xlsx", "seller.xlsx"):
        wb = openpyxl.load_workbook(folder / name)
        out.append({ws.title: " ".join(str(c.value) for row in ws.iter_rows() for c in row if isinstance(c.value, str))
                    for ws in wb})
    return out


def test_the_clients_workbook_leaks_nothing_the_sellers_keeps_it(books):
    mine, full = books
    text, full_text = " ".join(mine.values()), " ".join(full.values())
    assert [w for w in LEAKS if w in text] == []
    assert "Avisos do motor" in full_text and "dedicated_landed" in full_text
    assert "Planos" in full and "Planos" not in mine  # no plan cheaper than the offer reaches the client
    assert set(mine) == set(full) - {"Planos"}  # the live model, inputs and checks all stay
