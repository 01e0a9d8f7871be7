"""Decision figures read from one run's results, without re-running the engine: the USD/BRL break-even of each
cloud option (exact: TCO is linear in the spot), payback months, where the dedicated–cloud difference comes from,
and what hedging the USD at the forward would cost. ``tco.analysis`` adds the figures that re-run the engine.
"""

from __future__ import annotations

import numpy as np

from tco import finance
from tco.costs import finance_rules
from tco.domain import FleetKind
from tco.engine import Results, rankable
from tco.findings import Decomposition, EgressClaim, FxBreakeven, HedgeRow, Hedging, Payback

EGRESS_CLAIM_RANGE = (0.20, 0.40)
"""The claim checked: having no egress fee cuts total cost by 20–40 %."""


def _split(res: Results, o) -> tuple[float, float]:
    """(BRL part, USD part converted on the base path) of an option's TCO, from the ledger."""
    usd = res.ledger.usd_share_brl(o.name)
    return o.tco.deterministic - usd, usd


MIN_MULTIPLE = 0.001
"""Smallest multiple counted as a break-even: below it two options differ only by rounding in what the prices
leave (two offers with the same non-price costs "tie" at a price of zero), which is no break-even at all."""


def tie_multiple(tco_lead: float, part_lead: float, tco_j: float, part_j: float) -> float | None:
    """Multiple m at which option j ties the leader when the parts move with m: TCO + (m − 1)·part (the rule
    ``tco.costs.finance_rules.CLOUD_MULTIPLE``, which the workbook's Finance sheet writes).

    >>> tie_multiple(100.0, 20.0, 130.0, 80.0)   # 100 + 20(m − 1) = 130 + 80(m − 1) → m = 1 − 30/60
    0.5
    """
    return finance_rules.tie_multiple(tco_lead, part_lead, tco_j, part_j, MIN_MULTIPLE)


def fx_multiple(brl_lead: float, usd_lead: float, brl_j: float, usd_j: float) -> float | None:
    """Multiple k of the USD/BRL path at which option j ties the leader: BRL + k·USD on both sides (the rule
    ``tco.costs.finance_rules.FX_MULTIPLE``, which the workbook's Finance sheet writes).

    >>> fx_multiple(90.0, 10.0, 20.0, 100.0)     # 90 + 10k = 20 + 100k → k = 70/90
    0.7777777777777778
    """
    return finance_rules.fx_multiple(brl_lead, usd_lead, brl_j, usd_j, MIN_MULTIPLE)


def nearest(values: list[float | None]) -> tuple[float | None, float | None]:
    """(largest multiple below 1, smallest above 1): where the leader changes moving down, and up."""
    below = [v for v in values if v is not None and v < 1]
    above = [v for v in values if v is not None and v > 1]
    return (max(below) if below else None), (min(above) if above else None)


def fx_breakevens(res: Results) -> list[FxBreakeven]:
    """USD/BRL spot at which each other feasible option costs the same as the leader (the feasible option of lowest
    TCO), the whole base path scaled with it (as a spot moves the spot and forward paths; the Focus or a listed path
    × the same factor): spot × k*, k* = ``fx_multiple`` of the two options' BRL and USD parts. The workbook's Finance
    sheet computes the same k* against the same leader in live formulas, so the JSON, the workbook and the proposal
    show one break-even."""
    opts = rankable(res.options)
    if len(opts) < 2:
        return []
    lead = min(opts, key=lambda o: o.tco.deterministic)
    bl, ul = _split(res, lead)
    s0 = res.scenario.fx.usdbrl
    out = []
    for o in opts:
        if o is lead:
            continue
        b, u = _split(res, o)
        k = fx_multiple(bl, ul, b, u)
        out.append(FxBreakeven(option=o.name, versus=lead.name, usdbrl=s0 * k if k is not None else None,
                               note=None if k is not None else "no positive exchange rate equalises the two"))
    return out


