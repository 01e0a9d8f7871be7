"""Regression tests for the red team of 2026-12-02 (d) on the surfaces changed since 2026-12c
(docs/robustness-2026-12d.md): `tco run` with the newer scenario keys and output folders, `tco calibrate`, the sales
desk, the workbook, the PDF and the JSON.

Each test is named after the finding it pins and fails on the code the red team attacked (main at 6827c4b). They call
the library or ``tco.cli.main`` in-process unless marked slow.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tco.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
"""The smallest shipped scenario (Llama 3.1 8B on L4s, fixed FX): a run in about a second."""


# ---------------------------------------------------------------------------------------------
# O1: a run never writes over a file it reads


def test_o1_run_into_the_scenarios_own_folder_never_replaces_it(tmp_path, capsys):
    """`run s.json -o .` (a scenario saved with a .json, .csv, .xlsx or .pdf name) replaced the scenario with the run's
    own JSON, exit 0: the user's input lost."""
    made = set()
    for name, fmt in (("s.json", "json"), ("t.csv", "csv")):
        scen = tmp_path / name
        shutil.copy(SMALL, scen)
        before = scen.read_bytes()
        rc = main(["run", str(scen), "-o", str(tmp_path), "--formats", fmt, "--quiet"])
        err = capsys.readouterr().err
        assert rc == 2 and f"[-o] would replace {scen}, which this run reads" in err, err
        assert scen.read_bytes() == before
        made.add(name)
        assert {p.name for p in tmp_path.iterdir()} == made  # nothing else written either
