"""Time the plan search on each example scenario and print the figures.

    python benchmarks/bench_plan.py [--repeat 5]

Prints, per scenario: the candidate plans covered, the plans scored (what `[plan] max_candidates` bounds,
`tco.plan.precheck`), the components costed by the engine's own cost
function (training bursts, serving fleets, shared fleets), the best and median wall-clock seconds of
`tco.plan.search`, and for comparison the seconds one full engine run of a single option takes (what
scoring every candidate through the engine one by one would multiply).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tco import plan
from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.scenario import Option, load

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, repeat: int) -> tuple[float, float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cat = load_catalog()
    print(f"{'scenario':<22} {'candidates':>12} {'scored':>8} {'components':>16} {'best s':>8} {'median s':>9} "
          f"{'one engine run s':>17} {'one by one s (est.)':>20}")
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        s, _, _ = load(path)
        best, median, res = timed(lambda s=s: plan.search(s, cat), args.repeat)
        one = s.model_copy(update={"options": [Option(**res.best.option)], "plan": None})
        eng, _, _ = timed(lambda one=one: run_scenario(one, cat, simulate=False), args.repeat)
        srch = res.search
        comps = f"{srch['training_components']}+{srch['serving_components']}+{srch['shared_plans']}"
        print(f"{path.stem:<22} {srch['candidates']:>12,} {plan.precheck(s, cat):>8,} {comps:>16} {best:>8.3f} {median:>9.3f} {eng:>17.4f} "
              f"{eng * srch['candidates']:>20,.0f}")


if __name__ == "__main__":
    main()
