"""One calculation sheet per option: the option's rules (``tco.costs.fleet_rules.plan``) written as live
formulas, one rule per row, the same across the months; each cell caches the value the engine got by
evaluating the same rule (``OptionCosts.rows``), so the text and the number cannot disagree.

Rows: links to the timeline, price factors, servers needed in each hour of the day (24 rows), peak,
training hours spread over calendar days, the fleet (ratchet for dedicated/reserved fleets, setup
fees on increments), egress tiers, the six cost lines in the offer's currency, their BRL conversion,
total, cumulative and discounted cost; the option's constants in column C; TCO and NPV below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tco.domain import CostLine, Currency
from tco.costs import LINES, totals_rules
from tco.expr import Rule, Scalar, XlContext
from tco.costs.fleet_rules import NOT_APPLICABLE
from tco.costs.tax_rules import NOT_APPLICABLE as TAX_NA
from tco.report.workbook.calc_rows import CONSTANTS, TAX_NA_RULE, block_of, consts_of, layout, shown, tax_shown
from tco.report.workbook.cells import by_letters
from tco.report.workbook.deps import dead, live
from tco.report.workbook.levers import price_name
from tco.report.workbook.book import FIRST_COL, Book, abs_cell, col, month_col, num, qs, row_range, write_row

@dataclass
class _Calc:
    """One option's calculation sheet while it is written: where each row is, and how a rule's names resolve."""

    book: Book
    res: Any
    i: int
    o: Any
    sheet: str
    ws: Any
    lay: dict
    rows: dict[str, int] = field(default_factory=dict)
    const_row: dict[str, int] = field(default_factory=dict)
    totals: dict[str, np.ndarray] = field(default_factory=dict)
    """The rows of the option's totals rules, as the engine evaluates them (``tco.costs.totals_rules.totals``)."""

    def row_of(self, key: str):
        if key in self.rows:
            return self.rows[key] + 1
        return (qs(self.book.sheets["timeline"]), self.book.rows[key] + 1)

    def name_of(self, name: str) -> str:
        if name.startswith("o."):
            return price_name(name[2:], f"in_o{self.i}_" + name[2:], self.o.resolved)
        if name.startswith("c."):
            return f"$C${self.const_row[name[2:]] + 1}"
        return "tl_h" if name == "horizon" else f"in_{name}"

    def ctx(self, c: str, p: str) -> XlContext:
        return XlContext(col=c, prev=p, row_of=self.row_of, name_of=self.name_of,
                         row_range=lambda key: row_range(self.sheet, self.rows[key], self.book.horizon))

    def put(self, key: str, label: str, unit: str, formula, vals, fmt: str, total: str | None = None,
            rule: Rule | None = None) -> None:
        write_row(self.ws, self.book, self.rows[key], label, unit, formula, vals, fmt, total,
                  by_pattern=rule is None or by_letters(rule.expr))

    def put_rule(self, key: str, x: Rule, label: str, unit: str, vals, fmt: str, total: str | None) -> None:
        """A row holding rule `x` (its text rendered in each month's context)."""
        self.put(key, label, unit, lambda c, p: x.formula(self.ctx(c, p)), vals, fmt, total, x)

    def link(self, key: str):
        """A row linked to the Timeline's row `key`."""
        tl = qs(self.book.sheets["timeline"])
        return lambda c, p: f"={tl}{c}{self.book.rows[key] + 1}"


def write_calc(book: Book, res, i: int, o) -> None:
    """Option `i`'s calculation sheet: the rules above, the tax block, the lines, their BRL sums, TCO and NPV."""
    sheet = book.sheets[f"calc{i}"]
    s = _Calc(book, res, i, o, sheet, book.wb.get_worksheet_by_name(sheet), layout(book, res),
              totals=totals_rules.totals(o.costs.lines, o.costs.currency, res.timeline["fx"], res.timeline["df"]))
    _frame(s)
    _place_top(s)
    _body(s)
    _tax_block_and_lines(s)
    _brl_and_totals(s)
    _results(s)
    _constants(s)


def _frame(s: _Calc) -> None:
    ws, t, h = s.ws, s.book.t, s.book.horizon
    ws.set_column(0, 0, 44)
    ws.set_column(1, 1, 10)
    ws.set_column(2, 2, 18)
    ws.set_column(3, 3, 2)
    ws.set_column(FIRST_COL, FIRST_COL + h - 1, 14)
    ws.write_string(0, 0, t("sh_calc", i=s.i), s.book.fmt("title"))
    ws.write_string(0, 2, s.o.name, s.book.fmt("bold_gen"))  # scenario text: a string, never a formula
    ws.freeze_panes(3, FIRST_COL)


