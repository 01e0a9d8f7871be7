"""Scalar oracles: the serving fleet's rules written the plain way, one hour at a time, so the property tests can
check the engine's vectorised rules (``tco.costs.fleet_rules.replicas``, ``tco.costs.inference_servers_by_hour``)
against an independent statement. Test code only: the engine never calls them."""

from __future__ import annotations

import math


def replicas_needed(requests_per_second: float, replica_rps: float, utilization: float, redundancy: str) -> int:
    """Replicas [-] = ceil(load / (capacity × utilisation)), plus one spare for N+1 when any is needed."""
    if requests_per_second <= 0:
        return 0
    n = max(1, math.ceil(requests_per_second / (replica_rps * utilization) - 1e-9))
    return n + 1 if redundancy == "n+1" else n


def servers_for(replicas: int, replicas_per_server: int) -> int:
    """Servers (or instances) [-] = ceil(replicas / replicas per server)."""
    return math.ceil(replicas / replicas_per_server) if replicas > 0 else 0
