"""Scaling of `tco sweep`: a Latin-hypercube sweep of the seed (USD/BRL 4–7 × the users' ceiling 2,000–16,000),
JSON-level results (no workbook, no PDF), run

  1. case by case through the engine alone (``tco.api.run`` on the case's validated scenario): the floor;
  2. by the sweep in this process (validation, the run, the rows): its overhead over the engine;
  3. on a Dask LocalCluster of 1 and of 2 worker processes: cases per second and the efficiency
     (rate on 2 workers / (2 × rate on 1)). The cluster's start-up is timed apart.

    python benchmarks/bench_sweep.py                 # 10,000 cases (about 30 min per worker count on the seed)
    python benchmarks/bench_sweep.py --cases 400     # a quicker look

Targets (issue 25): a case costs at most its engine run + 10 %; 2 workers give at least 1.7× one.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

# one BLAS thread, as in a Dask worker (distributed sets it for its worker processes): the engine alone and the
# in-process sweep are then timed under the workers' conditions (on a shared 2-core machine, BLAS's own threads
# make a case several times slower)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"


def sweep_file(folder: Path, cases: int) -> Path:
    p = folder / "bench.toml"
    p.write_text(f'[sweep]\nbase = "{SEED}"\ndesign = "lhs"\nsamples = {cases}\nseed = 1\nkeep = ["tco", "npv", "fleet"]\n'
                 '[[axes]]\nkey = "fx.usdbrl"\ndistribution = {kind = "uniform", low = 4.0, high = 7.0}\n'
                 '[[axes]]\nkey = "inference.users.ceiling_users"\n'
                 'distribution = {kind = "uniform", low = 2000, high = 16000}\n', encoding="utf-8")
    return p


def engine_and_sweep(work, n: int, rounds: int = 10) -> tuple[float, float]:
    """Seconds per case of (tco.api.run alone on the case's validated scenario, the sweep's whole case: validation,
    the run, the rows), timed in alternating rounds over the same cases so that a machine whose load drifts
    (other jobs on shared cores) weighs on both alike."""
    from tco import api
    from tco.scenario import Scenario
    from tco.sweep.case import case_data, run_batch

    inputs = [api.Inputs(Scenario.model_validate(case_data(work.base, work.cases[i])), work.base.catalog,  # type: ignore[arg-type]
                         work.base.path, "", {}) for i in range(n)]
    engine = sweep = 0.0
    for r in range(rounds):
        chunk = range(r * n // rounds, (r + 1) * n // rounds)
        t0 = time.perf_counter()
        for i in chunk:
            api.run(inputs[i], analysis=False, plans=False)
        t1 = time.perf_counter()
        run_batch(work.base, [(i, work.cases[i]) for i in chunk])
        engine, sweep = engine + t1 - t0, sweep + time.perf_counter() - t1
    return engine / n, sweep / n


def on_dask(work, workers: int) -> tuple[float, float]:
    """(cluster start-up seconds, cases per second) on a LocalCluster of `workers` processes."""
    from tco.sweep import runner

    t0 = time.perf_counter()
    client, cluster = runner.connect(None, workers)
    client.wait_for_workers(workers)
    start = time.perf_counter() - t0
    try:
        done = [0]
        t1 = time.perf_counter()
        runner.execute(work.base, work.cases, list(range(len(work.cases))),
                       lambda rows, n: done.__setitem__(0, done[0] + n), client=client)
        rate = done[0] / (time.perf_counter() - t1)
    finally:
        client.close()
        cluster.close()
    return start, rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--engine-cases", type=int, default=40, help="cases timed through the engine alone")
    args = ap.parse_args()
    from tco.sweep import plan

    with tempfile.TemporaryDirectory() as tmp:
        work = plan.prepare(sweep_file(Path(tmp), args.cases), max_cases=max(args.cases, plan.MAX_CASES))
    n = min(args.engine_cases, args.cases)
    engine_and_sweep(work, 2, rounds=1)  # imports and caches warm
    eng, swp = engine_and_sweep(work, n)
    print(f"engine alone     {eng * 1000:8.1f} ms/case  ({n} cases)")
    print(f"sweep, in process {swp * 1000:7.1f} ms/case  overhead {swp / eng - 1:+.1%} (target ≤ +10 %)")
    rates = {}
    for w in (1, 2):
        start, rates[w] = on_dask(work, w)
        print(f"dask, {w} worker(s) {rates[w]:7.2f} cases/s  ({args.cases:,} cases; cluster start {start:.1f} s)")
    print(f"speed-up 2 vs 1   {rates[2] / rates[1]:.2f}x  efficiency {rates[2] / (2 * rates[1]):.0%} (target ≥ 1.7x)")


if __name__ == "__main__":
    main()