def _place_top(s: _Calc) -> None:
    """Rows of the constants, the links and the rules before the tax block (the same on every option's sheet: a
    row an option lacks is "n/a")."""
    constants = s.lay["consts"]
    s.const_row.update({k: 4 + j for j, k in enumerate(constants)})
    r = 4 + len(constants) + 1
    s.rows["t"] = 2
    s.rows["date"] = 1
    for key in LINKS:
        s.rows[key] = r
        r += 1
    for key in s.lay["body"]:
        s.rows[key] = r
        r += 1


LINKS = ("days", "hours", "fx", "df")
"""Rows linked to the Timeline under the constants."""


def _body(s: _Calc) -> None:
    """The calendar links, then every rule before the tax block."""
    book, ws, t, o, res = s.book, s.ws, s.book.t, s.o, s.res
    values = o.costs.rows
    write_row(ws, book, 1, t("month"), "", s.link("date"), [_date(m) for m in res.months], "bold_date")
    write_row(ws, book, 2, t("t"), "", s.link("t"), np.arange(1, book.horizon + 1, dtype=float), "calc_int")
    ws.write_string(3, 0, t("consts"), book.fmt("h2"))
    ws.write_string(s.rows["days"] - 1, 0, t("col_fleet"), book.fmt("h2"))
    for key, label, unit, fmt in (("days", "days", "d", "calc_int"), ("hours", "hours_month", "h", "calc_int"),
                                  ("fx", "fx", "BRL/USD", "calc_num4"), ("df", "df", "", "calc_num6")):
        s.put(key, t(label), unit, s.link(key), res.timeline[key] if key in res.timeline else values[key], fmt)
    own_body = {x.key: x for x in o.costs.rules if isinstance(x, Rule) and not x.key.startswith("l_")}
    _, used_inputs = live(o.costs)
    for key in s.lay["body"]:
        x = own_body.get(key) or s.lay["ref"][key]
        label, unit, fmt, total = shown(x, t, o.resolved.inference.currency)
        # e.g. the cloud price trend of a dedicated option: shown, not applicable
        if key not in own_body or dead(x, used_inputs):
            _na_row(ws, book, s.rows[x.key], label, fmt)
            continue
        s.put_rule(x.key, x, label, unit, values[x.key], fmt, total)


def _tax_block_and_lines(s: _Calc) -> None:
    """The taxes, tax by tax and month by month (tco.costs.tax_rules), then the six lines in the offer's currency."""
    book, ws, t, o = s.book, s.ws, s.book.t, s.o
    oc, cur, r_opt, rows = o.costs, o.costs.currency, o.resolved, s.rows
    t_lines = {x.key: x for x in oc.tax_rules if x.key.startswith("l_")}
    fleet_lines = {x.key: x for x in oc.rules if isinstance(x, Rule) and x.key.startswith("l_")}
    gross = [k for k in LINES if "l_" + k in t_lines and k != CostLine.TAXES]  # lines whose taxes move to the block
    r = rows[s.lay["body"][-1]] + 2
    ws.write_string(r, 0, t("sec_taxes"), book.fmt("h2"))
    prof = r_opt.brl_tax if cur[CostLine.TAXES] == Currency.BRL else r_opt.tax
    ws.write_string(r, 2, f"{book.term('taxm', prof.method)} · {prof.profile_id} · {r_opt.regime or '—'}",
                    book.fmt("small"))
    r += 1
    own_block = dict(block_of(o))
    block = [(key, own_block.get(key, TAX_NA_RULE)) for key in s.lay["block"]]
    for key, _ in block:
        rows[key] = r
        r += 1
    r += 1
    ws.write_string(r, 0, t("sec_lines"), book.fmt("h2"))
    for j, k in enumerate(LINES):
        rows["l_" + k] = r + 1 + j
    for key, x in block:
        label, unit, fmt = tax_shown(key, t, book, cur)
        if x.expr is NOT_APPLICABLE or x.expr is TAX_NA:
            _na_row(ws, book, rows[key], label, fmt)
        else:
            vals = oc.rows["l_" + key[2:]] if key.startswith("g_") else oc.tax_rows[key]
            s.put_rule(key, x, label, unit, vals, fmt, "sum" if fmt in ("calc_usd", "calc_brl") else None)
    lf = {k[2:]: x for k, x in fleet_lines.items() if x.expr is not NOT_APPLICABLE and k[2:] not in gross}
    lf |= {k[2:]: x for k, x in t_lines.items() if x.expr is not TAX_NA}
    for k in LINES:
        label = t("line_" + k)
        fmt = "calc_usd" if cur[k] == Currency.USD else "calc_brl"
        if k not in lf:  # a line this option does not have: zeros, as values
            _na_row(ws, book, rows["l_" + k], label, fmt)
        else:
            s.put_rule("l_" + k, lf[k], label, cur[k], oc.lines[k], fmt, "sum")


