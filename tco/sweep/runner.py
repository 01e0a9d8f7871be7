"""Running a sweep's cases on Dask: a ``dask.distributed.LocalCluster`` on this machine (worker processes, one
thread each), or the cluster whose scheduler address is given (the same code: a client on an address).

The base (scenario TOML, catalog, axis paths) is scattered to every worker once; cases go in batches of
consecutive cases, about eight per worker and at most ``MAX_BATCH`` cases each (a case of the seed costs
0.2 s, a task's scheduling about a millisecond), so scheduling stays small and an interrupt loses little.
A batch whose worker failed becomes error rows for its cases; the sweep goes on.
"""

from __future__ import annotations

import logging
import math
from typing import Callable

from tco.errors import InputError, Problem
from tco.machine import usable_cores as default_workers
from tco.sweep.case import Base, run_batch, row_columns

MAX_BATCH = 32
CONNECT_SECONDS = 10
"""How long a scheduler address may take to answer."""


def batches(todo: list[int], workers: int) -> list[list[int]]:
    """`todo` cut into consecutive batches: about eight per worker, at most MAX_BATCH cases each.

    >>> batches(list(range(10)), 1)
    [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    """
    size = max(1, min(MAX_BATCH, math.ceil(len(todo) / (8 * max(1, workers)))))
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def connect(scheduler: str | None, workers: int | None):
    """A dask.distributed Client: on the scheduler at `scheduler`, else on a new LocalCluster of `workers`
    processes (default: the usable cores) listening on the loopback only, no dashboard. Returns (client,
    cluster or None). A scheduler that does not answer is an InputError naming the address."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout=f"{CONNECT_SECONDS}s", set_as_default=False), None
        except Exception as exc:  # noqa: BLE001  (tls:// without certificates raises TypeError, ucx:// without UCX …)
            raise InputError([Problem("--scheduler", "", f"{scheduler}: no Dask scheduler answered within "
                                      f"{CONNECT_SECONDS} s ({type(exc).__name__}: {exc})")]) from None
    cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    client = Client(cluster, set_as_default=False)
    client.run(ignore_interrupts)
    return client, cluster


def ignore_interrupts() -> None:
    """In a local worker process: ignore SIGINT. Ctrl-C on a terminal reaches every process of its group; the
    sweep's own process stops the cases, keeps what finished and closes the cluster, and the workers would
    otherwise each die printing a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _failed(base: Base, work_cases: list[tuple], batch: list[int], why: str) -> list[dict]:
    cols = row_columns(base)
    return [{c: {"case": i, **dict(zip(base.columns, work_cases[i])), "error": why}.get(c) for c in cols}
            for i in batch]


def execute(base: Base, work_cases: list[tuple], todo: list[int], on_rows: Callable[[list[dict], int], None],
            client=None) -> None:
    """Run the cases `todo` (indices into `work_cases`), calling ``on_rows(rows, cases)`` as each batch ends
    (in the order they end). Without a client, in this process, batch after batch (the library's own use and
    the tests'). A KeyboardInterrupt cancels what has not started and is raised again."""
    if client is None:
        for b in batches(todo, 1):
            on_rows(run_batch(base, [(i, work_cases[i]) for i in b]), len(b))
        return
    from dask.distributed import as_completed

    workers = max(1, len(client.nthreads()))
    shared = client.scatter(base, broadcast=True, hash=False)
    futures = {}
    for b in batches(todo, workers):
        fut = client.submit(run_batch, shared, [(i, work_cases[i]) for i in b], pure=False)
        futures[fut] = b
    try:
        for fut in as_completed(list(futures), loop=client.loop):
            b = futures.pop(fut)
            try:
                rows = fut.result()
            except Exception as exc:  # noqa: BLE001  (a worker that died or a task that failed: rows with the error)
                rows = _failed(base, work_cases, b, f"worker failed: {type(exc).__name__}: {exc}")
            on_rows(rows, len(b))
    except BaseException:
        client.cancel(list(futures), force=True)
        raise
