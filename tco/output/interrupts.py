"""Ctrl-C during a run: a flag as well as an exception, and a window in which it waits.

``catch_sigint`` turns SIGINT into a flag plus KeyboardInterrupt, so an interrupt that Python swallows (one landing
in a weakref callback) is still seen by ``interrupted()`` before files are moved into place; ``sigint_deferred``
holds SIGINT back while they are renamed, and delivers it right after.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager

_interrupted = {"flag": False}


def interrupted() -> bool:
    """True once a SIGINT arrived since ``catch_sigint`` was entered."""
    return _interrupted["flag"]


@contextmanager
def catch_sigint():
    """Record SIGINT in a flag (checked before files are moved in) and raise KeyboardInterrupt."""
    def handler(signum, frame):
        _interrupted["flag"] = True
        raise KeyboardInterrupt

    _interrupted["flag"] = False
    with _sigint_handler(handler):
        yield


@contextmanager
def sigint_deferred():
    """Hold SIGINT back while the files are renamed into place; it is delivered (raises) right after.

    The hold is a Python-level handler that only records the signal, not a signal mask: a mask holds the signal
    for the calling thread only, and with other threads alive (BLAS, a thread pool) the kernel hands a
    process-wide SIGINT to one of them, after which Python runs the raising handler in the main thread at once,
    mid-rename. Python runs signal handlers in the main thread whichever thread received the signal, so the
    recording handler holds in every case. Outside the main thread signals cannot be set: nothing is held."""
    pending: list[int] = []

    def hold(signum, frame):
        _interrupted["flag"] = True
        pending.append(signum)

    with _sigint_handler(hold):
        yield
    if pending:
        raise KeyboardInterrupt


@contextmanager
def _sigint_handler(handler):
    """`handler` for SIGINT inside the block, the previous one restored after; outside the main thread (where
    signals cannot be set) the block runs with signals left alone."""
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

