"""A plan's name as data: its parts (``PlanName``, read from the plan's own fields), and one way to put them into
words from a locale's templates (``render``).

The ids stay ids in every locale (provider, instance, pricing, region: what the ``[[options]]`` table uses); the
words around them are the templates' (``TEMPLATE_KEYS``). The plan's ``name`` in the JSON is the parts rendered with
``CONTRACT_EN``, the English the JSON has always had (the contract); ``tco.report.plan_names`` renders the same parts
with the run's locale's templates from the translation catalog, whose English ones are these (a test holds them
equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from tco.domain import FleetKind, FleetMode, PlanMode

TEMPLATE_KEYS = ("plan_name_shared", "plan_name_serve", "plan_name_train_serve", "plan_part_committed",
                 "plan_part_autoscaled", "plan_group_hybrid")
"""The catalog keys of a plan name's words."""

CONTRACT_EN: dict[str, str] = {
    "plan_name_shared": "Plan {group}: shared {serve} ({region})",
    "plan_name_serve": "Plan {group}: serve {serve} ({region})",
    "plan_name_train_serve": "Plan {group}: train {train} ({train_region}), serve {serve} ({region})",
    "plan_part_committed": "{fleet} × {levels} + {burst}",
    "plan_part_autoscaled": "{fleet} autoscaled",
    "plan_group_hybrid": "hybrid",
}
"""The English templates of the JSON's plan ``name``."""


@dataclass(frozen=True)
class FleetWords:
    """One fleet as a plan name shows it."""

    instance: str
    """The last part of the offer id (``p5en.48xlarge``, ``h200-nvl-1x``)."""
    pricing: str | None
    """The pricing id of a cloud fleet; None for a dedicated one (always monthly)."""
    region: str

    @property
    def text(self) -> str:
        return self.instance + (f" {self.pricing}" if self.pricing else "")


@dataclass(frozen=True)
class PlanName:
    """The parts of a plan's name."""

    group: str
    """The provider id, or "hybrid"."""
    serve: FleetWords
    """The serving fleet (or the one shared fleet)."""
    train: FleetWords | None = None
    """A separate training fleet; None for a shared fleet or a scenario that does not train."""
    shared: bool = False
    committed: tuple[int, ...] | None = None
    """A committed baseline's level in each term, with `burst` its pricing above it."""
    burst: str | None = None
    autoscaled: bool = False


def _fleet(f: Mapping) -> FleetWords:
    return FleetWords(f["offer"].split("/")[-1], f["pricing"] if f["kind"] == FleetKind.CLOUD else None, f["region"])


def of_plan(plan: Mapping) -> PlanName:
    """The parts of a plan (``combine._plan``'s dict, as the JSON has it)."""
    sv, shared = plan["serving"], plan["fleet"] == FleetMode.SHARED
    return PlanName(plan["group"], _fleet(sv), None if shared or not plan.get("training") else _fleet(plan["training"]),
                    shared, tuple(sv["committed_instances"]) if sv.get("committed_instances") else None,
                    sv.get("burst_pricing") if sv.get("committed_instances") else None,
                    sv.get("mode") == PlanMode.AUTOSCALED)


def render(name: PlanName, words: Mapping[str, str]) -> str:
    """`name` in words: `words` maps each of ``TEMPLATE_KEYS`` to its template (``CONTRACT_EN``, or a locale's)."""
    serve = name.serve.text
    if name.committed is not None:
        serve = words["plan_part_committed"].format(fleet=serve, levels="/".join(str(k) for k in name.committed),
                                                    burst=name.burst)
    elif name.autoscaled:
        serve = words["plan_part_autoscaled"].format(fleet=serve)
    group = words["plan_group_hybrid"] if name.group == "hybrid" else name.group
    if name.shared:
        return words["plan_name_shared"].format(group=group, serve=serve, region=name.serve.region)
    if name.train is None:
        return words["plan_name_serve"].format(group=group, serve=serve, region=name.serve.region)
    return words["plan_name_train_serve"].format(group=group, train=name.train.text, train_region=name.train.region,
                                                 serve=serve, region=name.serve.region)
