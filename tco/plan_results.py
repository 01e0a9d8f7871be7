"""The plan search's results, typed (``tco.plan.search`` builds them; ``Results.analysis.plans`` holds them): each
plan with its training and serving fleets, each group's best plans, the overall best, and the search as a whole.

Frozen dataclasses with keyword-only fields; ``as_dict`` writes the JSON's ``plans`` keys (DESIGN.md) exactly as
the search's dicts did, and ``of`` reads such a document back. Beside ``tco.findings`` (which re-exports them) so
that neither passes 400 lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True, kw_only=True)
class PlanFleet:
    """A fleet of a plan: the offer (its provider, region, kind and GPU) and the price the search used."""

    offer: str
    provider: str
    region: str
    kind: str
    """'cloud' or 'dedicated' (``FleetKind``)."""
    gpu: str
    gpus_per_server: int
    pricing: str
    price: float
    price_unit: str
    status: str
    as_of: str

    def _common(self) -> dict[str, Any]:
        return {"offer": self.offer, "provider": self.provider, "region": self.region, "kind": self.kind,
                "gpu": self.gpu, "gpus_per_server": self.gpus_per_server, "pricing": self.pricing, "price": self.price,
                "price_unit": self.price_unit, "status": self.status, "as_of": self.as_of}

    @staticmethod
    def _fields(d: Mapping[str, Any]) -> dict[str, Any]:
        return {k: d[k] for k in ("offer", "provider", "region", "kind", "gpu", "gpus_per_server", "pricing", "price",
                                  "price_unit", "status", "as_of")}


@dataclass(frozen=True, kw_only=True)
class TrainingFleet(PlanFleet):
    """The fleet a plan trains on: its servers and the job's wall-clock hours."""

    servers: int
    wall_hours: float

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> TrainingFleet:
        return cls(**cls._fields(d), servers=d["servers"], wall_hours=d["wall_hours"])

    def as_dict(self) -> dict[str, Any]:
        return self._common() | {"servers": self.servers, "wall_hours": self.wall_hours}


@dataclass(frozen=True, kw_only=True)
class ServingFleet(PlanFleet):
    """The fleet a plan serves on: its mode (``PlanMode``), a committed baseline's level in each term and the
    pricing above it, the instances at the peak, and the replica's tensor parallelism and speed (None for a
    fleet sized without a replica)."""

    mode: str
    committed_instances: tuple[int, ...] | None
    burst_pricing: str | None
    peak_instances: int
    tensor_parallel: int | None
    tokens_per_second_per_user: float | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> ServingFleet:
        k = d["committed_instances"]
        return cls(**cls._fields(d), mode=d["mode"], committed_instances=tuple(k) if k is not None else None,
                   burst_pricing=d["burst_pricing"], peak_instances=d["peak_instances"],
                   tensor_parallel=d["tensor_parallel"], tokens_per_second_per_user=d["tokens_per_second_per_user"])

    def as_dict(self) -> dict[str, Any]:
        k = self.committed_instances
        return self._common() | {"mode": self.mode, "committed_instances": list(k) if k is not None else None,
                                 "burst_pricing": self.burst_pricing, "peak_instances": self.peak_instances,
                                 "tensor_parallel": self.tensor_parallel,
                                 "tokens_per_second_per_user": self.tokens_per_second_per_user}


@dataclass(frozen=True, kw_only=True)
class Plan:
    """One plan of the plan search (``tco.plan.combine``): its name (its parts in the JSON's English), group
    (a provider or 'hybrid'), fleet mode, TCO and NPV [BRL], tax profile and uplift, the training and serving fleets
    as the search describes them, its notes and the ``[[options]]`` table that re-runs it through the engine."""

    name: str
    group: str
    fleet: str
    """'shared' or 'separate' (``FleetMode``)."""
    tco_brl: float
    npv_brl: float
    tax_profile: str
    tax_uplift_share: float | None
    training: TrainingFleet | None
    serving: ServingFleet
    notes: tuple[str, ...]
    option: Mapping[str, Any]

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Plan:
        """From a plan of the search's JSON document (``as_dict``'s inverse)."""
        return cls(name=d["name"], group=d["group"], fleet=d["fleet"], tco_brl=d["tco_brl"], npv_brl=d["npv_brl"],
                   tax_profile=d["tax_profile"], tax_uplift_share=d["tax_uplift_share"],
                   training=TrainingFleet.of(d["training"]) if d["training"] else None,
                   serving=ServingFleet.of(d["serving"]), notes=tuple(d["notes"]), option=d["option"])

    def as_dict(self) -> dict:
        return {"name": self.name, "group": self.group, "fleet": self.fleet, "tco_brl": self.tco_brl,
                "npv_brl": self.npv_brl, "tax_profile": self.tax_profile, "tax_uplift_share": self.tax_uplift_share,
                "training": self.training.as_dict() if self.training else None, "serving": self.serving.as_dict(),
                "notes": list(self.notes), "option": self.option}


