"""A batch of scenarios against running them one by one, and print the speed-up.

    python benchmarks/bench_batch.py [--count 20] [--jobs N] [--formats json,csv,xlsx,pdf]

Makes `count` scenario files (the examples in turn, each under its own file name) in a temporary folder,
then times, as wall clock and as CPU of the child processes (user + sys):
  one by one   `python -m tco run FILE -o DIR --quiet` for each file, in sequence
  batch        `python -m tco batch FILE… -o DIR --jobs N --quiet`
and checks that both wrote the same set of files and the same JSON bytes (the same work both ways; each
`run` pays its own process start, as a user running them one by one would, and the batch pays its own once).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmds: list[list[str]]) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    c0, w0 = child_cpu(), time.perf_counter()
    for cmd in cmds:
        done = subprocess.run(cmd, check=False, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:5])}… exited {done.returncode}:\n{done.stderr}{done.stdout}")
    return time.perf_counter() - w0, child_cpu() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=None, help="batch workers (default: usable cores)")
    ap.add_argument("--formats", default="json,csv,xlsx,pdf")
    args = ap.parse_args(argv)
    py = sys.executable
    examples = sorted((ROOT / "scenarios").glob("*.toml"))
    tmp = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    try:
        files = []
        for i in range(args.count):
            src = examples[i % len(examples)]
            dst = tmp / "in" / f"{i + 1:02d}_{src.name}"
            dst.parent.mkdir(exist_ok=True)
            shutil.copy(src, dst)
            files.append(str(dst))
        one = [[py, "-m", "tco", "run", f, "-o", str(tmp / "one"), "--quiet", "--formats", args.formats]
               for f in files]
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        many = [[py, "-m", "tco", "batch", *files, "-o", str(tmp / "batch"), "--quiet", "--formats", args.formats,
                 *jobs]]
        w1, c1 = timed(one)
        w2, c2 = timed(many)
        same = sorted(p.name for p in (tmp / "one").iterdir()) == sorted(p.name for p in (tmp / "batch").iterdir())
        same_json = all((tmp / "one" / p.name).read_bytes() == p.read_bytes() for p in (tmp / "batch").glob("*.json"))
        n = len(list((tmp / "batch").iterdir()))
        load = os.getloadavg()
        print(f"{args.count} scenarios, formats {args.formats}, {os.cpu_count()} cores, "
              f"batch --jobs {args.jobs or 'default'}")
        print(f"{'':<12} {'wall s':>8} {'cpu s':>8}")
        print(f"{'one by one':<12} {w1:>8.1f} {c1:>8.1f}")
        print(f"{'batch':<12} {w2:>8.1f} {c2:>8.1f}")
        print(f"speed-up (wall): {w1 / w2:.2f}×; same {n} output files: {same}; JSON byte-identical: {same_json}")
        print(f"load average at the end (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} — the machine is "
              f"shared: above {os.cpu_count()}, other processes took cores and the speed-up understates")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
