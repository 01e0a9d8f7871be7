"""The taxes line of one option: which tax rules it has (``tax_plan``) and their evaluation on its cost lines
(``option_taxes``). The rules are ``tco.tax_rules``; rates, methods and regimes ``tco.taxes``; ``tco.costs`` calls
this once its fleet rules have made the other lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tco import tax_rules
from tco import taxes as taxmod
from tco.domain import LINES, CostLine, Currency, TaxMethod
from tco.expr import evaluate

if TYPE_CHECKING:
    from tco.resolve import ResolvedOption


def option_taxes(opt: ResolvedOption, lines: dict[str, np.ndarray], currency: dict[str, str]
                 ) -> tuple[np.ndarray, dict[str, np.ndarray], str, float, np.ndarray | None, tuple, dict]:
    """The taxes line of an option, its components, its currency, the net share of the taxed amount, the credit
    netted from a hybrid option's BRL lines (None if none), and the tax rules with the rows they gave.

    An option with a cloud fleet taxes its USD lines with its profile (`opt.tax`). An all-BRL option
    takes its invoice's profile (`opt.brl_tax`): the creditable taxes inside its BRL prices move from
    the BRL lines (changed in place, to the price net of them) to the taxes line, with their credit.
    The rules are ``tco.tax_rules.option_rules``; the rates by month come from the resolution (``opt.tax_rates``,
    the same rate rules evaluated on the calendar months)."""
    plan_ = tax_plan(opt, lines, currency)
    h = len(lines["setup"])
    profile = opt.brl_tax if plan_.currency == Currency.BRL else opt.tax
    rates = ((opt.brl_tax_rates if plan_.currency == Currency.BRL else opt.tax_rates)
             or taxmod.rates_by_month(profile, [""] * h))
    given = taxmod.rate_rows(rates) | {"g_" + k: lines[k] for k in plan_.netted + plan_.hybrid_netted}
    given |= {"l_" + k: lines[k] for k in plan_.taxed if k not in plan_.netted}
    inputs = taxmod.profile_inputs(profile, opt.regime)
    block = [r for r in plan_.rules if not r.key.startswith(("rate_", "brate_"))]
    if plan_.hybrid_netted or plan_.hybrid_share:
        brates = opt.brl_tax_rates or taxmod.rates_by_month(opt.brl_tax, [""] * h)
        given |= taxmod.rate_rows(brates, "brate_")
        b_inputs = taxmod.profile_inputs(opt.brl_tax, opt.regime, "b_")
        inputs |= {k: v for k, v in b_inputs.items() if k.startswith("o.b_")}
        block = [r for r in block if not r.key.startswith("brate_")]
    rows = evaluate(block, inputs, h, rows=given)
    brl_credits = None
    if plan_.hybrid_share:
        brl_base = sum((lines[k] for k in plan_.hybrid_netted), np.zeros(h))
        brl_credits = rows["brl_credit_share"] * brl_base
    for k in plan_.netted + plan_.hybrid_netted:
        lines[k] = rows["l_" + k]
    comp = {k: rows["tx_" + k] for k in taxmod.TAXES} | {"credits": rows["tx_credits"]}
    line = rows["l_taxes"]
    taxed = float(np.sum(rows["tax_base"]))
    share = float(line.sum()) / taxed if taxed > 0 else 0.0
    shown = {k: v for k, v in rows.items() if k in {r.key for r in plan_.rules}}
    return line, comp, plan_.currency, share, brl_credits, plan_.rules, shown


@dataclass(frozen=True)
class TaxPlan:
    """Which tax rules an option has (``tax_rules.option_rules``) and on which lines."""

    currency: str
    taxed: tuple[str, ...]
    """Lines in the taxes' currency that make the taxed amount."""
    netted: tuple[str, ...]
    """BRL price lines with their taxes inside, moved out to the block (an all-BRL option)."""
    hybrid_netted: tuple[str, ...]
    """A hybrid's BRL lines, net of the credit on their invoice."""
    hybrid_share: bool
    rules: tuple


def tax_plan(opt: ResolvedOption, lines: dict[str, np.ndarray], currency: dict[str, str]) -> TaxPlan:
    """The tax rules of an option: taxed lines are those of the taxes' currency that are not zero throughout (a line
    that does not apply adds nothing)."""
    cloud = currency["training_compute"] == Currency.USD or currency["inference_compute"] == Currency.USD
    live = [k for k in LINES if k != CostLine.TAXES and np.any(lines[k] != 0)]
    brl_keys = tuple(k for k in live if currency[k] == Currency.BRL)
    if cloud or opt.brl_tax is None:
        cur, profile = "USD", opt.tax
        taxed = tuple(k for k in live if currency[k] == Currency.USD)
        netted: tuple[str, ...] = ()
        hybrid = opt.brl_tax is not None and opt.brl_tax.method != TaxMethod.NONE and bool(brl_keys)
    else:
        cur, profile, taxed = "BRL", opt.brl_tax, brl_keys
        netted = brl_keys if profile.method == TaxMethod.LOCAL_INCLUSIVE else ()
        hybrid = False
    assert profile is not None
    periods = len(opt.tax_periods) if profile.method != TaxMethod.NONE and profile.reform else 0
    h_rules = None
    if hybrid:
        bt = opt.brl_tax
        assert bt is not None
        h_rules = (bt.method, len(opt.tax_periods) if bt.reform else 0, brl_keys)
    rules = tax_rules.option_rules(profile.method, periods, tuple(("g_" if k in netted else "l_") + k for k in taxed),
                                   netted, h_rules)
    return TaxPlan(cur, taxed, netted, brl_keys if hybrid else (), hybrid, tuple(rules))
