"""USD/BRL paths: the deterministic base path of the costs and Monte Carlo paths for risk.

The base path (``fx.base_path``) is one of four, declared once as the rule ``tco.timeline.fx_rule``:
'focus' (the Banco Central Focus survey median: year-end figures, each the expected average of December,
interpolated month by month from the spot; the default), 'spot' (flat), 'forward' (covered interest parity
F_t = S·((1 + i_BRL)/(1 + i_USD))^(t/12), brazil_fx_tax.md §2.4: the cost of hedging, not a forecast) and 'list'
(the user's monthly values). A gbm drift, when given, multiplies the base path by e^(μ·t/12). The Monte
Carlo (tco.risk) centres its paths on the base path. Costs of month t are converted at the month-t rate.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tco.fx_paths import (  # noqa: F401  re-exported: the base paths live in tco.fx_paths
    BASE_LABELS,
    FOCUS_FILE,
    base_path,
    check_base_path,
    focus_table,
    month_index,
    focus_weights,
    focus_monthly,
    focus_edition,
    list_inputs,
    describe_base,
)

MAX_HISTORY_BYTES = 5_000_000
"""A monthly history since 1900 is about 20 kB."""


def parity_drift(brl_rate: float, usd_rate: float) -> float:
    """Annual log drift from interest-rate parity: ln((1 + i_BRL)/(1 + i_USD))."""
    return float(np.log((1.0 + brl_rate) / (1.0 + usd_rate)))


def deterministic_path(fx, horizon: int, start: str | None = None) -> np.ndarray:
    """USD/BRL for months 1..H [BRL/USD] of the base case: the rule ``tco.timeline.fx_rule``."""
    from tco.timeline import fx_path

    return fx_path(fx, horizon, start)


def base_annual_change(path: np.ndarray) -> float:
    """Yearly change of the evaluated base path (``timeline.fx_rule``) [fraction/yr]: (S_H/S_1)^(12/(H − 1)) − 1
    (0 for one month)."""
    p = np.asarray(path, dtype=float)
    return float((p[-1] / p[0]) ** (12.0 / (len(p) - 1)) - 1.0) if len(p) > 1 else 0.0


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
