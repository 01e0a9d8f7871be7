"""CPU seconds per stage of one run of the seed, in a fresh interpreter, comparable before/after.

    python benchmarks/bench_stages.py [--scenario scenarios/seed_70b_h200.toml] [--before DIR] [--repeat 3]

The child process times (``time.process_time``, this process only) each stage of ``tco run`` in the order
the CLI runs them: load (read + validate), engine (sizing and costs, no Monte Carlo), mc (the FX Monte
Carlo), plans (the plan search), analysis (break-evens, tornado, …), then the writers json, csv, xlsx, pdf.
It does the whole pipeline twice: the first ("cold") pass pays each stage's imports and first-call caches,
as a user's run does; the second ("warm") pass does not. ``imports`` = interpreter start-up and the
``import tco…`` statements; ``first-call`` = cold − warm summed over stages (lazy imports, font and
template caches). With ``--before DIR`` (e.g. ``git archive <rev> | tar -x -C DIR``) the same child runs
with DIR first on the path, interleaved, and the table shows both and their ratio (median of N).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("load", "engine", "mc", "plans", "analysis", "json", "csv", "xlsx", "pdf")

CHILD = r"""
import json, sys, time
from pathlib import Path
t_start = time.process_time()
from dataclasses import replace
from tco import api, engine, analysis
from tco.report import json_out, ledger_csv
t_imports = time.process_time()
scenario, out = sys.argv[1], Path(sys.argv[2])

def one_pass(tag):
    got = {}
    def stage(name, fn):
        t = time.process_time(); r = fn(); got[name] = time.process_time() - t; return r
    inp = stage("load", lambda: api.load(scenario))
    res = stage("engine", lambda: engine.run_scenario(inp.scenario, inp.catalog, file=inp.path,
                                                       lines=inp.key_lines, simulate=False))
    res = stage("mc", lambda: engine.apply_fx_risk(res))
    res = stage("plans", lambda: replace(api._plans(res, inp), source_path=inp.path, source_sha256=inp.sha256))
    res = stage("analysis", lambda: analysis.enrich(res))
    doc = json_out.build(res, res.source_sha256, inp.path)
    stage("json", lambda: (out / f"{tag}.json").write_text(json_out.dumps(doc), encoding="utf-8"))
    stage("csv", lambda: (out / f"{tag}.csv").write_text(ledger_csv.render(res), encoding="utf-8"))
    def xlsx():
        from tco.report import view, workbook
        workbook.write(res, view.build(res), out / f"{tag}.xlsx")
    stage("xlsx", xlsx)
    def pdf():
        from tco.report import proposal
        import inspect
        head = (res, doc) if "doc" in inspect.signature(proposal.write).parameters else (res,)  # older trees
        proposal.write(*head, out / f"{tag}.pdf", attachments=[Path(scenario), out / f"{tag}.xlsx"])
    stage("pdf", pdf)
    return got

cold = one_pass("cold")
warm = one_pass("warm")
print(json.dumps({"imports": t_imports, "cold": cold, "warm": warm}))
"""


def child(tree: Path, scenario: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp:
        done = subprocess.run([sys.executable, "-c", CHILD, scenario, tmp], cwd=tree, env=env,
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"stage child in {tree} exited {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarise(runs: list[dict]) -> dict[str, float]:
    """Median over runs of each row: imports, each stage warm, first-call (cold − warm), total (cold run)."""
    rows: dict[str, list[float]] = {}
    for r in runs:
        vals = {"imports": r["imports"]} | {s: r["warm"][s] for s in STAGES}
        vals["first-call"] = sum(r["cold"][s] - r["warm"][s] for s in STAGES)
        vals["total"] = r["imports"] + sum(r["cold"].values())
        for k, v in vals.items():
            rows.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in rows.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="scenarios/seed_70b_h200.toml")
    ap.add_argument("--before", type=Path, metavar="DIR")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    scenario = args.scenario  # relative to each tree (the child runs in it): each copy reads its own format
    trees = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    runs: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(args.repeat):
        for label, tree in trees.items():  # interleaved: both see the same load
            runs[label].append(child(tree, scenario))
    table = {label: summarise(r) for label, r in runs.items()}
    labels = list(trees)
    head = "".join(f"{x:>9}" for x in labels) + ("    ratio" if len(labels) == 2 else "")
    print(f"{'stage':<11}{head}   (CPU seconds, median of {args.repeat}, {os.cpu_count()} cores)")
    for row in ("imports", *STAGES, "first-call", "total"):
        vals = [table[x][row] for x in labels]
        ratio = f"{vals[1] / vals[0]:>9.0%}" if len(vals) == 2 and vals[0] > 0.005 else ""
        print(f"{row:<11}" + "".join(f"{v:>9.3f}" for v in vals) + ratio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
