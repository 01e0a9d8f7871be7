"""Shared fixtures for the per-module tests: the seed scenario run once per session, deterministically
(no Monte Carlo, no plan search), so a module's test reads real Results without re-running the pipeline."""

from __future__ import annotations

from pathlib import Path

import os

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run ("ci", the default: a green suite stays green on a clean
# clone, and a failure reproduces); `HYPOTHESIS_PROFILE=explore pytest` draws new ones and keeps failures found
# in .hypothesis/ to replay.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"


@pytest.fixture(scope="session")
def seed_inputs():
    import tco

    return tco.load(SEED)


@pytest.fixture(scope="session")
def seed_results(seed_inputs):
    """The seed's Results without the Monte Carlo (percentiles equal the deterministic value)."""
    from tco.engine import run_scenario

    return run_scenario(seed_inputs.scenario, seed_inputs.catalog, file=seed_inputs.path, lines=seed_inputs.key_lines,
                        simulate=False)


@pytest.fixture(scope="session")
def small_run():
    """The small L4 example through the library API: 200 FX paths, analysis and plans (what the writers read)."""
    import tco

    return tco.run(SMALL, paths=200, seed=7)


@pytest.fixture(scope="session")
def example_runs():
    """Each example run as the CLI runs it (plan search and analyses), 300 FX paths: stem → Results, each made when
    first asked (the fast set reads the small and the seed examples only)."""
    import tco
    from lazy import PerKey

    examples = sorted((ROOT / "scenarios").glob("*.toml"))
    return PerKey(lambda stem: tco.run(ROOT / "scenarios" / f"{stem}.toml", paths=300), [p.stem for p in examples])


@pytest.fixture(scope="session")
def book(small_run):
    """The small run's workbook, written once and read back (``workbook_eval.Book``: cells, formulas evaluated)."""
    from workbook_eval import written

    return written(small_run)


@pytest.fixture(scope="session")
def seed_2000_paths():
    """(scenario, catalog, engine results) of the seed with 2,000 FX paths, seed 1 (the analysis tests' case)."""
    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.scenario import load

    s, _, _ = load(ROOT / "scenarios" / "seed_70b_h200.toml")
    cat = load_catalog()
    return s, cat, run_scenario(s, cat, paths=2000, seed=1)


@pytest.fixture(scope="session")
def seed_view(seed_results):
    """The typed view the proposal reads, of the seed's deterministic run (frozen dataclasses: safe to share)."""
    from tco.report import view

    return view.build(seed_results)


@pytest.fixture(scope="session")
def small_view(small_run):
    """The typed view of the small run."""
    from tco.report import view

    return view.build(small_run)


@pytest.fixture
def sweep_file(tmp_path):
    """A sweep file on the seed in the test's temporary folder (tests/sweep/sweep_files.py writes it)."""
    from sweep_files import write_sweep

    def make(body: str, settings: str = "", name: str = "s.toml") -> Path:
        return write_sweep(tmp_path, body, name, settings)
    return make
