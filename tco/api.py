"""The library: load a scenario, run it, write its outputs. The CLI, the batch runner, a notebook or a
web page call these three functions and nothing below them.

>>> import tco
>>> res = tco.run("scenarios/seed_70b_h200.toml", paths=1000)          # doctest: +SKIP
>>> [o.name for o in res.options]                                         # doctest: +SKIP
>>> tco.write(res, "output", formats=("json", "csv"))                     # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from tco.domain import FxModel, record

if TYPE_CHECKING:
    from tco.catalog import Catalog
    from tco.engine import Results
    from tco.scenario import Scenario


@record
class Inputs:
    """A validated scenario with the catalog it runs against and where its keys sit in its file."""

    scenario: Scenario
    catalog: Catalog
    path: str
    """The scenario file as given (named in error messages and attached to the proposal)."""
    sha256: str
    """Hash of the scenario file's bytes (recorded in the JSON)."""
    key_lines: dict
    """Key path → line number in the file, for error messages."""


def load(path: str | Path) -> Inputs:
    """Read and validate a scenario file and load its catalog (the shipped one, overlaid by the
    scenario's ``catalog_dir``, resolved relative to the scenario file). Raises ``InputError``."""
    from tco.catalog import load_catalog
    from tco.scenario import load as load_scenario

    scenario, sha, key_lines = load_scenario(str(path))
    cat_dir = None
    if scenario.scenario.catalog_dir:
        cat_dir = (Path(path).parent / scenario.scenario.catalog_dir).resolve()
    named_at = (str(path), key_lines.get(("scenario", "catalog_dir")))
    return Inputs(scenario, load_catalog(cat_dir, named_at), str(path), sha, key_lines)


def check(inputs: Inputs | str | Path) -> Results:
    """Everything ``run`` checks, without the Monte Carlo or the analysis: sizes and costs every option
    once, deterministically. Raises ``InputError`` with every problem found."""
    from tco.engine import run_scenario

    inp = inputs if isinstance(inputs, Inputs) else load(inputs)
    res = run_scenario(inp.scenario, inp.catalog, file=inp.path, lines=inp.key_lines, simulate=False)
    _require_feasible(res, inp)
    from tco import plan

    plan.precheck(inp.scenario, inp.catalog, file=inp.path, lines=inp.key_lines)  # [plan] without the search
    if inp.scenario.fx.model == FxModel.BOOTSTRAP:  # the history `run` reads, checked here too
        from tco.fx.history import load_history

        load_history(inp.scenario.fx, inp.scenario.scenario.horizon_months)
    return res


def _plans(res: Results, inp: Inputs) -> Results:
    """The results with each provider's best plan (``tco.plan.search``) beside the options the user wrote."""
    from tco import plan

    found = plan.search(inp.scenario, inp.catalog, file=inp.path, lines=inp.key_lines)
    from tco.engine import rankable

    vs = plan.versus(found.best, [(o.name, o.tco.deterministic) for o in rankable(res.options) or res.options])
    return replace(res, analysis=replace(res.analysis, plans=replace(found, vs_options=vs)))


def _require_feasible(res: Results, inp: Inputs) -> None:
    """Refuse a scenario with nothing to cost or no option that meets its targets (nothing to recommend)."""
    from tco.engine import infeasible_problem, workload_problem
    from tco.errors import InputError
    from tco.results import constraint_problem

    problems = [p for p in (workload_problem(res, inp.path, inp.key_lines),
                            infeasible_problem(res, inp.path, inp.key_lines),
                            constraint_problem(res, inp.path, inp.key_lines)) if p is not None]
    if inp.scenario.proposal is not None and inp.scenario.proposal.brand:  # the PDF's brand folder, before any file
        from tco.report import brand

        problems += brand.problems(inp.scenario, inp.path, inp.key_lines)
    if problems:
        raise InputError(problems)


def _overridden(inp: Inputs, paths: int | None, seed: int | None) -> Inputs:
    """The inputs with ``paths`` and ``seed`` written into the scenario's ``[fx]`` (validated by its bounds), so
    every part of the run (the Monte Carlo, the sensitivity's re-runs, the JSON's assumptions) reads the values
    used. Raises ``InputError`` naming the override for a value outside the schema's bounds."""
    from pydantic import ValidationError

    from tco.errors import InputError, Problem
    from tco.scenario import FX

    update = {k: v for k, v in (("paths", paths), ("seed", seed)) if v is not None}
    if not update:
        return inp
    fx = inp.scenario.fx
    try:
        FX.model_validate(fx.model_dump(exclude_unset=True) | update)  # the bounds of fx.paths and fx.seed
    except ValidationError as exc:
        raise InputError([Problem(inp.path, f"fx.{e['loc'][0]}", f"override (--{e['loc'][0]}) {e['msg']}")
                          for e in exc.errors() if e["loc"] and e["loc"][0] in update]) from None
    scenario = inp.scenario.model_copy(update={"fx": fx.model_copy(update=update)})
    return replace(inp, scenario=scenario)


def with_locale(inp: Inputs, locale: str | None) -> Inputs:
    """The inputs with ``[scenario] locale`` set to `locale` (the CLI's ``--locale``; None: as the file says)."""
    if locale is None or locale == inp.scenario.scenario.locale:
        return inp
    info = inp.scenario.scenario.model_copy(update={"locale": locale})
    return replace(inp, scenario=inp.scenario.model_copy(update={"scenario": info}))


def run(inputs: Inputs | str | Path, *, paths: int | None = None, seed: int | None = None, analysis: bool = True,
        sensitivity: bool = True, progress: Callable[[int, int], None] | None = None, plans: bool = True) -> Results:
    """Size, cost and compare every option; the Monte Carlo on FX where the scenario asks for it; then the
    decision analysis (break-evens, sensitivity, decomposition, fleet separation) unless ``analysis`` is
    False, and the plan search (each provider at its best plan, ``tco.plan``) unless ``plans`` is False.
    ``paths`` and ``seed`` override the scenario's ``[fx]``. Raises ``InputError``."""
    from tco.engine import run_scenario

    inp = _overridden(inputs if isinstance(inputs, Inputs) else load(inputs), paths, seed)
    res = run_scenario(inp.scenario, inp.catalog, file=inp.path, lines=inp.key_lines, progress=progress)
    _require_feasible(res, inp)
    if plans:
        res = _plans(res, inp)
    res = replace(res, source_path=inp.path, source_sha256=inp.sha256)
    if analysis:
        from tco import analysis as analysis_mod

        res = analysis_mod.enrich(res, sensitivity=sensitivity)
    return res


def write(results: Results, folder: str | Path, formats: tuple[str, ...] | list[str] = ("json", "csv", "xlsx", "pdf"),
          *, stem: str | None = None) -> list[Path]:
    """Write ``<folder>/<stem>.<format>`` for each format (json, csv, xlsx, pdf), all or nothing; the stem
    defaults to the scenario file's name. Returns the paths written."""
    from tco.output import FORMATS, write_outputs

    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ValueError(f"unknown format(s) {', '.join(bad)}; choose from {', '.join(FORMATS)}")
    path = results.source_path or f"{results.scenario.scenario.name}.toml"
    return write_outputs(results, Path(folder), stem or Path(path).stem, list(formats), sha=results.source_sha256,
                         scenario_path=path)
