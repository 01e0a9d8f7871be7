"""tco.cli.calibrate: the `calibrate` command's run (read, fit, report, write) and its Markdown report.

The report is checked against the calibration it is given (no fit needed): one parameter row per fitted parameter
with its unit, one table row per benchmark row with the error worked from measured and predicted tokens/s, the
leave-one-out column only when computed, an excluded row without numbers shown as not stated. ``run`` is checked with
the fit replaced by a known calibration (the fit itself is tests/test_calibrate.py's): what it writes, where, and
that nothing is written when every row is excluded."""

from __future__ import annotations

import argparse
import re
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from tco.sizing import benchmarks
from tco.cli import calibrate as calibrate_report
from tco.sizing.calibrate import PARAMS, errors, median, predict
from tco.catalog import load_catalog
from tco.errors import InputError
from tco.sizing.replica import Calibration

DATA = Path(__file__).parents[1] / "data" / "benchmarks"
KNOWN = Calibration(0.72, 0.55, 0.6, 0.004, 2e-5, name="known")


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


@pytest.fixture(scope="module")
def rows():
    return benchmarks.read(DATA / "plain.csv")


def _report(rows, cat, loo=None):
    ins = errors(rows, cat, KNOWN)
    used = [r for r in rows if not r.exclude]
    stats = {"file": "plain.csv", "rows_fitted": len(used), "rows_excluded": len(rows) - len(used),
             "median_abs_error_in_sample": median([abs(ins[r.id]) for r in used])}
    if loo:
        stats["median_abs_error_leave_one_out"] = median([abs(loo[r.id]) for r in used])
    return calibrate_report.report(rows, cat, KNOWN, ins, loo or {}, stats), ins


def _table(text: str, first: str) -> list[list[str]]:
    lines = text.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith(f"| {first} |"))
    out = []
    for ln in lines[i + 2:]:
        if not ln.startswith("|"):
            break
        out.append([c.strip() for c in ln.strip("|").split("|")])
    return out


def test_parameters_with_their_units(rows, cat):
    text, _ = _report(rows, cat)
    params = _table(text, "parameter")
    assert [p[0] for p in params] == list(PARAMS)
    assert params[0] == ["bandwidth_share", "0.72", "-"]
    assert params[3] == ["step_overhead_seconds", "0.004", "s"]
    assert params[4] == ["collective_latency_seconds", "2e-05", "s"]
    assert text.startswith("# Serving calibration: plain.csv\n")


def test_each_row_error_is_predicted_over_measured(rows, cat):
    text, ins = _report(rows, cat)
    table = _table(text, "id")
    assert [r[0] for r in table] == [r.id for r in rows]
    for cells, r in zip(table, rows, strict=True):
        p = predict(r, cat, KNOWN)
        expected = p["tps"] / r.output_tokens_per_second - 1  # e.g. 3,020 / 2,900 − 1 = +4.1%
        assert ins[r.id] == pytest.approx(expected, rel=1e-9)
        assert cells[5] == f"{r.output_tokens_per_second:,.0f}" and cells[6] == f"{p['tps']:,.0f}"
        assert cells[7] == f"{expected:+.1%}"
        assert cells[8] == ""  # no leave-one-out asked
        assert cells[2] == f"{r.gpu} × {r.gpu_count}" and cells[4] == f"{r.input_tokens:g}/{r.output_tokens:g}"
    assert "leave-one-out" not in text.split("| id |")[0].split("Median")[1]


def test_leave_one_out_column_and_median(rows, cat):
    loo = {r.id: (-1) ** i * 0.1 * (i + 1) for i, r in enumerate(rows)}  # +10%, −20%, +30%, −40%
    text, _ = _report(rows, cat, loo)
    assert [r[8] for r in _table(text, "id")] == ["+10.0%", "-20.0%", "+30.0%", "-40.0%"]
    expected = (0.2 + 0.3) / 2  # median of |errors| 0.1, 0.2, 0.3, 0.4
    assert f"leave-one-out {expected:.1%}" in text


def test_an_excluded_row_without_numbers_is_not_stated(rows, cat):
    odd = replace(rows[0], id="bad", exclude="no ISL given", input_tokens=0.0, output_tokens=0.0)
    text, _ = _report(list(rows) + [odd], cat)
    last = _table(text, "id")[-1]
    assert last[0] == "bad" and last[4] == "not stated" and last[6:11] == ["—"] * 5
    assert last[11] == "no ISL given"
    assert "Fitted on 4 rows (1 excluded)" in text


# --- run ------------------------------------------------------------------------------------------------------------

