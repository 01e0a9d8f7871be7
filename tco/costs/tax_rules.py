"""The taxes on an option's invoices as rules (``tco.expr``), declared once: the engine evaluates them with numpy
(``tco.costs.taxes``, ``tco.costs.option_taxes``) and the workbook writes each as a row of live formulas in the option's
tax block (``tco.report.workbook.calc``), the cached value from the same evaluation.

Rows, in order (every row is present for every method; a row that does not apply is ``NOT_APPLICABLE``, 0):
  rate_<tax>       the rate in force in the month [-]: the profile's base rate (input ``o.<tax>``), replaced (CBS,
                   IBS) or scaled (PIS/COFINS, ISS) in the months of each reform period j (inputs ``rf<j>_from``,
                   ``rf<j>_until`` as date serials, ``rf<j>_pc``, ``rf<j>_iss``, ``rf<j>_cbs``, ``rf<j>_ibs``)
  gross_up         the gross-up factor [-]: 1/(1 − IRRF) for an import, 1/(1 − PIS/COFINS − ISS) "por dentro"
  tax_inside       share of a tax-inclusive BRL price that is creditable tax moved to the taxes line [-]
  g_<line>         a price line before the taxes inside it are moved out (the fleet rule's own line)
  tax_base         the taxed amount P: the sum of the lines in the taxes' currency [currency]
  tx_<tax>         each tax on P [currency]
  tx_credits       the credits the buyer's regime takes back [currency]
  l_taxes          the taxes line: Σ taxes − credits [currency]
  l_<line>         a price line net of the taxes moved to the block (tax-inclusive invoice, hybrid's credit)

Methods, buyer regimes and their sources: ``tco.costs.taxes``. Not tax advice.
"""

from __future__ import annotations

import functools

import datetime as dt
from collections.abc import Sequence

from tco.domain import TaxMethod
from tco.domain.taxes import TAXES  # the words live in the vocabulary
from tco.expr import AND, IF, MAX, Const, Expr, In, Row, Rule

USES: dict[str, tuple[str, ...]] = {TaxMethod.IMPORT_GROSS_UP: TAXES, TaxMethod.LOCAL_POR_DENTRO: ("iss", "pis_cofins", "cbs", "ibs"),
        TaxMethod.LOCAL_INCLUSIVE: ("pis_cofins", "cbs", "ibs"), TaxMethod.NONE: ()}
"""Method → the taxes (and so the rates) it has."""

CREDITABLE = ("pis_cofins", "cbs", "ibs")
"""Taxes a regime may take back as credits; IRRF, CIDE, ISS and IOF never are."""

REFORM_FIELD = {"pis_cofins": "pc", "iss": "iss", "cbs": "cbs", "ibs": "ibs"}
"""Tax → its field in a reform period; PIS/COFINS and ISS are scaled (a share of the base rate), CBS and IBS
replaced."""

SCALED = ("pis_cofins", "iss")

NOT_APPLICABLE = Const(0.0)
"""The expression of a row a method does not have (the workbook shows it as n/a)."""

OPEN_END = "9999-12"
"""The last month of an open-ended reform period."""

_EPOCH = dt.date(1899, 12, 30)


def month_serial(month: str) -> float:
    """The date serial (days since 1899-12-30, Excel's) of the first day of 'YYYY-MM' [d]."""
    y, m = (int(x) for x in month.split("-"))
    return float((dt.date(y, m, 1) - _EPOCH).days)


def in_period(j: int) -> Expr:
    """1 in the months of reform period j, else 0."""
    return AND(Row("date") >= In(f"rf{j}_from"), Row("date") <= In(f"rf{j}_until"))


def rate_expr(tax: str, periods: int, prefix: str = "") -> Expr:
    """The rate of `tax` in force each month [-]: the base input ``o.<prefix><tax>``, the last reform period that
    holds the month replacing (CBS, IBS) or scaling (PIS/COFINS, ISS) it."""
    base = In(f"o.{prefix}{tax}")
    field = REFORM_FIELD.get(tax)
    if field is None or not periods:
        return base
    chain: Expr = Const(1.0) if tax in SCALED else base
    for j in range(1, periods + 1):  # the last period outermost: it wins where periods overlap
        chain = IF(in_period(j), In(f"rf{j}_{field}"), chain)
    return base * chain if tax in SCALED else chain


def rate_rules(taxes: tuple[str, ...], periods: int, prefix: str = "", key: str = "rate_") -> list[Rule]:
    """One rate row per tax of ``TAXES``; those not in `taxes` do not apply (0)."""
    return list(_rate_rules(tuple(taxes), periods, prefix, key))


@functools.lru_cache(maxsize=128)
def _rate_rules(taxes: tuple[str, ...], periods: int, prefix: str, key: str) -> tuple[Rule, ...]:
    return tuple([Rule(f"{key}{k}", rate_expr(k, periods, prefix) if k in taxes else NOT_APPLICABLE, "-",
                 f"rate of {k} in force in the month" + ("" if k in taxes else ": does not apply"))
            for k in TAXES])


def _factors(method: str, r, v: Expr) -> dict[str, Expr]:
    """Each tax per unit of the taxed amount (rates read through `r`, the gross-up factor `v`), as tco.costs.taxes states."""
    if method == TaxMethod.IMPORT_GROSS_UP:
        return {"irrf": v - 1, "cide": r("cide") * v, "iss": r("iss") * v,
                "pis_cofins": r("pis_cofins") * v * (1 + r("iss")) / (1 - r("pis_cofins")),
                "cbs": r("cbs") * v, "ibs": r("ibs") * v, "iof": r("iof")}
    if method == TaxMethod.LOCAL_POR_DENTRO:
        return {k: r(k) * v for k in USES[TaxMethod.LOCAL_POR_DENTRO]}
    if method == TaxMethod.LOCAL_INCLUSIVE:
        vat = 1 + r("cbs") + r("ibs")
        return {"pis_cofins": r("pis_cofins"), "cbs": r("cbs") / vat, "ibs": r("ibs") / vat}
    if method == TaxMethod.NONE:
        return {}
    raise ValueError(f"unknown tax method {method!r}")


