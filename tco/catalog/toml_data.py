"""Loaders of the TOML files: tax_profiles.toml (profiles, the tax reform's periods, billing by provider),
defaults.toml and calibration_default.toml."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

from tco.catalog.rows import read_text
from tco.catalog.types import Billing, TaxProfile
from tco.errors import InputError, Problem, closest
from tco.scenario.toml import loads
from tco.scenario.types import MIN_EFFICIENCY
from tco.domain.taxes import BILLING_MODES, METHODS, RATE_KEYS, ReformPeriod


def _read_toml(paths, problems):
    """Yield (path, data) for each TOML file that parses; record the others as problems."""
    for p in paths:
        text = read_text(p, problems)
        if text is None:
            continue
        try:
            data = loads(text, str(p))
        except InputError as exc:  # nested too deeply
            problems.extend(exc.problems)
            continue
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            problems.append(Problem(str(p), "", f"TOML syntax error: {exc}", int(m.group(1)) if m else None))
            continue
        start = len(problems)
        yield p, data
        _locate(problems, start, str(p), text)  # the caller checked this file meanwhile (review L1: M112, M113)


def _locate(problems: list, start: int, file: str, text: str) -> None:
    """Give the problems of `file` from `start` on without a line the line of their key path (or of the nearest
    table above it that has one)."""
    from tco.scenario.messages import key_lines

    lines = None
    for i in range(start, len(problems)):
        q = problems[i]
        if q.file != file or q.line is not None or not q.key:
            continue
        lines = lines if lines is not None else key_lines(text)
        path = tuple(q.key.split("."))
        hit = next((lines[path[:n]] for n in range(len(path), 0, -1) if path[:n] in lines), None)
        if hit is not None:
            problems[i] = Problem(q.file, q.key, q.message, hit)



def _rate(p, pid: str, prof: dict, k: str, problems) -> float:
    v = prof.get(k, 0.0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.0 <= v < 1.0:
        problems.append(Problem(str(p), f"profiles.{pid}.{k}", f"rate must be a fraction in [0, 1), got {v!r}"))
        return 0.0
    return float(v)



def load_taxes(paths, problems):
    """Tax profiles, reform periods and provider billing: a later file's entry replaces the same id."""
    out, reform, billing = {}, {}, {}
    for p, data in _read_toml(paths, problems):
        profiles = data.get("profiles", {})
        if not isinstance(profiles, dict):
            problems.append(Problem(str(p), "profiles", "must be a table of [profiles.<id>] tables"))
            continue
        for pid, prof in profiles.items():
            if not isinstance(prof, dict):
                problems.append(Problem(str(p), f"profiles.{pid}", f"must be a table, got {prof!r}"))
                continue
            rates = {k: _rate(p, pid, prof, k, problems) for k in RATE_KEYS}
            method = prof.get("method", "none")
            if method not in METHODS:
                problems.append(Problem(str(p), f"profiles.{pid}.method", f"unknown tax method {method!r}; "
                                        f"{closest(str(method), METHODS)}", _toml_line(p, f"profiles.{pid}", "method")))
            out[pid] = TaxProfile(pid, method, rates, bool(prof.get("pis_cofins_creditable", False)),
                                  str(prof.get("label_en", pid)), str(prof.get("label_pt", pid)),
                                  prof.get("source") or "; ".join(str(prof[k]) for k in prof if k.endswith("_source")),
                                  str(prof.get("as_of") or max((str(prof[k]) for k in prof if k.endswith("_as_of")),
                                                               default="")),
                                  str(prof["valid_until"]) if prof.get("valid_until") else None,
                                  bool(prof.get("reform", True)), str(prof.get("status", "sourced")))
        for rid, per in data.get("reform", {}).items():
            reform[rid] = _reform_period(p, rid, per, problems)
        for prov, b in data.get("billing", {}).items():
            mode = str(b.get("mode", ""))
            if mode not in BILLING_MODES:
                problems.append(Problem(str(p), f"billing.{prov}.mode", f"unknown billing mode {mode!r}; "
                                        f"{closest(mode, BILLING_MODES)}", _toml_line(p, f"billing.{prov}", "mode")))
            billing[prov] = Billing(prov, mode, str(b.get("profile", "")), str(b.get("status", "")),
                                    str(b.get("source", "")), str(b.get("as_of", "")))
    for prov, b in billing.items():
        if b.profile and b.profile not in out:
            problems.append(Problem(str(paths[-1]), f"billing.{prov}.profile", f"unknown tax profile {b.profile!r}; "
                                    f"{closest(b.profile, list(out))}"))
    periods = tuple(sorted((x for x in reform.values() if x is not None), key=lambda x: x.start))
    return out, periods, billing



def _toml_line(path: Path, table: str, key: str) -> int | None:
    """Line of `key` inside the TOML table `[table]` (1-based), or of the table header, or None."""
    head = None
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = text.strip()
        if stripped.startswith("["):
            if head is not None:
                break
            if stripped == f"[{table}]":
                head = n
        elif head is not None and re.match(rf"{re.escape(key)}\s*=", stripped):
            return n
    return head



