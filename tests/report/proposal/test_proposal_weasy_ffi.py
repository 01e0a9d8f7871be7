"""The stored C declarations of WeasyPrint (tco/report/proposal/weasy_ffi.py, generated): current for the installed
WeasyPrint and cffi, and what the generator makes. How they are used is tested in test_proposal_weasy.py."""

from __future__ import annotations

import pytest


def test_stored_declarations_are_the_installed_weasyprints():
    """proposal_weasy_ffi.py is what write_precompiled() makes for the installed WeasyPrint and cffi: after an
    upgrade this fails (the import still works, the slow way) until it is regenerated."""
    pytest.importorskip("pycparser")
    from tco.report.proposal import weasy as proposal_weasy
    from tco.report.proposal import weasy_ffi as proposal_weasy_ffi

    assert proposal_weasy_ffi.CDEF_SHA256 == proposal_weasy._sha(proposal_weasy.weasyprint_cdef())
    assert proposal_weasy.DATA.read_text(encoding="utf-8") == proposal_weasy.precompiled_source()



def test_stored_declarations_build_an_ffi_that_knows_weasyprints_types():
    _cffi_backend = pytest.importorskip("_cffi_backend")
    from tco.report.proposal import weasy_ffi as data

    ffi = _cffi_backend.FFI(data.NAME, **data.ARGS)
    assert ffi.sizeof("PangoRectangle") == 4 * 4  # four ints: x, y, width, height
    assert ffi.typeof("hb_face_t *").kind == "pointer"
