"""The taxes line of one option: which tax rules it has (``tax_plan``) and their evaluation on its cost lines
(``option_taxes``). The rules are ``tco.costs.tax_rules``; rates, methods and regimes ``tco.costs.taxes``; ``tco.costs`` calls
this once its fleet rules have made the other lines."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tco.costs import tax_rules, totals_rules
from tco.costs import taxes as taxmod
from tco.domain import LINES, CostLine, Currency, TaxMethod, record
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
    The rules are ``tco.costs.tax_rules.option_rules``; the rates by month come from the resolution (``opt.tax_rates``,
    the same rate rules evaluated on the calendar months)."""
    plan_ = tax_plan(opt, lines, currency)
    h = len(lines["setup"])
    block = tax_block(opt, plan_, h)
    rows = evaluate(block.rules, block.inputs, h, rows=block.rates | line_rows(plan_, lines))
    brl_credits = None
    if plan_.hybrid_share:
        brl_base = sum((lines[k] for k in plan_.hybrid_netted), np.zeros(h))
        brl_credits = rows["brl_credit_share"] * brl_base
    net_lines(plan_, rows, lines)
    comp = {k: rows["tx_" + k] for k in taxmod.TAXES} | {"credits": rows["tx_credits"]}
    line = rows["l_taxes"]
    share = totals_rules.uplift(rows["tax_base"], line)
    shown = {k: v for k, v in rows.items() if k in {r.key for r in plan_.rules}}
    return line, comp, plan_.currency, share, brl_credits, plan_.rules, shown


@record
class TaxBlock:
    """What one option's tax rules are evaluated with, past the rates (``tax_block``)."""

    rules: tuple
    """The option's tax rules less its rate rows (those are given: ``rates``)."""
    inputs: dict[str, object]
    """The profile's base rates and credit flags (and a hybrid's BRL invoice's, ``o.b_<name>``)."""
    rates: dict[str, np.ndarray]
    """The rate rows in force each month (``rate_<tax>``, a hybrid's ``brate_<tax>``), from the resolution."""


def tax_block(opt: ResolvedOption, plan_: TaxPlan, h: int) -> TaxBlock:
    """The rules, inputs and rate rows of an option's tax block over `h` months."""
    profile = opt.brl_tax if plan_.currency == Currency.BRL else opt.tax
    rates = ((opt.brl_tax_rates if plan_.currency == Currency.BRL else opt.tax_rates)
             or taxmod.rates_by_month(profile, [""] * h))
    given = taxmod.rate_rows(rates)
    inputs = taxmod.profile_inputs(profile, opt.regime)
    if plan_.hybrid_netted or plan_.hybrid_share:
        brates = opt.brl_tax_rates or taxmod.rates_by_month(opt.brl_tax, [""] * h)
        given |= taxmod.rate_rows(brates, "brate_")
        b_inputs = taxmod.profile_inputs(opt.brl_tax, opt.regime, "b_")
        inputs |= {k: v for k, v in b_inputs.items() if k.startswith("o.b_")}
    return TaxBlock(_block_rules(plan_.rules), inputs, given)


@functools.lru_cache(maxsize=256)
def _block_rules(rules: tuple) -> tuple:
    return tuple(r for r in rules if not r.key.startswith(("rate_", "brate_")))


def line_rows(plan_: TaxPlan, lines: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The cost lines as the tax rules read them: ``g_<line>`` a price line before its taxes move out, ``l_<line>``
    a taxed line that stays as it is."""
    given = {"g_" + k: lines[k] for k in plan_.netted + plan_.hybrid_netted}
    return given | {"l_" + k: lines[k] for k in plan_.taxed if k not in plan_.netted}


def net_lines(plan_: TaxPlan, rows: dict[str, np.ndarray], lines: dict[str, np.ndarray]) -> None:
    """Replace in `lines` the price lines the tax rules netted (taxes inside moved out, a hybrid's credit)."""
    for k in plan_.netted + plan_.hybrid_netted:
        lines[k] = rows["l_" + k]


def stacked_taxes(plan_: TaxPlan, blocks: list[TaxBlock], counts: list[int], lines: dict[str, np.ndarray],
                  h: int) -> dict[str, np.ndarray]:
    """The tax rows of many options that share the tax rules `plan_`, in one evaluation: ``blocks[j]`` (``tax_block``
    of an option) stands for ``counts[j]`` consecutive cases, and ``lines[k]`` is (cases, months). Each case's
    inputs become a column (cases, 1) and its rate rows a row of (cases, months): the cases are a leading axis of
    ``tco.expr.evaluate``, so each case's rows are the ones ``option_taxes`` gives that option alone, to the bit."""
    first = blocks[0]
    inputs = {name: np.repeat(np.array([float(b.inputs[name]) for b in blocks]), counts)[:, None]  # type: ignore[arg-type]
              for name in first.inputs}
    rates = {k: np.repeat(np.stack([np.broadcast_to(b.rates[k], (h,)) for b in blocks]), counts, axis=0)
             for k in first.rates}
    return evaluate(first.rules, inputs, h, rows=rates | line_rows(plan_, lines))


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
    return tax_plan_of(opt, tuple(k for k in LINES if k != CostLine.TAXES and np.any(lines[k] != 0)), currency)


def tax_plan_of(opt: ResolvedOption, live: tuple[str, ...], currency: dict[str, str]) -> TaxPlan:
    """The tax rules of an option whose lines `live` (in ``LINES`` order) are not zero throughout. A line counted live
    that is zero changes no amount: it adds 0 to the taxed amount, and a netted zero line stays 0."""
    cloud = currency["training_compute"] == Currency.USD or currency["inference_compute"] == Currency.USD
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
