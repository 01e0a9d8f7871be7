"""Importing WeasyPrint without searching for its libraries or compiling its C declarations.

    weasyprint()          the imported `weasyprint` package (imported once, as below)
    write_precompiled()   regenerate weasy_ffi.py after a WeasyPrint or cffi upgrade

Two costs of `import weasyprint` that have nothing to do with the document, about 0.3 s of CPU per run:

- the library search. WeasyPrint opens pango, harfbuzz, fontconfig, … through cffi, trying several names for each
  library; the Linux soname (``libpango-1.0.so.0``) comes after names such as ``libpango-1.0-0`` and
  ``pango-1.0``. cffi hands a name that fails to ``ctypes.util.find_library``, which on Linux starts
  ``ldconfig -p``, then ``gcc`` and ``ld`` to look for it: about fifty short-lived processes (0.15–0.2 s of CPU)
  to reach a name the dynamic loader opens at once. So while WeasyPrint is first imported on Linux,
  `find_library` answers None: the other names fail at once and the soname is opened by the dynamic loader
  itself (which still reads the ld cache and LD_LIBRARY_PATH).
- the C declarations. WeasyPrint declares its 450 lines of C to cffi as text (``ffi.cdef``), which cffi parses
  with pycparser on every import, and each type named later (``ffi.new("PangoRectangle *")``) again: about
  0.1 s. cffi can store the parsed declarations ("out-of-line ABI mode"); weasy_ffi.py holds them for the
  installed WeasyPrint's declarations, and while WeasyPrint is imported ``cffi.FFI()`` answers an FFI built from
  them, whose ``cdef`` checks that it is handed the very text they were made from (SHA-256).

Should either fail (a system whose sonames are not in WeasyPrint's list, declarations of another WeasyPrint
version or a cffi they were not made with), WeasyPrint is imported again the usual way.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import sys
from pathlib import Path
from types import ModuleType

DATA = Path(__file__).with_name("weasy_ffi.py")


class StaleDeclarations(ImportError):
    """The stored declarations are not the ones WeasyPrint declares (or not for this cffi)."""


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


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextlib.contextmanager
def _precompiled_ffi():
    """`cffi.FFI()` inside the block gives an FFI made from the stored declarations (nothing changes if they
    cannot be used here); its `cdef` raises StaleDeclarations unless handed the text they were made from."""
    try:
        import _cffi_backend
        import cffi

        from tco.report.proposal import weasy_ffi as data
    except ImportError:
        yield
        return
    if cffi.__version__ != data.CFFI:
        yield
        return

    class Precompiled(_cffi_backend.FFI):
        def cdef(self, csource, override=False, packed=False, pack=None):
            if _sha(csource) != data.CDEF_SHA256:
                raise StaleDeclarations("WeasyPrint's C declarations changed: run proposal_weasy.write_precompiled()")

    real = cffi.FFI
    cffi.FFI = lambda *a, **k: real(*a, **k) if a or k else Precompiled(data.NAME, **data.ARGS)
    try:
        yield
    finally:
        cffi.FFI = real


def weasyprint() -> ModuleType:
    """Import WeasyPrint (once per process) the fast way, else the usual way; see the module's note."""
    if "weasyprint" in sys.modules:
        return sys.modules["weasyprint"]
    from tco.plain import plain

    if plain("weasy"):
        import weasyprint

        return weasyprint
    try:
        # WeasyPrint prints its installation advice to stdout before it raises: kept out of the fast attempt
        with _no_library_search(), _precompiled_ffi(), contextlib.redirect_stdout(io.StringIO()):
            import weasyprint
    except (OSError, StaleDeclarations):
        import weasyprint
    return weasyprint


# ---------------------------------------------------------------------------------------------
# Regenerating the stored declarations (development time: needs cffi's parser, pycparser)


def weasyprint_cdef() -> str:
    """The C declarations WeasyPrint's text/ffi.py hands to ``ffi.cdef``, read from its source (not imported)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("weasyprint")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("weasyprint is not installed")
    source = (Path(list(spec.submodule_search_locations)[0]) / "text" / "ffi.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "cdef"
                and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            return call.args[0].value
    raise ValueError("no ffi.cdef('...') in WeasyPrint's text/ffi.py")


def precompiled_source() -> str:
    """The text of weasy_ffi.py for the installed WeasyPrint and cffi."""
    import ast
    import tempfile

    import cffi
    import weasyprint

    cdef = weasyprint_cdef()
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    name = "_tco_weasyprint_ffi"
    ffi.set_source(name, None)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "emitted.py"
        ffi.emit_python_code(str(out))
        emitted = out.read_text(encoding="utf-8")
    call = next(n.value for n in ast.parse(emitted).body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call))
    args = ",\n".join(f"    {k.arg!r}: {ast.get_source_segment(emitted, k.value)}" for k in call.keywords)
    return (f'"""WeasyPrint {weasyprint.__version__}\'s C declarations as cffi {cffi.__version__} stores them '
            '(out-of-line ABI mode).\n\nGenerated by tco.report.proposal.weasy.write_precompiled(); do not edit. '
            'Used only while they match\n(proposal_weasy checks the SHA-256 of the declarations and the cffi '
            'version).\n"""\n# ruff: noqa: E501\n\n'
            f"NAME = {name!r}\nCFFI = {cffi.__version__!r}\nWEASYPRINT = {weasyprint.__version__!r}\n"
            f"CDEF_SHA256 = {_sha(cdef)!r}\nARGS = {{\n{args},\n}}\n")


def write_precompiled(path: Path = DATA) -> None:
    """Regenerate weasy_ffi.py (after upgrading WeasyPrint or cffi; tests say when)."""
    Path(path).write_text(precompiled_source(), encoding="utf-8")
