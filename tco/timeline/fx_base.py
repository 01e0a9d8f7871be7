"""The USD/BRL base paths' data and rules of choice: which path a scenario uses, its checks, the Focus survey file
read and interpolated month by month, and what the outputs say about it (tco.fx.history re-exports them). The choice of
path and the cross-key checks are the schema's (``tco.scenario.options``: no data read there); this module reads the
survey file, so the Focus edition's presence is checked here and reported by ``tco.resolve``."""

from __future__ import annotations

import functools

import numpy as np

from tco.domain import FxBasePath
from tco.domain.run_info import BasePathInfo, FocusEdition
from tco.scenario.options import base_path, check_fx_keys  # noqa: F401  (the pure rules live in the schema)

BASE_LABELS = {FxBasePath.FOCUS: "Banco Central Focus survey median", FxBasePath.SPOT: "spot, flat",
               FxBasePath.FORWARD: "covered-interest-parity forward (cost of hedging, not a forecast)",
               FxBasePath.LIST: "monthly list given in the scenario"}
"""The base paths by name, as the JSON's ``fx.base_path_label`` states them."""
FOCUS_FILE = "usdbrl_focus.csv"


def check_base_path(fx) -> None:
    """The FX section's cross-key rules and the Focus edition's presence in the shipped survey file (ValueError)."""
    check_fx_keys(fx)
    if fx.focus_edition is not None:
        editions = sorted(focus_table())
        if fx.focus_edition not in editions:
            raise ValueError(f"focus_edition {fx.focus_edition!r} is not in tco/catalog/data/{FOCUS_FILE}; "
                             f"editions: {', '.join(editions)}")


def focus_problems(fx, file: str, line) -> list:
    """The data look-up the schema does not do: a Focus edition the shipped survey file lacks, as a located problem
    (``line(section, key)`` gives the file's line; tco.resolve reports it with every other problem)."""
    from tco.errors import Problem

    try:
        check_base_path(fx)
    except ValueError as e:
        return [Problem(file, "fx.focus_edition", str(e), line("fx", "focus_edition"))]
    return []


def focus_notices(fx, start: str, horizon: int) -> list:
    """A horizon past the survey's last year-end: the last median holds (a notice; the run goes on)."""
    from tco.domain import Notice

    focus = describe_base(fx, start, horizon).focus
    if focus is not None and focus.held_from:
        return [Notice("fx_focus_held", None, {"edition": focus.edition, "year": focus.held_from[:4]})]
    return []


@functools.lru_cache(maxsize=1)
def focus_table() -> dict[str, dict]:
    """The shipped Focus file by edition: {'YYYY-MM': {'rates': {year: BRL/USD}, 'as_of': date, 'source': text,
    'status': the weakest row status}}. Read once per process (a `validate` asks eight times); read-only."""
    import csv

    from tco.catalog import DATA_DIR

    out: dict[str, dict] = {}
    with open(DATA_DIR / FOCUS_FILE, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            e = out.setdefault(row["edition"], {"rates": {}, "as_of": row["as_of"], "sources": [], "status": "listed"})
            e["rates"][int(row["year_end"])] = float(row["usdbrl"])
            e["as_of"] = max(e["as_of"], row["as_of"])
            if row["source"] not in e["sources"]:
                e["sources"].append(row["source"])
            if row["status"] != "listed":
                e["status"] = row["status"]
    return out


def month_index(month: str) -> int:
    """'YYYY-MM' as a month count (year·12 + month − 1)."""
    return int(month[:4]) * 12 + int(month[5:7]) - 1


def focus_weights(rates: dict[int, float], start: str, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """The Focus path as S·w_t + b_t for months t = 1..H: w_t the weight of the spot S, b_t the survey's part
    [BRL/USD]. Each year-end figure is the survey's median of December's average rate, so it sits on December
    of its year; month 0 (the month before ``start``) is the spot. Months between two points are interpolated
    linearly, after the last point the last figure holds; year-ends at or before month 0 are not used (the spot
    is newer). Interpolation is linear in the points, so w = interp(1, 0, 0, …) and b = interp(0, F₁, F₂, …)."""
    m0 = month_index(start) - 1
    years = [y for y in sorted(rates) if y * 12 + 11 > m0]
    xs = [float(m0)] + [float(y * 12 + 11) for y in years]
    months = m0 + np.arange(1, horizon + 1, dtype=float)
    w = np.interp(months, xs, [1.0] + [0.0] * len(years))
    b = np.interp(months, xs, [0.0] + [rates[y] for y in years])
    return w, b


def focus_monthly(rates: dict[int, float], spot: float, start: str, horizon: int) -> np.ndarray:
    """USD/BRL for months t = 1..H on the Focus path [BRL/USD]: S·w_t + b_t (``focus_weights``)."""
    w, b = focus_weights(rates, start, horizon)
    return spot * w + b


def focus_edition(fx) -> str:
    return fx.focus_edition or max(focus_table())


def list_inputs(fx, start: str, horizon: int) -> dict[str, list[float] | None]:
    """The list inputs of the base-path rule: ``fx_list`` (list: the user's values), ``fx_w`` and ``fx_b``
    (focus: the spot's weight and the survey's part of each month); None where the path reads none."""
    base = base_path(fx)
    out: dict[str, list[float] | None] = {"fx_list": None, "fx_w": None, "fx_b": None}
    if base == FxBasePath.LIST:
        out["fx_list"] = [float(v) for v in fx.path]
    elif base == FxBasePath.FOCUS:
        w, b = focus_weights(focus_table()[focus_edition(fx)]["rates"], start, horizon)
        out |= {"fx_w": [float(v) for v in w], "fx_b": [float(v) for v in b]}
    return out


def describe_base(fx, start: str, horizon: int) -> BasePathInfo:
    """What the outputs say about the base path: its name, label and source (the Focus edition, its date and
    status; how far its last year-end reaches)."""
    base = base_path(fx)
    if base == FxBasePath.FOCUS:
        ed = focus_edition(fx)
        e = focus_table()[ed]
        last = max(e["rates"])
        focus = FocusEdition(edition=ed, as_of=e["as_of"], status=e["status"],
                             year_ends={str(y): v for y, v in sorted(e["rates"].items())},
                             held_from=f"{last}-12" if month_index(start) + horizon - 1 > last * 12 + 11 else None)
        return BasePathInfo(path=base.value, label=BASE_LABELS[base], focus=focus,
                            source=f"tco/catalog/data/{FOCUS_FILE}, edition {ed} (as of {e['as_of']}): "
                                   + "; ".join(e["sources"]))
    if base == FxBasePath.FORWARD:
        source = (f"S·((1 + {fx.brl_rate:g})/(1 + {fx.usd_rate:g}))^(t/12): "
                  "fx.brl_rate and fx.usd_rate (covered interest parity; B3, "
                  "'Futuro de Cupom Cambial de DI1' product page)")
    elif base == FxBasePath.LIST:
        source = f"fx.path ({len(fx.path)} monthly values; the last holds)"
    else:
        source = "fx.usdbrl"
    return BasePathInfo(path=base.value, label=BASE_LABELS[base], source=source)
