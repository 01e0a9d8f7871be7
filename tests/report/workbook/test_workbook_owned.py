"""An owned option in the workbook (tco.report.workbook.owned): its rows labelled, its inputs named and bounded, and
LibreOffice recalculating the example to the engine, also after editing the financing rate and the tariff."""

from __future__ import annotations

import openpyxl
import pytest
from test_workbook import (ROOT, SOFFICE, assert_matches_engine, named_cells, named_values, recalculate,
                           run_engine, set_input)

from tco.costs.owned_rules import owned_rules
from tco.expr import Rule, Scalar
from tco.report import view, workbook
from tco.report.workbook.owned import INPUTS, OWNED_CONSTANTS, OWNED_SHOWN
from tco.scenario import load

pytestmark = pytest.mark.filterwarnings("ignore:Unable to read chart:UserWarning")
EXAMPLE = ROOT / "scenarios" / "owned_70b_h200.toml"


def test_every_owned_rule_and_input_has_a_label():
    rules = owned_rules("fleet")
    assert {r.key for r in rules if isinstance(r, Rule)} == set(OWNED_SHOWN)
    assert {r.key for r in rules if isinstance(r, Scalar)} == set(OWNED_CONSTANTS)
    names = {n for r in rules for n in __import__("tco.expr.deps", fromlist=["reads"]).reads(r.expr)[1]
             if n.startswith("o.own_")}
    assert names == {"o.own_" + k for k, *_ in INPUTS}


# (change key, {defined name: value}, the same change to the scenario)
EDITS = {
    "base": ({}, None),
    # the BNDES option's loan rate (option 3) and the cash option's tariff (option 2)
    "rate_tariff": ({"in_o3_own_rate": 0.22, "in_o2_own_tariff": 650.0},
                    lambda d: (d["options"][2]["owned"].update(financing_rate=0.22),
                               d["options"][1]["owned"].update(power_brl_per_mwh=650.0))),
    # a refresh of the cash option's servers after 24 months (sold, bought anew at month 25's rate)
    "refresh": ({"in_o2_own_refresh": 24}, lambda d: d["options"][1]["owned"].update(refresh_months=24)),
}


def modified_as_written(scenario, change):
    """The scenario with `change` applied to the keys its file sets (exclude_unset): a dump of every field would set
    the cash option's loan terms to their defaults, which resolve refuses with payment = 'cash' (red team 2026-12b P1)."""
    data = scenario.model_dump(exclude_unset=True)
    change(data)
    return type(scenario).model_validate(data)


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    s, _, _ = load(EXAMPLE)
    src = tmp_path_factory.mktemp("owned-src")
    res, doc = run_engine(s, EXAMPLE, enrich=True)  # with the tornado and break-evens: every sheet
    base = src / "base.xlsx"
    workbook.write(res, view.build(res), base)
    files, docs = [base], {"base": doc}
    for key, (cells, change) in EDITS.items():
        if change is None:
            continue
        wb = openpyxl.load_workbook(base)
        for name, value in cells.items():
            set_input(wb, name, value)
        wb.save(src / f"{key}.xlsx")
        files.append(src / f"{key}.xlsx")
        docs[key] = run_engine(modified_as_written(s, change), EXAMPLE)[1]
    out = tmp_path_factory.mktemp("owned-recalc")
    recalculate(files, out, tmp_path_factory.mktemp("owned-lo-profile"))
    got = {k: (openpyxl.load_workbook(out / f"{k}.xlsx", data_only=True), docs[k]) for k in docs}
    got["written"] = (base, doc)
    return got


@pytest.mark.slow
def test_every_formula_recalculates_to_its_cached_engine_value(recalculated):
    """As tests/report/workbook/test_workbook.py does for every example: LibreOffice's value of each formula is the
    one the engine cached (the owned rows, and the sheets that read the owned options: tornado, break-evens)."""
    wb = recalculated["base"][0]
    written = recalculated["written"][0]
    cached, formulas = openpyxl.load_workbook(written, data_only=True), openpyxl.load_workbook(written)
    n = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                want, got = cached[ws.title][c.coordinate].value, wb[ws.title][c.coordinate].value
                if isinstance(want, (int, float)) and not isinstance(want, bool) and not hasattr(got, "year"):
                    assert got == pytest.approx(want, rel=1e-9, abs=1e-6), (ws.title, c.coordinate, c.value)
                    n += 1
    assert n > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("key", list(EDITS))
def test_libreoffice_recalculates_the_owned_sheet_to_the_engine(recalculated, key):
    wb, doc = recalculated[key]
    assert_matches_engine(wb, doc)
    assert named_values(wb, "chk_master") == [True]


@pytest.mark.slow
def test_the_edits_moved_the_owned_options(recalculated):
    base, edited = recalculated["base"][1], recalculated["rate_tariff"][1]
    tco = [[o["tco_brl"]["deterministic"] for o in d["options"]] for d in (base, edited)]
    assert tco[1][1] > tco[0][1] and tco[1][2] > tco[0][2]  # a dearer tariff, a dearer loan
    assert tco[1][0] == tco[0][0] and tco[1][3] == tco[0][3]  # the rented and cloud options did not move


def test_owned_inputs_carry_the_schema_bounds(tmp_path):
    s, _, _ = load(EXAMPLE)
    res, doc = run_engine(s, EXAMPLE)
    path = tmp_path / "owned.xlsx"
    workbook.write(res, view.build(res), path)
    wb = openpyxl.load_workbook(path)
    (cell,) = named_cells(wb, "in_o3_own_resale")
    rules = [dv for dv in cell.parent.data_validations.dataValidation if cell.coordinate in dv.sqref]
    assert rules and rules[0].type == "decimal" and rules[0].operator in (None, "between")  # between: the default
    assert (rules[0].formula1, rules[0].formula2) == ("0", "1")
