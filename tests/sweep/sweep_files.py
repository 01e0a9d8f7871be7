"""Sweep files for the sweep tests (tests/sweep, tests/cli/test_cli_sweep.py): written into a temporary folder; the base
is the seed."""

from __future__ import annotations

from pathlib import Path

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "seed_70b_h200.toml"


def write_sweep(folder: Path, body: str, name: str = "s.toml", settings: str = "") -> Path:
    """A sweep file on the seed with `settings` under [sweep] and `body` after it."""
    p = folder / name
    p.write_text(f'[sweep]\nbase = "{SEED}"\n{settings}\n{body}', encoding="utf-8")
    return p


FX_BY_TERM = """
[[axes]]
key = "fx.usdbrl"
values = [4.0, 6.5]

[[axes]]
key = "fx.paths"
values = [20]

[[axes]]
key = "min_term_months"
option = "Dedicado BR — 8x H200"
values = [3, 24]
"""
"""Four cases of the seed (USD/BRL × one option's minimum term), 20 FX paths each."""
