"""The Finance sheet: what FP&A asks of the model, as live formulas of the Calc sheets and the Timeline.

Blocks, one under the other (rows found by key in each Calc sheet's row map, ``book.outputs[(i, "rows")]``):
cash out by contract year and by calendar year (every option), each option's lines by year, the
committed amounts (payments inside a minimum term or commitment), unit costs (R$ per active user per
month, all-in R$ per GPU-hour, R$ per million tokens) and the break-evens (``workbook_breakeven``).
The yearly sums and commitments are the rules of ``tco.costs.finance_rules``, the unit costs those of
``tco.costs.unit_rules``: each cell writes a rule and caches the value the same rule gives on the engine's arrays,
so a viewer that does not recalculate shows the truth.

Cash flows are at month end (docs/design.md, Conventions), so the cost booked in a month is the cash paid in it.
"""

from __future__ import annotations

import functools


from tco.costs import LINES, finance_rules, unit_rules
from tco.domain import Role
from tco.expr import XlContext
from tco.report.workbook.book import Book, abs_cell, col, num, row_range
from tco.report.workbook.years import calendar_years, commitments, contract_years

KBRL = '#,##0,;-#,##0,;"–"'
"""R$ thousands without decimals (the unit, "R$ mil", is written beside the table)."""


# ---------------------------------------------------------------------------------------------
# the sheet


def finance_formats(book: Book) -> None:
    """Formats of the finance views (added to ``book.fmts``)."""
    wb = book.wb
    link = {"font_color": "#00703C"}
    book.fmts.update({
        "fin_kbrl": wb.add_format({**link, "num_format": KBRL}),
        "fin_kbrl_bold": wb.add_format({**link, "num_format": KBRL, "bold": True, "top": 1}),
        "fin_brl": wb.add_format({**link, "num_format": '"R$" #,##0.00'}),
        "fin_num": wb.add_format({**link, "num_format": "#,##0"}),
        "fin_mult": wb.add_format({**link, "num_format": '0.000"×"'}),
        "fin_rate": wb.add_format({**link, "num_format": "0.0000"}),
        "fin_pct": wb.add_format({**link, "num_format": "0.0%"}),
        "fin_text": wb.add_format(link),
        "fin_year": wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1,
                                   "num_format": '"' + book.t("fin_year")
                                   .replace('"', "") + ' "0', "align": "right"}),
        "fin_cal": wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "num_format": "0",
                                  "align": "right"}),
        "link": wb.add_format(link),
    })


class _Sheet:
    def __init__(self, book: Book, res):
        self.book, self.res = book, res
        self.name = book.sheets["finance"]
        self.ws = book.wb.get_worksheet_by_name(self.name)
        self.h = book.horizon
        self.tl = book.sheets["timeline"]

    def calc(self, i: int, key: str) -> str:
        return row_range(self.book.sheets[f"calc{i}"], self.book.outputs[(i, "rows")][key], self.h)

    def timeline(self, key: str) -> str:
        return row_range(self.tl, self.book.rows[key], self.h)


def write_finance(book: Book, res) -> None:
    s = _Sheet(book, res)
    ws, t = s.ws, book.t
    ws.set_column(0, 0, 52)
    ws.set_column(1, 1, 12)
    ws.set_column(2, 14, 14)
    ws.write_string(0, 0, t("sh_finance"), book.fmt("title"))
    ws.write_string(1, 0, t("fin_note"), book.fmt("small"))
    ws.freeze_panes(0, 1)
    r = _cash_out(s, 3)
    r = _lines_by_year(s, r + 1)
    r = _committed(s, r + 1)
    r = _unit_costs(s, r + 1)
    from tco.report.workbook.breakeven import write_breakeven

    write_breakeven(book, res, ws, s.name, r + 1)


