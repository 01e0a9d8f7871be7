"""Prices and pricings an offer cannot have: a located error instead of silence.

A price in the other currency than its offer's (``usd_per_hour`` on a dedicated server billed per month in BRL), or
a pricing a dedicated server does not have (``pricing = "spot"``): the run would go on with the catalog's price, and
whoever wrote the number would believe the TCO used it. Checked once the options are resolved (the catalog tells
each offer's kind), for the scenario's own options only (the plan search builds its options in code). Keys that are
merely inert (training keys when nothing is trained, a USD/BRL history for a model that reads none) leave the TCO
as meant: they are notices (``tco.scenario.plausibility``).
"""

from __future__ import annotations

from tco.domain import FleetKind
from tco.errors import Problem
from tco.scenario import given_keys

_CLOUD_ONLY = ("usd_per_hour", "pricing", "burst_pricing", "burst_usd_per_hour")
_DEDICATED_ONLY = ("brl_per_month",)


def unused_keys(s, resolved, file: str, lines: dict | None) -> list[Problem]:
    """Every key of `s` (a Scenario) that its resolved options (tco.resolve.ResolvedOption) would ignore."""
    lines = lines or {}
    out = []
    for r in resolved:
        out += _option(s.options[r.index], r, file, lines)
    return out


def _option(o, r, file: str, lines: dict) -> list[Problem]:
    out = []
    given = given_keys(o)
    serve = r.inference
    if serve.kind == FleetKind.DEDICATED:
        why = (f"{serve.offer_id!r} is a dedicated server, rented per month in BRL: {{k}} has no effect (its price is "
               "brl_per_month)")
        out += [(k, why) for k in _CLOUD_ONLY if k in given]
    else:
        why = f"{serve.offer_id!r} is a cloud instance, billed per hour in USD: {{k}} has no effect (use usd_per_hour)"
        out += [(k, why) for k in _DEDICATED_ONLY if k in given]
    if r.training is not None and r.training.kind == FleetKind.DEDICATED:
        why = (f"the training offer {r.training.offer_id!r} is a dedicated server, rented per month in BRL: {{k}} has "
               "no effect (use training_brl_per_month)")
        out += [(k, why) for k in ("training_usd_per_hour",) if k in given]
    elif r.training is not None:
        why = (f"the training offer {r.training.offer_id!r} is a cloud instance, billed per hour in USD: {{k}} has no "
               "effect (use training_usd_per_hour)")
        out += [(k, why) for k in ("training_brl_per_month",) if k in given]
    return [Problem(file, f"options[{r.index}].{k}", why.format(k=k),
                    lines.get(("options", r.index, k)) or lines.get(("options", r.index))) for k, why in out]

