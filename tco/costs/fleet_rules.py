"""The cost rules of one option, declared once: which servers are paid each month, for how many hours,
and the six cost lines in the offer's currency. ``plan`` chooses the rules from what the option is
(shared or separate fleets, cloud or dedicated, autoscaled or committed, with or without training) —
the one place that branches — and ``tco.costs`` evaluates them with numpy while the workbook's calc
sheets write them as formulas (``tco.report.workbook.calc``).

Input names: ``o.<name>`` are the option's own inputs (workbook ``in_o<i>_<name>``: prices, setup fees,
price factors, minimum term, egress tiers), ``c.<name>`` its constants (the calc sheet's column C:
replica capacity, replicas per server, training servers and hours, and the scalars computed below),
other names the scenario's inputs (workbook ``in_<name>``). Rows of the timeline (``t``, ``year``,
``rps_<h>``, ``peak_rps``, ``egress``) and the calc sheet's links (``days``, ``hours``, ``fx``, ``df``)
are given.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field

from tco.constants import BELOW_ONE  # 1e-9: tolerance under a whole replica (named in the workbook)
from tco.domain import LINES
from tco.expr import (
    AND,
    CHOOSE,
    IF,
    INT,
    MAX,
    MIN,
    ROUNDUP,
    SUM,
    Const,
    CountPositive,
    Expr,
    Fill,
    In,
    Month,
    Prev,
    Ratchet,
    Row,
    Rule,
    Scalar,
)
from tco.timeline import HOURS
from tco.costs.owned_rules import OWNED_LINES as _OWNED_LINES
from tco.costs.owned_rules import owned_rules as _owned_rules
from tco.costs.upfront_rules import hourly_price as _hourly_price
from tco.costs.upfront_rules import upfront_cost as _upfront_cost
from tco.costs.upfront_rules import upfront_rules as _upfront_rules


@dataclass(frozen=True)
class Shape:
    """What decides an option's rules."""

    shared: bool
    """One fleet for training and serving (else a training cluster for the burst and a serving fleet)."""
    inference_cloud: bool
    training_cloud: bool | None
    """Kind of the training cluster; None when the option does not train."""
    autoscale: bool
    committed: bool
    """The serving fleet is paid every hour of its term (reservations) and never shrinks."""
    commit_terms: int
    """Inputs of a committed baseline (one committed level per term, the last holding); 0 without one."""
    tiers: tuple[tuple[bool, bool], ...]
    """Egress tiers in order: (bounded above, priced). An unpriced tier adds nothing; the engine refuses
    a workload that reaches it."""
    upfront_term: int = 0
    """Term [months] of a serving commitment paid partly or wholly upfront (the upfront rules); 0 = none."""
    owned: str = ""
    """The servers are bought, not rented (``tco.costs.owned_rules``): the currency of their price ('USD' landed,
    'BRL' quoted); '' = rented."""

    @property
    def training(self) -> bool:
        return self.training_cloud is not None


def replicas(rps: Expr) -> Expr:
    """Replicas for a load [req/s]: ⌈rps / (capacity × utilisation) − 10⁻⁹⌉, at least 1 under any load,
    plus one when N+1 redundancy is on; 0 without load."""
    need = MAX(ROUNDUP(rps / (In("c.cap") * In("utilization")) - BELOW_ONE, 0), 1)
    return IF(rps > 0, need + In("n1"), 0)


def factor(rate: str) -> Expr:
    """A price factor stepping once per contract year: (1 + rate)^y, y = ⌊(t − 1)/12⌋."""
    return (1 + In(rate)) ** Row("year")


def _sizing_rules() -> list[Rule | Scalar]:
    out: list[Rule | Scalar] = [
        Rule("trend", factor("o.trend"), "-", "cloud price factor (1 + yearly trend)^contract year"),
        Rule("index", factor("o.index"), "-", "dedicated price indexation (1 + yearly index)^contract year"),
    ]
    out += [Rule(f"srv_{h}", ROUNDUP(replicas(Row(f"rps_{h}")) / In("c.rps_server"), 0), "servers",
                 f"servers needed at {h:02d}h: ⌈replicas / replicas per server⌉") for h in HOURS]
    out.append(Rule("peak_replicas", replicas(Row("peak_rps")), "replicas", "replicas at the busiest hour"))
    out.append(Rule("peak", MAX(*(Row(f"srv_{h}") for h in HOURS)), "servers", "servers at the busiest hour"))
    return out


