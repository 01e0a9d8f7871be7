"""The rows of the calculation sheets: which rows every option's sheet has (the union over the options, so a row
means the same on every sheet), and the label, unit and number format of each."""

from __future__ import annotations

from tco.domain import CostLine, Currency
from tco.expr import Rule, Scalar
from tco.costs.tax_rules import NOT_APPLICABLE as TAX_NA
from tco.report.workbook.book import Book, merged
from tco.report.workbook.owned import OWNED_CONSTANTS, OWNED_SHOWN, OWNED_SUMMED


SHOWN: dict[str, tuple[str, str, str]] = {
    # rule key → (label key, unit, number format); hourly rows, egress tiers and lines are shown alike
    "trend": ("trend", "", "calc_num6"), "index": ("index", "", "calc_num6"),
    "peak_replicas": ("peak_replicas", "", "calc_int"), "peak": ("wl_peak_servers", "", "calc_int"),
    "train_hours": ("train_hours", "h", "calc_num"), "train_servers": ("train_servers", "", "calc_int"),
    "need": ("need", "", "calc_int"), "fleet": ("fleet_servers", "", "calc_int"),
    "unit": ("unit_cost", "", "calc_money"), "server_hours": ("server_hours", "h", "calc_int"),
    "tr_hours": ("tr_hours", "h", "calc_num"), "train_paid": ("train_paid", "", "calc_int"),
    "train_setup": ("train_setup", "R$", "calc_brl"), "inf_paid": ("inf_paid", "", "calc_int"),
    "inf_hours": ("inf_hours", "h", "calc_num"), "inf_setup": ("inf_setup", "R$", "calc_brl"),
    "stored": ("stored_gb", "GB", "calc_int"),
    "commit": ("committed", "", "calc_int"), "burst_hours": ("burst_hours", "h", "calc_num"),
    "new_inst": ("new_inst", "", "calc_int"), "upfronts": ("upfronts", "", "calc_int"),
}
CONSTANTS = {
    # constant → (label key, unit, number format)
    "cap": ("cap", "req/s", "calc_num4"), "rps_server": ("rps_server", "", "calc_num"),
    "tr_servers": ("tr_servers", "", "calc_int"), "wall_hours": ("wall_hours", "h", "calc_num"),
    "n_train_months": ("n_train_months", "", "calc_int"), "months_paid": ("months_paid", "", "calc_int"),
    "first_use": ("first_use", "t", "calc_int"), "uplift": ("uplift", "", "calc_pct"),
    "hourly_part": ("hourly_part", "US$/h", "calc_num4"),
}
SUMMED = {"train_hours", "server_hours"}
"""Rows with a whole-horizon total in column C."""
SHOWN |= OWNED_SHOWN  # an owned option's rows (tco.costs.owned_rules)
CONSTANTS |= OWNED_CONSTANTS
SUMMED |= OWNED_SUMMED


def shown(rule: Rule, t, currency: str) -> tuple[str, str, str, str | None]:
    """(label, unit, format, total) of one rule's row."""
    key = rule.key
    if key.startswith("srv_"):
        return t("srv_hour", h=int(key[4:])), "", "calc_int", None
    if key.startswith("eg_"):
        return t("egress_in_tier", j=int(key[3:])), "GB", "calc_num", None
    if key.startswith("l_"):
        return t("line_" + key[2:]), currency, "calc_usd" if currency == Currency.USD else "calc_brl", "sum"
    label, unit, fmt = SHOWN[key]
    if fmt == "calc_money":
        unit, fmt = currency, "calc_usd" if currency == Currency.USD else "calc_brl"
    return t(label), unit, fmt, "sum" if key in SUMMED else None


TAX_NA_RULE = Rule("", TAX_NA, "", "does not apply")


def consts_of(o) -> list[str]:
    """An option's constants (column C): sizing links, the scalars of its rules, the tax uplift."""
    oc = o.costs
    out = [k for k in ("cap", "rps_server", "tr_servers", "wall_hours") if f"c.{k}" in oc.inputs]
    return out + [r.key for r in oc.rules if isinstance(r, Scalar)] + ["uplift"]


def block_of(o) -> list[tuple[str, Rule]]:
    """The rows of an option's tax block: its gross price lines (the fleet rules' lines), then its tax rules."""
    oc = o.costs
    t_lines = {x.key for x in oc.tax_rules if x.key.startswith("l_")}
    fleet = [x for x in oc.rules if isinstance(x, Rule) and x.key.startswith("l_") and x.key in t_lines
             and x.key != "l_taxes"]
    return [("g_" + x.key[2:], x) for x in fleet] + [(x.key, x) for x in oc.tax_rules if not x.key.startswith("l_")]


def layout(book: Book, res) -> dict:
    """Rows shared by every option's sheet: constants, rules, tax block (each the union over the options, in
    order), and a rule of each key for its label."""
    if "calc_layout" not in book.outputs:
        bodies = [[x.key for x in o.costs.rules if isinstance(x, Rule) and not x.key.startswith("l_")]
                  for o in res.options]
        ref = {x.key: x for o in reversed(res.options) for x in o.costs.rules if isinstance(x, Rule)}
        book.outputs["calc_layout"] = {"consts": merged([consts_of(o) for o in res.options]), "body": merged(bodies),
                                       "block": merged([[k for k, _ in block_of(o)] for o in res.options]),
                                       "ref": ref}
    return book.outputs["calc_layout"]


def tax_shown(key: str, t, book: Book, cur: dict) -> tuple[str, str, str]:
    """(label, unit, format) of a row of the tax block."""
    money = "calc_usd" if cur[CostLine.TAXES] == Currency.USD else "calc_brl"
    if key.startswith("g_"):
        k = key[2:]
        money = "calc_usd" if cur[k] == Currency.USD else "calc_brl"
        return t("line_" + k) + " — " + t("gross_of_taxes"), cur[k], money
    if key.startswith(("rate_", "brate_")):
        tax = key.split("_", 1)[1]
        label = t("rate_of", tax=book.term("col", tax + "_rate"))
        return (label + " — " + t("brl_invoice") if key.startswith("b") else label), "", "calc_pct"
    if key.startswith("tx_"):
        k = key[3:]
        return (t("credits") if k == "credits" else book.term("col", k + "_rate")), cur[CostLine.TAXES], money
    if key == "gross_up":
        return t("tax_gross_up"), "", "calc_num6"
    if key in ("tax_inside", "brl_credit_share"):
        return t(key), "", "calc_pct"
    return t(key), cur[CostLine.TAXES], money  # tax_base
