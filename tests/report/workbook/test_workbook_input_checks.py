"""Nonsense inputs in the workbook (tco.report.workbook.input_checks): the master check reads FALSE, never an error,
after the review's nonsense edits (negative users, a negative discount rate, text in a number cell, a zero
utilisation), stays TRUE as generated and after a legitimate edit, and the Summary flags the inputs changed."""

from __future__ import annotations

import openpyxl
import pytest
from test_workbook import ROOT, SOFFICE, named_values, recalculate, run_engine, set_input

from tco.report import view, workbook
from tco.report.workbook.input_checks import SIGNED, _cells, master_formula, validity
from tco.scenario import load

pytestmark = pytest.mark.filterwarnings("ignore:Unable to read chart:UserWarning")
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"


def test_validity_and_master_formulas():
    assert validity("'P'!$B$5", False) == "=OR(ISBLANK('P'!$B$5),AND(ISNUMBER('P'!$B$5),N('P'!$B$5)>=0))"
    assert validity("'P'!$B$5", True) == "=OR(ISBLANK('P'!$B$5),ISNUMBER('P'!$B$5))"
    assert master_formula(3, 9, "F20:F30", ["'C1'!$C$5"]) == \
        "=IFERROR(AND(E4:E10,F20:F30,ISNUMBER(SUM('C1'!$C$5))),FALSE)"
    assert _cells("'P q'!$B$5:$C$6") == ["'P q'!$B$5", "'P q'!$C$5", "'P q'!$B$6", "'P q'!$C$6"]
    assert SIGNED.match("in_o3_trend") and SIGNED.match("in_fx_drift") and not SIGNED.match("in_usdbrl")


EDITS = {
    "as_generated": ({}, True),
    "legit_fx": ({"in_usdbrl": 5.9}, True),
    "negative_users": ({"in_ceiling_users": -8000.0}, False),
    "negative_discount": ({"in_discount_rate": -1.5}, False),
    "text_in_number": ({"in_usdbrl": "5,94"}, False),
    "zero_utilisation": ({"in_utilization": 0.0}, False),
    "training_term": ({"in_o2_tr_min_term": 3}, True),
}


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    s, _, _ = load(SEED)
    src = tmp_path_factory.mktemp("inchk-src")
    res, doc = run_engine(s, SEED)
    base = src / "base.xlsx"
    workbook.write(res, view.build(res), base)
    files = []
    for key, (cells, _) in EDITS.items():
        wb = openpyxl.load_workbook(base)
        for name, value in cells.items():
            set_input(wb, name, value)
        wb.save(src / f"{key}.xlsx")
        files.append(src / f"{key}.xlsx")
    out = tmp_path_factory.mktemp("inchk-recalc")
    recalculate(files, out, tmp_path_factory.mktemp("inchk-lo-profile"))
    got = {k: openpyxl.load_workbook(out / f"{k}.xlsx", data_only=True) for k in EDITS}
    got["formulas"] = openpyxl.load_workbook(base)
    return got


@pytest.mark.slow
@pytest.mark.parametrize("key", list(EDITS))
def test_master_is_true_or_false_never_an_error(recalculated, key):
    assert named_values(recalculated[key], "chk_master") == [EDITS[key][1]]


@pytest.mark.slow
def test_summary_flags_changed_inputs(recalculated):
    def flag(wb):
        summary = wb.worksheets[0]
        return [c.value for row in summary.iter_rows(max_row=40) for c in row
                if isinstance(c.value, str) and c.value.startswith(("Premissas alteradas", "Inputs changed"))]

    assert flag(recalculated["as_generated"]) == []
    assert flag(recalculated["legit_fx"]) and flag(recalculated["legit_fx"])[0].endswith(": 1")


@pytest.mark.slow
def test_summary_engine_warnings_carry_the_stale_banner(recalculated):
    from tco.report.i18n import t

    banner = t("stale_banner", "pt-BR")

    def shown(wb):
        return [c.value for row in wb.worksheets[0].iter_rows() for c in row if c.value == banner]

    assert shown(recalculated["as_generated"]) == [] and shown(recalculated["legit_fx"]) == [banner]


@pytest.mark.slow
def test_commitment_terms_follow_the_term_inputs(recalculated):
    """Finance's committed table: the separate training cluster's term is the term input (review F3: typed, it
    went stale), and the committed amount follows it."""
    fin = next(ws for ws in recalculated["formulas"].worksheets if ws.title in ("Finanças", "Finance"))
    (cell,) = [c for row in fin.iter_rows() for c in row if c.value == "=in_o2_tr_min_term"]
    before = recalculated["as_generated"][fin.title]
    after = recalculated["training_term"][fin.title]
    assert before[cell.coordinate].value == 12 and after[cell.coordinate].value == 3
    amount = f"F{cell.row}"
    assert after[amount].value == pytest.approx(before[amount].value * 3 / 12)