def _args(file: Path, **kw) -> argparse.Namespace:
    base = dict(file=str(file), output=None, report=None, no_loo=True, model=None, gpu=None, precision=None,
                gpu_count=None, tp=None, nodes=None, concurrency=None, catalog_dir=None)
    return argparse.Namespace(**(base | kw))


@pytest.fixture()
def known_fit(monkeypatch):
    import tco.sizing.calibrate as calibrate  # calibrate_report imports the fit when it runs

    monkeypatch.setattr(calibrate, "fit", lambda rows, cat, **kw: (replace(KNOWN, name=kw.get("name", "")), True))


def test_run_writes_the_calibration_beside_the_file_and_the_report(tmp_path, known_fit):
    f = tmp_path / "mine.csv"
    shutil.copy(DATA / "plain.csv", f)
    printed: list[str] = []
    assert calibrate_report.run(_args(f, report=str(tmp_path / "r.md")), printed.append) == 0
    target = tmp_path / "mine.calibration.toml"  # default: the file's stem
    assert printed[-1] == f"wrote {target}"
    assert (tmp_path / "r.md").read_text(encoding="utf-8") == printed[0]
    cal = tomllib.loads(target.read_text(encoding="utf-8"))
    assert cal["name"] == "mine" and cal["bandwidth_share"] == 0.72
    assert cal["fit"]["rows_fitted"] == 4 and cal["fit"]["file"] == "mine.csv"
    assert re.fullmatch(r"[0-9a-f]{64}", cal["fit"]["sha256"])
    assert "median_abs_error_leave_one_out" not in cal["fit"]  # --no-loo


def test_run_refuses_when_every_row_is_excluded(tmp_path, known_fit):
    text = (DATA / "plain.csv").read_text(encoding="utf-8").splitlines()
    f = tmp_path / "x.csv"
    f.write_text("\n".join([text[0] + ",exclude"] + [ln + ",bad run" for ln in text[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "x.toml"
    with pytest.raises(InputError, match="every row is excluded"):
        calibrate_report.run(_args(f, output=str(out)), lambda s: None)
    assert not out.exists()


def test_run_refuses_a_calibration_outside_zero_one(tmp_path, monkeypatch):
    import tco.sizing.calibrate as calibrate

    monkeypatch.setattr(calibrate, "fit", lambda rows, cat, **kw: (replace(KNOWN, bandwidth_share=1.4), True))
    out = tmp_path / "x.toml"
    with pytest.raises(InputError, match="bandwidth_share"):
        calibrate_report.run(_args(DATA / "plain.csv", output=str(out)), lambda s: None)
    assert not out.exists()


def test_the_parser_takes_the_hardware_options():
    parser = argparse.ArgumentParser()
    calibrate_report.add_parser(parser.add_subparsers(dest="cmd"))
    a = parser.parse_args(["calibrate", "f.json", "--gpu", "H100-SXM-80GB", "--gpu-count", "8", "--tp", "8",
                           "--no-loo"])
    assert (a.gpu, a.gpu_count, a.tp, a.no_loo, a.output) == ("H100-SXM-80GB", 8, 8, True, None)
    with pytest.raises(SystemExit):
        parser.parse_args(["calibrate", "f.json", "--gpu-count", "eight"])


def _fp4_file(tmp_path, gpu: str, name: str = "fp4") -> Path:
    """plain.csv with run4 in NVFP4 on ``gpu`` (and the others as they are)."""
    lines = (DATA / "plain.csv").read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].replace("H200-SXM-141GB", gpu).replace(",fp8,", ",nvfp4,")
    f = tmp_path / f"{name}.csv"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f


def test_run_takes_fp4_rows_on_a_gpu_with_fp4(tmp_path, known_fit):
    """An NVFP4 row on B200 is read as fp4 (weights and KV) and fitted with the rest."""
    f = _fp4_file(tmp_path, "B200-SXM-180GB")
    rows = benchmarks.read(f)
    assert [(r.precision, r.kv_precision) for r in rows][-1] == ("fp4", "fp4")
    assert calibrate_report.run(_args(f), lambda s: None) == 0
    assert (tmp_path / "fp4.calibration.toml").exists()


def test_run_refuses_fp4_on_a_gpu_without_fp4_naming_the_row_and_the_gpus_that_have_it(tmp_path, known_fit):
    f = _fp4_file(tmp_path, "H100-SXM-80GB", "bad")
    with pytest.raises(InputError) as e:
        calibrate_report.run(_args(f), lambda s: None)
    (p,) = e.value.problems
    assert (p.key, p.line) == ("precision", 5) and "'run4'" in p.message and "H100-SXM-80GB" in p.message
    assert "B200-SXM-180GB" in p.message
    assert not (tmp_path / "bad.calibration.toml").exists()
