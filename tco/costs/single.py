"""One rule of ``tco.costs.fleet_rules`` at a time, evaluated on plain values: tiered egress, the net tax share, the yearly
price factor, a job's hours filling months, the ratchet, and the replicas and servers needed at each hour of the
day. For the tests, the plan search's checks and the analysis; ``tco.costs`` evaluates an option's whole plan."""

from __future__ import annotations

import functools

import numpy as np

from tco.costs import taxes as taxmod
from tco.catalog import EgressTable, TaxProfile
from tco.domain import Redundancy
from tco.expr import ROUNDUP, Fill, In, Month, Ratchet, Row, Rule, evaluate
from tco.costs.fleet_rules import egress_rules, factor, replicas
from tco.sizing import ReplicaSize


def egress_cost_usd(gb: np.ndarray | float, table: EgressTable) -> np.ndarray:
    """Tiered egress [USD] for a month's volume [GB]: Σ over tiers of price × GB falling in the tier
    (``fleet_rules.egress_rules``). Continuous and piecewise linear in the volume."""
    scalar = np.ndim(gb) == 0
    gb = np.atleast_1d(np.asarray(gb, dtype=float))
    tiers = tuple((hi is not None, price is not None) for _, hi, price in table.tiers)
    rules, expr = egress_rules(tiers)
    inputs: dict[str, object] = {}
    for j, (lo, hi, price) in enumerate(table.tiers, start=1):
        inputs |= {f"o.eg{j}_lo": lo, f"o.eg{j}_hi": hi, f"o.eg{j}_p": price}
    rows = evaluate((*rules, Rule("cost", expr, "USD", "egress")), inputs, len(gb), rows={"egress": gb})
    check_priced(rows, table)
    return rows["cost"][0] if scalar else rows["cost"]


def check_priced(rows: dict[str, np.ndarray], table: EgressTable) -> None:
    for j, (lo, _, price) in enumerate(table.tiers, start=1):
        if price is None and np.any(rows[f"eg_{j}"] > 0):
            raise UnverifiedPriceError(f"egress table {table.egress_id!r} has no verified price above {lo:g} GB "
                                       f"and this workload reaches it")


def tax_uplift(profile: TaxProfile, regime: str | None = None) -> float:
    """Net taxes as a share of the taxed price P at the profile's base rates [-] (tco.costs.taxes.uplift).

    import_gross_up (the payer bears the IRRF, Lei 9.779/1999 art. 7): V = P/(1 − IRRF); IRRF = V − P; CIDE = cide·V; ISS = iss·V;
        PIS/COFINS-import = pc·V·(1 + iss)/(1 − pc); IOF = iof·P; uplift = Σ/P − credits/P
    local_por_dentro: uplift = 1/(1 − pc − iss) − 1 (before credits); none: 0
    """
    return taxmod.uplift(profile, regime)


def yearly_factor(months: np.ndarray, annual_rate: float) -> np.ndarray:
    """Price factor stepping once per contract year: (1 + rate)^⌊(m − 1)/12⌋ (``fleet_rules.factor``)."""
    t = np.asarray(months, dtype=float)
    return evaluate(_FACTOR, {"rate": annual_rate}, len(t),
                    rows={"year": np.floor((t - 1) / 12.0)})["f"]


def spread_hours(wall_hours: float, start_month: int, days: np.ndarray) -> np.ndarray:
    """Wall-clock hours of a job run from the start of ``start_month``, filling months in order [h]
    (the ``train_hours`` rule)."""
    return evaluate(_SPREAD, {"wall": wall_hours, "start": float(start_month)}, len(days),
                    rows={"hours": np.asarray(days, dtype=float) * 24.0})["x"]


def ratchet(servers: np.ndarray) -> np.ndarray:
    """A fleet that is never released once rented (the ``Ratchet`` of dedicated and reserved fleets)."""
    servers = np.asarray(servers, dtype=float)
    if not len(servers):
        return servers
    return evaluate(_RATCHET, {}, len(servers), rows={"need": servers})["x"]


_FACTOR = (Rule("f", factor("rate"), "-", ""),)
_SPREAD = (Rule("x", Fill("x", In("wall"), Row("hours"), Month() >= In("start")), "h", ""),)
_RATCHET = (Rule("x", Ratchet("x", Row("need")), "-", ""),)


def inference_replicas_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Replicas needed in each month × hour of day [-] (``fleet_rules.replicas``)."""
    return _by_hour(rps, rep, utilization, redundancy, servers=False)


def inference_servers_by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str) -> np.ndarray:
    """Servers needed in each month × hour of day [-] (the ``srv_<h>`` rules)."""
    return _by_hour(rps, rep, utilization, redundancy, servers=True)


@functools.lru_cache(maxsize=16)
def _hour_rules(hours: int, servers: bool) -> tuple[Rule, ...]:
    def make(r):
        return ROUNDUP(replicas(r) / In("c.rps_server"), 0) if servers else replicas(r)
    return tuple(Rule(f"x_{hr}", make(Row(f"rps_{hr}")), "-", "") for hr in range(hours))


def _by_hour(rps: np.ndarray, rep: ReplicaSize, utilization: float, redundancy: str, *, servers: bool) -> np.ndarray:
    rps = np.atleast_2d(np.asarray(rps, dtype=float))
    inputs = {"c.cap": rep.requests_per_second, "c.rps_server": float(rep.replicas_per_server),
              "utilization": utilization, "n1": 1.0 if redundancy == Redundancy.N_PLUS_1 else 0.0}
    rows = evaluate(_hour_rules(rps.shape[1], servers), inputs, rps.shape[0],
                    rows={f"rps_{hr}": rps[:, hr] for hr in range(rps.shape[1])})
    return np.stack([rows[f"x_{hr}"] for hr in range(rps.shape[1])], axis=1)


class UnverifiedPriceError(ValueError):
    """A workload reaches a price the catalog does not know (an unpriced egress tier)."""
