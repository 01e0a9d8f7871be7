"""The Catalog sheet: every catalog row the scenario used (GPUs, model, offers, egress tiers, tax profiles,
storage, files), with its source and date, as values for reference."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from tco.report.view_catalog import CatalogRows
from tco.report.workbook.book import Book

TRANSLATED = {"kind": "kind", "pricing": "pricing", "price_unit": "price_unit", "status": "status", "method": "taxm",
              "pis_cofins_creditable": "yesno"}
"""Catalog columns whose values are engine ids shown through the shared catalog (i18n.term) (column → label prefix)."""

GPU_COLUMNS = ["gpu", "memory_gb", "bandwidth_tbs", "bf16_tflops", "fp8_tflops", "tdp_w", "interconnect",
               "interconnect_gbs", "as_of", "source"]
MODEL_COLUMNS = ["model", "family", "params_b", "active_params_b", "layers", "kv_heads", "head_dim",
                 "max_context_tokens", "as_of", "source"]
OFFER_COLUMNS = ["offer", "kind", "gpu", "gpus_per_server", "price", "price_unit", "currency", "pricing", "as_of",
                 "source", "status", "setup_fee_brl", "min_term_months"]
EGRESS_COLUMNS = ["egress_id", "tier_from_gb", "tier_to_gb", "usd_per_gb", "as_of", "source"]
TAX_COLUMNS = ["profile_id", "method", "irrf_rate", "cide_rate", "iss_rate", "pis_cofins_rate", "cbs_rate", "ibs_rate",
               "iof_rate", "pis_cofins_creditable", "as_of", "source"]
STORAGE_COLUMNS = ["option", "id", "usd_per_gb_month", "source"]


def write_catalog(book: Book, cat: CatalogRows) -> None:
    """Every catalog row the scenario used, with its source and date (values, for reference)."""
    ws = book.wb.get_worksheet_by_name(book.sheets["catalog"])
    t = book.t
    ws.set_column(0, 0, 40)
    ws.set_column(1, 8, 16)
    ws.set_column(9, 10, 60)
    ws.write_string(0, 0, t("sh_catalog"), book.fmt("title"))
    ws.write_string(1, 0, t("cat_reference"), book.fmt("bold_gen"))
    r = 2
    tables: tuple[tuple[str, list[str], Iterable[Mapping[str, Any]]], ...] = (
        (t("src_gpus"), GPU_COLUMNS, cat.gpus), (t("src_model"), MODEL_COLUMNS, [cat.model]),
        (t("cat_offers"), OFFER_COLUMNS, cat.offers), (t("src_egress"), EGRESS_COLUMNS, egress_tiers(cat.egress)),
        (t("src_taxes"), TAX_COLUMNS, tax_profiles(cat.taxes)), (t("src_storage"), STORAGE_COLUMNS, cat.storage),
        (t("src_files"), ["file"], [{"file": f} for f in cat.files]))
    for title, cols, rows in tables:
        r = _table(book, ws, r, title, cols, rows)
    ws.print_area(0, 0, r, 12)


def _table(book: Book, ws, r: int, title: str, cols: list[str], rows: Iterable[Mapping[str, Any]]) -> int:
    """A titled table from row `r`: the column heads, then one row per dict; returns the row after a blank one."""
    ws.write_string(r, 0, title, book.fmt("h2"))
    r += 1
    for c, k in enumerate(cols):
        ws.write_string(r, c, book.term("col", k), book.fmt("head"))
    r += 1
    for row in rows:
        for c, k in enumerate(cols):
            v = row.get(k)
            if k in TRANSLATED:  # an engine id with a label; catalog ids (offer, tables, GPUs) stay as listed
                ws.write_string(r, c, book.term(TRANSLATED[k], v))
            elif isinstance(v, bool) or v is None or isinstance(v, (str, dict, list, tuple)):
                ws.write_string(r, c, "" if v is None else str(v))
            else:
                ws.write_number(r, c, float(v), book.fmt("calc_gen"))
        r += 1
    return r + 1


def egress_tiers(tables: Iterable[Mapping[str, Any]]) -> list[dict]:
    """One row per tier of each egress table used."""
    return [{"egress_id": e["egress_id"], "tier_from_gb": lo, "tier_to_gb": hi, "usd_per_gb": p, "as_of": e["as_of"],
             "source": e["source"]} for e in tables for lo, hi, p in e["tiers"]]


def tax_profiles(profiles: Iterable[Mapping[str, Any]]) -> list[dict]:
    """One row per tax profile used, its rates spread into columns."""
    return [{"profile_id": x["profile_id"], "method": x["method"], **x["rates"],
             "pis_cofins_creditable": str(x["pis_cofins_creditable"]), "as_of": x["as_of"], "source": x["source"]}
            for x in profiles]
