"""One case of a sweep: the base scenario with the axes' values written into it, run through ``tco.api``, and
the rows it leaves in the table (one per option; one with the error for a case that failed).

The base travels to each worker once (``Base``: the scenario file's TOML with its relative paths made absolute,
the catalog it runs against, the axes' key paths). A case is that TOML with its values set at their keys,
validated by the scenario schema and run by ``tco.api.run`` without the analysis and the plan search, so its
numbers are those of ``tco run`` on the case's own scenario file (``case_toml`` writes it) to the last bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tco.domain import LINES

PATH_KEYS = (("scenario", "catalog_dir"), ("fx", "history_csv"), ("inference", "calibration"), ("proposal", "brand"))
"""Keys naming a file relative to the scenario file (made absolute in the base, as ``tco.scenario.load`` reads them)."""


@dataclass(frozen=True)
class Base:
    """What every case shares: sent to each worker once."""

    data: dict
    """The base scenario's TOML as parsed, file paths made absolute."""
    catalog: object
    """The tco.catalog.Catalog the base loaded (the shipped one overlaid by its catalog_dir)."""
    path: str
    """The base scenario's file (named in a case's errors)."""
    parts: tuple[tuple, ...]
    """Each axis's key path into `data` (an option's index resolved), in axis order."""
    columns: tuple[str, ...]
    """Each axis's column name in the table."""
    keep: tuple[str, ...]


def absolute_paths(data: dict, folder: Path) -> dict:
    """`data` with the file keys of PATH_KEYS resolved against `folder` (the base scenario's folder)."""
    out = dict(data)
    for section, key in PATH_KEYS:
        value = out.get(section, {}).get(key) if isinstance(out.get(section), dict) else None
        if isinstance(value, str) and value and not Path(value).is_absolute():
            out[section] = {**out[section], key: str((folder / value).resolve())}
    return out


def set_in(data, parts: tuple, value):
    """A copy of `data` with `value` at key path `parts` (tables on the way copied, missing ones created);
    `data` itself is never changed."""
    head, rest = parts[0], parts[1:]
    if isinstance(data, list):
        out_list = list(data)
        out_list[head] = set_in(data[head], rest, value) if rest else value
        return out_list
    out = dict(data)
    out[head] = set_in(data.get(head, {}), rest, value) if rest else value
    return out


def case_data(base: Base, values: tuple) -> dict:
    """The case's scenario TOML (as a dict): the base with each axis value at its key; a relative file name an axis
    gives (`inference.calibration = "cal.toml"`) read, as the base's own, from the base scenario's folder (it was
    read from the folder the sweep ran in, so the base's own value failed there, or named another file)."""
    data = base.data
    for parts, v in zip(base.parts, values):
        data = set_in(data, parts, v)
    return absolute_paths(data, Path(base.path).parent) if base.path else data


def case_toml(base: Base, values: tuple) -> str:
    """The case's scenario file, for ``tco run`` (file paths absolute, so it runs from any folder)."""
    import tomli_w

    return tomli_w.dumps(case_data(base, values))


def row_columns(base: Base) -> list[str]:
    """The table's columns, in order, for what `base.keep` asks."""
    cols = ["case", *base.columns, "option", "kind", "feasible", "rank", "leader"]
    if "tco" in base.keep:
        cols += ["tco_brl", "tco_mean_brl", "tco_p5_brl", "tco_p50_brl", "tco_p95_brl", "probability_cheapest"]
    if "npv" in base.keep:
        cols += ["npv_brl", "npv_mean_brl", "npv_p5_brl", "npv_p50_brl", "npv_p95_brl"]
    if "lines" in base.keep:
        cols += [f"{line}_brl" for line in LINES]
    if "fleet" in base.keep:
        cols += ["fleet", "inference_offer", "training_offer", "peak_inference_servers", "peak_inference_gpus",
                 "peak_training_servers"]
    if "breakevens" in base.keep:
        cols += ["breakeven_usdbrl", "breakeven_versus", "payback_month", "users_scale", "users_challenger"]
    return cols + ["error"]


