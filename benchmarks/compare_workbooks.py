"""Check that a change leaves the workbook unchanged: write the workbook of every example and of every variant of
tests/test_workbook.py with this tree and with another copy of the code, then compare them.

    python benchmarks/compare_workbooks.py --before DIR      (e.g. git archive <rev> | tar -x -C DIR)

Compared: every part of each xlsx file byte for byte (except docProps/core.xml, which holds the creation time),
and, read back with openpyxl, every cell's formula text, cached value and number format. Exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys
from dataclasses import replace
from pathlib import Path
sys.path.insert(0, "tests")
from tco import api, engine, analysis
from tco.report import json_out, view, workbook
from tco.scenario import load
import test_workbook as tw
out = Path(sys.argv[1])
runs = {}
for sc in sorted(Path("scenarios").glob("*.toml")):
    inp = api.load(str(sc))
    res = engine.run_scenario(inp.scenario, inp.catalog, file=inp.path, lines=inp.key_lines, simulate=False)
    res = replace(api._plans(engine.apply_fx_risk(res), inp), source_path=inp.path, source_sha256=inp.sha256)
    res = analysis.enrich(res)
    workbook.write(res, view.build(res), out / f"{sc.stem}.xlsx")
    runs[sc.stem] = (load(sc)[0], sc)
for key, (stem, change) in tw.VARIANTS.items():
    scenario, path = runs[stem]
    res, doc = tw.run_engine(tw.modified(scenario, change), path, enrich=True)
    workbook.write(res, view.build(res), out / f"variant_{key}.xlsx")
"""


def write_all(tree: Path, out: Path) -> None:
    out.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(tree))
    subprocess.run([sys.executable, "-c", CHILD, str(out)], cwd=tree, env=env, check=True)


def parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if n != "docProps/core.xml"}


def cells(path: Path, data_only: bool) -> dict:
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=data_only)
    return {(ws.title, c.coordinate): (c.value, c.number_format)
            for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value is not None}


def compare(a: Path, b: Path) -> list[str]:
    """Differences between two workbooks (empty when equal)."""
    pa, pb = parts(a), parts(b)
    out = [f"part {n} differs" for n in sorted(set(pa) | set(pb)) if pa.get(n) != pb.get(n)]
    for data_only in (False, True):
        ca, cb = cells(a, data_only), cells(b, data_only)
        what = "cached value" if data_only else "formula"
        out += [f"{k}: {what} {ca.get(k)} → {cb.get(k)}" for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k)]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, metavar="DIR")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="compare-wb-") as tmp:
        before, after = Path(tmp) / "before", Path(tmp) / "after"
        write_all(args.before.resolve(), before)
        write_all(ROOT, after)
        bad = 0
        for a in sorted(before.glob("*.xlsx")):
            diffs = compare(a, after / a.name)
            n_formulas = sum(1 for v, _ in cells(a, False).values() if isinstance(v, str) and v.startswith("="))
            print(f"{a.name:<48} {n_formulas:>6} formulas  " + ("identical" if not diffs else f"{len(diffs)} differences"))
            for d in diffs[:5]:
                print("    " + d)
            bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
