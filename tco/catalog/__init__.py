"""The catalog: GPU specs, model architectures, offers, egress, storage and tax profiles.

Every row comes from a dated, sourced data file in ``tco/catalog/data/`` (see its README). A
scenario may point to a folder of its own with files of the same names: their rows add to, or
replace (same id), the shipped rows. Loaders check types and report every bad row at once.

Layout: ``types.py`` the row types and the Catalog; ``rows.py`` the CSV reader; ``specs.py`` GPUs,
models and networks; ``offers.py`` prices, egress and storage; ``toml_data.py`` taxes, defaults and
the serving calibration; this module merges the shipped and the user's files.
"""

from __future__ import annotations

from pathlib import Path

from tco.catalog.offers import load_cloud, load_dedicated, load_egress, load_providers, load_storage, with_billing
from tco.catalog.specs import load_gpus, load_interconnect, load_models
from tco.catalog.toml_data import load_calibration, load_defaults, load_taxes
from tco.catalog.types import (  # noqa: F401  (the public names of tco.catalog)
    BR_BILLING, DATA_DIR, MAX_BRL_PER_MONTH, MAX_USD_PER_HOUR, STATUS_ALIASES, STATUSES, Billing, Catalog, CloudOffer,
    CloudPrice, DedicatedOffer, EgressTable, Gpu, Interconnect, ModelArch, Provider, StoragePrice, TaxProfile,
)
from tco.errors import InputError, Problem


def _merge_files(name: str, extra_dir: Path | None) -> list[Path]:
    paths = [DATA_DIR / name]
    if extra_dir is not None and (extra_dir / name).exists():
        paths.append(extra_dir / name)
    return paths



CATALOG_FILES = ("gpus.csv", "models.csv", "cloud_offers.csv", "dedicated_offers.csv", "egress_tiers.csv",
                 "storage.csv", "tax_profiles.toml", "defaults.toml", "interconnect.csv", "calibration_default.toml",
                 "providers.csv", "dedicated_landed.csv", "usdbrl_focus.csv")



def load_catalog(extra_dir: str | Path | None = None, named_at: tuple[str, int | None] | None = None) -> Catalog:
    """Load the shipped catalog, overlaid by the files found in ``extra_dir`` (if any). `named_at`: the scenario file
    and line that name the folder (its ``catalog_dir``), where a folder that is missing is reported."""
    extra = Path(extra_dir) if extra_dir else None
    if extra is not None and not extra.is_dir():
        why = "is not a folder" if extra.exists() else "not found"
        file, line = named_at or (str(extra), None)
        shown = f" {str(extra)!r}" if named_at else ""
        raise InputError([Problem(file, "scenario.catalog_dir", f"catalog folder{shown} {why}", line)])
    problems: list[Problem] = []
    providers = load_providers(_merge_files("providers.csv", extra), problems)
    taxes, reform, billing = load_taxes(_merge_files("tax_profiles.toml", extra), problems)
    empty_dir = str(extra) if extra is not None and not any((extra / name).is_file() for name in CATALOG_FILES) else ""
    cat = Catalog(
        gpus=load_gpus(_merge_files("gpus.csv", extra), problems),
        models=load_models(_merge_files("models.csv", extra), problems),
        cloud_offers=with_billing(load_cloud(_merge_files("cloud_offers.csv", extra), problems), providers),
        dedicated_offers=with_billing(load_dedicated(_merge_files("dedicated_offers.csv", extra), problems), providers),
        egress=load_egress(_merge_files("egress_tiers.csv", extra), problems),
        storage=load_storage(_merge_files("storage.csv", extra), problems),
        taxes=taxes,
        defaults=load_defaults(_merge_files("defaults.toml", extra), problems),
        interconnect=load_interconnect(_merge_files("interconnect.csv", extra), problems),
        calibration=load_calibration(_merge_files("calibration_default.toml", extra), problems),
        files=tuple(str(p) for name in ("gpus.csv", "models.csv", "cloud_offers.csv", "dedicated_offers.csv",
                                         "egress_tiers.csv", "storage.csv", "tax_profiles.toml", "defaults.toml",
                                         "interconnect.csv", "calibration_default.toml", "providers.csv")
                    for p in _merge_files(name, extra)),
        providers=providers,
        tax_reform=reform,
        billing=billing,
        empty_dir=empty_dir,
    )
    if problems:
        raise InputError(problems)
    return cat
