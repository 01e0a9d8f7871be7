"""The ledger: one long table of every cost, the single truth every output reads.

One row per option × cost line × month: who it is for (role), what bills it (provider, region,
offer, pricing), its amount in the currency it is billed in, the quantity behind it with its unit,
the USD/BRL rate of that month on the base path and the amount in BRL. JSON, CSV, workbook,
proposal, risk and analysis read it through the functions below, so the BRL/USD split, the totals
and the quantities are computed in one place.

Held as one ``Series`` per option and line (arrays over months), which is how the engine and the
Monte Carlo use it; ``rows`` and ``frame`` give the long form. Sums run over lines in ``LINES``
order, the order the engine always used, so every total is bit-for-bit the engine's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

import numpy as np

from tco.domain import LINES, CostLine, Currency, FleetMode, Role, record

if TYPE_CHECKING:
    import pandas as pd

    from tco.costs import OptionCosts
    from tco.resolve import Fleet, ResolvedOption

COLUMNS = ("option", "role", "line", "component", "month", "currency", "amount", "quantity", "unit", "usdbrl",
           "amount_brl", "provider", "region", "offer", "pricing")
"""Columns of the long form, in order."""

UNITS = {"training_compute": "server-hours", "inference_compute": "server-hours", "setup": "",
         "storage": "GB-month", "egress": "GB", "taxes": ""}
"""The unit of each line's quantity ('' where a line has none)."""


@record
class Series:
    """One option's cost line over the months of the horizon."""

    option: str
    line: str
    role: Role
    currency: Currency
    fleet: Fleet
    """The offer that bills this line (for storage, egress and taxes: the serving fleet's provider)."""
    amount: np.ndarray
    """Amount per month in ``currency`` [USD or BRL]."""
    quantity: np.ndarray | None
    """The quantity billed per month, in ``unit`` (server-hours, GB, GB-month), where the line has one."""
    amount_brl: np.ndarray
    """Amount per month converted at the month's rate on the base path [BRL]."""
    components: dict[str, np.ndarray] | None = None
    """For the taxes line: each tax (IRRF, CIDE, ISS, PIS/COFINS, CBS, IBS, IOF) and the credits, per month in
    ``currency``, all positive; the line is Σ taxes − credits (``tco.costs.taxes``)."""

    @property
    def unit(self) -> str:
        return UNITS[self.line]


def _role(line: str, opt: ResolvedOption) -> Role:
    if line == CostLine.TRAINING_COMPUTE:
        return Role.TRAINING
    if line == CostLine.INFERENCE_COMPUTE:
        return Role.INFERENCE
    return Role.SHARED


def _fleet(line: str, opt: ResolvedOption) -> Fleet:
    if line == CostLine.TRAINING_COMPUTE and opt.fleet == FleetMode.SEPARATE and opt.training is not None:
        return opt.training
    return opt.inference


def _quantity(line: str, oc: OptionCosts, storage_gb_months: np.ndarray | None) -> np.ndarray | None:
    if line == CostLine.TRAINING_COMPUTE:
        return oc.training_hours
    if line == CostLine.INFERENCE_COMPUTE:
        return oc.instance_hours - oc.training_hours
    if line == CostLine.EGRESS:
        return oc.egress_gb
    if line == CostLine.STORAGE:
        return storage_gb_months
    return None


def in_brl(amount: np.ndarray, currency: str, fx_path: np.ndarray) -> np.ndarray:
    """A line's amount in BRL: a USD amount times the month's rate on the base path, a BRL amount as it is (× 1.0)
    [BRL]; `amount` may carry leading axes of cases (…, months)."""
    return amount * (fx_path if currency == Currency.USD else 1.0)


def month_total(amounts_brl: Iterable[np.ndarray], months: int) -> np.ndarray:
    """An option's monthly total: its lines in BRL added one after the other, in ``LINES`` order, from zero [BRL].
    Every total of an option (the engine's, the ledger's, the plan search's pairs) is this sum, so they agree to
    the bit."""
    return sum(amounts_brl, np.zeros(months))


