"""The owned-hardware catalog (``tco/catalog/data/owned.csv``): the defaults of ``[options.owned]`` with unit, status,
source and date (depreciation life, income-tax rate, resale, PUE, tariff, colocation, cross-connects, upkeep) and the
financing lines (``financing.<line>.rate|months|grace_months``). The server price and the import taxes come from the
landed-cost catalog (``tco.catalog.landed``)."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "owned.csv"


@dataclass(frozen=True)
class Figure:
    """One figure of owned.csv."""

    value: float
    unit: str
    status: str
    source: str
    as_of: str


@functools.lru_cache(maxsize=4)
def load_owned(path: Path | str = DATA) -> dict[str, Figure]:
    """key → Figure, as owned.csv lists them."""
    with Path(path).open(newline="", encoding="utf-8") as fh:
        return {row["key"]: Figure(float(row["value"]), row["unit"], row["status"], row["source"], row["as_of"])
                for row in csv.DictReader(fh)}


def financing_lines(figures: dict[str, Figure]) -> list[str]:
    """The financing lines the catalog lists ('bndes_finame', …), in file order."""
    return list(dict.fromkeys(k.split(".")[1] for k in figures if k.startswith("financing.")))