def _training_rules(shape: Shape) -> list[Rule | Scalar]:
    if not shape.training:
        return []
    return [
        Rule("train_hours", Fill("train_hours", In("c.wall_hours"), Row("hours"), Month() >= In("train_start")), "h",
             "wall-clock hours of the training job, filling months in order from its start month"),
        Rule("train_servers", IF(Row("train_hours") > 0, In("c.tr_servers"), 0), "servers",
             "training servers in the months the job runs"),
        Scalar("n_train_months", CountPositive("train_hours"), "months", "months the training job runs"),
    ]


def _shared_rules(shape: Shape) -> tuple[list[Rule | Scalar], dict[str, Expr]]:
    """One fleet sized for training and the peak of serving, never released."""
    need = Row("train_servers") + Row("peak") if shape.training else Row("peak")
    unit = (_hourly_price(shape) * Row("hours") * Row("trend") if shape.inference_cloud
            else In("o.inf_price") * Row("index"))
    fleet = Row("fleet")
    out: list[Rule | Scalar] = [
        Rule("need", need, "servers", "training servers + serving servers at the peak hour"),
        Rule("fleet", Ratchet("fleet", Row("need")), "servers", "a shared fleet is never released"),
        Rule("unit", unit, "USD" if shape.inference_cloud else "BRL",
             "cost of one server for the month: price × hours × trend (cloud) or price × index (dedicated)"),
    ]
    lines: dict[str, Expr] = {}
    if shape.training:
        lines["training_compute"] = MIN(fleet, Row("train_servers")) * Row("unit")
        lines["inference_compute"] = fleet * Row("unit") - MIN(fleet, Row("train_servers")) * Row("unit")
    else:
        lines["inference_compute"] = fleet * Row("unit")
    if not shape.inference_cloud:
        lines["setup"] = MAX(fleet - Prev("fleet"), 0) * In("o.setup")
    if shape.upfront_term:  # the upfronts of the shared fleet's commitments, with the serving line
        out[2:2] = _upfront_rules(shape, "fleet")
        lines["inference_compute"] = lines["inference_compute"] + _upfront_cost(shape) * Row("trend")
    out.append(Rule("server_hours", fleet * Row("hours"), "h", "server-hours paid"))
    return out, lines


def _separate_rules(shape: Shape) -> tuple[list[Rule | Scalar], dict[str, Expr]]:
    """A training cluster for the burst, a serving fleet for the horizon."""
    train, serve = _training_cluster(shape), _serving_fleet(shape)
    out = train.rules + serve.rules
    lines = train.lines | serve.lines
    setup, hours = train.setup + serve.setup, train.hours + serve.hours
    if setup:
        lines["setup"] = SUM(*(Row(k) for k in setup)) if len(setup) > 1 else Row(setup[0])
    out.append(Rule("server_hours", Row(hours[0]) + Row(hours[1]) if len(hours) > 1 else Row(hours[0]), "h",
                    "server-hours paid, all fleets"))
    return out, lines


@dataclass
class _Fleet:
    """One fleet's rules, its cost lines, and the keys of its setup-fee and server-hour rows."""

    rules: list[Rule | Scalar] = field(default_factory=list)
    lines: dict[str, Expr] = field(default_factory=dict)
    setup: list[str] = field(default_factory=list)
    hours: list[str] = field(default_factory=list)