def _year_heads(s: _Sheet, r: int, c0: int) -> tuple[int, int]:
    """Contract-year heads (1 … Y) from column c0, then calendar-year heads (live: YEAR of the start date + j).
    Returns (number of contract years, number of calendar years)."""
    ws, book = s.ws, s.book
    ny = contract_years(s.h)
    cal = calendar_years(s.res.months)
    for y in range(ny):
        ws.write_number(r, c0 + y, y + 1, book.fmt("fin_year"))
    c1 = c0 + ny
    for j, y in enumerate(cal):
        f = "=YEAR(in_start_date)" if j == 0 else f"={col(c1 + j - 1)}{r + 1}+1"
        ws.write_formula(r, c1 + j, f, book.fmt("fin_cal"), y)
    return ny, len(cal)


def _year_cells(s: _Sheet, r: int, c0: int, hr: int, ny: int, nc: int, row: str, values, fmt: str = "fin_kbrl") -> None:
    """One row of yearly sums of the monthly range `row`: contract years, calendar years, then the total (the rules
    of ``tco.costs.finance_rules``, each cell caching the value they give on `values`)."""
    ws, book = s.ws, s.book
    by_c, by_cal, whole = finance_rules.yearly(values, s.res.months)
    heads = {"y": [f"{col(c0 + y)}${hr + 1}" for y in range(ny)],
             "cal": [f"{col(c0 + ny + j)}${hr + 1}" for j in range(nc)]}
    cells = [(c0 + y, finance_rules.BY_CONTRACT_YEAR, "y", y, by_c[y]) for y in range(ny)]
    cells += [(c0 + ny + j, finance_rules.BY_CALENDAR_YEAR, "cal", j, by_cal[j]) for j in range(nc)]
    cells += [(c0 + ny + nc, finance_rules.OVER_HORIZON, "", 0, whole)]
    ranges = {"x": row, "year": s.timeline("year"), "date": s.timeline("date")}
    for c, rule, head, j, value in cells:
        names = {head: heads[head][j]} if head else {}
        ctx = XlContext(col="", prev=None, row_of=_no_cell, name_of=names.__getitem__, row_range=ranges.__getitem__)
        ws.write_formula(r, c, rule.formula(ctx), book.fmt(fmt), num(value))


def _no_cell(key: str) -> int:
    raise AssertionError(f"a Finance rule reads whole rows, not the cell of {key!r}")


def _heads(s: _Sheet, r: int, first: str, ny: int, nc: int) -> None:
    ws, book, t = s.ws, s.book, s.book.t
    ws.write_string(r, 0, first, book.fmt("head"))
    ws.write_string(r, 1, t("unit"), book.fmt("head"))
    ws.write_string(r - 1, 2, t("fin_by_contract_year"), book.fmt("small"))
    ws.write_string(r - 1, 2 + ny, t("fin_by_calendar_year"), book.fmt("small"))
    ws.write_string(r, 2 + ny + nc, t("total"), book.fmt("head"))


def _cash_out(s: _Sheet, r: int) -> int:
    """Cash out (the month's total cost) by contract and calendar year, every option."""
    ws, book, t = s.ws, s.book, s.book.t
    ws.write_string(r, 0, t("fin_cash_out"), book.fmt("h2"))
    hr = r + 2
    ny, nc = _year_heads(s, hr, 2)
    _heads(s, hr, t("col_option"), ny, nc)
    r = hr + 1
    first = r
    for i, o in enumerate(s.res.options, start=1):
        ws.write_string(r, 0, o.name)  # scenario text
        ws.write_string(r, 1, t("fin_kbrl"), book.fmt("small"))
        _year_cells(s, r, 2, hr, ny, nc, s.calc(i, "total"), o.total_brl)
        r += 1
    book.outputs["fin_years"] = (first, hr, ny, nc)
    return r


def _lines_by_year(s: _Sheet, r: int) -> int:
    """Each option's six lines (BRL) and total by year."""
    ws, book, t = s.ws, s.book, s.book.t
    ws.write_string(r, 0, t("fin_lines_by_year"), book.fmt("h2"))
    r += 2
    for i, o in enumerate(s.res.options, start=1):
        ws.write_string(r, 0, o.name, book.fmt("bold_gen"))  # scenario text
        hr = r + 2
        ny, nc = _year_heads(s, hr, 2)
        _heads(s, hr, t("fin_line"), ny, nc)
        r = hr + 1
        for k in LINES:
            ws.write_string(r, 0, t("line_" + k))
            ws.write_string(r, 1, t("fin_kbrl"), book.fmt("small"))
            _year_cells(s, r, 2, hr, ny, nc, s.calc(i, "b_" + k), o.lines_brl[k])
            ws.set_row(r, None, None, {"level": 1})
            r += 1
        ws.write_string(r, 0, t("total"), book.fmt("bold_gen"))
        _year_cells(s, r, 2, hr, ny, nc, s.calc(i, "total"), o.total_brl, "fin_kbrl_bold")
        r += 2
    return r


