"""Time a full run (engine + JSON) of each example scenario and print the figures.

    python benchmarks/bench_run.py [--repeat 3]

Also times the Monte Carlo alone for 10k, 100k and 1M paths × 120 months against the floor: the
time numpy alone takes to draw the same normal variates (antithetic pairs halve them), in turns with the
simulation, `--repeat` times each.

    python benchmarks/bench_run.py --memory [--memory-paths 10000000 --memory-options 20]

runs, in a child process, the Monte Carlo of the seed scenario with its options copied up to 20 and
10 million paths, and prints the child's peak resident memory (the issue's bound: 4 GiB; the paths are streamed
a chunk at a time and not kept, so memory hardly grows with paths or options).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as `python -m tco` does (tco/__main__.py), before numpy

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.report import json_out
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def memory_child(paths: int, n_options: int) -> None:
    """The Monte Carlo of the seed with `n_options` options (its own, copied under new names), `paths` paths."""
    from tco.fx import risk

    seed, _, _ = load(ROOT / "scenarios" / "seed_70b_h200.toml")
    opts = [o.model_copy(update={"name": f"#{i + 1} {o.name}"})
            for i, o in ((i, seed.options[i % len(seed.options)]) for i in range(n_options))]
    s = seed.model_copy(update={"options": opts})
    base = run_scenario(s, load_catalog(), seed=1, simulate=False)
    t = time.perf_counter()
    out = risk.simulate(base, paths=paths, seed=1)
    print(f"{len(out)} options × {paths:,} paths × {len(base.months)} months: {time.perf_counter() - t:.1f} s "
          f"(paths streamed {risk.CHUNK:,} at a time; nothing kept per path)")


def memory(paths: int, n_options: int) -> None:
    import resource
    import subprocess
    import sys

    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.argv = ['x']; " \
           f"from benchmarks.bench_run import memory_child; memory_child({paths}, {n_options})"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # Linux: KiB
    print(f"peak resident memory of the child: {peak_kib / 2**20:.2f} GiB (bound: 4 GiB)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-mc", action="store_true")
    ap.add_argument("--only-mc", action="store_true", help="only the Monte Carlo against its draw")
    ap.add_argument("--memory", action="store_true", help="only the peak-memory run (child process)")
    ap.add_argument("--memory-paths", type=int, default=10_000_000)
    ap.add_argument("--memory-options", type=int, default=20)
    args = ap.parse_args()
    if args.memory:
        memory(args.memory_paths, args.memory_options)
        return
    cat = load_catalog()
    if args.only_mc:
        monte_carlo(cat, args.repeat)
        return
    print(f"{'scenario':<28} {'options':>7} {'months':>6} {'paths':>7} {'best s':>8} {'median s':>9}")
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        s, sha, lines = load(path)

        def job():
            res = run_scenario(s, cat, file=str(path), lines=lines)
            json_out.dumps(json_out.build(res, sha, str(path)))

        b, m = best_of(job, args.repeat)
        print(f"{path.stem:<28} {len(s.options):>7} {s.scenario.horizon_months:>6} {s.fx.paths:>7} {b:>8.3f} {m:>9.3f}")
    if args.skip_mc:
        return
    monte_carlo(cat, args.repeat)


def draw_alone(paths: int, horizon: int, seed: int, buf: np.ndarray) -> None:
    """What the simulation draws and nothing else: in each chunk of risk.CHUNK paths, the first ⌈m/2⌉ paths'
    horizon normals, in the groups of risk_paths.DRAW paths the simulation draws them in, from the same generator,
    into one buffer made beforehand (the simulation draws into its own, made once)."""
    from tco.fx.paths import CHUNK, DRAW

    rng = np.random.default_rng(seed)
    for at in range(0, paths, CHUNK):
        half = (min(CHUNK, paths - at) + 1) // 2
        for i in range(0, half, DRAW):
            rng.standard_normal(out=buf[: min(DRAW, half - i) * horizon])


def monte_carlo(cat, repeat: int) -> None:
    """risk.simulate of the seed at 120 months against `draw_alone`, in turns (the draw, then the simulation,
    `repeat` times), so that both see the same load on a shared machine."""
    from tco.fx import risk
    from tco.fx.paths import DRAW

    s, sha, lines = load(ROOT / "scenarios" / "seed_70b_h200.toml")
    s = s.model_copy(update={"scenario": s.scenario.model_copy(update={"horizon_months": 120})})
    base = run_scenario(s, cat, paths=1, seed=0)
    print(f"\nMonte Carlo, GBM, 120 months × {len(base.options)} options (antithetic), load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("simulate = risk.simulate (draws, products, means, percentiles, cheapest; its GBM fan is exact, not drawn); "
          "draw = numpy drawing "
          "the ⌈n/2⌉ × 120 normals the antithetic simulation draws, as it draws them, and nothing else; CPU "
          f"seconds of this process (one BLAS thread), best and median of {repeat}, taken in turns; ratio = "
          "simulate / draw (best / best, and the median of each turn's ratio); ratio2 = against n × 120 normals.")
    print(f"{'paths':>9} {'simulate s':>11} {'median':>7} {'paths/s':>12} {'draw s':>8} {'median':>7} {'ratio':>6} "
          f"{'median':>7} {'ratio2':>7}")
    buf = np.empty(DRAW * 120)
    for n in (10_000, 100_000, 1_000_000):
        sims, draws = [], []
        for _ in range(repeat):
            t = time.process_time()
            draw_alone(n, 120, 1, buf)
            draws.append(time.process_time() - t)
            t = time.process_time()
            risk.simulate(base, paths=n, seed=1)
            sims.append(time.process_time() - t)
        sim, floor = min(sims), min(draws)
        ratio = statistics.median(a / b for a, b in zip(sims, draws, strict=True))
        print(f"{n:>9,} {sim:>11.3f} {statistics.median(sims):>7.3f} {n / sim:>12,.0f} {floor:>8.3f} "
              f"{statistics.median(draws):>7.3f} {sim / floor:>6.2f} {ratio:>7.2f} {sim / (2 * floor):>7.2f}")


if __name__ == "__main__":
    main()
