"""One case: the base with the axes' values set, run through tco.api; its rows equal what `tco run` writes for
the case's own scenario file, to the last bit; a failing case is a row with its error."""

import json

import pytest

from sweep_files import FX_BY_TERM
from tco.sweep import case, plan


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    from sweep_files import write_sweep

    p = write_sweep(tmp_path_factory.mktemp("sw"), FX_BY_TERM, settings='keep = ["tco", "npv", "lines", "fleet"]')
    return plan.prepare(p)


def test_set_in_copies_along_the_path_only():
    data = {"a": {"b": 1, "c": [1, 2]}, "d": {"e": 2}}
    out = case.set_in(data, ("a", "b"), 5)
    assert out == {"a": {"b": 5, "c": [1, 2]}, "d": {"e": 2}} and data["a"]["b"] == 1
    assert out["d"] is data["d"]  # untouched tables shared, not copied
    assert case.set_in({"o": [{"x": 1}, {"x": 2}]}, ("o", 1, "x"), 9) == {"o": [{"x": 1}, {"x": 9}]}
    assert case.set_in({}, ("new", "key"), 1) == {"new": {"key": 1}}


def test_absolute_paths_resolve_against_the_base_folder(tmp_path):
    out = case.absolute_paths({"fx": {"history_csv": "h.csv"}, "scenario": {"name": "x"}}, tmp_path)
    assert out["fx"]["history_csv"] == str((tmp_path / "h.csv").resolve())


@pytest.mark.slow
def test_rows_equal_tco_run_on_the_case_file_to_the_last_bit(work, tmp_path):
    """Two of the four cases (the first and the last) written as scenario files and run by `tco run`."""
    from tco.cli import main

    for index in (0, len(work.cases) - 1):
        values = work.cases[index]
        rows = case.run_case(work.base, index, values)
        f = tmp_path / f"case{index}.toml"
        f.write_text(case.case_toml(work.base, values), encoding="utf-8")
        assert main(["run", str(f), "-o", str(tmp_path), "--formats", "json", "--no-sensitivity", "--quiet"]) == 0
        doc = json.loads((tmp_path / f"case{index}.json").read_text(encoding="utf-8"))
        assert [r["option"] for r in rows] == [o["name"] for o in doc["options"]]
        for r, o in zip(rows, doc["options"]):
            assert r["error"] is None
            for k, q in (("tco_brl", "deterministic"), ("tco_p5_brl", "p5"), ("tco_p95_brl", "p95"),
                         ("tco_mean_brl", "mean")):
                assert r[k] == o["tco_brl"][q]  # equal, not close
            assert r["npv_brl"] == o["npv_brl"]["deterministic"] and r["npv_p95_brl"] == o["npv_brl"]["p95"]
            assert all(r[f"{line}_brl"] == v for line, v in o["lines_brl"].items())
            assert r["peak_inference_gpus"] == max(o["sizing"]["inference_gpus"])
            assert r["leader"] == (o["name"] == doc["cheapest"])
            assert r["rank"] == (doc["ranking"].index(o["name"]) + 1 if o["name"] in doc["ranking"] else None)


def test_the_case_sets_its_values(work):
    values = work.cases[-1]
    data = case.case_data(work.base, values)
    assert data["fx"]["usdbrl"] == 6.5 and data["fx"]["paths"] == 20
    assert data["options"][0]["min_term_months"] == 24 and work.base.data["options"][0].get("min_term_months") is None


def test_a_case_the_schema_refuses_is_one_row_with_its_error(work):
    from dataclasses import replace

    bad = replace(work.base, parts=(("scenario", "horizon_months"),), columns=("scenario.horizon_months",))
    (row,) = case.run_case(bad, 7, (1,))  # inference starts in month 2: after a 1-month horizon
    assert row["case"] == 7 and row["option"] is None and row["scenario.horizon_months"] == 1
    assert "inference.start_month 2 is after the horizon" in row["error"]
    assert list(row) == case.row_columns(bad)


def test_columns_follow_keep(work):
    from dataclasses import replace

    cols = case.row_columns(replace(work.base, keep=("tco",)))
    assert "tco_p95_brl" in cols and "npv_brl" not in cols and "fleet" not in cols and cols[-1] == "error"