def _gross_up(method: str, r) -> Expr:
    if method == TaxMethod.IMPORT_GROSS_UP:
        return 1 / (1 - r("irrf"))
    if method == TaxMethod.LOCAL_POR_DENTRO:
        return 1 / (1 - r("pis_cofins") - r("iss"))
    return NOT_APPLICABLE


def credit_flag(tax: str, prefix: str = "") -> Expr:
    """1 when the buyer takes `tax` back: its regime's flag ``o.cr_<tax>``, or for PIS/COFINS the profile's own
    ``o.<prefix>credit`` (a lucro real profile)."""
    flag = In(f"o.cr_{tax}")
    return MAX(In(f"o.{prefix}credit"), flag) if tax == "pis_cofins" else flag


def _sum(terms: Sequence[Expr]) -> Expr:
    out: Expr = NOT_APPLICABLE
    for k, x in enumerate(terms):
        out = x if k == 0 else out + x
    return out


def component_rules(method: str, taxed: tuple[str, ...] = ("base",), netted: tuple[str, ...] = ()) -> list[Rule]:
    """The block after the rate rows: gross-up factor, inside share, taxed amount (Σ of the rows `taxed`), each tax,
    the credits, the taxes line, and the lines `netted` (``l_<k>`` = ``g_<k>`` × (1 − inside share))."""
    return list(_component_rules(method, tuple(taxed), tuple(netted)))


@functools.lru_cache(maxsize=128)
def _component_rules(method: str, taxed: tuple[str, ...], netted: tuple[str, ...]) -> tuple[Rule, ...]:
    def r(k: str) -> Expr:
        return Row("rate_" + k)

    uses = USES[method]
    inclusive = method == TaxMethod.LOCAL_INCLUSIVE
    gross_up = _gross_up(method, r)
    fac = _factors(method, r, Row("gross_up"))
    out = [Rule("gross_up", gross_up, "-", "gross-up factor: 1/(1 − IRRF) (import), 1/(1 − PIS/COFINS − ISS) "
                "(taxes inside a local invoice)"),
           Rule("tax_inside", fac["pis_cofins"] + fac["cbs"] + fac["ibs"] if inclusive else NOT_APPLICABLE, "-",
                "share of a tax-inclusive price that is creditable tax: PIS/COFINS + (CBS + IBS)/(1 + CBS + IBS)")]
    out.append(Rule("tax_base", _sum([Row(k) for k in taxed]), "", "taxed amount: the lines in the taxes' currency"))
    out += [Rule("tx_" + k, fac[k] * Row("tax_base") if k in uses else NOT_APPLICABLE, "",
                 f"{k} on the taxed amount" if k in uses else f"{k}: does not apply") for k in TAXES]
    credits = [credit_flag(k) * Row("tx_" + k) for k in CREDITABLE if k in uses]
    out.append(Rule("tx_credits", _sum(credits), "", "credits: each creditable tax the regime takes back"))
    charged = [Row("tx_" + k) for k in TAXES if k in uses]
    out.append(Rule("l_taxes", _sum(charged) - Row("tx_credits") if charged else NOT_APPLICABLE, "",
                    "taxes line: Σ taxes − credits"))
    out += [Rule("l_" + k, Row("g_" + k) * (1 - Row("tax_inside")), "", "price line net of the taxes inside it")
            for k in netted]
    return tuple(out)


def hybrid_rules(method: str, periods: int, netted: tuple[str, ...]) -> list[Rule]:
    """A hybrid's BRL invoice (its taxes line is in USD): its rates (``brate_<tax>``, inputs ``o.b_<tax>``), the
    share of it the regime takes back as credits, and its BRL lines net of that credit."""
    def r(k: str) -> Expr:
        return Row("brate_" + k)

    uses = USES[method]
    v = _gross_up(method, r)
    fac = _factors(method, r, v)
    out = rate_rules(uses, periods, prefix="b_", key="brate_")
    share = _sum([credit_flag(k, "b_") * fac[k] for k in CREDITABLE if k in uses])
    out.append(Rule("brl_credit_share", share, "-", "credit on the BRL invoice as a share of its lines"))
    out += [Rule("l_" + k, Row("g_" + k) * (1 - Row("brl_credit_share")), "", "BRL line net of its credit")
            for k in netted]
    return out


def option_rules(method: str, periods: int, taxed: tuple[str, ...], netted: tuple[str, ...] = (),
                 hybrid: tuple[str, int, tuple[str, ...]] | None = None) -> list[Rule]:
    """Every tax rule of one option, in the order they are shown: its rates, (a hybrid's BRL invoice), the block."""
    return list(_option_rules(method, periods, tuple(taxed), tuple(netted), hybrid))


@functools.lru_cache(maxsize=256)
def _option_rules(method: str, periods: int, taxed: tuple[str, ...], netted: tuple[str, ...],
                  hybrid: tuple[str, int, tuple[str, ...]] | None) -> tuple[Rule, ...]:
    out = rate_rules(USES[method], periods)
    if hybrid is not None:
        out += hybrid_rules(*hybrid)
    return tuple(out + component_rules(method, taxed, netted))
