"""The timeline rules, declared once: demand (users, requests, tokens, hourly load, egress), the USD/BRL
base path, discounting and the contract year. The engine evaluates them with numpy; the workbook's
Timeline sheet writes each as a live formula with the value this evaluation gave.

Input names are the workbook's defined names without their ``in_`` prefix (``horizon`` is ``tl_h``).
Months are t = 1..H; inference month k = t − inf_start + 1 (users are zero before k = 1).
"""

from __future__ import annotations

import functools

import numpy as np

from tco.domain import FxBasePath, FxModel, GrowthModel
from tco.constants import BYTES_PER_GB, BYTES_PER_KB, DAYS_PER_WEEK, MONTHS_PER_YEAR, S_PER_H
from tco.timeline.calendar import profile
from tco.expr import EXP, IF, INT, MAX, MIN, In, Month, Pick, Row, Rule, evaluate

HOURS = range(24)


@functools.lru_cache(maxsize=None)
def users_rule(model: str, capped: bool) -> Rule:
    """Users in month t for a growth model [users]:

    linear:   u_k = u_1 + (u_end − u_1)·(k − 1)/(n − 1), n = H − inf_start + 1 (u_1 alone when n = 1)
    compound: u_k = u_1·(1 + g)^(k − 1), capped at max_users when given
    logistic: u_k = C / (1 + (C/u_1 − 1)·e^(−s·(k − 1)))
    list:     the k-th value given; the last one holds
    """
    k = Row("k")
    u1 = In("start_users")
    if model == GrowthModel.LINEAR:
        body = IF((In("horizon") - In("inf_start") + 1).eq(1), u1,
                  u1 + (In("end_users") - u1) * (k - 1) / (In("horizon") - In("inf_start")))
    elif model == GrowthModel.COMPOUND:
        body = u1 * (1 + In("growth_rate")) ** (k - 1)
        if capped:
            body = MIN(body, In("max_users"))
    elif model == GrowthModel.LOGISTIC:
        c = In("ceiling_users")
        body = c / (1 + (c / u1 - 1) * EXP(-In("steepness") * (k - 1)))
    elif model == GrowthModel.LIST:
        body = Pick("users_list", k)
    else:
        raise ValueError(f"unknown growth model {model!r}")
    return Rule("users", IF(k < 1, 0, body), "users", users_rule.__doc__ or "")


@functools.lru_cache(maxsize=None)
def fx_rule(base: str, drift_given: bool) -> Rule:
    """USD/BRL of month t on the base path [BRL/USD] (tco.fx.history): spot keeps S; forward is the covered-interest-parity
    forward S·((1 + i_BRL)/(1 + i_USD))^(t/12), the cost of hedging; focus is the Banco Central survey median
    interpolated monthly from S, S·w_t + b_t (w_t the spot's weight, b_t the survey's part: tco.fx.history.focus_weights);
    list reads the t-th value given; the last value of a list holds; a gbm drift μ multiplies the path by
    e^(μ·t/12)."""
    s = In("usdbrl")
    if base == FxBasePath.FORWARD:
        expr = s * ((1 + In("brl_rate")) / (1 + In("usd_rate"))) ** (Month() / MONTHS_PER_YEAR)
    elif base == FxBasePath.FOCUS:
        expr = s * Pick("fx_w", Month()) + Pick("fx_b", Month())
    elif base == FxBasePath.LIST:
        expr = Pick("fx_list", Month())
    elif base == FxBasePath.SPOT:
        expr = s
    else:
        raise ValueError(f"unknown FX base path {base!r}")
    if drift_given:
        expr = expr * EXP(In("fx_drift") * Month() / MONTHS_PER_YEAR)
    return Rule("fx", expr, "BRL/USD", fx_rule.__doc__ or "")


def fx_rule_of(fx) -> Rule:
    """The base-path rule of an ``[fx]`` section."""
    from tco.timeline.fx_base import base_path

    return fx_rule(base_path(fx), fx.model == FxModel.GBM and fx.drift is not None)


YEAR = Rule("year", INT((Month() - 1) / MONTHS_PER_YEAR), "-", "contract year y = ⌊(t − 1)/12⌋ (0 in the first 12 months)")
K = Rule("k", Month() - In("inf_start") + 1, "-", "inference month k = t − inf_start + 1")
REQUESTS = Rule("requests", Row("users") * In("rpud") * Row("days") * (In("adpw") / DAYS_PER_WEEK), "req",
                "requests = users × requests per user per day × days × active days per week / 7")
TOKENS = Rule("tokens", Row("requests") * (In("in_tokens") + In("out_tokens")), "tokens",
              "tokens = requests × (input + output tokens per request)")
EGRESS = Rule("egress", Row("requests") * In("egress_kb") * BYTES_PER_KB / BYTES_PER_GB, "GB",
              "egress = requests × kB per request × 1000 / 10⁹ [GB]")
DF = Rule("df", (1 + In("discount_rate")) ** (-Month() / MONTHS_PER_YEAR), "-",
          "discount factor (1 + r)^(−t/12): cash flows at month end, r effective annual")
RPS = tuple(Rule(f"rps_{h}", Row("users") * In("rpud") * In(f"share_{h}") / S_PER_H, "req/s",
                 f"requests per second at {h:02d}h = users × requests per user per day × share of the hour / 3600")
            for h in HOURS)
PEAK_RPS = Rule("peak_rps", MAX(*(Row(f"rps_{h}") for h in HOURS)), "req/s",
                "requests per second at the busiest hour of the day")


