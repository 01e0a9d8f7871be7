"""Keys that would change nothing: a located error instead of silence.

A price in the other currency than its offer's (``usd_per_hour`` on a dedicated server billed per month in BRL), a
pricing a dedicated server does not have, a training offer when nothing is trained, a USD/BRL history for a model
that reads none: the run would go on with the catalog's price or without the file, and whoever wrote the number
would believe it was used. Checked once the options are resolved (the catalog tells each offer's kind), for the
scenario's own options only (the plan search builds its options in code).
"""

from __future__ import annotations

from tco.domain import FleetKind, FxModel, TrainingMethod
from tco.errors import Problem

_CLOUD_ONLY = ("usd_per_hour", "pricing", "burst_pricing", "burst_usd_per_hour")
_DEDICATED_ONLY = ("brl_per_month",)
_TRAINING = ("training_offer", "training_pricing", "training_usd_per_hour", "training_brl_per_month")


def unused_keys(s, resolved, file: str, lines: dict | None) -> list[Problem]:
    """Every key of `s` (a Scenario) that its resolved options (tco.resolve.ResolvedOption) would ignore."""
    lines = lines or {}
    out = [Problem(file, f"fx.{k}", f"{k} is read by the bootstrap model only (fx.model = '{s.fx.model}'): remove "
                   "it, or set model = 'bootstrap'", lines.get(("fx", k)))
           for k in ("history_csv", "block_months") if k in _given(s.fx) and s.fx.model != FxModel.BOOTSTRAP]
    for r in resolved:
        o = s.options[r.index]
        out += _option(o, r, s.training.method == TrainingMethod.NONE, file, lines)
    return out


def _option(o, r, untrained: bool, file: str, lines: dict) -> list[Problem]:
    out = []
    given = _given(o)
    serve = r.inference
    if serve.kind == FleetKind.DEDICATED:
        why = (f"{serve.offer_id!r} is a dedicated server, rented per month in BRL: {{k}} has no effect (its price is "
               "brl_per_month)")
        out += [(k, why) for k in _CLOUD_ONLY if k in given]
    else:
        why = f"{serve.offer_id!r} is a cloud instance, billed per hour in USD: {{k}} has no effect (use usd_per_hour)"
        out += [(k, why) for k in _DEDICATED_ONLY if k in given]
    if untrained:
        why = "training.method is 'none', so nothing is trained: {k} has no effect"
        out += [(k, why) for k in _TRAINING if k in given]
    elif r.training is not None and r.training.kind == FleetKind.DEDICATED:
        why = (f"the training offer {r.training.offer_id!r} is a dedicated server, rented per month in BRL: {{k}} has "
               "no effect (use training_brl_per_month)")
        out += [(k, why) for k in ("training_usd_per_hour",) if k in given]
    elif r.training is not None:
        why = (f"the training offer {r.training.offer_id!r} is a cloud instance, billed per hour in USD: {{k}} has no "
               "effect (use training_usd_per_hour)")
        out += [(k, why) for k in ("training_brl_per_month",) if k in given]
    return [Problem(file, f"options[{r.index}].{k}", why.format(k=k),
                    lines.get(("options", r.index, k)) or lines.get(("options", r.index))) for k, why in out]


def _given(model) -> set[str]:
    """The keys of a schema model whose value is not the default: what the file set (a scenario rebuilt in code, a
    variant of the analysis say, may name every key; a default changes nothing either way)."""
    return {k for k in model.model_fields_set if getattr(model, k) != type(model).model_fields[k].default}
