"""tco.report.view_catalog: the catalog rows a run used, as the workbook's Catalog sheet and the JSON read them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tco.errors import InternalError
from tco.report.view_catalog import catalog_rows, plain


def test_plain_values_by_hand():
    assert plain({"a": (np.float64(1.5), np.int64(2)), 3: np.array([True])}) == {"a": [1.5, 2], "3": [True]}
    assert type(plain(np.float64(2.0))) is float and type(plain(np.int64(2))) is int


def test_plain_refuses_a_non_finite_number_naming_its_path():
    with pytest.raises(InternalError, match=r"x\.rows\[1\] is nan"):
        plain({"rows": [1.0, math.nan]}, "x")


def test_the_seed_rows(seed_results):
    rows = catalog_rows(seed_results)
    offers = [(r["offer"], r["pricing"]) for r in rows.offers]
    used = {(f.offer_id, f.pricing) for o in seed_results.options
            for f in (o.resolved.inference, o.resolved.training) if f}
    assert sorted(set(offers)) == sorted(used) and len(offers) == len(used)  # each offer and pricing once
    assert [g["gpu"] for g in rows.gpus] == sorted({g["gpu"] for g in rows.gpus})
    assert rows.model["model"] == seed_results.model.model and rows.model["precision"] == \
        seed_results.scenario.model.precision
    assert all(f.startswith("tco/catalog/data/") for f in rows.files)  # shipped files by package path
    assert rows.as_dict()["model"] == {"source": seed_results.model.source, "as_of": seed_results.model.as_of}


def test_with_sources_cleans_every_source_and_drops_the_files(seed_results):
    rows = catalog_rows(seed_results)
    seen = []

    def clean(text: str, own: bool) -> str:
        seen.append(own)
        return "own" if own else "clean"

    out = rows.with_sources(clean)
    assert out.files == () and out.model == rows.model
    assert {r["source"] for r in out.offers} <= {"own", "clean"}
    assert all(r["source"] == ("own" if r["kind"] == "dedicated" else "clean") for r in out.offers)
    assert all(r["source"] == "clean" for r in out.gpus + out.storage + out.egress + out.taxes)
    assert True in seen and rows.files  # the rows given are untouched
