"""What changed between two scenarios or two results (``python -m tco diff A B``): the inputs key by key (with
their units), each option's TCO and its cost lines, the ranking and the recommendation (the cheapest option).

A side is a scenario file (run by ``tco.api`` without the analysis and the plan search: the deterministic TCO
and the Monte Carlo as the scenario asks) or a JSON result of ``tco run``. Two scenario files are compared by
the keys their files set (an option by its name: ``options[<name>].pricing``); when a side is a JSON result,
both are compared by the inputs the JSON records (``assumptions`` and each option's offers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tco.errors import InputError, Problem

UNIT_SUFFIXES = (("_brl", "BRL"), ("_usd", "USD"), ("_usd_per_hour", "USD/h"), ("_brl_per_month", "BRL/month"),
                 ("_months", "months"), ("_month", "month"), ("_days", "days"), ("_gb", "GB"), ("_kb_per_request",
                 "kB/request"), ("_rate", "fraction/year"), ("_share", "fraction"), ("_per_day", "per day"),
                 ("_per_request", "per request"), ("_per_user", "per user"), ("_per_month", "per month"),
                 ("_users", "users"), ("tokens", "tokens"), ("_tbs", "TB/s"))
UNITS = {"usdbrl": "BRL/USD", "volatility": "fraction/year", "price": "in the offer's unit", "paths": "paths"}
MAX_RESULT_BYTES = 200_000_000


@dataclass(frozen=True)
class Side:
    path: str
    kind: str
    """'scenario' or 'result'."""
    doc: dict
    """The run's JSON document (``tco.report.json_out.build``)."""
    raw: dict | None
    """A scenario file's TOML as parsed (None for a result)."""


def unit_of(key: str) -> str:
    """The unit a key's name carries (``horizon_months`` → months); '' when the name says none.

    >>> unit_of("options[AWS].min_term_months"), unit_of("fx.usdbrl")
    ('months', 'BRL/USD')
    """
    last = key.rsplit(".", 1)[-1]
    if last in UNITS:
        return UNITS[last]
    hits = [unit for suffix, unit in UNIT_SUFFIXES if last.endswith(suffix)]
    return max(hits, key=len) if hits else ""


