"""USD/BRL paths: the deterministic path of the base case and Monte Carlo paths for risk.

Deterministic: 'fixed' keeps the spot rate; 'parity' is the covered-interest-parity forward
F_t = S·((1 + i_BRL)/(1 + i_USD))^(t/12) (brazil_fx_tax.md §2.4). For 'gbm' and 'bootstrap' the
deterministic base case is the median-free expectation of the model: the drift path for gbm,
the spot for bootstrap (its sampled returns carry the history's own drift).
Costs of month t are converted at the month-t rate (t = 1..H).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MAX_HISTORY_BYTES = 5_000_000
"""A monthly history since 1900 is about 20 kB."""


def parity_drift(brl_rate: float, usd_rate: float) -> float:
    """Annual log drift from interest-rate parity: ln((1 + i_BRL)/(1 + i_USD))."""
    return float(np.log((1.0 + brl_rate) / (1.0 + usd_rate)))


def deterministic_path(fx, horizon: int) -> np.ndarray:
    """USD/BRL for months 1..H [BRL/USD] of the base case: the rule ``tco.timeline.fx_rule``."""
    from tco.timeline import fx_path

    return fx_path(fx, horizon)


def base_annual_change(fx) -> float:
    """Yearly change of the deterministic path [fraction/yr]: 0 (fixed, bootstrap), (1 + i_BRL)/(1 + i_USD) − 1
    (parity), e^μ − 1 (gbm)."""
    if fx.model in ("fixed", "bootstrap"):
        return 0.0
    if fx.model == "parity":
        return (1.0 + fx.brl_rate) / (1.0 + fx.usd_rate) - 1.0
    return float(np.expm1(fx.drift if fx.drift is not None else parity_drift(fx.brl_rate, fx.usd_rate)))


def history_source(fx) -> str:
    from tco.catalog import DATA_DIR

    return fx.history_csv or str(DATA_DIR / "usdbrl_monthly.csv")


def history_label(fx) -> str:
    """How the history is named in reports: the shipped file by its package path, a user's file by name."""
    return Path(fx.history_csv).name if fx.history_csv else "tco/catalog/data/usdbrl_monthly.csv (BCB SGS 3698)"


def load_history(fx, horizon: int | None = None) -> tuple[list[str], np.ndarray]:
    """Read a monthly USD/BRL history (columns month = 'YYYY-MM', usdbrl > 0), checking it has no gaps
    and enough months for the bootstrap block. Raises InputError naming the file, line and key."""
    import csv
    import io
    import math
    import re

    from tco.errors import InputError, Problem
    from tco.scenario import read_limited

    path = history_source(fx)
    problems: list[Problem] = []
    months: list[str] = []
    rates: list[float] = []
    raw = read_limited(Path(path), MAX_HISTORY_BYTES, "FX history (fx.history_csv)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(path, "fx.history_csv", f"FX history is not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                                  "save it as UTF-8", raw[:exc.start].count(b"\n") + 1)]) from None
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        if not {"month", "usdbrl"} <= set(reader.fieldnames or []):
            raise InputError([Problem(path, "fx.history_csv", "FX history needs columns 'month' and 'usdbrl'", 1)])
        prev = None
        for row in reader:
            line = reader.line_num
            m = (row.get("month") or "").strip()
            if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", m):
                problems.append(Problem(path, "month", f"unparseable month {m!r} (want 'YYYY-MM')", line))
                continue
            try:
                v = float(row.get("usdbrl") or "")
            except ValueError:
                problems.append(Problem(path, "usdbrl", f"not a number: {row.get('usdbrl')!r}", line))
                continue
            if not (math.isfinite(v) and 0 < v <= 1000):
                problems.append(Problem(path, "usdbrl", f"rate must be positive, finite and at most 1000, got {v:g}", line))
                continue
            if prev is not None:
                y, mm = int(prev[:4]), int(prev[5:])
                expect = f"{y + (mm == 12):04d}-{mm % 12 + 1:02d}"
                if m != expect:
                    problems.append(Problem(path, "month", f"gap or disorder in the history: {m} follows {prev} "
                                            f"(expected {expect})", line))
            prev = m
            months.append(m)
            rates.append(v)
    if not problems and len(rates) - 1 < fx.block_months + 1:
        problems.append(Problem(path, "fx.block_months", f"the history has {len(rates) - 1} monthly returns, too few "
                                f"for blocks of {fx.block_months} months"))
    if problems:
        raise InputError(problems)
    return months, np.asarray(rates)
