"""The workbook's finance views (Finance, Summary dashboard, Index, Plans) and its print, outline and protection.

Hand-worked arithmetic for the yearly sums, the unit costs and the break-even closed forms; the break-evens
held to the engine re-run at the multiple they name; the workbook read back with openpyxl; and one LibreOffice
call (forced recalculation) for three files: the seed with its plan search, a cloud price cut in the xlsx that
changes the leader, and the USD/BRL moved past the break-even the workbook states.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_workbook import SOFFICE, named_cells, named_values, recalculate, set_input

from tco import api
from tco.analysis import scaled_fx, scaled_prices
from tco.engine import run_scenario
from tco.report import json_out, view, workbook
from tco.analysis.figures import fx_multiple, tie_multiple
from tco.report.workbook.breakeven import MIN_MULTIPLE, _values, breakevens, nearest
from tco.costs import unit_rules
from tco.costs.finance_rules import committed, yearly
from tco.report.workbook.finance import calendar_years, commitments, contract_years
from tco.report.workbook.print import header_text

ROOT = Path(__file__).resolve().parents[3]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"
pytestmark = pytest.mark.filterwarnings("ignore:Unable to read chart:UserWarning")


@pytest.fixture(scope="module")
def seed():
    """(Inputs, Results with the plan search, JSON doc) of the seed, without the sensitivity analysis, and without its
    residency constraint: every option ranked, so a price edit can make the Savings Plan option the leader."""
    import dataclasses

    inp = api.load(SEED)
    sc = inp.scenario
    inp = dataclasses.replace(inp, scenario=sc.model_copy(update={
        "proposal": sc.proposal.model_copy(update={"constraints": None})}))
    res = api.run(inp, paths=200, sensitivity=False)
    return inp, res, json_out.build(res, "", str(SEED))


@pytest.fixture(scope="module")
def seed_xlsx(seed, tmp_path_factory):
    _, res, doc = seed
    f = tmp_path_factory.mktemp("fin") / "seed.xlsx"
    workbook.write(res, view.build(res), f)
    return f


# ---------------------------------------------------------------------------------------------
# hand-worked arithmetic


def test_yearly_sums_by_contract_and_calendar_year():
    # 14 months from November 2027: contract year 1 = months 1-12, year 2 = months 13-14;
    # calendar 2027 = Nov, Dec; 2028 = Jan-Dec; 2029 = none (the horizon ends in Dec 2028)
    months = [f"{2027 + (10 + m) // 12}-{(10 + m) % 12 + 1:02d}" for m in range(14)]
    assert months[0] == "2027-11" and months[-1] == "2028-12"
    amounts = [float(m + 1) for m in range(14)]  # 1, 2, …, 14
    by_contract, by_calendar, _ = yearly(amounts, months)
    assert by_contract == [sum(range(1, 13)), 13 + 14]  # 78, 27
    assert calendar_years(months) == [2027, 2028]
    assert by_calendar == [1 + 2, sum(range(3, 15))]  # 3, 102
    assert contract_years(14) == 2 and contract_years(36) == 3 and contract_years(37) == 4


def test_gpu_hours_of_one_eight_gpu_server_all_horizon(seed):
    _, res, _ = seed
    o = next(o for o in res.options if o.name == "Dedicado BR — 8x H200")  # one shared 8-GPU server, 2027-2029
    days = 365 + 366 + 365  # 2028 is a leap year
    u = unit_rules.unit_costs(o, res.users, res.tokens)
    assert u["gpu_hours"] == pytest.approx(days * 24 * 8)
    tco = o.tco.deterministic
    assert u["per_gpu_hour"] == pytest.approx(tco / (1096 * 24 * 8))


def test_committed_amounts_of_the_seed_by_hand(seed):
    """A 12-month minimum term on one 8x H200 server: 12 monthly payments; a shared fleet is one contract."""
    _, res, _ = seed
    by_name = {o.name: o for o in res.options}
    shared = by_name["Dedicado BR — 8x H200"]
    (role, _, lines, term, start), = commitments(shared, 1, 2)
    monthly = float(shared.lines_brl["training_compute"][0])  # month 1: training on the one server
    assert float(shared.lines_brl["inference_compute"][1]) == pytest.approx(monthly)  # month 2 on: serving on it
    assert (role, lines, term, start) == ("shared", ["training_compute", "inference_compute"], 12, 1)
    assert committed(shared, lines, start, term)[0] == pytest.approx(12 * monthly)
    separate = by_name["Dedicado BR — 8x H200 (frotas separadas)"]
    rows = commitments(separate, 1, 2)
    assert [(r[0], r[3], r[4]) for r in rows] == [("training", 12, 1), ("inference", 3, 2)]
    train = float(separate.lines_brl["training_compute"][0])
    assert committed(separate, ["training_compute"], 1, 12)[0] == pytest.approx(12 * train)  # the idle cluster
    on_demand = by_name["AWS us-east-1 — p5en (H200)"]
    assert commitments(on_demand, 1, 2) == []
    sp = by_name["AWS us-east-1 — p5en (H200), Savings Plan 3 anos"]
    assert [(r[0], r[3]) for r in commitments(sp, 1, 2)] == [("inference", 36)]  # the plan's 3 years


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=40), st.integers(1, 12))
def test_yearly_sums_keep_the_total(amounts, first_month):
    months = [f"{2027 + (first_month - 1 + m) // 12}-{(first_month - 1 + m) % 12 + 1:02d}" for m in range(len(amounts))]
    by_contract, by_calendar, _ = yearly(amounts, months)
    assert sum(by_contract) == pytest.approx(sum(amounts)) and sum(by_calendar) == pytest.approx(sum(amounts))
    assert len(by_contract) == contract_years(len(amounts))


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 1e7), st.floats(0, 1e7), st.floats(1, 1e7), st.floats(0, 1e7))
def test_at_the_tie_multiple_both_lines_meet(tco_a, part_a, tco_b, part_b):
    m = tie_multiple(tco_a, part_a, tco_b, part_b)
    if m is not None:
        assert tco_a + (m - 1) * part_a == pytest.approx(tco_b + (m - 1) * part_b, rel=1e-6, abs=1e-3)
        assert m > MIN_MULTIPLE


def test_break_even_closed_forms_by_hand():
    # leader 100 with a cloud part 20; challenger 130 with a cloud part 80: 100 + 20(m − 1) = 130 + 80(m − 1)
    assert tie_multiple(100.0, 20.0, 130.0, 80.0) == pytest.approx(1 - 30 / 60)
    # the challenger has the smaller cloud part: cloud prices must rise: 100 + 80(m − 1) = 130 + 20(m − 1)
    assert tie_multiple(100.0, 80.0, 130.0, 20.0) == pytest.approx(1 + 30 / 60)
    assert tie_multiple(100.0, 20.0, 130.0, 20.0) is None  # parallel lines
    assert tie_multiple(100.0, 20.0, 130.0, 40.0) is None  # they meet at m = −0.5: no positive multiple
    # FX: BRL part + k·USD part: 90 + 10k = 20 + 100k → k = 70/90
    assert fx_multiple(90.0, 10.0, 20.0, 100.0) == pytest.approx(70 / 90)
    assert fx_multiple(90.0, 10.0, 20.0, 10.0) is None
    assert nearest([0.5, 0.8, None, 1.4, 2.0]) == (0.8, 1.4)
    assert nearest([None, 1.5]) == (None, 1.5)
    assert tie_multiple(100.0, 20.0, 100.0 + 80.0 * 0.9995, 100.0) is None  # m = 0.0005 < MIN_MULTIPLE
    assert MIN_MULTIPLE == 0.001


def test_break_evens_are_where_the_engine_ties(seed):
    """Re-run the engine at the multiple the workbook states: the two options cost the same."""
    _, res, _ = seed
    v = _values(res)
    lead = v["lead"]
    names = [o.name for o in res.options]
    checked = 0
    for j in np.argsort([abs(1 - (m or 99)) for m in v["m"]])[:2]:  # the two crossings nearest to today
        m = v["m"][j]
        assert m is not None
        r = run_scenario(scaled_prices(res, "cloud", m), res.catalog, simulate=False)
        tco = {o.name: o.tco.deterministic for o in r.options}
        assert tco[names[j]] == pytest.approx(tco[names[lead]], rel=1e-9), names[j]
        checked += 1
    k = nearest(v["k"])[0]
    j = v["k"].index(k)
    s = res.scenario
    s2 = s.model_copy(update={"fx": scaled_fx(s, k)})  # the whole base path × k (the Focus path is not ∝ the spot)
    r = run_scenario(s2, res.catalog, simulate=False)
    tco = {o.name: o.tco.deterministic for o in r.options}
    assert tco[names[j]] == pytest.approx(tco[names[lead]], rel=1e-9)
    assert checked == 2
    b = breakevens(res)
    assert b["fx_down"] == k and b["lead"] == lead


# ---------------------------------------------------------------------------------------------
# the xlsx as written (cached values, protection, print setup, links)


@pytest.mark.slow
def test_index_is_second_with_internal_links_to_every_sheet(seed_xlsx):
    wb = openpyxl.load_workbook(seed_xlsx)
    assert wb.sheetnames[:2] == ["Resumo", "Índice"]
    ws = wb["Índice"]
    links = {c.value: c.hyperlink for row in ws.iter_rows() for c in row if c.hyperlink is not None}
    assert set(links) == set(wb.sheetnames)
    for name, hl in links.items():
        assert hl.target is None and hl.location == f"'{name}'!A1", (name, hl.target, hl.location)
    for other in wb.worksheets:
        if other.title != "Índice":
            assert not other._hyperlinks, other.title
    legend = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith(
        ("Premissa:", "Cálculo:", "Ligação:", "Verificação:", "Valor do motor:"))]
    assert len(legend) == 5


@pytest.mark.slow
def test_sheets_are_protected_formulas_locked_inputs_editable(seed_xlsx):
    wb = openpyxl.load_workbook(seed_xlsx)
    for ws in wb.worksheets:
        assert ws.protection.sheet is True and not ws.protection.password, ws.title
    inputs = [n for n in wb.defined_names if n.startswith("in_")]
    assert len(inputs) > 100
    for name in inputs:
        for c in named_cells(wb, name):
            assert c.protection.locked is False, name
    for name in ("out_o1_tco", "chk_master", "be_leader", "be_gap_cloud"):
        (c,) = named_cells(wb, name)
        assert c.data_type == "f" and c.protection.locked is True, name
    for name in ("be_trial_cloud", "be_trial_fx"):  # goal seek changes these: inputs
        (c,) = named_cells(wb, name)
        assert c.value == 1 and c.protection.locked is False


@pytest.mark.slow
def test_print_setup_on_every_sheet(seed, seed_xlsx):
    _, res, _ = seed
    wb = openpyxl.load_workbook(seed_xlsx)
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape", ws.title
        assert ws.page_setup.paperSize == 9  # A4
        assert ws.oddHeader.left.text == "&A" or "&A" in (ws.oddHeader.left.text or ""), ws.title
        assert ws.oddHeader.right.text == header_text(res.scenario.scenario.name)
        footer = ws.oddFooter.right.text
        assert "&P" in footer and "&N" in footer and "Página" in footer, footer
        assert "tco" in ws.oddFooter.left.text
        if ws.title.startswith(("Cálculo", "Linha do tempo", "Risco cambial")):  # months across the columns
            assert ws.print_title_rows and ws.print_title_cols == "$A:$C"
            assert ws.column_dimensions["E"].outlineLevel == 1  # the months fold away
        else:
            # fit to one page wide (fitToWidth 1 is the file format's default, left out), as many pages tall as needed
            setup = ws.page_setup
            assert ws.sheet_properties.pageSetUpPr.fitToPage and setup.fitToWidth in (None, 1), ws.title
            # the Finance sheet at most two pages tall (the print pack within six pages), the others as needed
            assert setup.fitToHeight == (2 if ws.title in ("Finanças", "Finance") else 0), ws.title
    for title in ("Cálculo 1", "Linha do tempo"):  # the 24 hourly rows fold away
        grouped = [n for n, d in wb[title].row_dimensions.items() if d.outlineLevel == 1]
        assert len(grouped) == 24, title


def test_header_escapes_the_ampersand():
    assert header_text("P&D & IA") == "P&&D && IA"
    assert len(header_text("x" * 300)) == 100


@pytest.mark.slow
def test_finance_sheet_caches_the_engine_numbers(seed, seed_xlsx):
    _, res, doc = seed
    wb = openpyxl.load_workbook(seed_xlsx, data_only=True)
    ws = wb["Finanças"]
    rows = {}
    for r in ws.iter_rows(min_row=1, max_row=20):  # the cash-out table (each name's first row)
        rows.setdefault(r[0].value, r)
    for o in res.options:  # cash out by contract year 1-3, calendar 2027-2029, total
        r = rows[o.name]
        got = [c.value for c in r[2:9]]
        want = [o.total_brl[0:12].sum(), o.total_brl[12:24].sum(), o.total_brl[24:36].sum()] * 2 + [o.total_brl.sum()]
        assert got == pytest.approx(want), o.name
    # the leader's unit costs on the dashboard: R$ per user-month = TCO / Σ users
    lead = min((o for o in res.options if o.feasible and not o.resolved.breaches), key=lambda o: o.tco.deterministic)
    assert named_values(wb, "be_leader") == [lead.name]
    cells = named_cells(wb, "fin_per_user")
    j = [o.name for o in res.options].index(lead.name)
    assert cells[j].value == pytest.approx(lead.tco.deterministic / float(np.sum(res.users)))
    assert named_values(wb, "be_trial_cloud") == [1]


@pytest.mark.slow
def test_plans_sheet_lists_each_providers_best_plan(seed, seed_xlsx):
    _, res, doc = seed
    plans = doc["plans"]
    wb = openpyxl.load_workbook(seed_xlsx, data_only=True)
    ws = wb["Planos"]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("python -m tco plan seed_70b_h200.toml" in v for v in texts)
    assert any("valores, não fórmulas" in v for v in texts)
    firsts = [r for r in ws.iter_rows() if r[1].value == 1 and isinstance(r[2].value, float)]
    assert len(firsts) == len(plans["by_provider"])
    best = min(v["best"]["tco_brl"] for v in plans["by_provider"].values())
    tcos = sorted(v["best"]["tco_brl"] for v in plans["by_provider"].values())
    assert [r[2].value for r in firsts] == pytest.approx(tcos)
    assert [r[4].value for r in firsts] == pytest.approx([x / best for x in tcos])
    assert firsts[0][4].value == pytest.approx(1.0)
    from test_workbook import RAW_IDS

    raw = [v for v in texts if RAW_IDS.search(v) and "python -m" not in v]
    assert not raw, raw[:5]


# ---------------------------------------------------------------------------------------------
# LibreOffice: recalculated, edited


@pytest.fixture(scope="module")
def recalculated(seed, seed_xlsx, tmp_path_factory):
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    _, res, doc = seed
    src = tmp_path_factory.mktemp("src")
    out = tmp_path_factory.mktemp("recalc")
    files = {"seed": src / "seed.xlsx"}
    files["seed"].write_bytes(seed_xlsx.read_bytes())
    # a cloud price cut that makes the 3-year Savings Plan option the leader
    wb = openpyxl.load_workbook(seed_xlsx)
    j = next(i for i, o in enumerate(res.options, 1) if "Savings Plan" in o.name)
    (price,) = named_values(wb, f"in_o{j}_inf_price")
    set_input(wb, f"in_o{j}_inf_price", price * 0.3)
    files["cloud_cut"] = src / "cloud_cut.xlsx"
    wb.save(files["cloud_cut"])
    # the dollar 2 % below the break-even the workbook states: the USD/BRL lever scales the whole path, as the
    # break-even multiple does (the Focus base path is not proportional to the spot cell)
    wb = openpyxl.load_workbook(seed_xlsx)
    (k,) = named_values(openpyxl.load_workbook(seed_xlsx, data_only=True), "be_fx_down")
    set_input(wb, "in_lv_fx_base", k * 0.98)
    files["fx_past"] = src / "fx_past.xlsx"
    wb.save(files["fx_past"])
    recalculate(list(files.values()), out, tmp_path_factory.mktemp("lo-profile"))
    return {k: out / f.name for k, f in files.items()}


def _ranking(wb) -> list[tuple]:
    ws = wb["Resumo"]
    head = next(r for r in ws.iter_rows() if r[0].value == "Posição" and r[1].value == "Opção")
    n = len([c for c in named_cells(wb, "fin_per_user")])
    return [tuple(c.value for c in r[:5]) for r in ws.iter_rows(min_row=head[0].row + 1, max_row=head[0].row + n)]


@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
def test_recalculated_finance_views_equal_the_cached_engine_values(recalculated, seed_xlsx):
    got = openpyxl.load_workbook(recalculated["seed"], data_only=True)
    cached = openpyxl.load_workbook(seed_xlsx, data_only=True)
    formulas = openpyxl.load_workbook(seed_xlsx)
    n = 0
    for title in ("Resumo", "Finanças", "Planos", "Comparação"):
        for row in formulas[title].iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                want, value = cached[title][c.coordinate].value, got[title][c.coordinate].value
                if hasattr(value, "year"):
                    continue
                if isinstance(want, (int, float)) and not isinstance(want, bool):
                    assert value == pytest.approx(want, rel=1e-9, abs=1e-6), (title, c.coordinate, c.value)
                else:
                    assert value == want, (title, c.coordinate, c.value)
                n += 1
    assert n > 500


@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
def test_ranking_reorders_when_an_edit_changes_the_leader(recalculated, seed):
    _, res, doc = seed
    before = _ranking(openpyxl.load_workbook(recalculated["seed"], data_only=True))
    assert [r[1] for r in before] == doc["ranking"]
    wb = openpyxl.load_workbook(recalculated["cloud_cut"], data_only=True)
    after = _ranking(wb)
    assert after[0][1] != before[0][1] and "Savings Plan" in after[0][1]
    tcos = [r[2] for r in after]
    assert tcos == sorted(tcos) and [r[0] for r in after] == list(range(1, len(after) + 1))
    assert named_values(wb, "be_leader") == [after[0][1]]
    # the live TCOs of the reordered rows are the options' own
    by_name = {o.name: i for i, o in enumerate(res.options, 1)}
    for rank, name, tco, *_ in after:
        assert named_values(wb, f"out_o{by_name[name]}_tco")[0] == pytest.approx(tco)


@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
def test_moving_the_dollar_past_the_break_even_changes_the_leader(recalculated, seed):
    _, res, doc = seed
    v = _values(res)
    k = nearest(v["k"])[0]
    expected = res.options[v["k"].index(k)].name
    wb = openpyxl.load_workbook(recalculated["fx_past"], data_only=True)
    assert _ranking(wb)[0][1] == expected
    assert named_values(wb, "be_leader") == [expected]


@pytest.mark.slow
def test_stale_banners_and_spot_follow_the_names_the_checks_and_levers_define(tmp_path):
    """Engine-value blocks get a banner tied to the Checks' "inputs changed" flag, and the break-even USD/BRL reads
    the USD/BRL lever, where the workbook defines them (the Checks and Inputs sheets do)."""
    import xlsxwriter

    from tco.report.workbook.book import Book, make_formats
    from tco.report.workbook.breakeven import spot
    from tco.report.workbook.print import stale_banners

    f = tmp_path / "b.xlsx"
    wb = xlsxwriter.Workbook(str(f))
    book = Book(wb, "pt-BR", 12)
    book.fmts = make_formats(wb)
    for k, name in (("comparison", "Comparação"), ("fx", "Risco cambial"), ("checks", "Verificações")):
        book.sheets[k] = name
        wb.add_worksheet(name)
    keys = ["comparison", "fx", "checks"]
    assert stale_banners(book, keys) == 0 and spot(book) == "in_usdbrl"
    book.name("chk_inputs_changed", "'Verificações'!$A$1")
    book.name("lv_fx", "'Verificações'!$A$2")
    assert stale_banners(book, keys) == 2 and spot(book) == "in_usdbrl*lv_fx"
    wb.close()
    got = openpyxl.load_workbook(f)
    cell = got["Risco cambial"]["A3"]
    assert cell.data_type == "f" and cell.value.startswith('=IF(chk_inputs_changed,"Valores do motor')
    assert got["Comparação"]["I2"].value.startswith("=IF(chk_inputs_changed,")
    assert openpyxl.load_workbook(f, data_only=True)["Risco cambial"]["A3"].value in ("", None)


@pytest.mark.slow
def test_tricky_cells_carry_a_comment_in_the_workbooks_language(seed_xlsx):
    wb = openpyxl.load_workbook(seed_xlsx)
    comments = {(ws.title, c.coordinate): c.comment.text for ws in wb.worksheets for row in ws.iter_rows() for c in row
                if c.comment}
    assert comments[("Comparação", "O3")].startswith("ORDEM entre os TCOs viáveis")
    (gap,) = named_cells(wb, "be_gap_cloud")
    assert comments[("Finanças", gap.coordinate)].startswith("Alvo do Atingir meta")