def paybacks(res: Results) -> list[Payback]:
    """Month in which each option with upfront costs (setup fees, minimum terms) has paid for itself
    against the cheapest cloud option."""
    c = res.cheapest(FleetKind.CLOUD)
    if c is None:
        return []
    out = []
    for o in rankable(res.options):
        if o is c or not o.lines_brl["setup"].any() and o.kind == FleetKind.CLOUD:
            continue
        out.append(Payback(option=o.name, versus=c.name, payback_month=finance.payback_month(c.total_brl - o.total_brl)))
    return out


def decomposition(res: Results) -> Decomposition | None:
    """Where the difference between the cheapest dedicated and the cheapest cloud option comes from."""
    d, c = res.cheapest(FleetKind.DEDICATED), res.cheapest(FleetKind.CLOUD)
    if d is None or c is None:
        return None
    tot_c = c.tco.deterministic
    parts = {
        "compute": float((c.lines_brl["training_compute"] + c.lines_brl["inference_compute"]).sum()
                         - (d.lines_brl["training_compute"] + d.lines_brl["inference_compute"]).sum()),
        "setup": float(c.lines_brl["setup"].sum() - d.lines_brl["setup"].sum()),
        "storage": float(c.lines_brl["storage"].sum() - d.lines_brl["storage"].sum()),
        "egress": float(c.lines_brl["egress"].sum() - d.lines_brl["egress"].sum()),
        "taxes": float(c.lines_brl["taxes"].sum() - d.lines_brl["taxes"].sum()),
    }
    total = c.tco.deterministic - d.tco.deterministic
    uplift = c.costs.tax_uplift
    egress_all_in = float(c.lines_brl["egress"].sum()) * (1.0 + uplift)
    share = egress_all_in / tot_c if tot_c else 0.0
    lo, hi = EGRESS_CLAIM_RANGE
    verdict = "inside" if lo <= share <= hi else "below" if share < lo else "above"
    premium_c = c.tco.p95 - c.tco.p50
    premium_d = d.tco.p95 - d.tco.p50
    return Decomposition(
        dedicated=d.name, cloud=c.name, difference_brl=total,
        parts_brl=parts, parts_share_of_cloud_tco={k: (v / tot_c if tot_c else None) for k, v in parts.items()},
        check_sum_brl=sum(parts.values()),
        fx_risk_premium_brl=premium_c - premium_d,
        fx_risk_premium_note="P95 − P50 of the cloud TCO minus the same for the dedicated option; "
                             "not part of the deterministic difference",
        egress_share_of_cloud_tco=share,
        egress_claim=EgressClaim(range=EGRESS_CLAIM_RANGE, verdict=verdict,
                                 statement=f"Egress (with its taxes) is {share:.1%} of the cloud option's TCO: "
                                           f"{verdict} the 20–40 % range claimed for having no egress fee."),
    )


def hedging(res: Results) -> Hedging:
    """What locking the USD costs at the interest-parity forward curve would cost, per option.

    F_m = S0·((1 + i_BRL)/(1 + i_USD))^(m/12) is the cost of hedging each month's USD payment
    (covered interest parity: the forward is a hedging price, not a forecast). Hedged TCO =
    BRL part + Σ_m USD_m·F_m, with the USD part taken from the ledger (taxes included)."""
    s = res.scenario
    h = len(res.months)
    from tco.timeline import fx_path

    fwd = fx_path(s.fx.model_copy(update={"model": "parity"}), h)
    rows = []
    for o in res.options:
        _, usd = res.ledger.by_currency(o.name)
        brl_part, _ = _split(res, o)
        hedged = brl_part + float(np.asarray(usd) @ fwd)
        rows.append(HedgeRow(option=o.name, hedged_tco_brl=hedged, unhedged_p95_brl=o.tco.p95,
                             hedge_cost_vs_deterministic_brl=hedged - o.tco.deterministic))
    return Hedging(forward_first=float(fwd[0]), forward_last=float(fwd[-1]), brl_rate=s.fx.brl_rate,
                   usd_rate=s.fx.usd_rate, options=tuple(rows),
                   note="USD costs locked at the interest-parity forward of each month (the cost of hedging)")
