"""Plan search: each provider at its best plan, and the hybrids.

For every offer the catalog lists (or those the scenario's ``[plan]`` allows) the search sizes the
fleets with the engine's own calls and costs each *component* once with the engine's own cost
function (``engine.option_costs_for`` → ``costs.option_costs``): a training burst on one offer at one
pricing, a serving fleet on one offer in one mode, a shared fleet. It then combines them with numpy:
every training burst with every serving fleet, and every level of a committed baseline.

Why the components add up (see ``costs.option_costs``): with separate fleets the training burst writes
only the training line and its own setup fee, the serving fleet every other line; the pair's taxes are the
engine's tax rules on the pair's lines, evaluated over pairs × months and added as the engine adds
(``pairs``: each pair's month is the engine's to the bit). The ladder of a committed baseline is separable: the
level chosen for one term changes only that term's months, so each term's best level is found on its
own, over all levels at once (``costs.committed_levels``: the baseline's own rules, the levels a leading axis).

Modules: ``check`` (the [plan] section against the catalog), ``precheck`` (the search's input checks without
the search: what ``validate`` runs), ``components`` (catalog → sized components), ``costing`` (each component
costed once, the committed ladder), ``pairs`` (each pair's month: lines, taxes, conversion, as the engine makes
them), ``combine`` (numpy over candidates and the result as plain data).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.plan.check import check
from tco.plan.components import BRAZIL_REGIONS
from tco.plan.precheck import precheck

if TYPE_CHECKING:
    from tco.plan.combine import search, versus

__all__ = ["BRAZIL_REGIONS", "check", "precheck", "search", "versus"]


def __getattr__(name: str):
    """``search`` and ``versus`` imported when first asked for: `validate` runs the precheck only, and the search's
    modules (combine, pairs, costing, naming) are a fifth of the plan package's import."""
    if name in ("search", "versus"):
        from tco.plan import combine

        return getattr(combine, name)
    raise AttributeError(f"module 'tco.plan' has no attribute {name!r}")
