"""`python -m tco sweep`: exit codes, bad input located and nothing written, the JSON outcome, the resume hint."""

import json
from pathlib import Path

import pytest

from sweep_files import FX_BY_TERM, write_sweep
from tco.cli import main


def test_a_bad_axis_exits_2_and_writes_nothing(tmp_path, capsys):
    p = write_sweep(tmp_path, '[[axes]]\nkey = "fx.usdbrll"\nvalues = [5.0]\n')
    out = tmp_path / "out"
    assert main(["sweep", str(p), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{p}:5: [axes[0].key] unknown key 'usdbrll' in fx" in err
    assert not out.exists()


def test_a_scheduler_that_does_not_answer_exits_2(tmp_path, capsys, monkeypatch):
    import socket

    from tco.sweep import runner

    monkeypatch.setattr(runner, "CONNECT_SECONDS", 1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = write_sweep(tmp_path, FX_BY_TERM)
    out = tmp_path / "out"
    assert main(["sweep", str(p), "-o", str(out), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    assert f"tcp://127.0.0.1:{port}: no Dask scheduler answered" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_a_sweep_on_one_local_worker_prints_its_outcome_as_json(tmp_path, capsys):
    p = write_sweep(tmp_path, FX_BY_TERM, settings='keep = ["tco"]')
    out = tmp_path / "out"
    assert main(["sweep", str(p), "-o", str(out), "--workers", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["cases"], got["done"], got["failed"], got["interrupted"]) == (4, 4, 0, False)
    assert sorted(Path(f).name for f in got["files"]) == ["s.map.svg", "s.map.xlsx", "s.parquet"]


def test_resume_of_another_sweeps_table_exits_2_before_any_case(tmp_path, capsys):
    p = write_sweep(tmp_path, FX_BY_TERM)
    out = tmp_path / "out"
    out.mkdir()
    from tco.sweep import table

    table.write_parquet(table.frame([{"case": 0}], ["case"]), out / "s.parquet", "another", 4)
    assert main(["sweep", str(p), "-o", str(out), "--resume"]) == 2
    assert "written by a different sweep file" in capsys.readouterr().err


def test_without_the_sweep_extra_it_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    assert main(["sweep", str(tmp_path / "s.toml")]) == 2
    assert "needs distributed: pip install -e '.[sweep]'" in capsys.readouterr().err