def load_side(path: str) -> Side:
    """A scenario file (run) or a JSON result (read). Raises InputError."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        from tco.scenario import read_limited

        try:
            doc = json.loads(read_limited(p, MAX_RESULT_BYTES, "result file"), parse_constant=_no_constant)
        except RecursionError:
            raise InputError([Problem(path, "", "not a JSON result of tco run: nested too deeply")]) from None
        except ValueError as exc:
            raise InputError([Problem(path, "", f"not a JSON result of tco run: {exc}")]) from None
        if not isinstance(doc, dict) or not isinstance(doc.get("options"), list) or "tool" not in doc:
            raise InputError([Problem(path, "", "not a JSON result of tco run (no tool and options keys)")])
        bad = shape_problem(doc)
        if bad is not None:
            raise InputError([Problem(path, bad[0], f"not a JSON result of tco run: {bad[1]}")])
        return Side(path, "result", doc, None)
    from tco import api
    from tco.report.json_out import build
    from tco.scenario import read_limited
    from tco.scenario.toml import loads

    inputs = api.load(p)
    res = api.run(inputs, analysis=False, plans=False)
    raw = loads(read_limited(p, 1_000_000, "scenario file").decode("utf-8-sig"), path)
    return Side(path, "scenario", build(res, inputs.sha256, path), raw)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number tco writes")


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _control_text(doc) -> tuple[str, str] | None:
    """(key, what) for the first text in `doc` (a value or a key) holding a control character other than tab and
    newline, which tco never writes (the scenario schema refuses them), else None."""
    from tco.scenario.types import _CONTROL_TEXT

    stack: list[tuple[str, object]] = [("", doc)]
    while stack:
        where, v = stack.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            at = f"{where}[{k}]" if isinstance(k, int) else f"{where}.{k}" if where else str(k)
            if isinstance(k, str) and _CONTROL_TEXT.search(k) or isinstance(x, str) and _CONTROL_TEXT.search(x):
                return at, "it holds a control character (tco writes none)"
            stack.append((at, x))
    return None


def shape_problem(doc: dict) -> tuple[str, str] | None:
    """(key, what is wrong) when `doc` has not the shape of a result of ``tco run`` where diff and render read it
    (tables that are tables, names that are text, amounts that are numbers), else None."""
    for key in ("tool", "scenario", "assumptions"):
        if not isinstance(doc.get(key, {}), dict):
            return key, "not an object"
    bad = _control_text(doc)
    if bad is not None:  # shown on a terminal or in Markdown: an ESC or BEL would be sent as it is
        return bad
    if not isinstance(doc.get("ranking", []), list) or not all(isinstance(n, str) for n in doc.get("ranking", [])):
        return "ranking", "not a list of option names"
    if not isinstance(doc.get("cheapest"), (str, type(None))):
        return "cheapest", "not an option name"
    for i, o in enumerate(doc["options"]):
        if not isinstance(o, dict) or not isinstance(o.get("name"), str):
            return f"options[{i}]", "not an object with a name"
        for k in ("tco_brl", "npv_brl"):
            v = o.get(k)
            if not isinstance(v, dict) or not _number(v.get("deterministic")) or not all(
                    _number(v[q]) for q in ("p5", "p95") if v.get(q) is not None):
                return f"options[{i}].{k}", "not an object of amounts"
        lines = o.get("lines_brl", {})
        if not isinstance(lines, dict) or not all(_number(x) for x in lines.values()):
            return f"options[{i}].lines_brl", "not an object of amounts"
        for role in ("inference_offer", "training_offer"):
            if not isinstance(o.get(role) or {}, dict):
                return f"options[{i}].{role}", "not an object"
    return None


def flatten(data, prefix: str = "") -> dict[str, object]:
    """Dotted key → value; a list of tables with names (the options) keyed by name, other lists kept whole."""
    out: dict[str, object] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(data, list) and data and all(isinstance(x, dict) and "name" in x for x in data):
        for x in data:
            out.update(flatten({k: v for k, v in x.items() if k != "name"}, f"{prefix}[{x['name']}]"))
    else:
        out[prefix] = data
    return out


def recorded_inputs(doc: dict) -> dict[str, object]:
    """The inputs a JSON result records: the scenario's identity, [fx], [training], [inference], each option's
    kind, fleet and offers."""
    a = doc.get("assumptions", {})
    sc = {k: v for k, v in doc.get("scenario", {}).items() if k not in ("file", "sha256")}
    opts = []
    for o in doc.get("options", []):
        entry = {"name": o.get("name"), "kind": o.get("kind"), "fleet": o.get("fleet"), "autoscale": o.get("autoscale")}
        for role in ("inference_offer", "training_offer"):
            f = o.get(role) or {}
            entry[role] = {k: f.get(k) for k in ("offer", "pricing", "price", "price_unit", "currency",
                                                 "min_term_months", "setup_fee_brl")}
        opts.append(entry)
    return flatten({"scenario": sc, "fx": a.get("fx", {}), "training": a.get("training", {}),
                    "inference": a.get("inference", {}), "options": opts})


def _version(side: Side) -> str:
    from tco import __version__

    return str(side.doc.get("tool", {}).get("version")) if side.kind == "result" else __version__


def input_changes(a: Side, b: Side) -> list[dict]:
    """Every key whose value differs (added or removed keys too), sorted by key."""
    if a.raw is not None and b.raw is not None:
        fa, fb = flatten(a.raw), flatten(b.raw)
    else:
        fa, fb = recorded_inputs(a.doc), recorded_inputs(b.doc)
    missing = object()
    out = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key, missing), fb.get(key, missing)
        if va != vb:
            row = {"key": key, "a": None if va is missing else va, "b": None if vb is missing else vb,
                   "unit": unit_of(key)}
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and not isinstance(va, bool) and va:
                row["change_share"] = (vb - va) / abs(va)
            out.append(row)
    return out


def option_changes(a: dict, b: dict) -> list[dict]:
    """Each option's deterministic TCO on both sides, the difference, its rank, and the cost lines that moved."""
    by_a = {o["name"]: o for o in a.get("options", [])}
    by_b = {o["name"]: o for o in b.get("options", [])}
    rank_a = {n: i + 1 for i, n in enumerate(a.get("ranking", []))}
    rank_b = {n: i + 1 for i, n in enumerate(b.get("ranking", []))}
    out = []
    for name in [*by_a, *(n for n in by_b if n not in by_a)]:
        oa, ob = by_a.get(name), by_b.get(name)
        ta = oa["tco_brl"]["deterministic"] if oa else None
        tb = ob["tco_brl"]["deterministic"] if ob else None
        lines = []
        la, lb = (oa or {}).get("lines_brl", {}), (ob or {}).get("lines_brl", {})
        for line in sorted(set(la) | set(lb)):
            x, y = la.get(line, 0.0), lb.get(line, 0.0)
            if abs(y - x) >= 0.005:
                lines.append({"line": line, "a": x, "b": y, "delta": y - x})
        out.append({"name": name, "tco_a": ta, "tco_b": tb,
                    "delta": None if ta is None or tb is None else tb - ta,
                    "delta_share": None if not ta or tb is None else (tb - ta) / ta,
                    "rank_a": rank_a.get(name), "rank_b": rank_b.get(name), "lines": lines})
    return out


def diff(a: Side, b: Side) -> dict:
    """The whole comparison of B against A (JSON-ready)."""
    va, vb = _version(a), _version(b)
    if va != vb:
        raise InputError([Problem(b.path, "tool.version", f"written by tco {vb}, but {a.path} by tco {va}: the two "
                                  "may name their keys differently; run both scenarios again with one version "
                                  "(or diff the scenario files)")])
    ra, rb = a.doc.get("ranking", []), b.doc.get("ranking", [])
    return {"a": a.path, "b": b.path, "inputs": input_changes(a, b), "options": option_changes(a.doc, b.doc),
            "ranking": {"a": ra, "b": rb, "changed": ra != rb},
            "cheapest": {"a": a.doc.get("cheapest"), "b": b.doc.get("cheapest"),
                         "changed": a.doc.get("cheapest") != b.doc.get("cheapest")}}
