"""The Checks sheet, in two blocks (FAST / ICAEW):

- integrity: the model agrees with itself (lines add to the total, no negative cost, capacity at least the demand at
  the peak hour, fleet at least the servers needed, the cumulative row ends at the sum, the tax block balances).
  These feed the master check, which stays TRUE after any legitimate edit of an input;
- reconciliation with the engine's run that generated the file (informational, dated): the engine's values stored
  as values beside the live ones, with their difference; and a flag "inputs changed since generation" that compares
  every input cell with a stored copy of the value it was generated with.
"""

from __future__ import annotations

from tco.domain import CostLine, Currency
from tco import __version__
from tco.costs import LINES
from tco.costs.tax_rules import CREDITABLE, TAXES
from tco.report.workbook.input_checks import master_formula, signed_refs, validate_cell, validity
from tco.report.workbook.book import FIRST_COL, Book, abs_cell, month_col, num, qs, row_range

OK_FILL = {"bg_color": "#C6EFCE"}
BAD_FILL = {"bg_color": "#FFC7CE"}


def _paint(book: Book, ws, first: int, last: int, c: int) -> None:
    ws.conditional_format(first, c, last, c, {"type": "cell", "criteria": "==", "value": "TRUE",
                                              "format": book.wb.add_format(OK_FILL)})
    ws.conditional_format(first, c, last, c, {"type": "cell", "criteria": "==", "value": "FALSE",
                                              "format": book.wb.add_format(BAD_FILL)})


def _integrity(book: Book, res, i: int, o) -> list[tuple[str, str, float, str, str, bool]]:
    """(label key, value formula, cached value, number format, test formula on {C}, cached result) of one option's
    checks; the cached value and result are the same check evaluated on the engine's numbers."""
    sheet, rows, h = book.sheets[f"calc{i}"], book.outputs[(i, "rows")], book.horizon

    def rng(key: str) -> str:
        return row_range(sheet, rows[key], h)

    last = f"{qs(sheet)}${month_col(h)}${rows['cum'] + 1}"
    return (_line_checks(book, i, o, rng) + _capacity_checks(book, res, i, o, rng)
            + [_cumulative_check(o, rng, last), _tax_check(o, rng, rows)])


def _line_checks(book: Book, i: int, o, rng) -> list[tuple]:
    """The lines add up to the total; no total and no price line is negative."""
    from tco.constants import TOL_BRL

    total = rng("total")
    diff = float(sum(o.lines_brl[k].sum() for k in LINES) - o.total_brl.sum())
    # an owned option's lines net the resale and the tax shield (a month may be negative): its purchases and running
    # costs instead
    owned = o.resolved.owned is not None
    net = {CostLine.TAXES, CostLine.INFERENCE_COMPUTE, CostLine.SETUP} if owned else {CostLine.TAXES}
    keys = ["l_" + k for k in LINES if k not in net] + (["own_cash", "own_run"] if owned else [])
    prices = ",".join(rng(k) for k in keys)
    low = min(float(o.costs.rows[k].min()) if k.startswith("own_") else float(o.costs.lines[k[2:]].min())
              for k in keys)
    if o.resolved.owned is None:
        low, prices = min(float(o.total_brl.min()), low), f"{total},{prices}"
    return [("chk_sum", f"=SUM({book.outputs[(i, 'lines_brl')]})-SUM({total})", diff, "brl", "=ABS({C})<c_tol_brl",
             abs(diff) < TOL_BRL.value),
            ("chk_neg", f"=MIN({prices})", low, "num", "={C}>=-c_tol_brl", low >= -TOL_BRL.value)]


def _capacity_checks(book: Book, res, i: int, o, rng) -> list[tuple]:
    """The replicas at the peak hour serve the peak load; the fleet paid for is never below the fleet needed."""
    import numpy as np

    from tco.constants import EPS

    v = o.costs.rows
    cap = f"{qs(book.sheets[f'calc{i}'])}$C${book.outputs[(i, 'const')]['cap'] + 1}"
    peak_rps = row_range(book.sheets["timeline"], book.rows["peak_rps"], book.horizon)
    util = res.scenario.inference.utilization_target_share
    short = int(np.count_nonzero(v["peak_replicas"] * o.replica.requests_per_second * util
                                 < res.timeline["peak_rps"] - EPS.value))
    paid, need = ("fleet", "need") if "fleet" in v else ("inf_paid", "peak")
    fewer = int(np.count_nonzero(v[paid] < v[need] - EPS.value))
    return [("chk_capacity", f"=SUMPRODUCT(--({rng('peak_replicas')}*{cap}*in_utilization<{peak_rps}-c_eps))",
             short, "int", "={C}=0", short == 0),
            ("chk_fleet", f"=SUMPRODUCT(--({rng(paid)}<{rng(need)}-c_eps))", fewer, "int", "={C}=0", fewer == 0)]


