"""The `sweep_file` fixture: a sweep file on the seed in the test's temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from sweep_files import write_sweep


@pytest.fixture
def sweep_file(tmp_path):
    def make(body: str, settings: str = "", name: str = "s.toml") -> Path:
        return write_sweep(tmp_path, body, name, settings)
    return make
