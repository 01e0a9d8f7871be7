"""What a run reports about its own inputs, typed: the FX model and base path (``FxInfo``, built by
``tco.engine.apply_fx_risk`` from ``tco.timeline.fx_base.describe_base`` and ``tco.fx.risk.describe``) and the
modelling efficiencies the engine used (``Efficiencies``, built by ``tco.engine``).

Each is a frozen dataclass with keyword-only fields; ``as_dict`` writes the JSON document's keys (``fx`` and
``assumptions.defaults_used`` in DESIGN.md) exactly as the plain dicts did: a key the run left out (the Focus
edition of another base path, the Monte Carlo parameters of a deterministic model, the bootstrap's history of a
GBM) is left out here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True, kw_only=True)
class FocusEdition:
    """The Banco Central Focus survey edition a ``focus`` base path follows (``tco/catalog/data``'s Focus file)."""

    edition: str
    as_of: str
    status: str
    """The weakest status of the edition's rows."""
    year_ends: Mapping[str, float]
    """Year → the survey's median USD/BRL at that year's end [BRL/USD]."""
    held_from: str | None
    """The month ('YYYY-12') from which the last year-end's median holds, when the horizon runs past it."""

    def as_dict(self) -> dict[str, Any]:
        return {"focus_edition": self.edition, "focus_as_of": self.as_of, "focus_status": self.status,
                "focus_year_ends": dict(self.year_ends), "focus_held_from": self.held_from}


@dataclass(frozen=True, kw_only=True)
class BasePathInfo:
    """The FX base path: its name (``FxBasePath``), label and source, and the Focus edition when it follows one."""

    path: str
    label: str
    source: str
    focus: FocusEdition | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"base_path": self.path, "base_path_label": self.label}
        if self.focus is not None:
            out |= self.focus.as_dict()
        return out | {"base_path_source": self.source}


@dataclass(frozen=True, kw_only=True)
class MonteCarloInfo:
    """What a Monte Carlo FX model reports about itself (``tco.fx.risk.describe``): the drift (GBM only), what the
    paths are centred on, antithetic pairs, the chunk size, and the bootstrap's block length and history."""

    drift: float | None
    centred_on: str
    antithetic: bool
    chunk_paths: int
    block_months: int | None = None
    """Bootstrap only, with ``history``."""
    history: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"drift": self.drift, "centred_on": self.centred_on, "antithetic": self.antithetic,
                               "chunk_paths": self.chunk_paths}
        if self.history is not None:
            out |= {"block_months": self.block_months, "history": self.history}
        return out


@dataclass(frozen=True, kw_only=True)
class FxInfo:
    """The FX model of a run: paths and seed, the spot, the volatility, the base path's yearly change, the base path
    described, and the Monte Carlo parameters (None for a deterministic model)."""

    model: str
    paths: int
    seed: int
    usdbrl: float
    volatility: float
    base_path_annual_change_rate: float
    base: BasePathInfo
    monte_carlo: MonteCarloInfo | None = None

    def as_dict(self) -> dict[str, Any]:
        """The keys of the JSON's ``fx`` object the FX model fills (its ``path`` aside)."""
        out: dict[str, Any] = {"model": self.model, "paths": self.paths, "seed": self.seed, "usdbrl": self.usdbrl,
                               "volatility": self.volatility,
                               "base_path_annual_change_rate": self.base_path_annual_change_rate}
        out |= self.base.as_dict()
        return out | (self.monte_carlo.as_dict() if self.monte_carlo is not None else {})


@dataclass(frozen=True, kw_only=True)
class Efficiencies:
    """The modelling efficiencies the engine used (the catalog's defaults.toml, the serving calibration), as the
    JSON's ``assumptions.defaults_used`` writes them."""

    mfu: float
    """The scenario's training MFU, else the catalog's (defaults.toml ``[training] mfu``)."""
    bandwidth_efficiency_share: float
    flops_efficiency_share: float
    scaling_efficiency: Mapping[str, Any]
    """Interconnect → multi-GPU scaling efficiency (defaults.toml ``[scaling_efficiency]``)."""
    serving_calibration: Mapping[str, Any]
    """The serving calibration's terms (``tco.sizing.calibration_dict``)."""
    training_mfu: Mapping[str, Any]
    """The training MFU tables (``tco.engine.training_mfu_table``)."""

    def as_dict(self) -> dict[str, Any]:
        return {"mfu": self.mfu, "bandwidth_efficiency_share": self.bandwidth_efficiency_share,
                "flops_efficiency_share": self.flops_efficiency_share, "scaling_efficiency": self.scaling_efficiency,
                "serving_calibration": self.serving_calibration, "training_mfu": self.training_mfu}