def _training_cluster(shape: Shape) -> _Fleet:
    """A separate training cluster: cloud instances for the job's hours, or dedicated servers for their term."""
    start = In("train_start")
    if shape.training_cloud:
        return _Fleet([Rule("tr_hours", Row("train_servers") * Row("train_hours"), "h", "training server-hours")],
                      {"training_compute": Row("train_servers") * Row("train_hours") * In("o.tr_price") * Row("trend")},
                      [], ["tr_hours"])
    if not shape.training:
        return _Fleet()
    return _Fleet([
        Scalar("months_paid", MAX(In("o.tr_min_term"), In("c.n_train_months")), "months",
               "months the training cluster is paid: its minimum term, or the job if longer"),
        Rule("train_paid", IF(AND(In("c.n_train_months") > 0, Month() >= start,
                                  Month() < start + In("c.months_paid")), In("c.tr_servers"), 0), "servers",
             "training servers paid from the start month for the months paid"),
        Rule("train_setup", IF(AND(In("c.n_train_months") > 0, Month().eq(start)),
                               In("c.tr_servers") * In("o.tr_setup"), 0), "BRL",
             "setup fee of every training server, in its first month"),
        Rule("tr_hours", Row("train_paid") * Row("hours"), "h", "training server-hours paid"),
    ], {"training_compute": Row("train_paid") * In("o.tr_price") * Row("index")}, ["train_setup"], ["tr_hours"])


def _serving_fleet(shape: Shape) -> _Fleet:
    """The serving fleet: a committed baseline plus a burst, autoscaled instances, or the peak paid all month
    (never fewer for reserved instances and dedicated servers), with its upfronts or setup fees."""
    if not shape.inference_cloud:
        return _Fleet([Rule("inf_paid", Ratchet("inf_paid", Row("peak")), "servers",
                            "serving servers paid (never fewer for reserved and dedicated)"),
                       Rule("inf_hours", Row("inf_paid") * Row("hours"), "h", "serving server-hours paid"),
                       Rule("inf_setup", MAX(Row("inf_paid") - Prev("inf_paid"), 0) * In("o.setup"), "BRL",
                            "setup fee on every serving server added")],
                      {"inference_compute": Row("inf_paid") * In("o.inf_price") * Row("index")},
                      ["inf_setup"], ["inf_hours"])
    if shape.commit_terms:
        rules = _committed_rules(shape.commit_terms) + _upfront_rules(shape, "commit")
        hourly = Row("commit") * Row("hours") * _hourly_price(shape) + Row("burst_hours") * In("o.burst_price")
    elif shape.autoscale:
        rules = [Rule("inf_paid", Row("peak"), "servers", "serving instances at the peak hour"),
                 Rule("inf_hours", SUM(*(Row(f"srv_{h}") for h in HOURS)) * Row("days"), "h",
                      "autoscaled: the instances of each hour of a day × days")]
        hourly = Row("inf_hours") * _hourly_price(shape)
    else:
        paid = Ratchet("inf_paid", Row("peak")) if shape.committed else Row("peak")
        rules = [Rule("inf_paid", paid, "servers", "serving servers paid (never fewer for reserved and dedicated)"),
                 Rule("inf_hours", Row("inf_paid") * Row("hours"), "h", "serving server-hours paid")]
        rules += _upfront_rules(shape, "inf_paid")
        hourly = Row("inf_hours") * _hourly_price(shape)
    line = (hourly + _upfront_cost(shape) if shape.upfront_term else hourly) * Row("trend")
    return _Fleet(rules, {"inference_compute": line}, [], ["inf_hours"])


def _committed_rules(terms: int) -> list[Rule | Scalar]:
    """A committed baseline plus a burst: k instances every hour of each term at the committed price (k of the term,
    counted from the first serving month, the last level holding) and the hours of the day above k at the burst
    price. The plan search evaluates these rules for every level k at once (``costs.committed_levels``)."""
    t, start = Month(), In("inf_start")
    term = MIN(INT((t - start) / In("o.commit_term")) + 1, terms)
    level = CHOOSE(term, *(In(f"o.commit_{j}") for j in range(1, terms + 1)))
    return [
        Rule("commit", IF(t < start, 0, level), "servers", "committed instances of the month's term"),
        Rule("burst_hours", SUM(*(MAX(Row(f"srv_{h}") - Row("commit"), 0) for h in HOURS)) * Row("days"), "h",
             "instance-hours above the committed level: Σ over the day's hours of max(servers − k, 0) × days"),
        Rule("inf_paid", MAX(Row("commit"), Row("peak")), "servers", "instances paid at the peak hour"),
        Rule("inf_hours", Row("commit") * Row("hours") + Row("burst_hours"), "h",
             "committed hours (k × hours of the month) + burst hours"),
    ]