def _cumulative_check(o, rng, last: str) -> tuple:
    """The cumulative row ends at the total (`last`: its last cell)."""
    import numpy as np

    from tco.constants import TOL_BRL

    gap = float(np.cumsum(o.total_brl)[-1] - o.total_brl.sum())
    return ("chk_cum", f"={last}-SUM({rng('total')})", gap, "brl", "=ABS({C})<c_tol_brl", abs(gap) < TOL_BRL.value)


def _tax_check(o, rng, rows: dict) -> tuple:
    """The tax block: Σ taxes − credits = the taxes line; the taxes moved out of a BRL price = the price before −
    after."""
    from tco.constants import TOL_BRL

    oc, v, tv = o.costs, o.costs.rows, o.costs.tax_rows
    bal = f"=SUM({','.join(rng('tx_' + k) for k in TAXES)})-SUM({rng('tx_credits')})-SUM({rng('l_taxes')})"
    gap = float(sum(tv["tx_" + k].sum() for k in TAXES if "tx_" + k in tv) - tv["tx_credits"].sum()
                - oc.lines[CostLine.TAXES].sum())
    gross = [k for k in LINES if "g_" + k in rows and "l_" + k in tv and k != CostLine.TAXES]
    if gross and oc.currency[CostLine.TAXES] == Currency.BRL:
        moved = ",".join(rng("tx_" + k) for k in CREDITABLE)
        bal += "+ABS(" + "+".join(f"SUM({rng('g_' + k)})-SUM({rng('l_' + k)})" for k in gross) + f"-SUM({moved}))"
        gap += abs(float(sum(v["l_" + k].sum() - tv["l_" + k].sum() for k in gross)
                         - sum(tv["tx_" + k].sum() for k in CREDITABLE)))
    return ("chk_taxes", bal, gap, "brl", "=ABS({C})<c_tol_brl", abs(gap) < TOL_BRL.value)


def write_checks(book: Book, res) -> None:
    sheet = book.sheets["checks"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    h = book.horizon
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 58)
    ws.set_column(2, 3, 18)
    ws.set_column(4, 5, 16)
    ws.write_string(0, 0, t("sh_checks"), book.fmt("title"))
    ws.merge_range(1, 0, 1, 5, t("chk_note"), book.fmt("small_wrap"))
    ws.set_row(1, 40)
    for c, hd in enumerate((t("col_option"), t("chk_integrity"), t("workbook_value"), "", t("result"))):
        ws.write_string(2, c, hd, book.fmt("head"))
    r = 3
    all_ok = True
    for i, o in enumerate(res.options, start=1):
        for key, formula, cached, fmt, test, ok in _integrity(book, res, i, o):
            ws.write_string(r, 0, o.name)
            ws.write_string(r, 1, t(key))
            ws.write_formula(r, 2, formula, book.fmt("calc_" + fmt), num(cached))
            ws.write_formula(r, 4, test.replace("{C}", f"C{r + 1}"), book.fmt("check"), ok)
            all_ok = all_ok and ok
            r += 1
    first, last = 3, r - 1
    _paint(book, ws, first, last, 4)
    r += 1
    ws.write_string(r, 1, t("master_check"), book.fmt("bold_gen"))
    ws.write_formula(r, 4, f"=AND(E{first + 1}:E{last + 1})", book.fmt("check"), all_ok)
    _paint(book, ws, r, r, 4)
    book.outputs["master_ok"] = all_ok
    book.outputs["master"] = abs_cell(sheet, r, 4)
    book.name("chk_master", book.outputs["master"])
    r += 1
    changed_row = r
    r += 2
    r = _reconciliation(book, ws, res, r)
    r, valid = _input_copies(book, ws, r + 1, changed_row)
    npvs = [book.outputs[(i, "npv")] for i in range(1, len(res.options) + 1)]  # inputs and NPVs read by the master
    ws.write_formula(book_master_row(book), 4, master_formula(first, last, valid, npvs), book.fmt("check"), all_ok)
    ws.set_column(FIRST_COL + 2, FIRST_COL + h, 15)
    ws.freeze_panes(3, 0)


def _reconciliation(book: Book, ws, res, r: int) -> int:
    """The engine's run, as values, beside the live numbers (informational: an edit makes them differ)."""
    t = book.t
    sha = res.source_sha256[:12] or "—"  # the scenario the run read, not the clock: the same run, the same workbook
    ws.write_string(r, 0, t("chk_recon", sha=sha, v=__version__), book.fmt("h2"))
    r += 1
    for c, hd in enumerate((t("col_option"), t("chk"), t("workbook_value"), t("engine_value"), t("result"),
                            t("difference"))):
        ws.write_string(r, c, hd, book.fmt("head"))
    first = r + 1
    eng_r0 = first + 4 * len(res.options) + 3  # the engine's monthly totals, as values, below
    _engine_monthly(book, ws, res, eng_r0)
    r = first
    for i, o in enumerate(res.options, start=1):
        er = eng_r0 + i - 1  # the option's row of engine values
        eng_row = f"${month_col(1)}${er + 1}:${month_col(book.horizon)}${er + 1}"
        for key, f, engine_v, fmt, test in _reconciled(book, i, o, eng_row):
            ws.write_string(r, 0, o.name)
            ws.write_string(r, 1, t(key))
            ws.write_formula(r, 2, f, book.fmt("calc_" + fmt), num(engine_v))
            ws.write_number(r, 3, num(engine_v), book.fmt("eng_" + fmt))
            ws.write_formula(r, 4, test.replace("{r}", str(r + 1)), book.fmt("check"), True)
            ws.write_formula(r, 5, f"=C{r + 1}-D{r + 1}", book.fmt("calc_" + fmt), 0.0)
            r += 1
    _paint(book, ws, first, r - 1, 4)
    ws.write_string(r, 1, t("chk_recon_all"), book.fmt("bold_gen"))
    ws.write_formula(r, 4, f"=AND(E{first + 1}:E{r})", book.fmt("check"), True)
    book.name("chk_reconciled", abs_cell(book.sheets["checks"], r, 4))
    return eng_r0 + len(res.options) + 1


