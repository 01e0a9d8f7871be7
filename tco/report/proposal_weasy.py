"""Importing WeasyPrint without its library search starting programs.

    weasyprint()   the imported `weasyprint` package (imported once, as below)

WeasyPrint opens pango, harfbuzz, fontconfig, … through cffi, trying several names for each library; the Linux
soname (``libpango-1.0.so.0``) comes after names such as ``libpango-1.0-0`` and ``pango-1.0``. cffi hands a
name that fails to ``ctypes.util.find_library``, which on Linux starts ``ldconfig -p``, then ``gcc`` and ``ld``
to look for it: about twenty short-lived processes and 0.15–0.2 s of CPU (a twentieth of a whole run) to reach
a name the dynamic loader opens at once. So while WeasyPrint is first imported on Linux, `find_library` answers
None: the other names fail at once and the soname is opened by the dynamic loader itself (which still reads the
ld cache and LD_LIBRARY_PATH). Should that import fail anyway (a system whose sonames are not in WeasyPrint's
list), it is retried as usual, with the real `find_library`.
"""

from __future__ import annotations

import contextlib
import io
import sys
from types import ModuleType


@contextlib.contextmanager
def _no_library_search():
    """`ctypes.util.find_library` answers None inside the block (Linux only; elsewhere nothing changes)."""
    if not sys.platform.startswith("linux"):
        yield
        return
    import ctypes.util

    real = ctypes.util.find_library
    ctypes.util.find_library = lambda name: None
    try:
        yield
    finally:
        ctypes.util.find_library = real


def weasyprint() -> ModuleType:
    """Import WeasyPrint (once per process) without the library search; see the module's note."""
    if "weasyprint" in sys.modules:
        return sys.modules["weasyprint"]
    try:
        # WeasyPrint prints its installation advice to stdout before it raises: kept out of the fast attempt
        with _no_library_search(), contextlib.redirect_stdout(io.StringIO()):
            import weasyprint
    except OSError:  # a library under a name only the search finds: import as WeasyPrint itself does
        import weasyprint
    return weasyprint
