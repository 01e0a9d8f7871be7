"""The client's copy of the workbook: the live model without what is the seller's.

    write(res, v, path)     the workbook the PDF attaches for the client (the seller's full one is <stem>.xlsx)

Left out of the client's copy (review 2026-12-proposal H4): the engine's notices (the seller's, in notes.txt), the
plan search (it can show a plan cheaper than the offer), internal file references in the sources (review and
reference notes, catalog file paths) and how the provider's own price is built (its landed-cost derivation): the
client reads "the provider's price" with its status. Every formula, input and check stays: the client can still
trace and recalculate the offer.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tco.report.view import View
    from tco.results import Results

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


def client_view(v: View) -> View:
    """The view without the plan search and the notices, the sources without internal references, and the
    provider's own prices named as such (the model's row as it is)."""
    return replace(v, notices=(), plans=(), catalog=v.catalog.with_sources(clean_source),
                   analysis=replace(v.analysis, plans=None))


def client_results(res: Results) -> Results:
    """The results without the engine's notices and the plan search (the client's copy shows neither)."""
    fx = res.fx_info
    if fx is not None:
        source = clean_source(re.sub(r"^tco/catalog/data/\S+,\s*", "", fx.base.source))
        fx = replace(fx, base=replace(fx.base, source=source))
    return replace(res, notices=(), analysis=replace(res.analysis, plans=None), fx_info=fx)


def write(res: Results, v: View, path: Path) -> None:
    """The client's workbook of `res` and its view `v` at `path`."""
    from tco.report import workbook

    workbook.write(client_results(res), client_view(v), path)
