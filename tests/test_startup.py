"""Start-up stays light: `--help` and `validate` import only what they use (house style 9: heavy libraries
imported where used). Each check is a fresh interpreter, as a user's command is, reading its sys.modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # every check starts an interpreter
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"

RENDERERS = ("pandas", "matplotlib", "weasyprint", "xlsxwriter", "openpyxl", "jinja2", "rich")
"""The output libraries: none of them is needed to parse arguments or to check a scenario."""


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running `code` (which may print to stderr)."""
    script = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True, timeout=300)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_importing_the_cli_and_building_its_parser_imports_nothing_heavy():
    mods = modules_after("import tco.cli\ntco.cli._parser()")  # what `python -m tco --help` does
    heavy = set(RENDERERS) | {"numpy", "pydantic", "babel"}
    assert top_level(mods) & heavy == set()
    assert {"tco.sizing.calibrate", "tco.sizing.benchmarks", "tco.scenario", "tco.engine", "tco.catalog"} & mods == set()


def test_help_prints_every_command_without_heavy_imports():
    mods = modules_after("import contextlib, io\nfrom tco.cli import main\n"
                         "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
                         "    assert main(['--help']) == 0\n"
                         "assert all(c in out.getvalue() for c in ('run', 'validate', 'calibrate', 'batch', 'plan'))")
    assert top_level(mods) & (set(RENDERERS) | {"numpy", "pydantic"}) == set()
    assert "tco.sizing.calibrate" not in mods


def test_validate_imports_no_renderer_and_no_analysis():
    mods = modules_after("import contextlib, io\nfrom tco.cli import main\n"
                         "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
                         f"    assert main(['validate', {str(SEED)!r}]) == 0")
    assert top_level(mods) & set(RENDERERS) == set()
    assert {"tco.analysis", "tco.fx.risk", "tco.output", "tco.cli.calibrate.run", "tco.sizing.benchmarks",
            "tco.report.json_out", "tco.report.workbook", "tco.report.proposal"} & mods == set()
    # the plan search itself: validate runs its precheck only (tco.plan imports combine when search is asked for)
    assert {"tco.plan.combine", "tco.plan.pairs", "tco.plan.costing", "tco.plan.naming"} & mods == set()


def test_validate_spares_the_imports_it_does_not_need():
    """What the 2026-12 start-up work took out of `validate` stays out: babel (the notices' few numbers and months
    are written by tco.report.fmt_light, equal to babel's by its tests), importlib.metadata with email (pydantic's
    plugin discovery, off for a check), difflib ('did you mean' for offers the plan search skips anyway), and the
    calibrate and batch modules (their sub-parsers are not built for a command of the CLI's own)."""
    mods = modules_after("import contextlib, io\nfrom tco.cli import main\n"
                         "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
                         f"    assert main(['validate', {str(SEED)!r}]) == 0")
    assert top_level(mods) & {"babel", "email", "difflib"} == set()
    assert {"importlib.metadata", "tco.cli.calibrate", "tco.cli.batch", "tco.report.fmt"} & mods == set()


def test_validate_in_english_reads_one_translation_file(tmp_path):
    """An English scenario's check reads en.toml only (term() looks a label up in the asked locale; the L4
    scenario's notices name an interconnect by its label)."""
    en = tmp_path / "en.toml"
    src = ROOT / "scenarios" / "assistant_8b_l4.toml"
    en.write_text(src.read_text(encoding="utf-8").replace('locale = "pt-BR"', 'locale = "en"'), encoding="utf-8")
    assert 'locale = "en"' in en.read_text(encoding="utf-8")
    script = ("import contextlib, io\nfrom tco.cli import main\nfrom tco.report import i18n\n"
              "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
              f"    assert main(['validate', {str(en)!r}]) == 0\n"
              "assert i18n.catalog.cache_info().currsize == 1, i18n.catalog.cache_info()")
    modules_after(script)


def test_validate_runs_without_collections_and_restores_the_collector():
    """`validate` pauses the cyclic collector while it checks (bounded garbage; each young collection would walk the
    start-up objects for nothing) and gives it back enabled; `python -m tco validate` pauses it for the whole
    process, and `python -m tco` freezes the heap before the interpreter's exit, so the exit's last collection does
    not walk every object once more."""
    script = ("import contextlib, gc, io, runpy, sys\nimport tco.cli\n"
              "seen = []\ncheck = tco.cli._validate\n"
              "tco.cli._validate = lambda args: (seen.append(gc.isenabled()), check(args))[1]\n"
              "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
              f"    assert tco.cli.main(['validate', {str(SEED)!r}]) == 0\n"
              "assert seen == [False] and gc.isenabled(), seen\n"
              "tco.cli._validate = check\nassert gc.get_freeze_count() == 0\n"
              f"sys.argv = ['tco', 'validate', {str(SEED)!r}]\n"
              "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
              "    try:\n        runpy.run_module('tco', run_name='__main__')\n"
              "    except SystemExit as exc:\n        assert exc.code == 0, exc.code\n"
              "assert gc.get_freeze_count() > 10_000 and not gc.isenabled(), gc.get_freeze_count()")
    modules_after(script)
