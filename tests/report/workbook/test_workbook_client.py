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


def test_client_view_drops_the_sellers_parts(small_run):
    """The client's view: no plan search, no notices, no catalog file, the provider's own price named as such and
    internal references cut from every source; the seller's view untouched."""
    import dataclasses

    from tco.domain import Notice
    from tco.report import view
    from tco.report.view_catalog import CatalogRows

    v = view.build(small_run)
    cat = CatalogRows(gpus=(), model={"source": "HF card; shared/reviews/m.md", "as_of": "2026-01"},
                      offers=({"kind": "dedicated", "source": "Estimate from tco/catalog/data/x.csv", "derivation": "d"},
                              {"kind": "cloud", "source": "AWS list; shared/reviews/r.md §1", "note": "n (x.csv)"}),
                      egress=(), taxes=(), tax_reform=(), files=("tco/catalog/data/gpus.csv",),
                      storage=({"option": "a", "id": "s3", "usd_per_gb_month": 0.023,
                                "source": "S3 (cloud_prices_specs.md 3.2)"},))
    seller = dataclasses.replace(v, catalog=cat, notices=(Notice("price_estimate", "a", {}),))
    out = client.client_view(seller)
    assert seller.analysis.plans is not None and seller.plans  # the small run searched plans
    assert out.analysis.plans is None and out.plans == () and out.notices == ()
    offers = out.catalog.offers
    assert offers[0]["source"].startswith("Preço do provedor") and offers[0]["derivation"] == ""
    assert offers[1]["source"] == "AWS list" and offers[1]["note"] == "n"
    assert out.catalog.files == () and out.catalog.storage[0]["source"] == "S3"
    assert out.catalog.model == cat.model  # the model's row is shown as the catalog has it
    assert seller.catalog.files and seller.catalog.offers[1]["source"].endswith("§1")  # the seller's view untouched


@pytest.fixture(scope="module")
def books(seed_inputs, tmp_path_factory):
    """(the client's workbook, the seller's) of the seed's run with its plan search, as strings by sheet."""
    import openpyxl

    from tco import api
    from tco.report import view, workbook

    res = api.run(seed_inputs, analysis=False)
    folder = tmp_path_factory.mktemp("books")
    client.write(res, view.build(res), folder / "client.xlsx")
    workbook.write(res, view.build(res), folder / "seller.xlsx")
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
