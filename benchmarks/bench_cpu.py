"""Whole-process CPU time (user + sys of the child processes) of the CLI, and its wall time.

    python benchmarks/bench_cpu.py [--repeat 3] [--scenario scenarios/seed_70b_h200.toml]

Runs, each in a fresh interpreter (so imports count, as they do for a user):
  run       python -m tco run SCENARIO -o TMP            (json, csv, xlsx, pdf)
  validate  python -m tco validate SCENARIO
  help      python -m tco --help
and prints the CPU seconds (``resource.getrusage(RUSAGE_CHILDREN)`` before/after, so any worker
process the run starts is counted too) and the wall seconds, best and median of N.

    python benchmarks/bench_cpu.py --before /tmp/tco-650b9aa

also runs each command with another copy of the source (e.g. ``git archive 650b9aa | tar -x -C DIR``),
interleaved with this one so both see the same machine load, and prints after/before ratios.

    python benchmarks/bench_cpu.py --only validate --floor

also times the interpreter's floor, in the same fresh-interpreter way and interleaved: ``python -c pass``, and
``import numpy, pydantic`` (what `validate` cannot do without; with OPENBLAS_NUM_THREADS=1, as the CLI sets it).
The machine's speed drifts (a shared VM), so a figure is best quoted beside its floor.

    python benchmarks/bench_cpu.py --stages [--before DIR]

prints instead the CPU seconds of each stage of one run (imports, load, engine, mc, plans, analysis, json,
csv, xlsx, pdf; see benchmarks/bench_stages.py), before and after.

Bytecode: an installed package has its modules compiled (pip writes the .pyc files), so by default each tree's
modules are compiled once into a cache of its own (PYTHONPYCACHEPREFIX, a temporary folder; an untimed warm-up
run fills it) and the timed runs read them, as a user's do. ``--cold-bytecode`` keeps the caller's setting
instead: with PYTHONDONTWRITEBYTECODE=1 (set on the shared machine) every run compiles every module it imports
from source, which adds 0.2–0.3 s to `validate` and says nothing about the code's own speed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


PYC_CACHES: dict[Path, str] = {}
"""Tree → its bytecode cache folder (empty: the caller's own setting, --cold-bytecode)."""


def measure(cmd: list[str], tree: Path = ROOT) -> tuple[float, float]:
    """(cpu seconds, wall seconds) of one child process run with `tree` first on the path; raises if it fails.

    ``{tree}`` in an argument is replaced by the tree, so each copy of the code reads its own scenario (the scenario
    format changes with the code)."""
    cmd = [a.replace("{tree}", str(tree)) for a in cmd]
    env = dict(os.environ, PYTHONPATH=str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if PYC_CACHES.get(tree):
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYC_CACHES[tree]
    c0, w0 = child_cpu(), time.perf_counter()
    done = subprocess.run(cmd, check=False, cwd=tree, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - w0, child_cpu() - c0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    return cpu, wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scenario", default="scenarios/seed_70b_h200.toml")
    ap.add_argument("--only", choices=["run", "validate", "help"], action="append")
    ap.add_argument("--before", type=Path, metavar="DIR", help="a copy of the code before the change, to compare")
    ap.add_argument("--stages", action="store_true", help="CPU seconds per stage of one run (bench_stages.py)")
    ap.add_argument("--floor", action="store_true",
                    help="also time `python -c pass` and `import numpy, pydantic` (the floor under every command)")
    ap.add_argument("--cold-bytecode", action="store_true",
                    help="no bytecode cache of the trees' own: with PYTHONDONTWRITEBYTECODE=1 every run compiles")
    args = ap.parse_args(argv)
    if args.stages:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_stages

        return bench_stages.main(["--scenario", args.scenario, "--repeat", str(args.repeat)]
                                 + (["--before", str(args.before)] if args.before else []))
    py = sys.executable
    trees = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
        if not args.cold_bytecode:
            PYC_CACHES.update({tree: str(Path(tmp) / f"pyc-{label}") for label, tree in trees.items()})
        scenario = "{tree}/" + args.scenario
        jobs = {"run": [py, "-m", "tco", "run", scenario, "-o", tmp, "--quiet"],
                "validate": [py, "-m", "tco", "validate", scenario],
                "help": [py, "-m", "tco", "--help"]}
        floors = {"pass": [py, "-c", "pass"],
                  "libs": [py, "-c", "import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'; import numpy, pydantic.main"]
                  } if args.floor else {}
        print(f"{'command':<9} {'code':<7} {'cpu best':>9} {'cpu med':>8} {'wall best':>10} {'wall med':>9}   "
              f"(seconds, {args.repeat} runs, {os.cpu_count()} cores)")
        for name, cmd in jobs.items():
            if args.only and name not in args.only:
                continue
            got: dict[str, list[tuple[float, float]]] = {k: [] for k in [*trees, *floors]}
            if not args.cold_bytecode:  # untimed: compiles what this command imports into each tree's cache
                for tree in trees.values():
                    measure(cmd, tree)
            for _ in range(args.repeat):
                for label, tree in trees.items():  # interleaved: both see the same load
                    got[label].append(measure(cmd, tree))
                for label, floor in floors.items():
                    got[label].append(measure(floor))
            for label, runs in got.items():
                cpu, wall = [g[0] for g in runs], [g[1] for g in runs]
                print(f"{name:<9} {label:<7} {min(cpu):>9.2f} {statistics.median(cpu):>8.2f} {min(wall):>10.2f} "
                      f"{statistics.median(wall):>9.2f}")
            for label in trees if floors else ():  # best CPU above each floor's best
                best = min(g[0] for g in got[label])
                print(f"{name:<9} {label:<7} " + "   ".join(f"{best - min(g[0] for g in got[k]):.2f} over {k}"
                                                          for k in floors))
            if len(trees) == 2:
                ratio = [statistics.median(g[0] for g in got["after"]) / statistics.median(g[0] for g in got["before"]),
                         min(g[0] for g in got["after"]) / min(g[0] for g in got["before"])]
                print(f"{name:<9} {'ratio':<7} {ratio[1]:>9.0%} {ratio[0]:>8.0%}   (after / before CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
