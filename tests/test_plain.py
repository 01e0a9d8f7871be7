"""TCO_PLAIN: the switch that takes the plain path around every speed shim, and the outputs it must not change."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from tco.plain import SHIMS, plain

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("value, on", [
    ("", set()), ("0", set()), ("false", set()),
    ("1", set(SHIMS)), ("all", set(SHIMS)),
    ("gc", {"gc"}), ("cells, compiled", {"cells", "compiled"}),
])
def test_the_switch_reads_one_or_all_or_a_list(monkeypatch, value, on):
    monkeypatch.setenv("TCO_PLAIN", value)
    assert {s for s in SHIMS if plain(s)} == on


def test_an_unknown_shim_is_a_key_error():
    with pytest.raises(KeyError, match="no speed shim named 'fast'"):
        plain("fast")


def test_every_shim_names_the_files_it_lives_in():
    for name, what in SHIMS.items():
        assert "tco/" in what, name
        for path in (w.strip("(),") for w in what.split() if w.startswith(("(tco/", "tco/"))):
            assert (ROOT / path.rstrip(",)")).exists(), (name, path)


def test_the_plain_rule_walk_is_the_compiled_one(monkeypatch, seed_inputs):
    """The cost rules of the seed, by the compiled program and by the tree walk (TCO_PLAIN=compiled): equal rows."""
    from tco.engine import run_scenario

    s, cat = seed_inputs.scenario, seed_inputs.catalog
    fast = run_scenario(s, cat, simulate=False)
    monkeypatch.setenv("TCO_PLAIN", "compiled")
    slow = run_scenario(s, cat, simulate=False)
    for a, b in zip(fast.options, slow.options, strict=True):
        assert a.tco.deterministic == b.tco.deterministic and a.npv.deterministic == b.npv.deterministic


def _cells(path: Path) -> dict:
    """Every cell of every sheet: (sheet, coordinate) → (formula or value, cached value, number format)."""
    formulas, cached = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    return {(ws.title, c.coordinate): (c.value, cached[ws.title][c.coordinate].value, c.number_format)
            for ws in formulas for row in ws.iter_rows() for c in row if c.value is not None}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Unable to read chart:UserWarning")
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_plain_outputs_are_the_fast_ones(monkeypatch, tmp_path, example):
    """Every example with every shim and with none (TCO_PLAIN=1): the same JSON and CSV bytes, the same workbook
    cells (formula, cached value, number format)."""
    import tco

    out = {}
    for mode in ("", "1"):
        monkeypatch.setenv("TCO_PLAIN", mode)
        res = tco.run(example, paths=20_000, seed=3)
        out[mode] = {Path(p).suffix: Path(p) for p in tco.write(res, tmp_path / (mode or "fast"),
                                                                  formats=("json", "csv", "xlsx"))}
    for suffix in (".json", ".csv"):
        assert out[""][suffix].read_bytes() == out["1"][suffix].read_bytes(), suffix
    fast, slow = _cells(out[""][".xlsx"]), _cells(out["1"][".xlsx"])
    assert len(fast) > 1000 and fast == slow