def _option_row(o, rank: int | None, leader: str | None) -> dict:
    import numpy as np

    c, r = o.costs, o.resolved
    tco, npv = o.tco.as_dict(), o.npv.as_dict()
    return {
        "option": o.name, "kind": str(o.kind), "feasible": o.feasible, "rank": rank, "leader": o.name == leader,
        "tco_brl": tco["deterministic"], "tco_mean_brl": tco["mean"], "tco_p5_brl": tco["p5"],
        "tco_p50_brl": tco["p50"], "tco_p95_brl": tco["p95"],
        "probability_cheapest": None if o.prob_cheapest is None else float(o.prob_cheapest),
        "npv_brl": npv["deterministic"], "npv_mean_brl": npv["mean"], "npv_p5_brl": npv["p5"],
        "npv_p50_brl": npv["p50"], "npv_p95_brl": npv["p95"],
        **{f"{line}_brl": float(v.sum()) for line, v in o.lines_brl.items()},
        "fleet": str(r.fleet), "inference_offer": r.inference.offer_id,
        "training_offer": r.training.offer_id if r.training is not None else None,
        "peak_inference_servers": float(np.max(c.inference_servers)),
        "peak_inference_gpus": float(np.max(c.inference_servers)) * r.inference.gpus_per_server,
        "peak_training_servers": float(np.max(c.training_servers)),
    }


def _breakevens(res) -> tuple[dict, dict]:
    """Per option (breakeven_usdbrl, breakeven_versus, payback_month) and the case's users break-even, by the
    functions ``tco.analysis.enrich`` calls."""
    from tco.analysis import fx_breakevens, paybacks, users_breakeven

    per: dict = {}
    for b in fx_breakevens(res):
        per.setdefault(b.option, {}).update(breakeven_usdbrl=b.usdbrl, breakeven_versus=b.versus)
    for p in paybacks(res):
        per.setdefault(p.option, {}).update(payback_month=p.payback_month)
    users = users_breakeven(res)
    return per, {"users_scale": users.users_scale if users else None,
                 "users_challenger": users.challenger if users else None}


def rows_of(res, base: Base) -> list[dict]:
    """One row per option of a case's results (only the columns `base.keep` asks for)."""
    from tco.engine import rankable

    ranking = [o.name for o in sorted(rankable(res.options), key=lambda o: o.tco.deterministic)]
    leader = ranking[0] if ranking else None
    per, users = _breakevens(res) if "breakevens" in base.keep else ({}, {})
    rows = []
    for o in res.options:
        rank = ranking.index(o.name) + 1 if o.name in ranking else None
        rows.append({**_option_row(o, rank, leader), **per.get(o.name, {}), **users})
    return rows


def _error_text(exc: Exception) -> str:
    from pydantic import ValidationError

    from tco.errors import InputError

    if isinstance(exc, ValidationError):
        from tco.scenario import Scenario
        from tco.scenario.messages import problems_from

        return "; ".join(f"[{p.key}] {p.message}" for p in problems_from(exc, "", {}, Scenario))
    if isinstance(exc, InputError):
        return "; ".join(f"[{p.key}] {p.message}" if p.key else p.message for p in exc.problems)
    return f"{type(exc).__name__}: {exc}"


def run_case(base: Base, index: int, values: tuple) -> list[dict]:
    """The case's rows: one per option, or one carrying the error (never raises for a case's own failure)."""
    from tco import api
    from tco.scenario import Scenario

    cols = row_columns(base)
    head = {"case": index, **dict(zip(base.columns, values))}
    try:
        scenario = Scenario.model_validate(case_data(base, values))
        inp = api.Inputs(scenario, base.catalog, base.path, "", {})  # type: ignore[arg-type]
        rows = rows_of(api.run(inp, analysis=False, plans=False), base)
        error = None
    except Exception as exc:  # noqa: BLE001  (a case that fails is a row with its error, not a crashed sweep)
        rows, error = [{}], _error_text(exc)
    return [{c: {**head, **r, "error": error}.get(c) for c in cols} for r in rows]


def run_batch(base: Base, batch: list[tuple[int, tuple]]) -> list[dict]:
    """The rows of a batch of (case index, values), in order (the unit of work a worker is sent)."""
    return [row for index, values in batch for row in run_case(base, index, values)]
