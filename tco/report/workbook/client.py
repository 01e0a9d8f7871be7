"""The client's copy of the workbook: the live model without what is the seller's.

    write(res, doc, path)   the workbook the PDF attaches for the client (the seller's full one is <stem>.xlsx)

Left out of the client's copy (review 2026-12-proposal H4): the engine's notices (the seller's, in notes.txt), the
plan search (it can show a plan cheaper than the offer), internal file references in the sources (review and
reference notes, catalog file paths) and how the provider's own price is built (its landed-cost derivation): the
client reads "the provider's price" with its status. Every formula, input and check stays: the client can still
trace and recalculate the offer.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from pathlib import Path

INTERNAL = re.compile(r"\(?[^;()]*(?:shared/(?:reviews|reference)/|tco/catalog/data/|/work/|brazil_fx_tax\.md|"
                      r"cloud_prices_specs\.md|prices-and-taxes\.md|review §|\.csv\b)[^;()]*\)?;?\s*")
"""A clause naming an internal file: a review or reference note, a catalog data file, a working folder."""


def clean_source(text: str, own: bool = False) -> str:
    """A source as the client reads it: the provider's own price as such (never its derivation), a stand-in named as
    one, every clause naming an internal file removed."""
    if own:
        return "Preço do provedor desta proposta / the provider's price in this proposal"
    if text.startswith("STAND-IN"):
        return "Preço substituto: nenhum preço público encontrado / stand-in: no public price found"
    out = INTERNAL.sub("", text).strip(" ;,")
    return out or "—"


def client_doc(doc: dict) -> dict:
    """The JSON document without the plan search, the notices and internal references, and with the provider's own
    prices named as such."""
    out = copy.deepcopy(doc)
    for key in ("plans", "notices", "warnings"):
        out.pop(key, None)
    rows = out.get("catalog_rows") or {}
    rows["files"] = []  # the catalog's file paths and hashes are the seller's
    for group, items in rows.items():
        if not isinstance(items, list):
            continue
        for r in items:
            if isinstance(r, dict) and "source" in r:
                own = r.get("kind") == "dedicated"
                r["source"] = clean_source(str(r["source"]), own)
                for k in ("derivation", "note"):
                    if k in r:
                        r[k] = "" if own else clean_source(str(r[k]))
    if "base_path_source" in (out.get("fx") or {}):
        out["fx"]["base_path_source"] = clean_source(str(out["fx"]["base_path_source"]))
    for o in out.get("options") or []:
        st = o.get("storage") or {}
        if "source" in st:
            st["source"] = clean_source(str(st["source"]))
    return out


def client_results(res):
    """The results without the engine's notices and the plan search (the client's copy shows neither)."""
    meta = {k: v for k, v in (res.meta or {}).items() if k != "plans"}
    fx = dict(res.fx_info or {})
    if "base_path_source" in fx:
        fx["base_path_source"] = clean_source(re.sub(r"^tco/catalog/data/\S+,\s*", "", str(fx["base_path_source"])))
    return replace(res, notices=[], meta=meta, fx_info=fx)


def write(res, doc: dict, path: Path) -> None:
    """The client's workbook of `res` and its JSON document `doc` at `path`."""
    from tco.report import workbook

    workbook.write(client_results(res), client_doc(doc), path)
