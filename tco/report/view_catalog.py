"""The catalog rows a run used, as the renderers read them: the workbook's Catalog sheet and the JSON's
``catalog_rows``, ``model`` and each option's ``storage`` come from one ``CatalogRows`` (``tco.report.view``).

Each row is the catalog's record as plain values (``plain``: lists, floats, ints, strings), so a cell shows
what the JSON holds, and the client's copy of the workbook can name sources its own way (``with_sources``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Mapping

import numpy as np

from tco.errors import InternalError

Row = Mapping[str, Any]


def plain(x, path: str = ""):
    """Plain JSON values. A non-finite number is refused (InternalError naming its key path): the
    schema and the catalog admit only finite inputs, so NaN or infinity here is a bug, and a `null`
    TCO must never reach automation with exit 0."""
    if isinstance(x, dict):
        return {str(k): plain(v, f"{path}.{k}" if path else str(k)) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v, f"{path}[{i}]") for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return plain(x.tolist(), path)
    if isinstance(x, (np.floating, float)):
        v = float(x)
        if math.isnan(v) or math.isinf(v):
            raise InternalError(f"the result {path} is {v} (not a finite number); nothing was written")
        return v
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    return x


@dataclass(frozen=True, kw_only=True)
class CatalogRows:
    """Every catalog row the run used, with its source and date."""

    gpus: tuple[Row, ...]
    model: Row
    """The model's catalog record, with the precisions the scenario serves it at."""
    offers: tuple[Row, ...]
    """Each offer a fleet used, once (training and serving fleets), sorted."""
    egress: tuple[Row, ...]
    taxes: tuple[Row, ...]
    tax_reform: tuple[Row, ...]
    files: tuple[str, ...]
    """The catalog files read, named without machine-specific folders."""
    storage: tuple[Row, ...]
    """Per option, in the scenario's order: option, id, usd_per_gb_month, source."""

    def as_dict(self) -> dict:
        """The JSON's ``catalog_rows``."""
        return {"gpus": list(self.gpus), "model": {"source": self.model["source"], "as_of": self.model["as_of"]},
                "offers": list(self.offers), "egress": list(self.egress), "taxes": list(self.taxes),
                "tax_reform": list(self.tax_reform), "files": list(self.files)}

    def with_sources(self, clean: Callable[[str, bool], str]) -> CatalogRows:
        """The rows with each source (and derivation or note) passed through `clean(text, own)` (own: a dedicated
        offer, the provider's own price: its derivation and note blanked) and no file names; the model's row as
        it is."""
        def one(r: Row) -> Row:
            if "source" not in r:
                return r
            own = r.get("kind") == "dedicated"
            out = dict(r, source=clean(str(r["source"]), own))
            for k in ("derivation", "note"):
                if k in r:
                    out[k] = "" if own else clean(str(r[k]), False)
            return out

        return replace(self, gpus=tuple(map(one, self.gpus)), offers=tuple(map(one, self.offers)),
                       egress=tuple(map(one, self.egress)), taxes=tuple(map(one, self.taxes)),
                       tax_reform=tuple(map(one, self.tax_reform)), files=(),
                       storage=tuple(dict(r, source=clean(str(r["source"]), False)) for r in self.storage))


def fleet_row(f) -> dict | None:
    """A fleet's offer as a catalog row (None for no fleet)."""
    if f is None:
        return None
    return {"offer": f.offer_id, "kind": f.kind, "gpu": f.gpu.gpu, "gpus_per_server": f.gpus_per_server,
            "price": f.price, "price_unit": f.price_unit, "currency": f.currency, "pricing": f.pricing,
            "setup_fee_brl": f.setup_fee_brl, "min_term_months": f.min_term_months, "status": f.price_status,
            "source": f.price_source, "as_of": f.price_as_of}


def storage_row(o) -> dict:
    """An option's storage price and its source (the JSON option's ``storage``)."""
    r = o.resolved
    return {"id": r.storage_id, "usd_per_gb_month": r.storage_usd_per_gb_month, "source": r.storage_source}


def catalog_file(path: str, catalog_dir: str | None) -> str:
    """Catalog file named without machine-specific folders: the shipped ones by package path, a
    scenario's own by its catalog_dir (as written in the scenario)."""
    from pathlib import Path

    from tco.catalog import DATA_DIR

    p = Path(path)
    if p.parent.resolve() == DATA_DIR.resolve():
        return f"tco/catalog/data/{p.name}"
    return f"{catalog_dir}/{p.name}" if catalog_dir else p.name


def catalog_rows(res) -> CatalogRows:
    """The catalog rows `res` (an ``engine.Results``) used: GPUs, model, offers, egress, taxes, reform periods,
    files, and each option's storage."""
    s, cat = res.scenario, res.catalog
    used_gpus = sorted({o.resolved.inference.gpu.gpu for o in res.options}
                       | {o.resolved.training.gpu.gpu for o in res.options if o.resolved.training})
    offers = sorted({json.dumps(fleet_row(f), sort_keys=True) for o in res.options
                     for f in (o.resolved.inference, o.resolved.training) if f is not None})
    rows = plain({
        "gpus": [asdict(cat.gpus[g]) for g in used_gpus],
        "model": asdict(res.model) | {"precision": s.model.precision, "kv_precision": s.model.kv_precision},
        "egress": [asdict(t) for t in sorted({o.resolved.egress.egress_id: o.resolved.egress
                                             for o in res.options}.values(), key=lambda t: t.egress_id)],
        "taxes": [asdict(t) for t in sorted({t.profile_id: t for o in res.options
                                            for t in (o.resolved.tax, o.resolved.brl_tax) if t is not None
                                            }.values(), key=lambda t: t.profile_id)],
        "tax_reform": [asdict(p) for p in sorted({p.period_id: p for o in res.options
                                                 for p in o.resolved.tax_periods}.values(), key=lambda p: p.start)],
        "files": [catalog_file(f, s.scenario.catalog_dir) for f in cat.files],
        "storage": [{"option": o.name, **storage_row(o)} for o in res.options],
    }, "catalog_rows")
    return CatalogRows(gpus=tuple(rows["gpus"]), model=rows["model"],
                       offers=tuple(plain([json.loads(x) for x in offers])), egress=tuple(rows["egress"]),
                       taxes=tuple(rows["taxes"]), tax_reform=tuple(rows["tax_reform"]), files=tuple(rows["files"]),
                       storage=tuple(rows["storage"]))