def term_formula(book: Book, i: int, role: str, fleet) -> str | None:
    """The term of option i's commitment as a formula of its term inputs (a separate dedicated training cluster's
    minimum term, a committed baseline's term), the catalog's term the floor; None when no input sets it."""
    names = {n[0] for n in book.wb.defined_names}
    name = {str(Role.TRAINING): f"in_o{i}_tr_min_term", str(Role.INFERENCE): f"in_o{i}_commit_term"}.get(str(role))
    if name is None or name not in names:
        return None
    from tco.domain import commitment_term_months

    # the training term is its input alone; a committed baseline's, its input with the pricing's term as a floor
    floor = 0 if role == Role.TRAINING else max(fleet.min_term_months or 0, commitment_term_months(fleet.pricing) or 0)
    return f"=MAX({floor},{name})" if floor else f"={name}"


def _committed(s: _Sheet, r: int) -> int:
    """Payments a buyer cannot walk away from once signed: each fleet's compute line (and the taxes on it) over its
    minimum term or commitment, from its first month."""
    ws, book, t = s.ws, s.book, s.book.t
    ws.write_string(r, 0, t("fin_committed"), book.fmt("h2"))
    ws.write_string(r + 1, 0, t("fin_committed_note"), book.fmt("small"))
    r += 2
    heads = (t("col_option"), t("fin_role"), t("fin_pricing"), t("fin_term"), t("fin_from"), t("fin_committed_brl"),
             t("fin_share_of_tco"))
    for c, hd in enumerate(heads):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    any_row = False
    for i, o in enumerate(s.res.options, start=1):
        for role, fleet, lines, term, start in commitments(o, _start(s.res, Role.TRAINING),
                                                           _start(s.res, Role.INFERENCE)):
            start_name = START_NAMES.get(role, "MIN(in_train_start,in_inf_start)")
            ws.write_string(r, 0, o.name)  # scenario text
            ws.write_string(r, 1, t("fin_role_" + role))
            ws.write_string(r, 2, f"{fleet.offer_id} · {book.term('pricing', fleet.pricing)}", book.fmt("small"))
            live = term_formula(book, i, role, fleet)
            if live is None:
                ws.write_number(r, 3, term, book.fmt("eng_int"))
            else:  # a formula of the term inputs: an edited term moves the committed amount and stays in step
                ws.write_formula(r, 3, live, book.fmt("fin_num"), term)
            ws.write_formula(r, 4, f"={start_name}", book.fmt("fin_num"), start)
            v, share = finance_rules.committed(o, lines, start, term)
            ctx = XlContext(col="", prev=None, row_of=_no_cell, name_of=_committed_names(i, r + 1).__getitem__,
                            row_range=functools.partial(_option_range, s, i))
            rule = finance_rules.committed_rule(tuple(lines), finance_rules.taxed_lines(o.costs.currency))
            ws.write_formula(r, 5, rule.formula(ctx), book.fmt("fin_kbrl"), num(v))
            ws.write_formula(r, 6, finance_rules.SHARE_OF_TCO.formula(ctx), book.fmt("fin_pct"), num(share))
            r += 1
            any_row = True
    if not any_row:
        ws.write_string(r, 0, t("fin_no_commitment"), book.fmt("small"))
        r += 1
    ws.write_string(r, 0, t("fin_term_source"), book.fmt("small"))
    return r + 1


def _option_range(s: _Sheet, i: int, key: str) -> str:
    """Row `key` of option i's calc sheet (the Timeline's for the month ``t``)."""
    return s.timeline(key) if key == "t" else s.calc(i, key)


