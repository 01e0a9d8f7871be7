"""Unit costs of an option, declared once: its TCO per active user-month, per GPU-hour paid and per million tokens
served, with the quantities they divide by (user-months, GPU-hours, millions of tokens). ``unit_costs`` evaluates
them for the engine's numbers; the workbook's Finance sheet writes the same rules as the formulas of its unit-cost
table (``tco.report.workbook.finance``), each cell caching the value evaluated here.

Inputs: ``c.tco`` (the option's TCO, ``tco.costs.totals_rules.TCO``), ``million`` (10⁶, a named unit, never a literal
inside a formula), each fleet's GPUs per server ``o.inf_gps`` / ``o.tr_gps``; rows ``users`` and ``tokens`` of the
timeline and the option's server-hours rows (``hour_keys``).
"""

from __future__ import annotations

import functools
from typing import Any

from tco.expr import IF, Expr, In, Scalar, Total, evaluate

MILLION = 1e6
"""Tokens in a million (the workbook's named cell ``fin_million``)."""

USER_MONTHS = Scalar("user_months", Total("users"), "user·month", "user-months = Σ_t active users_t")
PER_USER = Scalar("per_user", IF(In("c.user_months") > 0, In("c.tco") / In("c.user_months"), 0), "BRL/user·month",
                  "TCO per active user-month = TCO ÷ user-months (0 without users)")
PER_GPU_HOUR = Scalar("per_gpu_hour", IF(In("c.gpu_hours") > 0, In("c.tco") / In("c.gpu_hours"), 0), "BRL/GPU·h",
                      "TCO per GPU-hour paid = TCO ÷ GPU-hours (0 without hours)")
MTOKENS = Scalar("mtokens", Total("tokens") / In("million"), "Mtok", "millions of tokens = Σ_t tokens_t ÷ 10⁶")
PER_MTOK = Scalar("per_mtok", IF(In("c.mtokens") > 0, In("c.tco") / In("c.mtokens"), 0), "BRL/Mtok",
                  "TCO per million tokens = TCO ÷ millions of tokens (0 without tokens)")

GPS = {"tr_hours": "o.tr_gps", "inf_hours": "o.inf_gps", "server_hours": "o.inf_gps"}
"""Server-hours row → the input of its fleet's GPUs per server."""


def hour_keys(rows: dict) -> tuple[str, ...]:
    """Rows of server-hours paid: training and serving fleets apart, else one fleet (``server_hours``)."""
    keys = tuple(k for k in ("tr_hours", "inf_hours") if k in rows)
    return keys or ("server_hours",)


@functools.lru_cache(maxsize=8)
def gpu_hours_rule(keys: tuple[str, ...]) -> Scalar:
    """GPU-hours paid = Σ over the fleets' server-hours rows of Σ_t hours_t × GPUs per server."""
    terms = [Total(k) * In(GPS[k]) for k in keys]
    expr: Expr = terms[0]
    for x in terms[1:]:
        expr = expr + x
    return Scalar("gpu_hours", expr, "GPU·h", "GPU-hours = Σ_fleets Σ_t server-hours_t × GPUs per server")


@functools.lru_cache(maxsize=8)
def rules(keys: tuple[str, ...]) -> tuple[Scalar, ...]:
    """The unit-cost rules of an option whose server-hours rows are `keys`."""
    return (USER_MONTHS, PER_USER, gpu_hours_rule(keys), PER_GPU_HOUR, MTOKENS, PER_MTOK)


def unit_costs(o: Any, users: Any, tokens: Any) -> dict[str, float]:
    """An option's unit costs and quantities (``rules``' keys → value) from its TCO, its server-hours rows and the
    timeline's ``users`` and ``tokens`` rows."""
    rows = o.costs.rows
    keys = hour_keys(rows)
    r = o.resolved
    inputs = {"c.tco": o.tco.deterministic, "million": MILLION, "o.inf_gps": float(r.inference.gpus_per_server),
              "o.tr_gps": float(r.training.gpus_per_server) if r.training is not None else 0.0}
    out = evaluate(rules(keys), inputs, len(users), rows={"users": users, "tokens": tokens} | {k: rows[k] for k in keys})
    return {x.key: float(out[x.key][0]) for x in rules(keys)}
