"""The rules of an owned fleet (``options[].kind = "owned"``), declared once: the servers bought each month at their
landed cost (price, import duty, IPI, PIS/COFINS-import, ICMS), paid in cash or by a loan (PRICE table with grace,
the balance left paid off at the horizon), depreciated over the tax life with its income-tax shield, resold at the
horizon (tax on the gain over book value), and run in colocation (power at TDP × PUE × tariff, contracted kW,
cross-connects), with maintenance, insurance and staff. ``tco.costs.fleet_rules.plan`` appends them to a dedicated
fleet's rules when the shape is owned; the engine evaluates them with numpy, the workbook's calc sheet writes them as
formulas.

Conventions: a server is bought in the month the fleet first holds it and kept to the horizon; a loan's first
instalment falls the month after the purchase; the resale and the loan payoff land in the last month. Inputs
``o.own_*`` (workbook ``in_o<i>_own_*``); ``c.own_*`` are the scalars below. BRL unless a unit says otherwise; the
cash part of the purchase stays in the price's currency (USD for a landed server: the Monte Carlo moves it with
USD/BRL), the loan is in BRL at the purchase month's rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.expr import AND, IF, MAX, MIN, Const, Env, Expr, In, Month, Prev, Row, Rule, Scalar, XlContext
from tco.expr.base import along_months

BALANCE_KEYS = ("own_bal", "own_book", "own_mv", "own_gross")
"""The running balances (``Accumulate`` rows)."""


@dataclass(frozen=True, eq=False)
class Accumulate(Expr):
    """A running balance: r_t = g · r_{t−1} + x_t, r_0 = 0. Only valid as the whole expression of its rule ``key``.
    Workbook: ``g*<own cell one month back>+x`` (x alone in month 1); numpy: the recursion month by month."""

    key: str
    g: Expr
    x: Expr

    def np(self, env: Env) -> np.ndarray:
        x = along_months(self.x.np(env), env.horizon)
        g = along_months(self.g.np(env), env.horizon)
        out = np.array(x, dtype=float)
        for t in range(1, env.horizon):
            out[..., t] = g[..., t] * out[..., t - 1] + x[..., t]
        return out

    def xl(self, ctx: XlContext) -> str:
        x = self.x.xl(ctx)
        if not ctx.prev:
            return x
        return f"({self.g.xl(ctx)})*{ctx.cell(self.key, ctx.prev)}+({x})"


@dataclass(frozen=True, eq=False)
class Window(Expr):
    """The sum of row ``key`` over the months s with lo ≤ t − s ≤ hi (its values lo to hi months back; empty when
    hi < lo). Workbook: ``SUMPRODUCT((t-row >= t − hi)*(t-row <= t − lo)*row)``; numpy: a band matrix times the
    row."""

    key: str
    lo: Expr
    hi: Expr

    def np(self, env: Env) -> np.ndarray:
        t = env.t
        x = along_months(env.rows[self.key], env.horizon)
        lo, hi = float(np.asarray(self.lo.np(env)).ravel()[0]), float(np.asarray(self.hi.np(env)).ravel()[0])
        age = t[:, None] - t[None, :]
        band = ((age >= lo) & (age <= hi)).astype(float)
        return x @ band.T

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "Window needs a context with whole-row ranges"
        t, ts = ctx.cell("t"), ctx.row_range("t")
        return (f"SUMPRODUCT(({ts}>={t}-({self.hi.xl(ctx)}))*({ts}<={t}-({self.lo.xl(ctx)})),"
                f"{ctx.row_range(self.key)})")


@dataclass(frozen=True, eq=False)
class Renew(Expr):
    """Servers bought this month: those added (``x``) plus those bought ``lag`` months before, renewed while
    ``on`` holds (a refresh every ``lag`` months; none when lag is 0): r_t = x_t + on_t · r_{t−lag}. Only valid as
    the whole expression of its rule ``key``. Workbook: ``x+IF(on,INDEX(<own row>,1,t−lag),0)``; numpy: month by
    month."""

    key: str
    x: Expr
    lag: Expr
    on: Expr

    def np(self, env: Env) -> np.ndarray:
        x = along_months(self.x.np(env), env.horizon)
        on = along_months(self.on.np(env), env.horizon)
        lag = int(round(float(np.asarray(self.lag.np(env)).ravel()[0])))
        out = np.array(x, dtype=float)
        for t in range(env.horizon):
            if lag >= 1 and t - lag >= 0 and on[..., t].all():
                out[..., t] += out[..., t - lag]
        return out

    def xl(self, ctx: XlContext) -> str:
        assert ctx.row_range is not None, "Renew needs a context with whole-row ranges"
        own, t = ctx.row_range(self.key), ctx.cell("t")
        return f"{self.x.xl(ctx)}+IF({self.on.xl(ctx)},INDEX({own},1,{t}-({self.lag.xl(ctx)})),0)"


def _o(name: str) -> Expr:
    return In("o.own_" + name)


def _c(name: str) -> Expr:
    return In("c.own_" + name)


def owned_rules(held: str, usd: bool = True) -> list[Rule | Scalar]:
    """The owned fleet's rules; ``held`` is the row of servers the fleet holds each month (a ratchet), `usd` whether
    the server is priced in USD (landed: its purchase converts at the month's rate) or in BRL (a quote)."""
    last = Month().eq(In("horizon"))
    refresh_on = AND(_o("refresh") > 0, Month() > _o("refresh"), Month() < In("horizon"))  # the last month sells all
    brl: Expr = Row("fx") if usd else Const(1.0)
    return [
        Scalar("own_mult", (1 + _o("ii") + _o("ipi") * (1 + _o("ii")) + _o("pis") + _o("cofins")) / (1 - _o("icms"))
               - _o("credit") * (_o("pis") + _o("cofins")), "-",
               "landed cost per unit of customs value: (1 + II + IPI·(1 + II) + PIS + COFINS) / (1 − ICMS) − PIS/COFINS "
               "credited"),
        Scalar("own_i", (1 + _o("rate")) ** (1 / 12) - 1, "-/month", "loan rate per month: (1 + r)^(1/12) − 1"),
        Scalar("own_ann", IF(_c("i") > 0, _c("i") / (1 - (1 + _c("i")) ** (-(_o("term") - _o("grace")))),
                             1 / (_o("term") - _o("grace"))), "-/month",
               "PRICE instalment per unit borrowed: i / (1 − (1 + i)^−(term − grace)); 1/(term − grace) at i = 0"),
        Scalar("own_k", _o("resale") ** (1 / _o("resale_age")), "-/month",
               "monthly resale factor: resale share^(1 / its age)"),
        Rule("own_new", MAX(Row(held) - Prev(held), 0), "servers", "servers added to the fleet this month"),
        Rule("own_buy", Renew("own_buy", Row("own_new"), _o("refresh"), refresh_on), "servers",
             "servers bought this month: those added, and those bought a refresh ago (replaced before the horizon)"),
        Rule("own_capex", Row("own_buy") * _o("hw") * _c("mult"), "USD|BRL",
             "landed cost of the servers bought, in the price's currency: servers × price × landed multiple"),
        Rule("own_capex_brl", Row("own_capex") * brl, "BRL", "the same in BRL at the month's rate"),
        Rule("own_cash", Row("own_capex") * _o("cash"), "USD|BRL", "paid in cash: the purchase × the cash share"),
        Rule("own_borrow", Row("own_capex_brl") * (1 - _o("cash")), "BRL", "borrowed: the rest of the purchase"),
        Rule("own_pay", _c("i") * Window("own_borrow", Const(1.0), _o("grace"))
             + _c("ann") * Window("own_borrow", _o("grace") + 1, _o("term")), "BRL",
             "instalments: interest only on loans in their grace months, the PRICE instalment after"),
        Rule("own_bal", Accumulate("own_bal", 1 + _c("i"), Row("own_borrow") - Row("own_pay")), "BRL",
             "loan balance after the month: previous × (1 + i) + borrowed − paid"),
        Rule("own_interest", _c("i") * Prev("own_bal"), "BRL", "interest inside the instalments: i × previous balance"),
        Rule("own_payoff", IF(last, Row("own_bal"), 0), "BRL", "the balance left, paid off in the last month"),
        Rule("own_retired", IF(refresh_on, Window("own_capex_brl", _o("refresh"), _o("refresh")), 0), "BRL",
             "landed cost of the servers replaced this month (bought a refresh ago)"),
        Rule("own_dep", Window("own_capex_brl", Const(0.0), IF(_o("refresh") > 0, MIN(_o("life"), _o("refresh")),
                                                                  _o("life")) - 1) / _o("life"), "BRL",
             "tax depreciation: each purchase ÷ useful life, for the life's months from the purchase (or until "
             "replaced)"),
        Rule("own_sold_book", Row("own_retired") * MAX(0, 1 - _o("refresh") / _o("life")), "BRL",
             "book value of the servers replaced: landed cost × (1 − refresh / life)"),
        Rule("own_sold_mv", Row("own_retired") * _c("k") ** _o("refresh"), "BRL",
             "resale value of the servers replaced: landed cost × monthly resale factor^refresh"),
        Rule("own_book", Accumulate("own_book", Const(1.0), Row("own_capex_brl") - Row("own_dep")
                                    - Row("own_sold_book")), "BRL",
             "book value: purchases − depreciation − servers replaced, to date"),
        Rule("own_gross", Accumulate("own_gross", Const(1.0), Row("own_capex_brl") - Row("own_retired")), "BRL",
             "landed cost of the servers held"),
        Rule("own_mv", Accumulate("own_mv", _c("k"), Row("own_capex_brl") - Row("own_sold_mv")), "BRL",
             "resale value: each purchase held × monthly resale factor^age"),
        Rule("own_resale", IF(last, Row("own_mv"), 0) + Row("own_sold_mv"), "BRL",
             "servers sold: those replaced, at their resale value, and all in the last month"),
        Rule("own_shield", _o("ir") * Row("own_dep"), "BRL", "income tax saved by depreciation: rate × depreciation"),
        Rule("own_gain_tax", IF(last, _o("ir") * (Row("own_mv") - Row("own_book")), 0)
             + _o("ir") * (Row("own_sold_mv") - Row("own_sold_book")), "BRL",
             "income tax on the sale's gain over book value (negative: a loss saves tax)"),
        Rule("own_power", Row(held) * _o("kw") * _o("pue") * Row("hours") * _o("tariff") / 1000, "BRL",
             "electricity: servers × kW × PUE × hours × tariff [BRL/MWh] / 1000"),
        Rule("own_colo", IF(_o("contract") > 0, _o("contract"), Row(held) * _o("kw")) * _o("colo")
             + IF(Row(held) > 0, _o("xc") * _o("xc_price"), 0), "BRL",
             "colocation: contracted kW (or the fleet's draw) × price per kW + cross-connects"),
        Rule("own_upkeep", Row("own_gross") * (_o("maint") + _o("ins")) / 12, "BRL",
             "maintenance, spares and insurance: landed cost held × yearly shares / 12"),
        Rule("own_staff", IF(Row(held) > 0, _o("staff_h") * _o("staff_rate"), 0), "BRL", "staff: hours × cost per hour"),
        Rule("own_run", Row("own_power") + Row("own_colo") + Row("own_upkeep") + Row("own_staff"), "BRL",
             "running costs: power + colocation + upkeep + staff"),
        Rule("own_expense", Row("own_dep") + Row("own_interest") + Row("own_run"), "BRL",
             "accounting view, before income tax: depreciation + interest + running costs"),
        Rule("own_net", Row("own_pay") + Row("own_payoff") + Row("own_run") - Row("own_resale") - Row("own_shield")
             + Row("own_gain_tax"), "BRL",
             "cash view in BRL: instalments + payoff + running − resale − shield + tax on the gain"),
        Rule("own_of_price", Row("own_pay") + Row("own_payoff") + Row("own_upkeep") - Row("own_resale")
             - Row("own_shield") + Row("own_gain_tax"), "BRL",
             "the flows that scale with the purchase price: loan, upkeep, resale, shield, tax on the gain"),
        Rule("own_dollar", Row("own_of_price") / Row("fx") if usd else Const(0.0), "USD",
             "of a USD-priced server: those flows at the month's rate (they follow the dollar)"),
        Rule("own_setup", Row("own_cash") + Row("own_dollar"), "USD|BRL",
             "purchase-price line: the cash part of the purchases + the flows that follow the dollar"),
        Rule("own_brl", Row("own_power") + Row("own_colo") + Row("own_staff") + (0 if usd else Row("own_of_price")),
             "BRL", "BRL line: power, colocation, staff (and, for a BRL price, the flows of the price)"),
    ]


OWNED_LINES = {"setup": "own_setup", "inference_compute": "own_brl"}
"""The ledger lines of an owned fleet: what follows the purchase price (in the price's currency: a USD-priced
server's loan, upkeep, resale and tax effects scale with USD/BRL, as the whole-path FX multiple and the Monte Carlo
move them) and the running costs in BRL."""


def ledger_parts(rows: dict[str, np.ndarray], usd: bool) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The owned lines split for the ledger's long form, signed so that each line's parts add up to it: (parts of the
    purchase-price line ``own_setup`` in its currency, parts of the BRL line ``own_brl``). The flows of the price
    (loan principal, interest and payoff, upkeep, resale and shield negative, tax on the gain) sit in the first, at
    the month's rate, for a USD price; in the second for a BRL price."""
    of_price = {"loan_principal": rows["own_pay"] - rows["own_interest"], "loan_interest": rows["own_interest"],
                "loan_payoff": rows["own_payoff"], "upkeep": rows["own_upkeep"], "resale": -rows["own_resale"],
                "depreciation_shield": -rows["own_shield"], "gain_tax": rows["own_gain_tax"]}
    running = {"power": rows["own_power"], "colocation": rows["own_colo"], "staff": rows["own_staff"]}
    if usd:
        return {"purchase": rows["own_cash"], **{k: v / rows["fx"] for k, v in of_price.items()}}, running
    return {"purchase": rows["own_cash"]}, {**of_price, **running}
