"""An owned option in the workbook: the labels of its rules' rows on the calc sheet (``tco.costs.owned_rules``, written
as live formulas by ``tco.report.workbook.calc`` like every other rule) and its inputs on the Inputs sheet (one named
cell per ``o.own_*`` input, ``in_o<i>_own_*``, with its source as a comment and the schema's bounds as data
validation)."""

from __future__ import annotations

OWNED_SHOWN: dict[str, tuple[str, str, str]] = {
    # rule key → (label key, unit, number format)
    "own_new": ("own_new", "", "calc_int"), "own_buy": ("own_buy", "", "calc_int"),
    "own_retired": ("own_retired", "R$", "calc_brl"), "own_sold_book": ("own_sold_book", "R$", "calc_brl"),
    "own_sold_mv": ("own_sold_mv", "R$", "calc_brl"), "own_capex": ("own_capex", "US$|R$", "calc_num"),
    "own_capex_brl": ("own_capex_brl", "R$", "calc_brl"), "own_cash": ("own_cash", "US$|R$", "calc_num"),
    "own_borrow": ("own_borrow", "R$", "calc_brl"), "own_pay": ("own_pay", "R$", "calc_brl"),
    "own_bal": ("own_bal", "R$", "calc_brl"), "own_interest": ("own_interest", "R$", "calc_brl"),
    "own_payoff": ("own_payoff", "R$", "calc_brl"), "own_dep": ("own_dep", "R$", "calc_brl"),
    "own_book": ("own_book", "R$", "calc_brl"), "own_gross": ("own_gross", "R$", "calc_brl"),
    "own_mv": ("own_mv", "R$", "calc_brl"), "own_resale": ("own_resale", "R$", "calc_brl"),
    "own_shield": ("own_shield", "R$", "calc_brl"), "own_gain_tax": ("own_gain_tax", "R$", "calc_brl"),
    "own_power": ("own_power", "R$", "calc_brl"), "own_colo": ("own_colo", "R$", "calc_brl"),
    "own_upkeep": ("own_upkeep", "R$", "calc_brl"), "own_staff": ("own_staff", "R$", "calc_brl"),
    "own_run": ("own_run", "R$", "calc_brl"), "own_expense": ("own_expense", "R$", "calc_brl"),
    "own_net": ("own_net", "R$", "calc_brl"), "own_of_price": ("own_of_price", "R$", "calc_brl"),
    "own_dollar": ("own_dollar", "US$", "calc_usd"), "own_setup": ("own_setup", "US$|R$", "calc_num"),
    "own_brl": ("own_brl", "R$", "calc_brl"),
}
OWNED_SUMMED = {k for k, (_, unit, _) in OWNED_SHOWN.items() if unit == "R$" and k not in
                ("own_bal", "own_book", "own_gross", "own_mv")}
"""Rows with a whole-horizon total in column C (flows, not balances)."""

OWNED_CONSTANTS: dict[str, tuple[str, str, str]] = {
    "own_mult": ("own_mult", "", "calc_num4"), "own_i": ("own_i", "", "calc_pct"),
    "own_ann": ("own_ann", "", "calc_num6"), "own_k": ("own_k", "", "calc_num6"),
}

INPUTS: tuple[tuple[str, str, str, dict], ...] = (
    # input → (label key, format, data validation: the schema's bounds, tco.scenario.owned)
    ("hw", "in_num", "own_in_hw", {"validate": "decimal", "criteria": ">", "value": 0}),
    ("ii", "in_pct", "own_in_ii", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("ipi", "in_pct", "own_in_ipi", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("pis", "in_pct", "own_in_pis", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("cofins", "in_pct", "own_in_cofins", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("icms", "in_pct", "own_in_icms", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 0.99}),
    ("credit", "in_int", "own_in_credit", {"validate": "list", "source": [0, 1]}),
    ("cash", "in_pct", "own_in_cash", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("rate", "in_pct", "own_in_rate", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 2}),
    ("term", "in_int", "own_in_term", {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": 600}),
    ("grace", "in_int", "own_in_grace", {"validate": "integer", "criteria": "between", "minimum": 0, "maximum": 599}),
    ("life", "in_int", "own_in_life", {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": 600}),
    ("ir", "in_pct", "own_in_ir", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("resale", "in_pct", "own_in_resale", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("resale_age", "in_int", "own_in_resale_age",
     {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": 600}),
    ("kw", "in_num", "own_in_kw", {"validate": "decimal", "criteria": ">", "value": 0}),
    ("pue", "in_num", "own_in_pue", {"validate": "decimal", "criteria": "between", "minimum": 1, "maximum": 5}),
    ("tariff", "in_num", "own_in_tariff", {"validate": "decimal", "criteria": ">=", "value": 0}),
    ("colo", "in_brl", "own_in_colo", {"validate": "decimal", "criteria": ">=", "value": 0}),
    ("contract", "in_num", "own_in_contract", {"validate": "decimal", "criteria": ">=", "value": 0}),
    ("refresh", "in_int", "own_in_refresh", {"validate": "integer", "criteria": "between", "minimum": 0,
                                             "maximum": 600}),
    ("xc", "in_int", "own_in_xc", {"validate": "integer", "criteria": "between", "minimum": 0, "maximum": 1000}),
    ("xc_price", "in_brl", "own_in_xc_price", {"validate": "decimal", "criteria": ">=", "value": 0}),
    ("maint", "in_pct", "own_in_maint", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("ins", "in_pct", "own_in_ins", {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": 1}),
    ("staff_h", "in_num", "own_in_staff_h", {"validate": "decimal", "criteria": ">=", "value": 0}),
    ("staff_rate", "in_brl", "own_in_staff_rate", {"validate": "decimal", "criteria": ">=", "value": 0}),
)
"""The owned inputs in the order the Inputs sheet lists them."""

VALIDATION: dict[str, dict] = {}
"""Defined name → data validation of the owned inputs written (read by ``add_validation``)."""


def owned_inputs(book, w, p: str, o) -> None:
    """An owned option's inputs in its column of the Inputs sheet (``option_inputs._Column``)."""
    own = o.resolved.owned
    if own is None:
        return
    t = book.t
    w.add(None, t("own_in_payment"), f"{own.payment} · {own.landed_case} · {own.currency}", "", "lbl_text")
    for k, fmt, label, dv in INPUTS:
        w.add(p + "own_" + k, t(label), own.inputs["o.own_" + k], "", fmt, own.sources.get("own_" + k, ""))
        if dv:
            VALIDATION[p + "own_" + k] = dv


def add_validation(ws, r: int, c: int, name: str | None) -> None:
    """The schema's bounds as Excel data validation on an owned input cell (nothing for other inputs)."""
    dv = VALIDATION.get(name or "")
    if dv is not None:
        ws.data_validation(r, c, r, c, dict(dv, error_title="tco", error_message="outside the scenario schema's bounds"))