def _committed_names(i: int, row: int) -> dict[str, str]:
    """Where a commitment row's rules read their inputs: its first month (column E), term (D), amount (F) and the
    option's TCO."""
    return {"start": f"E{row}", "term": f"D{row}", "c.committed": f"F{row}", "c.tco": f"out_o{i}_tco"}


START_NAMES: dict[str, str] = {Role.TRAINING: "in_train_start", Role.INFERENCE: "in_inf_start"}
"""Role → the input that names its first month (a shared commitment starts at the earlier of the two)."""


def _start(res, role: str) -> int:
    """First month (1-based) of a role: the scenario's training or inference start."""
    s = res.scenario
    return int(s.training.start_month if role == Role.TRAINING else s.inference.start_month)


def _unit_costs(s: _Sheet, r: int) -> int:
    """TCO per active user per month, per GPU-hour paid and per million tokens: the rules of
    ``tco.costs.unit_rules``, each cell caching the value they give (column B links the option's TCO)."""
    ws, book, t = s.ws, s.book, s.book.t
    ws.write_string(r, 0, t("fin_unit_costs"), book.fmt("h2"))
    ws.write_string(r + 1, 0, t("fin_unit_note"), book.fmt("small"))
    ws.write_string(r + 2, 0, t("fin_million"))
    ws.write_number(r + 2, 1, unit_rules.MILLION, book.fmt("calc_int"))  # a unit, named, never a literal in a formula
    book.name("fin_million", abs_cell(s.name, r + 2, 1))
    r += 4
    heads = (t("col_option"), t("col_tco") + " (" + t("fin_kbrl") + ")", t("fin_user_months"), t("fin_per_user_month"),
             t("fin_gpu_hours"), t("fin_per_gpu_hour"), t("fin_mtokens"), t("per_mtok"))
    for c, hd in enumerate(heads):
        ws.write_string(r, c, hd, book.fmt("head"))
    r += 1
    first = r
    for i, o in enumerate(s.res.options, start=1):
        ws.write_string(r, 0, o.name)  # scenario text
        ws.write_formula(r, 1, f"=out_o{i}_tco", book.fmt("fin_kbrl"), num(o.tco.deterministic))  # a link
        values = unit_rules.unit_costs(o, s.res.users, s.res.tokens)
        ctx = _unit_context(s, i, r + 1)
        for c, x in enumerate(unit_rules.rules(unit_rules.hour_keys(o.costs.rows)), start=2):
            ws.write_formula(r, c, x.formula(ctx), book.fmt(UNIT_FORMATS[x.key]), num(values[x.key]))
        r += 1
    book.outputs["fin_units"] = (s.name, first)
    for c, name in ((3, "fin_per_user"), (5, "fin_per_gpu_h"), (7, "fin_per_mtok")):
        book.name(name, f"{abs_cell(s.name, first, c)}:{abs_cell(s.name, r - 1, c).split('!')[1]}")
    return r


UNIT_FORMATS = {"user_months": "fin_num", "per_user": "fin_brl", "gpu_hours": "fin_num", "per_gpu_hour": "fin_brl",
                "mtokens": "fin_num", "per_mtok": "fin_brl"}
"""Unit-cost rule → the format of its column (columns C … H in the rules' order)."""


def _unit_context(s: _Sheet, i: int, row: int) -> XlContext:
    """Where option i's unit-cost rules read: the timeline's and its calc sheet's rows, its TCO in column B, each
    quantity in the column before its ratio, its GPUs per server and ``fin_million`` by name."""
    cells = {"c.tco": f"B{row}", "c.user_months": f"C{row}", "c.gpu_hours": f"E{row}", "c.mtokens": f"G{row}",
             "million": "fin_million", "o.inf_gps": f"in_o{i}_inf_gps", "o.tr_gps": f"in_o{i}_tr_gps"}

    def row_range(key: str) -> str:
        return s.timeline(key) if key in ("users", "tokens") else s.calc(i, key)
    return XlContext(col="", prev=None, row_of=_no_cell, name_of=cells.__getitem__, row_range=row_range)
