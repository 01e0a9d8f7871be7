import gc
import os
import sys

# The BLAS products here are small (the Monte Carlo's blocks): BLAS threads would only spin, burning CPU that
# the other work (and the batch's worker processes) need. Set before numpy is imported; the user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Start-up builds some 10^5 long-lived objects (modules, classes, the schema's validators) that the cyclic
# collector, at its default thresholds (700, 10, 10), would walk again and again: about 120 collections and
# 30–40 ms of a 0.35 s `validate`. A command's data are numpy arrays and plain values, not reference cycles, so
# young objects are collected 14× less often and the older generations in proportion (full collections still
# run, after 10_000 × 50 × 100 allocations): `validate` made about 8 collections at these thresholds (none now).
from tco.plain import plain  # noqa: E402  (after the BLAS setting, as every tco import)

TUNED = not plain("gc")  # TCO_PLAIN: the collector as Python sets it (tco.plain)
if TUNED:
    gc.set_threshold(10_000, 50, 100)
if TUNED and sys.argv[1:2] == ["validate"]:
    # A check is bounded work (tco.cli.cmd_validate): no collection at all, from here on; the young collections
    # of the CLI's own start-up were still 2 % of its instructions.
    gc.disable()

from tco.cli import main  # noqa: E402

if __name__ == "__main__":  # not when a spawned worker process imports it
    code = main()
    # The command is done (its files written and closed, atexit handlers still to run). The interpreter's exit
    # would now collect every object of the process once more, to find cycles whose memory the OS is about to take
    # back anyway: 40-50 ms of a 0.35 s `validate`. Frozen (gc.freeze), they are left out of that collection.
    if TUNED:
        gc.freeze()
    raise SystemExit(code)