def option_series(opt: ResolvedOption, oc: OptionCosts, totals: Mapping[str, np.ndarray],
                  storage_gb_months: np.ndarray | None = None) -> tuple[Series, ...]:
    """The ledger rows of one option: one ``Series`` per cost line, in ``LINES`` order; its BRL amounts are the rows
    ``b_<line>`` of the option's totals rules (``tco.costs.totals_rules.totals``)."""
    out = []
    for line in LINES:
        cur = Currency(oc.currency[line])
        amount = oc.lines[line]
        brl = totals["b_" + line]
        comp = oc.tax_components if line == CostLine.TAXES else None
        if opt.owned is not None and line in (CostLine.SETUP, CostLine.INFERENCE_COMPUTE):  # owning, part by part
            from tco.costs.owned_rules import ledger_parts

            comp = ledger_parts(oc.rows, opt.owned.currency == Currency.USD)[line == CostLine.INFERENCE_COMPUTE]
        out.append(Series(opt.name, line, _role(line, opt), cur, _fleet(line, opt), amount,
                          _quantity(line, oc, storage_gb_months), brl, comp))
    return tuple(out)


@record
class Ledger:
    """Every option's cost lines, month by month, with the base-path rate of each month."""

    months: tuple[str, ...]
    usdbrl: np.ndarray
    """USD/BRL of each month on the deterministic base path."""
    series: tuple[Series, ...]

    def of(self, option: str) -> tuple[Series, ...]:
        """The series of one option, in ``LINES`` order."""
        return tuple(x for x in self.series if x.option == option)

    def line(self, option: str, line: str) -> Series:
        return next(x for x in self.series if x.option == option and x.line == line)

    def lines_brl(self, option: str) -> dict[str, np.ndarray]:
        """Line → monthly amount in BRL for one option."""
        return {x.line: x.amount_brl for x in self.of(option)}

    def total_brl(self, option: str) -> np.ndarray:
        """Monthly total in BRL: the lines added in ``LINES`` order."""
        return month_total((x.amount_brl for x in self.of(option)), len(self.months))

    def by_currency(self, option: str) -> tuple[np.ndarray, np.ndarray]:
        """(BRL part [BRL], USD part [USD]) of an option's monthly costs, each in its own currency:
        what the Monte Carlo multiplies by a rate path."""
        brl = np.zeros(len(self.months))
        usd = np.zeros(len(self.months))
        for x in self.of(option):
            if x.currency == Currency.USD:
                usd += x.amount
            else:
                brl += x.amount
        return brl, usd

    def usd_share_brl(self, option: str) -> float:
        """The part of the option's deterministic TCO billed in USD, converted on the base path [BRL]."""
        return sum(float(x.amount_brl.sum()) for x in self.of(option) if x.currency == Currency.USD)

    def has_usd(self) -> bool:
        """True when any option pays anything in USD."""
        return any(x.currency == Currency.USD and np.any(x.amount) for x in self.series)

    def rows(self) -> Iterator[tuple]:
        """The long form, one tuple per option × month × line (columns ``COLUMNS``), zero amounts left out. The
        taxes line is written one row per component; a credit is a negative amount, as on a bill, so a month's
        rows add up to the line."""
        options = list(dict.fromkeys(x.option for x in self.series))
        for option in options:
            option_series = self.of(option)
            for i, month in enumerate(self.months):
                rate = float(self.usdbrl[i])
                for x in option_series:
                    r = rate if x.currency == Currency.USD else 1.0
                    parts = ([(k, -float(v[i]) if k == "credits" else float(v[i])) for k, v in x.components.items()]
                             if x.components is not None else [("", float(x.amount[i]))])
                    for component, amount in parts:
                        if amount == 0.0:
                            continue
                        qty = None if x.quantity is None else float(x.quantity[i])
                        brl = float(x.amount_brl[i]) if not component else amount * r
                        yield (x.option, str(x.role), x.line, component, month, str(x.currency), amount, qty, x.unit,
                               r, brl, x.fleet.provider, x.fleet.region, x.fleet.offer_id, x.fleet.pricing)

    def frame(self) -> pd.DataFrame:
        """The long form as a pandas DataFrame (for notebooks and ad-hoc analysis)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows()), columns=list(COLUMNS))
