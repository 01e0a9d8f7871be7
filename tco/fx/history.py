"""USD/BRL paths: the deterministic base path of the costs and Monte Carlo paths for risk.

The base path (``fx.base_path``) is one of four, declared once as the rule ``tco.timeline.fx_rule``:
'focus' (the Banco Central Focus survey median: year-end figures, each the expected average of December,
interpolated month by month from the spot; the default), 'spot' (flat), 'forward' (covered interest parity
F_t = S·((1 + i_BRL)/(1 + i_USD))^(t/12): the cost of hedging, not a forecast; onshore the dollar leg is B3's cupom
cambial, 'Futuro de Cupom Cambial de DI1') and 'list'
(the user's monthly values). A gbm drift, when given, multiplies the base path by e^(μ·t/12). The Monte
Carlo (tco.fx.risk) centres its paths on the base path. Costs of month t are converted at the month-t rate.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tco.timeline.fx_base import (  # noqa: F401  re-exported: the base paths live in tco.timeline.fx_base
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

if TYPE_CHECKING:
    from tco.errors import Problem

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
    from tco.errors import InputError, Problem

    path = history_source(fx)
    months, rates, problems = _read_history(path, _history_text(path))
    if not problems and len(rates) - 1 < fx.block_months + 1:
        problems.append(Problem(path, "fx.block_months", f"the history has {len(rates) - 1} monthly returns, too few "
                                f"for blocks of {fx.block_months} months"))
    if problems:
        raise InputError(problems)
    return months, np.asarray(rates)


def _history_text(path: str) -> str:
    """The history file as text, at most MAX_HISTORY_BYTES, UTF-8 (a byte-order mark allowed)."""
    from tco.errors import InputError, Problem
    from tco.scenario import read_limited

    raw = read_limited(Path(path), MAX_HISTORY_BYTES, "FX history (fx.history_csv)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(path, "fx.history_csv", f"FX history is not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                                  "save it as UTF-8", raw[:exc.start].count(b"\n") + 1)]) from None


def _read_history(path: str, text: str) -> tuple[list[str], list[float], list[Problem]]:
    """(months, rates, problems) of the history's rows; a bad row is a located problem, not a value."""
    import csv
    import io

    from tco.errors import InputError, Problem

    problems: list[Problem] = []
    months: list[str] = []
    rates: list[float] = []
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        if not {"month", "usdbrl"} <= set(reader.fieldnames or []):
            raise InputError([Problem(path, "fx.history_csv", "FX history needs columns 'month' and 'usdbrl'", 1)])
        prev = ""  # the last well-formed month, with a usable rate or not
        for row in reader:
            parsed = _parse_row(path, row, reader.line_num)
            if isinstance(parsed, Problem):
                problems.append(parsed)
                if parsed.key != "month":  # a bad rate: its month still counts for the order (review L13)
                    prev = (row.get("month") or "").strip()
                continue
            month, rate = parsed
            if prev and month != _next_month(prev):
                problems.append(Problem(path, "month", f"gap or disorder in the history: {month} follows {prev} "
                                        f"(expected {_next_month(prev)})", reader.line_num))
            prev = month
            months.append(month)
            rates.append(rate)
    return months, rates, problems


def _parse_row(path: str, row: dict, line: int) -> tuple[str, float] | Problem:
    """(month, rate) of one history row, or the Problem that makes it unusable."""
    import math
    import re

    from tco.errors import Problem

    month = (row.get("month") or "").strip()
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", month):
        return Problem(path, "month", f"unparseable month {month!r} (want 'YYYY-MM')", line)
    try:
        rate = float(row.get("usdbrl") or "")
    except ValueError:
        return Problem(path, "usdbrl", f"not a number: {row.get('usdbrl')!r}", line)
    if not (math.isfinite(rate) and 0 < rate <= 1000):
        return Problem(path, "usdbrl", f"rate must be positive, finite and at most 1000, got {rate:g}", line)
    return month, rate


def _next_month(month: str) -> str:
    """The 'YYYY-MM' after ``month``: '2026-12' → '2027-01'."""
    year, mm = int(month[:4]), int(month[5:])
    return f"{year + (mm == 12):04d}-{mm % 12 + 1:02d}"
