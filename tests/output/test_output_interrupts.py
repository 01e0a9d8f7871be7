"""tco.output.interrupts: SIGINT as a flag and an exception, and held back while files are renamed."""

import os
import signal

import pytest

from tco.output import interrupts
from tco.output.interrupts import catch_sigint, interrupted, sigint_deferred


@pytest.fixture(autouse=True)
def _clear_flag():
    """The flag is process state: leave it as the next test module expects (no interrupt seen)."""
    yield
    interrupts._interrupted["flag"] = False


def test_catch_sigint_sets_the_flag_and_raises_then_restores_the_handler():
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with catch_sigint():
            assert not interrupted()
            os.kill(os.getpid(), signal.SIGINT)
    assert interrupted()
    assert signal.getsignal(signal.SIGINT) is before
    with catch_sigint():  # entering again clears the flag of the last run
        assert not interrupted()


def test_sigint_deferred_delivers_the_signal_after_the_window():
    seen = []
    with catch_sigint():
        with pytest.raises(KeyboardInterrupt):
            with sigint_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                seen.append("renamed")  # still runs: the signal waits for the end of the window
        assert seen == ["renamed"]
        assert interrupted()


def test_sigint_deferred_holds_with_other_threads_alive():
    """A process-wide SIGINT may land in any thread that does not block it; the hold must not depend on which."""
    import threading

    stop = threading.Event()
    others = [threading.Thread(target=stop.wait) for _ in range(4)]
    for t in others:
        t.start()
    try:
        for _ in range(20):
            seen = []
            with catch_sigint():
                with pytest.raises(KeyboardInterrupt):
                    with sigint_deferred():
                        os.kill(os.getpid(), signal.SIGINT)
                        for _ in range(1000):  # bytecode boundaries at which a raising handler would run
                            pass
                        seen.append("renamed")
            assert seen == ["renamed"]
    finally:
        stop.set()
        for t in others:
            t.join()