@dataclass(frozen=True, kw_only=True)
class GroupPlans:
    """A group's (a provider's, or the hybrids') best plan, its runners-up up to ``[plan] show``, the candidates it
    covered and the best's margin over the first runner-up [BRL, share of the best's TCO]."""

    best: Plan
    runners_up: tuple[Plan, ...]
    candidates: int
    margin_brl: float | None
    margin_share: float | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> GroupPlans:
        return cls(best=Plan.of(d["best"]), runners_up=tuple(Plan.of(p) for p in d["runners_up"]),
                   candidates=d["candidates"], margin_brl=d["margin_brl"], margin_share=d["margin_share"])

    def as_dict(self) -> dict:
        return {"best": self.best.as_dict(), "runners_up": [p.as_dict() for p in self.runners_up],
                "candidates": self.candidates, "margin_brl": self.margin_brl, "margin_share": self.margin_share}


@dataclass(frozen=True, kw_only=True)
class OverallPlans:
    """The best plan of every group, the runner-up (the next group's best) and the margin between them."""

    best: Plan
    runner_up: Plan | None
    margin_brl: float | None
    margin_share: float | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> OverallPlans:
        return cls(best=Plan.of(d["best"]), runner_up=Plan.of(d["runner_up"]) if d["runner_up"] else None,
                   margin_brl=d["margin_brl"], margin_share=d["margin_share"])

    def as_dict(self) -> dict:
        return {"best": self.best.as_dict(), "runner_up": self.runner_up.as_dict() if self.runner_up else None,
                "margin_brl": self.margin_brl, "margin_share": self.margin_share}


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """A provider the catalog lists: its best plan's TCO, or None and why it has none (``reason``: 'plan_providers',
    'constraint_provider', 'constraint_residency', 'brazil_only', 'gpus', 'no_price', 'skipped'; ``detail``: the
    skipped offers' first reason)."""
    provider: str
    tco_brl: float | None
    reason: str = ""
    detail: str = ""

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Coverage:
        return cls(provider=d["provider"], tco_brl=d.get("tco_brl"), reason=d.get("reason", ""),
                   detail=d.get("detail", ""))

    def as_dict(self) -> dict:
        return {"provider": self.provider, "tco_brl": self.tco_brl, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class StandIn:
    """A stand-in egress or storage price a provider's plans rest on (no public price was found)."""
    provider: str
    group: str
    what: str
    """'egress' or 'storage'."""
    id: str
    source: str

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> StandIn:
        return cls(provider=d["provider"], group=d["group"], what=d["what"], id=d["id"], source=d["source"])

    def as_dict(self) -> dict:
        return {"provider": self.provider, "group": self.group, "what": self.what, "id": self.id, "source": self.source}


@dataclass(frozen=True, kw_only=True)
class Skipped:
    """An offer and pricing the search left out for a role, and why (the search's words)."""
    offer: str
    pricing: str
    role: str
    reason: str

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Skipped:
        return cls(offer=d["offer"], pricing=d["pricing"], role=d["role"], reason=d["reason"])

    def as_dict(self) -> dict:
        return {"offer": self.offer, "pricing": self.pricing, "role": self.role, "reason": self.reason}


@dataclass(frozen=True, kw_only=True)
class SearchFacts:
    """The search as a whole: the plans it covers (a committed ladder's levels multiplied over its terms), the
    providers searched, every catalog provider's coverage, the stand-in prices, the switches of ``[plan]``, the
    components scored and the offers skipped."""
    candidates: int
    providers: tuple[str, ...]
    coverage: tuple[Coverage, ...]
    stand_ins: tuple[StandIn, ...]
    brazil_only: bool
    hybrids: bool
    spot_for_serving: bool
    training_components: int
    serving_components: int
    shared_plans: int
    skipped: tuple[Skipped, ...]

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> SearchFacts:
        return cls(candidates=int(d["candidates"]), providers=tuple(d["providers"]),
                   coverage=tuple(Coverage.of(c) for c in d.get("coverage", ())),
                   stand_ins=tuple(StandIn.of(x) for x in d.get("stand_ins", ())), brazil_only=bool(d["brazil_only"]),
                   hybrids=bool(d.get("hybrids", True)), spot_for_serving=bool(d.get("spot_for_serving", False)),
                   training_components=int(d.get("training_components", 0)),
                   serving_components=int(d.get("serving_components", 0)), shared_plans=int(d.get("shared_plans", 0)),
                   skipped=tuple(Skipped.of(x) for x in d.get("skipped", ())))

    def as_dict(self) -> dict:
        return {"candidates": self.candidates, "providers": list(self.providers),
                "coverage": [c.as_dict() for c in self.coverage], "stand_ins": [x.as_dict() for x in self.stand_ins],
                "brazil_only": self.brazil_only, "hybrids": self.hybrids, "spot_for_serving": self.spot_for_serving,
                "training_components": self.training_components, "serving_components": self.serving_components,
                "shared_plans": self.shared_plans, "skipped": [x.as_dict() for x in self.skipped]}


@dataclass(frozen=True, kw_only=True)
class VersusOptions:
    """The best plan against the cheapest option the user wrote (deterministic TCOs) [BRL]."""
    cheapest_option: str
    cheapest_option_tco_brl: float
    best_plan: str
    best_plan_tco_brl: float
    best_plan_saving_brl: float

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> VersusOptions:
        return cls(cheapest_option=d["cheapest_option"], cheapest_option_tco_brl=d["cheapest_option_tco_brl"],
                   best_plan=d["best_plan"], best_plan_tco_brl=d["best_plan_tco_brl"],
                   best_plan_saving_brl=d["best_plan_saving_brl"])

    def as_dict(self) -> dict:
        return {"cheapest_option": self.cheapest_option, "cheapest_option_tco_brl": self.cheapest_option_tco_brl,
                "best_plan": self.best_plan, "best_plan_tco_brl": self.best_plan_tco_brl,
                "best_plan_saving_brl": self.best_plan_saving_brl}


@dataclass(frozen=True, kw_only=True)
class PlanSearch:
    """Each provider's best plan (``tco.plan.search``) beside the options the user wrote: the search's facts,
    the best plans of each provider group and of the hybrids, the overall best and runner-up, and the best plan
    against the cheapest option."""

    search: SearchFacts
    by_provider: Mapping[str, GroupPlans]
    hybrid: Plan | None
    overall: OverallPlans
    vs_options: VersusOptions | None = None

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> PlanSearch:
        """From the search's JSON document (``as_dict``'s inverse: the document a ``plan --json`` or a run wrote)."""
        vs = found.get("vs_options")
        return cls(search=SearchFacts.of(found["search"]), by_provider={g: GroupPlans.of(v) for g, v in found["by_provider"].items()},
                   hybrid=Plan.of(found["hybrid"]) if found.get("hybrid") else None,
                   overall=OverallPlans.of(found["overall"]), vs_options=VersusOptions.of(vs) if vs else None)

    @property
    def best(self) -> Plan:
        """The overall best plan."""
        return self.overall.best

    def as_dict(self) -> dict:
        out = {"search": self.search.as_dict(), "by_provider": {g: v.as_dict() for g, v in self.by_provider.items()},
               "hybrid": self.hybrid.as_dict() if self.hybrid else None, "overall": self.overall.as_dict()}
        return out | ({"vs_options": self.vs_options.as_dict()} if self.vs_options is not None else {})
