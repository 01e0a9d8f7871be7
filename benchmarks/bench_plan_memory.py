"""The plan search's peak memory as the committed-baseline ladder grows (review 2026-12 M4).

    python benchmarks/bench_plan_memory.py [--rates 0.6,0.75,1.0]

Each case is the small L4 example with its users growing compound from 1,000 at `rate` a month over its 24 months
(1.0 doubles them monthly: 8.4 billion users in the last month, 64.5 million committed levels, most of the
schema's max_candidates of 10^8) and `[plan] max_candidates` at that maximum. Each runs in its own process, which
prints the plans scored (pairs, levels, shared), the search's seconds and the process's peak RSS [GB]. The budget:
the ladder is costed LADDER_CHUNK levels at a time, so the peak stays near the small cases' whatever the levels.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_GB = 1.0
"""The memory the search may take at the schema's maximum [GB of peak RSS, the whole process]."""

CASE = r"""
import resource, sys, time
from pathlib import Path
from tco import plan
from tco.catalog import load_catalog
from tco.plan.components import context
from tco.plan.precheck import scored_parts
from tco.scenario import load
text = Path(sys.argv[1]).read_text(encoding="utf-8").replace(
    'users = { model = "linear", start_users = 300, end_users = 1500 }',
    f'users = {{ model = "compound", start_users = 1000, monthly_growth_rate = {sys.argv[2]} }}')
text += "\n[plan]\nmax_candidates = 100000000\n"
f = Path(sys.argv[3]) / f"growth_{sys.argv[2]}.toml"
f.write_text(text, encoding="utf-8")
s, _, _ = load(f)
cat = load_catalog()
parts = scored_parts(context(s, cat, str(f)))
t = time.perf_counter()
plan.search(s, cat)
print(f"{sys.argv[2]:>5} {parts[0]:>8,} {parts[1]:>12,} {parts[2]:>6,} {time.perf_counter() - t:>9.1f} "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:>8.2f}", flush=True)
"""


def main() -> None:
    import tempfile

    ap = argparse.ArgumentParser()
    ap.add_argument("--rates", default="0.6,0.75,1.0")
    args = ap.parse_args()
    print(f"{'rate':>5} {'pairs':>8} {'levels':>12} {'shared':>6} {'search s':>9} {'peak GB':>8}  (budget {BUDGET_GB} GB)")
    with tempfile.TemporaryDirectory() as d:
        for rate in args.rates.split(","):
            subprocess.run([sys.executable, "-c", CASE, str(ROOT / "scenarios" / "assistant_8b_l4.toml"), rate, d],
                           check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
