"""Resolve an option's ``[options.owned]`` table against the catalog: the server's price and import taxes (the landed
catalog's case for the serving offer), the payment (cash or a financing line of owned.csv), depreciation, resale,
power, colocation and upkeep, each as a rule input (``o.own_*``, ``tco.costs.owned_rules``) with its source.

Problems are reported with the scenario's file, line and key path (exit 2): a financing term longer than the horizon
without a balloon, a grace as long as the term, an unknown financing line, a server with no landed-cost rows and no
quoted price, an owned fleet that would train on rented servers. A residual outside [0, 1] or a useful life of zero
are schema errors (``tco.scenario.owned``); a fleet drawing more than the contracted kW is found after sizing
(``contract_problem``).
"""

from __future__ import annotations

import csv

from tco.catalog.landed import CASES, DATA as LANDED
from tco.catalog.owned import Figure, financing_lines, load_owned
from tco.domain import FleetKind, FleetMode, TaxRegime, TrainingMethod, record
from tco.errors import Problem, closest

LANDED_TAXES = {"ii": "ii_rate", "ipi": "ipi_rate", "pis": "pis_import_rate", "cofins": "cofins_import_rate",
                "icms": "icms_rate"}
"""Rule input (own_<k>) → landed catalog component and ``[options.owned]`` key."""

DEFAULTS = {"life": "useful_life_months", "resale": "resale_share", "resale_age": "resale_age_months", "pue": "pue",
            "tariff": "power_brl_per_mwh", "colo": "colocation_brl_per_kw_month",
            "xc_price": "cross_connect_brl_per_month", "maint": "maintenance_share_per_year",
            "ins": "insurance_share_per_year", "staff_h": "staff_hours_per_month", "staff_rate": "staff_brl_per_hour"}
"""Rule input (own_<k>) → owned.csv key and ``[options.owned]`` key."""


@record
class OwnedTerms:
    """An owned option's rule inputs and where each came from."""

    inputs: dict[str, float]
    """``o.own_<k>`` → value."""
    sources: dict[str, str]
    """``own_<k>`` → 'source (as of) [status]', or 'scenario' for a value the scenario gave."""
    currency: str
    """Currency of the purchase price: 'USD' (a landed server) or 'BRL' (a quoted price)."""
    payment: str
    landed_case: str


def landed_rows(offer_id: str, case: str) -> dict[str, tuple[float, str]]:
    """component → (value, 'source (as of) [status]') of one offer and case of dedicated_landed.csv (offer rows over
    the ``*`` rows); empty when the offer has no rows of its own."""
    common: dict[str, tuple[float, str]] = {}
    own: dict[str, tuple[float, str]] = {}
    with LANDED.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["offer_id"] in ("*", offer_id):
                target = common if row["offer_id"] == "*" else own
                target[row["component"]] = (float(row[case]), f"{row['source']} ({row['as_of']}) [{row['status']}]")
    return {**common, **own} if own else {}


def _cite(f: Figure) -> str:
    return f"{f.source} ({f.as_of}) [{f.status}]"


def resolve_owned(s, o, i: int, serve, problems: list[Problem], file: str, line) -> OwnedTerms | None:
    """The owned terms of option i (None, with problems added, when they cannot be resolved)."""
    w, key = o.owned, f"options[{i}].owned"
    n0 = len(problems)

    def bad(k: str, msg: str) -> None:
        problems.append(Problem(file, f"{key}.{k}" if k else key, msg, line("options", i, "owned", k) if k
                                else line("options", i, "owned")))

    if serve.kind != FleetKind.DEDICATED:
        bad("", f"an owned option buys the servers of a dedicated offer (br-dedicated/…), not {serve.offer_id!r}")
        return None
    if s.training.method != TrainingMethod.NONE and o.fleet != FleetMode.SHARED:
        bad("", "an owned option trains on the servers it buys: set fleet = 'shared' (a rented training cluster "
                "beside bought servers is not modelled)")
    if o.taxes not in (None, "none"):
        bad("", "an owned option's import taxes are in its landed cost: remove options.taxes")
    rows = landed_rows(serve.offer_id, w.landed_case) if w.landed_case in CASES else {}
    if not rows and (w.price_brl is None or w.server_kw is None):
        bad("price_brl", f"no landed-cost rows for {serve.offer_id!r} in dedicated_landed.csv: give price_brl "
                         "(a quoted BRL price per server) and server_kw")
        return None
    figs = load_owned()
    inputs: dict[str, float] = {}
    src: dict[str, str] = {}

    def put(k: str, given, default: float, cite: str) -> None:
        inputs["o.own_" + k] = float(given) if given is not None else float(default)
        src["own_" + k] = "scenario" if given is not None else cite

    real = s.scenario.tax_regime == TaxRegime.LUCRO_REAL
    if w.price_brl is not None:
        put("hw", w.price_brl, 0.0, "")
        for k in (*LANDED_TAXES, "credit"):
            inputs["o.own_" + k], src["own_" + k] = 0.0, "price_brl: taxes in the quoted price"
    else:
        gpus = serve.gpus_per_server
        hw = gpus * rows["gpu_usd"][0] + rows["system_usd"][0]
        cite = f"{gpus} × gpu_usd + system_usd: {rows['system_usd'][1]}"
        put("hw", None if w.hardware_usd is None else w.hardware_usd * (1 + w.freight_insurance_share),
            hw * (1 + w.freight_insurance_share), cite)
        zero = {"ii"} if rows["ex_tarifario"][0] else set()
        zero |= set(LANDED_TAXES) - {"icms"} if rows["redata"][0] else set()
        for k, comp in LANDED_TAXES.items():
            put(k, getattr(w, comp), 0.0 if k in zero else rows[comp][0], rows[comp][1])
        credit = rows["pis_cofins_creditable"][0] if real else 0.0
        inputs["o.own_credit"] = credit
        src["own_credit"] = rows["pis_cofins_creditable"][1] + f"; regime {s.scenario.tax_regime}"
    _payment(s, w, figs, inputs, src, bad)
    ir = figs["income_tax_rate"]
    put("ir", w.income_tax_rate, ir.value if real else 0.0, _cite(ir) + f"; regime {s.scenario.tax_regime}")
    for k, name in DEFAULTS.items():
        put(k, getattr(w, name), figs[name].value, _cite(figs[name]))
    put("kw", w.server_kw, rows["server_kw"][0] if rows else 0.0, rows["server_kw"][1] if rows else "")
    put("contract", w.contracted_kw, 0.0, "the fleet's draw each month (no contracted kW given)")
    put("xc", w.cross_connects, 0.0, "")
    put("refresh", w.refresh_months, 0.0, "no refresh: kept to the horizon")
    if w.useful_life_months is None and figs["useful_life_months"].value < 1:
        bad("useful_life_months", "a useful life of zero months")
    if len(problems) > n0:
        return None
    return OwnedTerms(inputs, src, "BRL" if w.price_brl is not None else "USD", w.payment, w.landed_case)


