"""The one switch around the speed code: with ``TCO_PLAIN=1`` every shim below takes its plain path.

Some code exists only to make a run faster, each piece beside a plain path that gives the same outputs. Set the
environment variable ``TCO_PLAIN`` to ``1`` (or to a comma-separated list of the names below, to bisect) and each
named shim takes its plain path instead; the JSON and CSV stay byte-identical and the workbook's cells equal
(``tests/test_plain.py`` runs every example both ways). Read at each call, so a test may set it in-process; the
collector's settings in ``python -m tco`` are read once, at start-up.

>>> sorted(SHIMS)
['cells', 'compiled', 'fmt_light', 'gc', 'quantiles', 'weasy']
"""

from __future__ import annotations

import os

SHIMS = {
    "gc": "the cyclic collector tuned: thresholds (10 000, 50, 100) and gc.freeze() at exit in `python -m tco`, no "
          "collection during `validate`, the run's objects frozen out of it while the writers run "
          "(tco/__main__.py, tco/cli/__init__.py, tco/output/__init__.py)",
    "weasy": "WeasyPrint imported without ctypes' library search and with its C declarations precompiled for cffi "
             "(tco/report/proposal/weasy.py, weasy_ffi.py)",
    "cells": "XlsxWriter's write_formula and _write_cell given a short path for plain formulas and numbers, and each "
             "row's formula rendered once with placeholders (tco/report/workbook/cells.py)",
    "compiled": "rules run as compiled closures, stacked over the rules of like shape (tco/expr/compiled.py, "
                "stacked.py), instead of walking each rule's tree (Expr.np, tco.expr.rules.evaluate_tree)",
    "fmt_light": "the notices' numbers, percentages, reais and months written without babel (tco/report/fmt_light.py) "
                 "instead of by tco.report.fmt",
    "quantiles": "the Monte Carlo's percentiles streamed chunk by chunk (tco/fx/quantiles.py) instead of "
                 "np.percentile over every path, recomputed in groups of rows (tco/fx/risk.py)",
}
"""The shims, by the name ``TCO_PLAIN`` takes, with what each does and where it lives."""


def plain(shim: str) -> bool:
    """True when ``TCO_PLAIN`` asks for the plain path of `shim` (``1`` or ``all``: every shim; else a list).

    >>> import os; os.environ["TCO_PLAIN"] = "gc,cells"; (plain("gc"), plain("weasy")); del os.environ["TCO_PLAIN"]
    (True, False)
    """
    if shim not in SHIMS:
        raise KeyError(f"no speed shim named {shim!r}; the shims are {', '.join(sorted(SHIMS))}")
    value = os.environ.get("TCO_PLAIN", "").strip().lower()
    if value in ("", "0", "no", "false"):
        return False
    return value in ("1", "all", "yes", "true") or shim in {w.strip() for w in value.split(",")}