def _engine_monthly(book: Book, ws, res, eng_r0: int) -> None:
    """Each option's monthly total as the engine computed it (values), from row `eng_r0`, under a month header."""
    ws.write_string(eng_r0 - 1, 0, book.t("engine_monthly"), book.fmt("h2"))
    for m in range(book.horizon):
        ws.write_number(eng_r0 - 1, FIRST_COL + m, m + 1, book.fmt("head"))
    for i, o in enumerate(res.options, start=1):
        er = eng_r0 + i - 1
        ws.write_string(er, 0, o.name)
        for m in range(book.horizon):
            ws.write_number(er, FIRST_COL + m, float(o.total_brl[m]), book.fmt("eng_brl"))


def _reconciled(book: Book, i: int, o, eng_row: str) -> list[tuple[str, str, float, str, str]]:
    """(label key, live formula, engine value, number format, test on row {r}) of option i: TCO, NPV, the months
    that match the engine's (`eng_row`), the replica's capacity."""
    tot = book.outputs[(i, "total")]
    money = "=ABS(C{r}-D{r})<c_tol_brl"
    return [("chk_tco", "=" + book.outputs[(i, "tco")], o.tco.deterministic, "brl", money),
            ("chk_npv", "=" + book.outputs[(i, "npv")], o.npv.deterministic, "brl", money),
            ("chk_monthly", f"=SUMPRODUCT(--(ABS({tot}-{eng_row})<c_tol_brl))", book.horizon, "int", "=C{r}=D{r}"),
            ("chk_cap", "=" + book.sizing[(i, "cap")], o.replica.requests_per_second, "num4",
             "=ABS(C{r}/D{r}-1)<c_eps")]


def book_master_row(book: Book) -> int:
    """The Checks sheet's row of the master check (0-based)."""
    from xlsxwriter.utility import xl_cell_to_rowcol

    return xl_cell_to_rowcol(book.outputs["master"].rpartition("!")[2].replace("$", ""))[0]


def _input_copies(book: Book, ws, r: int, flag_row: int) -> tuple[int, str | None]:
    """Each input cell beside the value it was generated with and its validity (a number, ≥ 0 unless signed:
    tco.report.workbook.input_checks); the flag row counts those that differ. Returns the next row and the range of
    the validity column."""
    t = book.t
    ws.write_string(r, 0, t("chk_inputs_copy"), book.fmt("h2"))
    r += 1
    for c, hd in enumerate((t("col_item"), t("chk_cell"), t("col_value"), t("chk_generated"), t("chk_changed"),
                            t("chk_input_valid"))):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    first = r
    signed = signed_refs(book)
    for label, ref, value in book.inputs:
        ws.write_string(r, 0, label)
        ws.write_string(r, 1, ref.replace("'", ""), book.fmt("small"))
        ws.write_formula(r, 2, f"=N({ref})", book.fmt("calc_gen"), num(value))
        ws.write_number(r, 3, num(value), book.fmt("eng_gen"))
        # changed = more than a relative c_input_changed apart (a 17-digit value may be read back to 15 digits)
        ws.write_formula(r, 4, f"=IF(ABS(C{r + 1}-D{r + 1})>ABS(D{r + 1})*c_input_changed,1,0)", book.fmt("calc_int"), 0)
        ws.write_formula(r, 5, validity(ref, ref in signed), book.fmt("check"), True)
        validate_cell(book, ref, ref in signed)
        r += 1
    if r > first:
        _paint(book, ws, first, r - 1, 5)
    # how many inputs differ from the generated copy: 0 as generated, ≥ 1 after an edit (a count, not a check)
    ws.write_string(flag_row, 1, t("chk_inputs_changed"), book.fmt("bold_gen"))
    ws.write_formula(flag_row, 4, f"=SUM(E{first + 1}:E{max(r, first + 1)})", book.fmt("bold_int"), 0)
    ws.conditional_format(flag_row, 4, flag_row, 4, {"type": "cell", "criteria": ">", "value": 0,
                                                      "format": book.wb.add_format({"bg_color": "#FFEB9C"})})
    book.name("chk_inputs_changed", abs_cell(book.sheets["checks"], flag_row, 4))
    return r, (f"F{first + 1}:F{r}" if r > first else None)