def _brl_and_totals(s: _Calc) -> None:
    """Each line in BRL, the monthly total, its running sum and its discounted value: the rules of
    ``tco.costs.totals_rules``, caching the rows the engine got from them."""
    t, o, rows = s.book.t, s.o, s.rows
    r = rows["l_" + LINES[-1]] + 2
    for k in LINES:
        rows["b_" + k] = r
        r += 1
    for k in ("total", "cum", "disc"):
        rows[k] = r
        r += 1
    s.ws.write_string(rows["b_" + LINES[0]] - 1, 0, t("sec_brl"), s.book.fmt("h2"))
    vals = s.totals
    for k in LINES:
        s.put_rule("b_" + k, totals_rules.brl_rule(k, str(o.costs.currency[k])), t("line_" + k) + " (R$)", "BRL",
                   vals["b_" + k], "calc_brl", "sum")
    s.put_rule("total", totals_rules.TOTAL, t("total_brl"), "BRL", vals["total"], "bold_brl", "sum")
    s.put_rule("cum", totals_rules.CUM, t("cumulative"), "BRL", vals["cum"], "calc_brl", None)
    s.put_rule("disc", totals_rules.DISC, t("discounted"), "BRL", vals["disc"], "calc_brl", "sum")


def _results(s: _Calc) -> None:
    """TCO and NPV under the rows (the scalars ``TCO`` and ``NPV`` of ``tco.costs.totals_rules``), and where the other
    sheets find this option's results (``book.outputs``)."""
    book, ws, t, i, sheet, rows, h = s.book, s.ws, s.book.t, s.i, s.sheet, s.rows, s.book.horizon
    r = rows["disc"] + 2
    tot = row_range(sheet, rows["total"], h)
    ctx = s.ctx(month_col(1), col(FIRST_COL - 1))
    for j, (key, x) in enumerate((("tco", totals_rules.TCO), ("npv", totals_rules.NPV))):
        ws.write_string(r + j, 0, t("col_" + key), book.fmt("bold_gen"))
        ws.write_formula(r + j, 2, x.formula(ctx), book.fmt("bold_brl"), num(float(s.totals[key][0])))
        book.outputs[(i, key)] = abs_cell(sheet, r + j, 2)
    for key in ("total", "cum"):
        book.outputs[(i, key)] = row_range(sheet, rows[key], h)
    book.outputs[(i, "lines_brl")] = (f"{qs(sheet)}${month_col(1)}${rows['b_' + LINES[0]] + 1}:"
                                      f"${month_col(h)}${rows['b_' + LINES[-1]] + 1}")
    book.outputs[(i, "lines")] = (f"{qs(sheet)}${month_col(1)}${rows['l_' + LINES[0]] + 1}:"
                                  f"${month_col(h)}${rows['l_' + LINES[-1]] + 1}")
    book.outputs[(i, "rows")] = rows
    book.outputs[(i, "const")] = s.const_row
    book.name(f"out_o{i}_tco", book.outputs[(i, "tco")])
    book.name(f"out_o{i}_npv", book.outputs[(i, "npv")])
    book.name(f"out_o{i}_total", tot)


def _constants(s: _Calc) -> None:
    """Constants (column C): the sizing links, the option's scalars, the tax uplift."""
    book, ws, t, oc = s.book, s.ws, s.book.t, s.o.costs
    scalars = [x for x in oc.rules if isinstance(x, Scalar)]
    own_consts = set(consts_of(s.o))
    for key in s.lay["consts"]:
        label, unit, fmt = CONSTANTS[key]
        rr = s.const_row[key]
        ws.write_string(rr, 0, t(label))
        if key not in own_consts:
            ws.write_string(rr, 1, t("na"), book.fmt("small"))
            continue
        ws.write_string(rr, 1, unit, book.fmt("small"))
        scalar = next((x for x in scalars if x.key == key), None)
        if scalar is not None:
            text, value = scalar.formula(s.ctx(month_col(1), col(FIRST_COL - 1))), oc.rows[key][0]
        elif key == "uplift":  # tco.costs.totals_rules.UPLIFT, as the engine evaluated it
            text, value = totals_rules.UPLIFT.formula(s.ctx(month_col(1), col(FIRST_COL - 1))), oc.tax_uplift
        else:
            text, value = "=" + book.sizing[(s.i, key)], oc.inputs[f"c.{key}"]
        ws.write_formula(rr, 2, text, book.fmt(fmt), num(float(value)))


def _na_row(ws, book: Book, r: int, label: str, fmt: str) -> None:
    """A row that does not apply to this option: its label, "n/a", zeros as values (the same row on every sheet)."""
    h = book.horizon
    ws.write_string(r, 0, label)
    ws.write_string(r, 1, book.t("na"), book.fmt("small"))
    for m in range(h):
        ws.write_number(r, FIRST_COL + m, 0.0, book.fmt(fmt))
    if fmt in ("calc_usd", "calc_brl"):
        ws.write_formula(r, 2, f"=SUM({month_col(1)}{r + 1}:{month_col(h)}{r + 1})",
                         book.fmt(fmt.replace("calc", "bold")),
                         0.0)


def _date(month: str) -> float:
    from tco.report.workbook.inputs import excel_date

    return excel_date(month)