def _usage_rules(shape: Shape) -> tuple[list[Rule | Scalar], dict[str, Expr]]:
    first_train = IF(In("c.n_train_months") > 0, In("train_start"), In("horizon") + 1) if shape.training \
        else In("horizon") + 1
    out: list[Rule | Scalar] = [
        Scalar("first_use", MIN(first_train, In("inf_start")), "t", "first month data is stored"),
        Rule("stored", IF(Month() >= In("c.first_use"), In("storage_gb"), 0), "GB", "data stored from first use"),
    ]
    tier_rules, egress = egress_rules(shape.tiers)
    out += tier_rules
    return out, {"storage": Row("stored") * In("o.storage"), "egress": egress}


def egress_rules(tiers: tuple[tuple[bool, bool], ...]) -> tuple[list[Rule | Scalar], Expr]:
    """The GB of a month's egress falling in each tier, and the egress line Σ GB_j × price_j [USD].
    Tiers reset every month; a free allowance is a 0-priced first tier; unpriced tiers add nothing."""
    rules, egress = _egress_rules(tuple(tiers))
    return list(rules), egress


@functools.lru_cache(maxsize=64)
def _egress_rules(tiers: tuple[tuple[bool, bool], ...]) -> tuple[tuple[Rule | Scalar, ...], Expr]:
    """The GB of a month's egress falling in each tier, and the egress line Σ GB_j × price_j [USD].
    Tiers reset every month; a free allowance is a 0-priced first tier; unpriced tiers add nothing."""
    out: list[Rule | Scalar] = []
    terms = []
    for j, (bounded, priced) in enumerate(tiers, start=1):
        lo, hi = In(f"o.eg{j}_lo"), In(f"o.eg{j}_hi")
        over = MAX(Row("egress") - lo, 0)
        out.append(Rule(f"eg_{j}", MIN(over, hi - lo) if bounded else over, "GB",
                        f"egress falling in tier {j} (tiers reset every month)"))
        if priced:
            terms.append(Row(f"eg_{j}") * In(f"o.eg{j}_p"))
    egress: Expr = Const(0.0)
    for k, term in enumerate(terms):
        egress = term if k == 0 else egress + term
    return tuple(out), egress


@functools.lru_cache(maxsize=256)
def plan(shape: Shape) -> tuple[Rule | Scalar, ...]:
    """Every rule of one option, in the order they are computed (and shown), ending with the six
    ``l_<line>`` rows in the offer's currency (the taxes line comes from ``tco.costs.taxes``)."""
    rules = _sizing_rules() + _training_rules(shape)
    fleet, lines = (_shared_rules if shape.shared else _separate_rules)(shape)
    usage, usage_lines = _usage_rules(shape)
    rules += fleet + usage
    lines |= usage_lines
    if shape.owned:  # bought servers: the purchase (cash part) and the BRL rest replace the rent and setup fees
        rules += _owned_rules("fleet" if shape.shared else "inf_paid", shape.owned == "USD")
        lines.pop("training_compute", None)
        lines |= {k: Row(v) for k, v in _OWNED_LINES.items()}
    for line in LINES:  # taxes: tco.costs.taxes, after the lines (a dedicated invoice moves its taxes out of them)
        rules.append(Rule(f"l_{line}", lines.get(line, NOT_APPLICABLE), "",
                          f"cost line {line} in the offer's currency" if line in lines
                          else f"cost line {line}: does not apply to this option"))
    return tuple(rules)


NOT_APPLICABLE = Const(0.0)
"""The expression of a cost line an option does not have (the workbook shows it as n/a)."""
