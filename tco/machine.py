"""What this computer gives tco: the cores a pool of worker processes may use (batch --jobs, sweep --workers,
serve --workers are capped by it)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity on Linux (a container or `taskset` may give fewer than the
    machine has), else the machine's count, at least 1.

    >>> usable_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
