"""An owned option's figures for the JSON (``options[].owned``): its terms with their sources, the horizon's totals of
each part of owning (purchase, interest, depreciation and its shield, resale, power, colocation, upkeep, staff), and
the cash view beside the accounting view, month by month. Read from the rows the engine computed
(``OptionCosts.rows``, ``tco.costs.owned_rules``); nothing recomputed."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tco.report.view import View

TOTALS = {"capex_brl": "own_capex_brl", "borrowed_brl": "own_borrow", "instalments_brl": "own_pay",
          "interest_brl": "own_interest", "payoff_brl": "own_payoff", "depreciation_brl": "own_dep",
          "depreciation_shield_brl": "own_shield", "resale_brl": "own_resale", "gain_tax_brl": "own_gain_tax",
          "power_brl": "own_power", "colocation_brl": "own_colo", "upkeep_brl": "own_upkeep", "staff_brl": "own_staff"}
"""JSON key → the owned rule row summed over the horizon [BRL]."""


def owned_dict(o, months: list[str]) -> dict | None:
    """``options[].owned`` of an owned option; None for a rented one."""
    own = o.resolved.owned
    if own is None:
        return None
    rows = o.costs.rows
    return {
        "payment": own.payment, "landed_case": own.landed_case, "price_currency": own.currency,
        "inputs": {k.removeprefix("o.own_"): v for k, v in own.inputs.items()},
        "sources": {k.removeprefix("own_"): v for k, v in own.sources.items()},
        "servers_bought": float(rows["own_buy"].sum()),
        **{k: float(rows[v].sum()) for k, v in TOTALS.items()},
        "monthly": [{"month": m, "cash_brl": float(o.total_brl[i]), "expense_brl": float(rows["own_expense"][i]),
                     "book_value_brl": float(rows["own_book"][i])} for i, m in enumerate(months)],
    }


def offerable(v: View):
    """The option a provider's proposal offers when the scenario names none: the cheapest ranked option that is not
    the client's own purchase (an owned option is a competitor to beat, never the provider's offer); the cheapest
    option when every option is owned."""
    ranked = v.ranked_options
    return next((o for o in ranked if o.kind != "owned"), ranked[0])