LOAN_KEYS = ("down_payment_share", "financing_rate", "financing_months", "grace_months", "balloon")
"""The [options.owned] keys of a financed purchase (an error with payment = 'cash')."""


def _payment(s, w, figs: dict[str, Figure], inputs: dict[str, float], src: dict[str, str], bad) -> None:
    """Cash, or a financing line with the scenario's overrides; a term past the horizon needs a balloon."""
    if w.payment == "cash":
        loan = [k for k in LOAN_KEYS if k in w.model_fields_set]
        if loan:  # set for a loan that cash does not take: the numbers would silently be the cash purchase's
            bad(loan[0], f"{', '.join(loan)} {'is' if len(loan) == 1 else 'are'} terms of a loan, but payment = "
                         "'cash': name a financing line (payment = 'bndes_finame', 'bank_capex') or remove them")
        inputs |= {"o.own_cash": 1.0, "o.own_rate": 0.0, "o.own_term": 1.0, "o.own_grace": 0.0}
        src |= {"own_cash": "payment = 'cash'", "own_rate": "cash", "own_term": "cash", "own_grace": "cash"}
        return
    lines = financing_lines(figs)
    if w.payment not in lines:
        bad("payment", f"unknown payment {w.payment!r}; {closest(w.payment, ['cash', *lines])}")
        return
    fin = {k: figs[f"financing.{w.payment}.{k}"] for k in ("rate", "months", "grace_months")}
    term = w.financing_months if w.financing_months is not None else int(fin["months"].value)
    grace = w.grace_months if w.grace_months is not None else int(fin["grace_months"].value)
    rate = w.financing_rate if w.financing_rate is not None else fin["rate"].value
    inputs |= {"o.own_cash": w.down_payment_share, "o.own_rate": rate, "o.own_term": float(term),
               "o.own_grace": float(grace)}
    src |= {"own_cash": "scenario" if "down_payment_share" in w.model_fields_set else "no down payment",
            "own_rate": "scenario" if w.financing_rate is not None else _cite(fin["rate"]),
            "own_term": "scenario" if w.financing_months is not None else _cite(fin["months"]),
            "own_grace": "scenario" if w.grace_months is not None else _cite(fin["grace_months"])}
    if grace >= term:
        bad("grace_months", f"a grace of {grace} months leaves no instalment in a {term}-month loan: make it shorter "
                            "than financing_months")
    horizon = s.scenario.horizon_months
    if term > horizon and not w.balloon and w.down_payment_share < 1.0:  # all paid down: nothing is borrowed
        where = "financing_months" if w.financing_months is not None else "payment"
        bad(where, f"the loan runs {term} months, longer than the horizon ({horizon} months): set balloon = true to "
                   "pay the balance off in the last month, or a shorter financing_months")


def contract_problem(opt, rows: dict, file: str, lines: dict | None) -> Problem | None:
    """The fleet draws more power than the colocation contract (contracted_kw) in some month."""
    own = opt.owned
    contract, kw = own.inputs["o.own_contract"], own.inputs["o.own_kw"]
    held = rows["fleet"] if "fleet" in rows else rows["inf_paid"]
    peak = float(held.max()) * kw
    if contract <= 0 or peak <= contract + 1e-9:
        return None
    path = ("options", opt.index, "owned", "contracted_kw")
    return Problem(file, f"options[{opt.index}].owned.contracted_kw",
                   f"the fleet draws {peak:,.1f} kW at its peak ({held.max():.0f} servers × {kw:g} kW), above the "
                   f"{contract:,.1f} kW contracted: contract more, or leave contracted_kw out to pay the fleet's draw",
                   (lines or {}).get(path) or (lines or {}).get(path[:3]))


def owned_notices(opt, rows: dict) -> list:
    """What a reader of an owned option must know: the server's price is the landed catalog's estimate (not a quote);
    the income-tax shield counts for the owned option only (rented options are costed before income tax)."""
    from tco.domain import Notice

    own = opt.owned
    out = []
    if own.sources.get("own_hw", "scenario") != "scenario" and own.currency == "USD":
        out.append(Notice("owned_price_estimate", opt.name, {"offer": opt.inference.offer_id}))
    saved = float(rows["own_shield"].sum() - rows["own_gain_tax"].sum())
    if own.inputs["o.own_ir"] > 0:
        out.append(Notice("owned_shield", opt.name, {"rate": own.inputs["o.own_ir"], "amount": saved}))
    return out
