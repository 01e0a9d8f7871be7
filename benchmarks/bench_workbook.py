"""Time writing the Excel workbook of each example scenario beside the time of the engine itself.

    python benchmarks/bench_workbook.py [--repeat 3] [--recalc]

engine s   run_scenario (sizing, costs, FX, Monte Carlo with the scenario's paths)
extra s    tco.analysis.enrich (tornado, break-evens, FX fan), which the CLI adds and the workbook shows
json s     json_out.build (the document the workbook also reads)
xlsx s     tco.report.workbook.write to a temporary file
--recalc   also times one LibreOffice headless recalculation of each workbook (needs soffice)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
import zipfile
from pathlib import Path

from tco import analysis
from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.report import json_out, view, workbook
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[1]
XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def timed(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), out


def count_formulas(path: Path) -> int:
    with zipfile.ZipFile(path) as z:
        return sum(z.read(n).count(b"<f>") for n in z.namelist() if n.startswith("xl/worksheets/sheet"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--recalc", action="store_true", help="also time a LibreOffice recalculation")
    args = ap.parse_args()
    soffice = shutil.which("soffice")
    cat = load_catalog()
    tmp = Path(tempfile.mkdtemp(prefix="bench-wb-"))
    print(f"{'scenario':<22} {'opts':>4} {'months':>6} {'paths':>6} {'engine s':>9} {'extra s':>8} {'json s':>7} {'xlsx s':>7} "
          f"{'formulas':>9} {'kB':>6}" + (f" {'recalc s':>9}" if args.recalc else ""))
    try:
        for path in sorted((ROOT / "scenarios").glob("*.toml")):
            s, sha, lines = load(path)
            eb, _, res = timed(lambda s=s, path=path, lines=lines: run_scenario(s, cat, file=str(path), lines=lines),
                               args.repeat)
            ab, _, res = timed(lambda res=res: analysis.enrich(res), args.repeat)
            jb, _, doc = timed(lambda res=res, sha=sha, path=path: json_out.build(res, sha, str(path)), args.repeat)
            out = tmp / f"{path.stem}.xlsx"
            wb_best, _, _ = timed(lambda res=res, v=view.build(res), out=out: workbook.write(res, v, out), args.repeat)
            line = (f"{path.stem:<22} {len(s.options):>4} {s.scenario.horizon_months:>6} {s.fx.paths:>6} {eb:>9.3f} "
                    f"{ab:>8.3f} {jb:>7.3f} {wb_best:>7.3f} {count_formulas(out):>9,} {out.stat().st_size / 1024:>6.0f}")
            if args.recalc and soffice:
                prof = tmp / f"profile-{path.stem}"
                (prof / "user").mkdir(parents=True)
                (prof / "user" / "registrymodifications.xcu").write_text(XCU, encoding="utf-8")
                t = time.perf_counter()
                subprocess.run([soffice, f"-env:UserInstallation={prof.as_uri()}", "--headless", "--convert-to", "xlsx",
                                "--outdir", str(tmp / "recalc"), str(out)], check=True, capture_output=True)
                line += f" {time.perf_counter() - t:>9.2f}"
            print(line)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
