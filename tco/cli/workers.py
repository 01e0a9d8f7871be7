"""The batch's worker processes: they end with the batch, and a SIGINT or SIGTERM to the batch stops them in seconds.

A worker (``init``) asks the kernel for SIGTERM when the batch process dies, however it dies (Linux's
``PR_SET_PDEATHSIG``), and turns SIGINT into a flag: a scenario running when it arrives is interrupted as `run`
interrupts one (nothing of it written, its temporary folder removed; files already being renamed into place are
finished first), and every scenario it is handed afterwards returns at once without running (``guarded``).

In the batch process, ``stop_signals`` turns SIGTERM into what SIGINT already is, a KeyboardInterrupt (held back, like
SIGINT, while files are renamed into place), and remembers which signal came; ``stop`` then cancels what has not
started, sends SIGINT to every worker, waits STOP_SECONDS for them to end and kills those still alive.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager

STOP_SECONDS = 10.0
"""How long a stopped batch waits for its workers to end their scenario before it kills them [s]."""

_busy = {"now": False}


def init(parent: int) -> None:
    """A worker's set-up (the pool's initializer): SIGINT to a flag, SIGTERM when the batch process `parent` dies."""
    signal.signal(signal.SIGINT, _on_sigint)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """SIGTERM to this process when its parent dies (Linux); if the parent is gone already, exit now."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the batch's own stop still ends the workers
        return
    if os.getppid() != parent:
        os._exit(1)


def _on_sigint(signum, frame) -> None:
    from tco.output.interrupts import _interrupted

    _interrupted["flag"] = True
    if _busy["now"]:
        raise KeyboardInterrupt


def guarded(fn, *args):
    """``("done", fn(*args))``; ``("interrupted", started)`` when a SIGINT stopped it, or came before it started."""
    from tco.output.interrupts import interrupted

    if interrupted():
        return "interrupted", False
    _busy["now"] = True
    try:
        return "done", fn(*args)
    except KeyboardInterrupt:
        return "interrupted", True
    finally:
        _busy["now"] = False


def stop(pool, futures) -> None:
    """Stop `pool` now: cancel what has not started, SIGINT every worker, wait up to STOP_SECONDS, kill the rest."""
    for fut in futures:
        fut.cancel()
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        try:
            os.kill(p.pid, signal.SIGINT)
        except (ProcessLookupError, TypeError):  # ended already, or not started
            continue
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + STOP_SECONDS
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join(1.0)


@contextmanager
def stop_signals():
    """SIGTERM raised as KeyboardInterrupt in this (the main) thread for the block, as SIGINT is; yields a dict whose
    "signal" is SIGTERM once one came (None: none, or SIGINT). Outside the main thread nothing is changed."""
    got: dict = {"signal": None}

    def on_term(signum, frame):
        got["signal"] = signum
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):  # Python's (raises), or the hold of tco.output.interrupts while files are renamed
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread
        yield got
        return
    try:
        yield got
    finally:
        signal.signal(signal.SIGTERM, previous)