def rules(s) -> tuple[Rule, ...]:
    """The timeline of scenario ``s``, in the order the rows are computed and shown."""
    g = s.inference.users
    return (YEAR, K, users_rule(g.model, getattr(g, "max_users", None) is not None), REQUESTS, TOKENS, EGRESS,
            fx_rule_of(s.fx), DF, *RPS, PEAK_RPS)


def inputs(s) -> dict[str, object]:
    """The timeline's inputs from scenario ``s``, by rule input name."""
    inf, fx, g = s.inference, s.fx, s.inference.users
    out: dict[str, object] = {
        "horizon": float(s.scenario.horizon_months), "inf_start": float(inf.start_month),
        "rpud": inf.requests_per_user_per_day, "adpw": inf.active_days_per_week,
        "in_tokens": inf.input_tokens_per_request, "out_tokens": inf.output_tokens_per_request,
        "egress_kb": inf.egress_kb_per_request, "usdbrl": fx.usdbrl, "brl_rate": fx.brl_rate, "usd_rate": fx.usd_rate,
        "fx_drift": fx.drift, "discount_rate": s.scenario.discount_rate,
    } | growth_inputs(g) | fx_lists(fx, s.scenario.start, s.scenario.horizon_months)
    shares = profile(inf.daily_profile)
    out |= {f"share_{h}": float(shares[h]) for h in HOURS}
    return out


def evaluate_timeline(s, days: np.ndarray) -> dict[str, np.ndarray]:
    """Every timeline row of scenario ``s`` over months 1..H, by rule key (plus ``t`` and ``days``)."""
    return evaluate(rules(s), inputs(s), s.scenario.horizon_months, rows={"days": np.asarray(days, dtype=float)})


def hourly_rows(rows: dict[str, np.ndarray]) -> np.ndarray:
    """The 24 hourly rows as one (months × 24) array [req/s]."""
    return np.stack([rows[f"rps_{h}"] for h in HOURS], axis=1)


# ---------------------------------------------------------------------------------------------
# One rule at a time, for callers that hold plain values (tests, analysis, the FX module)


def growth_inputs(growth) -> dict[str, object]:
    return {"start_users": getattr(growth, "start_users", None), "end_users": getattr(growth, "end_users", None),
            "growth_rate": getattr(growth, "monthly_growth_rate", None), "max_users": getattr(growth, "max_users", None),
            "ceiling_users": getattr(growth, "ceiling_users", None),
            "steepness": getattr(growth, "steepness_per_month", None),
            "users_list": list(growth.users) if growth.model == GrowthModel.LIST else None}


def users_timeline(growth, start_month: int, horizon: int) -> np.ndarray:
    """Users per timeline month 1..H [users]; zero before inference starts (``users_rule``)."""
    rule = users_rule(growth.model, getattr(growth, "max_users", None) is not None)
    inp = growth_inputs(growth) | {"horizon": float(horizon), "inf_start": float(start_month)}
    return evaluate((K, rule), inp, horizon)["users"]


def users_curve(growth, n: int) -> np.ndarray:
    """Users in inference months k = 1..n [users] (``users_rule`` from k = 1)."""
    return users_timeline(growth, 1, n)


def requests_per_month(users: np.ndarray, requests_per_user_per_day: float, days: np.ndarray,
                       active_days_per_week: float = 7.0) -> np.ndarray:
    """Requests [req/month] (``REQUESTS``)."""
    return evaluate((REQUESTS,), {"rpud": requests_per_user_per_day, "adpw": active_days_per_week}, len(users),
                    rows={"users": np.asarray(users, dtype=float), "days": np.asarray(days, dtype=float)})["requests"]


def hourly_rps(users: np.ndarray, requests_per_user_per_day: float, shares: np.ndarray) -> np.ndarray:
    """Requests per second in each hour of a typical day, (months × 24) [req/s] (``RPS``)."""
    inp = {"rpud": requests_per_user_per_day} | {f"share_{h}": float(shares[h]) for h in HOURS}
    return hourly_rows(evaluate(RPS, inp, len(users), rows={"users": np.asarray(users, dtype=float)}))


def egress_gb(requests: np.ndarray, kb_per_request: float) -> np.ndarray:
    """Internet egress [GB/month] (``EGRESS``)."""
    return evaluate((EGRESS,), {"egress_kb": kb_per_request}, len(requests),
                    rows={"requests": np.asarray(requests, dtype=float)})["egress"]


def fx_lists(fx, start: str | None, horizon: int) -> dict[str, list[float] | None]:
    """The base-path rule's list inputs (tco.fx.history.list_inputs); focus needs the scenario's start month."""
    from tco.timeline.fx_base import base_path, list_inputs

    if base_path(fx) == FxBasePath.FOCUS and start is None:
        raise ValueError("the Focus base path needs the scenario's start month")
    return list_inputs(fx, start or "", horizon)


def fx_path(fx, horizon: int, start: str | None = None) -> np.ndarray:
    """USD/BRL for months 1..H of the base case [BRL/USD] (``fx_rule``); ``start`` ('YYYY-MM') places the Focus
    survey's year-ends."""
    inp = {"usdbrl": fx.usdbrl, "brl_rate": fx.brl_rate, "usd_rate": fx.usd_rate, "fx_drift": fx.drift}
    inp |= fx_lists(fx, start, horizon)
    return evaluate((fx_rule_of(fx),), inp, horizon)["fx"]


def discount_factors(horizon: int, annual_rate: float) -> np.ndarray:
    """(1 + r)^(−t/12) for t = 1..H (``DF``)."""
    return evaluate((DF,), {"discount_rate": annual_rate}, horizon)["df"]