def _reform_period(path, rid, per, problems) -> ReformPeriod | None:
    where = f"reform.{rid}"
    start, until = str(per.get("from", "")), per.get("until")
    month = r"\d{4}-(0[1-9]|1[0-2])"
    if not re.fullmatch(month, start) or (until and not re.fullmatch(month, str(until))):
        problems.append(Problem(str(path), where, "'from' and 'until' must be months written 'YYYY-MM'"))
        return None
    vals = {}
    for k in ("pis_cofins_share", "iss_share", "cbs_rate", "ibs_rate"):
        try:
            vals[k] = float(per.get(k, 0.0))
        except (TypeError, ValueError):
            vals[k] = -1.0
        if not 0.0 <= vals[k] <= 1.0:
            problems.append(Problem(str(path), f"{where}.{k}", f"must be a fraction in [0, 1], got {per.get(k)!r}"))
    return ReformPeriod(rid, start, str(until) if until else None, vals["pis_cofins_share"], vals["iss_share"],
                        vals["cbs_rate"], vals["ibs_rate"], str(per.get("status", "")), str(per.get("source", "")),
                        str(per.get("as_of", "")))



def load_calibration(paths, problems):
    out: dict = {}
    for p, data in _read_toml([q for q in paths if q.exists()], problems):
        out = dict(data) | {"file": str(p)}
    return out



def _check_defaults(p, data: dict, problems) -> None:
    """Every default is a table of finite non-negative numbers (shares ≤ 1 where named so)."""
    for k, v in data.items():
        if not isinstance(v, dict):
            problems.append(Problem(str(p), k, f"must be a [{k}] table, got {v!r}"))
            continue
        for kk, x in v.items():
            if k == "training" and isinstance(x, dict):
                _check_training_table(p, kk, x, problems)
            if k == "training" and kk == "uncalibrated_generations" and not (
                    isinstance(x, list) and all(isinstance(g, str) for g in x)):  # "ada" was read as 'a', 'd', 'a'
                problems.append(Problem(str(p), f"{k}.{kk}", f'must be a list of generations, e.g. ["ada"], got {x!r}'))
            if isinstance(x, (dict, str, list)):
                continue
            share = kk.endswith("_share") or kk == "mfu" or k == "scaling_efficiency"
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0 or (
                    share and not 0 < x <= 1):
                want = "a share in (0, 1]" if share else "a finite number ≥ 0"
                problems.append(Problem(str(p), f"{k}.{kk}", f"must be {want}, got {x!r}"))
            elif share and x < MIN_EFFICIENCY:  # a share near zero multiplies a fleet without limit
                problems.append(Problem(str(p), f"{k}.{kk}", f"must be at least {MIN_EFFICIENCY:g}, got {x!r}"))
            elif (k, kk) == ("training", "sequence_length") and not (isinstance(x, int) and 128 <= x <= 1_048_576):
                # the default training sequence length: as [training] sequence_length of a scenario
                problems.append(Problem(str(p), f"{k}.{kk}", f"must be an integer from 128 to 1,048,576, got {x!r}"))



TRAINING_BOUNDS: dict[str, tuple[float, float, bool]] = {
    "mfu_by_precision": (MIN_EFFICIENCY, 1.0, True), "fp4.share": (0.0, 1.0, True),
    "generation_factor": (0.0, 10.0, False), "width.reference": (0.0, 1e6, False), "width.k": (-4.0, 4.0, True),
    "moe.a": (0.0, 100.0, False), "moe.k": (-4.0, 4.0, True), "moe.low_precision": (0.0, 10.0, False),
    "moe.one_server": (0.0, 10.0, False)}
"""(least, most, least allowed) of each number in a [training.<table>] of defaults.toml, by "table" or "table.key"
(red team 2026-12c T1): a catalog overlay's reference width 0, a generation factor 0 or an exponent of 10⁶ was an
OverflowError traceback or an "internal error", and an fp8 MFU of 5 costed a fifth of the GPU-hours. MFUs are
shares; factors positive and at most 10 (the fitted ones are 0.65–1.4); the exponents of (hidden / reference) and of
the expert size within ±4 (fitted 0.17–0.19)."""


def _check_training_table(p, table: str, data: dict, problems) -> None:
    """The numbers of defaults.toml [training.<table>] within TRAINING_BOUNDS (other keys, text, as they are)."""
    for key, x in data.items():
        bound = TRAINING_BOUNDS.get(f"{table}.{key}") or TRAINING_BOUNDS.get(table)
        if bound is None or (isinstance(x, str) and key in ("source", "as_of", "note")):
            continue
        lo, hi, closed = bound
        ok = (not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x)
              and (lo <= x if closed else lo < x) and x <= hi)
        if not ok:
            low = f"[{lo:g}" if closed else f"({lo:g}"
            problems.append(Problem(str(p), f"training.{table}.{key}", f"must be a number in {low}, {hi:g}], got {x!r}"))


def load_defaults(paths, problems):
    out: dict[str, dict] = {}
    for p, data in _read_toml(paths, problems):
        before = len(problems)
        _check_defaults(p, data, problems)
        if len(problems) > before:
            continue
        for k, v in data.items():
            out.setdefault(k, {}).update(v)
    return out
