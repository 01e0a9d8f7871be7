"""Writing a run's files: JSON, CSV ledger, workbook and proposal, all or nothing.

Every file is first written to a temporary folder inside the output folder and moved into place
only when all of them were written, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

FORMATS = ("json", "csv", "xlsx", "pdf")
"""The formats a run can write, in the order they are written (the proposal attaches the workbook)."""


def write_outputs(res, out_dir: Path, stem: str, formats: list[str] | tuple[str, ...], *, sha: str,
                  scenario_path: str) -> list[Path]:
    """Write ``<out_dir>/<stem>.<format>`` for each format; return the paths written."""
    from tco.report import json_out, ledger_csv

    created = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tco-", dir=out_dir))
    written = []
    ok = False
    try:
        doc = json_out.build(res, sha, scenario_path)
        if "json" in formats:
            (tmp / f"{stem}.json").write_text(json_out.dumps(doc), encoding="utf-8")
        if "csv" in formats:
            (tmp / f"{stem}.csv").write_text(ledger_csv.render(res), encoding="utf-8")
        if "xlsx" in formats:
            from tco.report import workbook

            workbook.write(res, doc, tmp / f"{stem}.xlsx")
        if "pdf" in formats:
            from tco.report import proposal

            attachments = [Path(scenario_path)] + ([tmp / f"{stem}.xlsx"] if (tmp / f"{stem}.xlsx").exists() else [])
            proposal.write(res, doc, tmp / f"{stem}.pdf", attachments=attachments)
        for f in sorted(tmp.iterdir()):
            dest = out_dir / f.name
            os.replace(f, dest)
            written.append(dest)
        ok = True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not ok and created:
            shutil.rmtree(out_dir, ignore_errors=True)  # leave no empty folder behind either
    return written
