"""WeasyPrint imported without its library search: no program started, the same libraries opened, the real
`find_library` back afterwards, and a system the fast way cannot serve still served. Each check runs in a fresh
interpreter (the import happens once per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the library search is Linux's")


def _run(code: str, *, path: list[Path] = ()) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@linux_only
def test_import_starts_no_program_and_opens_the_libraries():
    got = _run("""
        import ctypes.util, json, subprocess
        real = ctypes.util.find_library
        started = []
        popen = subprocess.Popen.__init__
        def spy(self, args, *a, **k):
            started.append(str(args))
            return popen(self, args, *a, **k)
        subprocess.Popen.__init__ = spy
        from tco.report.proposal.weasy import weasyprint
        wp = weasyprint()
        from weasyprint.text import ffi
        print(json.dumps({"started": started, "restored": ctypes.util.find_library is real,
                          "same": weasyprint() is wp, "units": ffi.pango.pango_units_from_double(1),
                          "html": hasattr(wp, "HTML")}))
    """)
    assert got["started"] == []  # with the real search: ldconfig, gcc, ld for each name that fails
    assert got["restored"] and got["same"] and got["html"]
    assert got["units"] == 1024  # PANGO_SCALE: pango is open and answers


@pytest.mark.slow
@linux_only
def test_a_library_only_the_search_finds_is_still_found(tmp_path):
    """A stand-in `weasyprint` that, like WeasyPrint on a system with other sonames, prints its advice and fails
    without the search: the second import (real search) succeeds and the advice of the first is not shown."""
    fake = tmp_path / "weasyprint"
    fake.mkdir()
    (fake / "__init__.py").write_text(textwrap.dedent("""
        import ctypes.util
        if ctypes.util.find_library("c") is None:
            print("WeasyPrint could not import some external libraries")
            raise OSError("cannot load library 'c'")
        FOUND = ctypes.util.find_library("c")
    """), encoding="utf-8")
    code = """
        import contextlib, io, json
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            from tco.report.proposal.weasy import weasyprint
            wp = weasyprint()
        print(json.dumps({"found": wp.FOUND, "printed": out.getvalue()}))
    """
    got = _run(code, path=[tmp_path])
    assert got["found"] and got["found"].startswith("libc")
    assert got["printed"] == ""


@pytest.mark.slow
def test_the_declarations_are_not_parsed_at_import():
    got = _run("""
        import json, sys
        from tco.report.proposal.weasy import weasyprint
        weasyprint()
        from weasyprint.text import ffi
        rect = ffi.ffi.new("PangoRectangle *")
        print(json.dumps({"parser": "pycparser" in sys.modules, "kind": type(ffi.ffi).__name__,
                          "width": rect.width, "units": ffi.pango.pango_units_from_double(2)}))
    """)
    assert got == {"parser": False, "kind": "Precompiled", "width": 0, "units": 2048}


@pytest.mark.slow
def test_other_declarations_fall_back_to_the_usual_import():
    """Declarations stored for another text (a WeasyPrint upgrade): WeasyPrint is imported the usual way."""
    got = _run("""
        import json, sys
        from tco.report.proposal import weasy_ffi as proposal_weasy_ffi
        proposal_weasy_ffi.CDEF_SHA256 = "0" * 64
        from tco.report.proposal.weasy import weasyprint
        wp = weasyprint()
        from weasyprint.text import ffi
        print(json.dumps({"kind": type(ffi.ffi).__name__, "units": ffi.pango.pango_units_from_double(1),
                          "html": hasattr(wp, "HTML")}))
    """)
    assert got == {"kind": "FFI", "units": 1024, "html": True}
