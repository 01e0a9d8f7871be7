"""Break-evens of the Finance sheet, live: the FX path multiple and the cloud price multiple at which the
leader (the feasible option of lowest TCO) changes, each in closed form, and a difference cell ready for
goal seek beside a trial multiple.

Why closed forms hold: every cost line is a price times a quantity that does not depend on the price, and
every tax is a rate times the amount taxed. So an option's TCO at a multiple m of the cloud prices is
TCO + (m − 1)·P, where P is the part of the TCO that the cloud prices drive (the cloud fleets' compute lines
in BRL, each with the taxes it bears: its share of the taxed amount times the month's taxes); and at a
multiple k of the whole USD/BRL path it is BRL part + k·USD part (the USD lines converted, taxes in USD
included). Two options tie where these lines cross:

    m* = 1 + (TCO_L − TCO_j) / (P_j − P_L)        k* = (BRL_L − BRL_j) / (USD_j − USD_L)

(valid when above MIN_MULTIPLE). The multiples are rules, declared once in ``tco.costs.finance_rules`` (with the
parts they read): this table writes them and caches what they give; the JSON's and the proposal's FX break-evens
(``tco.analysis.figures.fx_breakevens``) evaluate the same rule against the same leader, times the spot.
The leader changes at the crossing nearest to 1 on each side.
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.analysis.figures import MIN_MULTIPLE, nearest
from tco.costs import finance_rules
from tco.domain import FleetKind
from tco.expr import XlContext
from tco.report.workbook.book import Book, abs_cell, num, qs, row_range
from tco.report.workbook.tco_parts import price_lines, usd_lines


# ---------------------------------------------------------------------------------------------
# the block


COLS = ("be_usd_part", "be_brl_part", "be_cloud_part", "be_ded_part", "be_fx_k", "be_fx_rate", "be_cloud_m",
        "be_trial_cloud_tco", "be_trial_fx_tco", "be_fx_below", "be_fx_above", "be_cloud_below", "be_cloud_above")
"""Heads of columns E … Q (A option, B #, C kind, D TCO of a feasible option)."""
SUMMARY = ("be_leader", "be_leader_pos", "be_min_multiple", "be_fx_down", "be_fx_down_rate", "be_fx_up",
           "be_fx_up_rate", "be_cloud_down",
           "be_cloud_up", "be_trial_cloud", "be_gap_cloud", "be_trial_fx", "be_gap_fx")
"""Cells of the summary under the table, column B, one a row, each with a defined name."""
COMMENTS = {"be_leader_pos": "be_c_pos", "be_fx_down": "be_c_mult", "be_fx_up": "be_c_mult",
            "be_cloud_down": "be_c_mult",
            "be_cloud_up": "be_c_mult", "be_gap_cloud": "be_c_gap", "be_gap_fx": "be_c_gap"}
"""Summary cells with a cell comment (i18n key of its text)."""


def write_breakeven(book: Book, res, ws, sheet: str, r: int) -> int:
    """The break-even table from row `r` (one row per option: its parts, the multiples at which it ties the leader,
    its TCO at the trial multiples) and the summary below it; returns the next free row."""
    hr = _breakeven_head(book, ws, r)
    first, last = hr + 1, hr + len(res.options)
    s0 = last + 2
    g = _Grid(first, {c: f"${c}${first + 1}:${c}${last + 1}" for c in "ABCDEFGHIJKLMNOPQ"},
              {k: f"$B${s0 + 2 + j}" for j, k in enumerate(SUMMARY)}, _values(res))
    book.outputs["be_first"] = (qs(sheet), first + 1)  # 1-based row of option 1 (the tornado's live rows read it)
    for j, o in enumerate(res.options):
        _part_cells(book, ws, g, j, o)
        _multiple_cells(book, res, ws, g, j)
    _summary_cells(book, res, ws, sheet, s0, g.rng, g.cell, g.v)
    return s0 + 2 + len(SUMMARY) + 2


@dataclass(frozen=True)
class _Grid:
    """Where the break-even table sits: the 0-based row of option 1, each column's range over the options, the A1
    reference of each summary cell, and the cached values (``_values``)."""

    first: int
    rng: dict[str, str]
    cell: dict[str, str]
    v: dict

    def at(self, c: str) -> str:
        """The leader's value in column c."""
        return f"INDEX({self.rng[c]},{self.cell['be_leader_pos']})"


def _breakeven_head(book: Book, ws, r: int) -> int:
    """Title, note and column heads; returns the heads' row."""
    t = book.t
    ws.write_string(r, 0, t("be_title"), book.fmt("h2"))
    ws.merge_range(r + 1, 0, r + 1, 12, t("be_note"), book.fmt("small_wrap"))
    ws.set_row(r + 1, 48)
    hr = r + 3
    heads = [t("col_option"), "#", t("col_kind"), t("col_tco") + " (" + t("fin_kbrl") + ")"] + [t(k) for k in COLS]
    for c, hd in enumerate(heads):
        ws.write_string(hr, c, hd, book.fmt("head"))
    ws.set_row(hr, 48)
    return hr


def _part_cells(book: Book, ws, g: _Grid, j: int, o) -> None:
    """Columns A–H of option j: name, number, kind, ranked TCO, its USD and BRL parts, the parts the cloud and the
    dedicated prices drive (each with the taxes it bears)."""
    i, rr, x, v = j + 1, g.first + j, g.first + j + 1, g.v
    ws.write_string(rr, 0, o.name)  # scenario text
    ws.write_number(rr, 1, i, book.fmt("calc_int"))
    ws.write_string(rr, 2, book.term("kind", o.kind))
    ws.write_formula(rr, 3, f"={qs(book.sheets['comparison'])}N{book.rows['cmp_first'] + 1 + j}", book.fmt("fin_kbrl"),
                     num(v["tco"][j]) if v["feas"][j] else book.t("infeasible" if not o.feasible else "wb_breaks"))
    names = {"c.tco": f"out_o{i}_tco", "c.usd_part": f"E{x}"}
    sheet, rows = book.sheets[f"calc{i}"], book.outputs[(i, "rows")]
    ctx = XlContext(col="", prev=None, row_of=_no_cell, name_of=names.__getitem__,
                    row_range=lambda key: row_range(sheet, rows[key], book.horizon))
    for c, (x_rule, key) in enumerate(zip(_part_rules(o), ("usd", "brl", FleetKind.CLOUD, FleetKind.DEDICATED)),
                                      start=4):
        ws.write_formula(rr, c, x_rule.formula(ctx), book.fmt("fin_kbrl"), num(v[key][j]))


def _part_rules(o) -> tuple:
    """Option o's rules of columns E–H (``tco.costs.finance_rules``): USD part, BRL part, cloud and dedicated price
    parts."""
    taxed = finance_rules.taxed_lines(o.costs.currency)
    return (finance_rules.usd_part_rule(tuple(usd_lines(o))), finance_rules.BRL_PART,
            finance_rules.price_part_rule("cloud_part", tuple(price_lines(o, FleetKind.CLOUD)), taxed),
            finance_rules.price_part_rule("dedicated_part", tuple(price_lines(o, FleetKind.DEDICATED)), taxed))


def _no_cell(key: str) -> int:
    raise AssertionError(f"a break-even part reads whole rows, not the cell of {key!r}")


def _multiple_cells(book: Book, res, ws, g: _Grid, j: int) -> None:
    """Columns I–Q of option j: the FX multiple k* (and its rate) and the cloud price multiple m* at which it ties
    the leader, its TCO at the trial multiples, and k*, m* sorted below or above 1 (the summary's nearest): the rules
    ``tco.costs.finance_rules.MULTIPLES``, each caching the value they give on the engine's parts."""
    rr, x, cell = g.first + j, g.first + j + 1, g.cell
    names = {"tco": f"D{x}", "i": f"B{x}", "lead_pos": cell["be_leader_pos"], "usd": f"E{x}", "brl": f"F{x}",
             "cloud": f"G{x}", "tco_lead": g.at("D"), "usd_lead": g.at("E"), "brl_lead": g.at("F"),
             "cloud_lead": g.at("G"), "min_multiple": "be_min_multiple", "trial_cloud": cell["be_trial_cloud"],
             "trial_fx": cell["be_trial_fx"], "spot": spot(book), "c.fx_k": f"I{x}", "c.cloud_m": f"K{x}"}
    ctx = XlContext(col="", prev=None, row_of=_no_cell, name_of=names.__getitem__)
    values = g.v["multiples"][j]
    for c, rule in enumerate(finance_rules.MULTIPLES, start=8):
        value = values[rule.key]
        ws.write_formula(rr, c, rule.formula(ctx), book.fmt(MULTIPLE_FORMATS.get(rule.key, "fin_mult")),
                         "" if value is None else value)


MULTIPLE_FORMATS = {"fx_rate": "fin_rate", "trial_cloud_tco": "fin_kbrl", "trial_fx_tco": "fin_kbrl"}
"""Formats of the columns I–Q that are not a multiple."""


def defined(book: Book, name: str) -> bool:
    """Whether the workbook defines `name` (written so far)."""
    return any(d[0] == name for d in getattr(book.wb, "defined_names", []))


def spot(book: Book) -> str:
    """The spot USD/BRL the Timeline's path starts from: the input, times the USD/BRL lever where the Inputs have
    one (``lv_fx``, 1 as generated)."""
    return "in_usdbrl*lv_fx" if defined(book, "lv_fx") else "in_usdbrl"


def _blank(x, scale: float = 1.0):
    return "" if x is None else x * scale


def _values(res) -> dict:
    """The block's numbers on the engine's arrays (its cached values)."""
    opts = res.options
    n = len(opts)
    feas = [o.feasible and not o.resolved.breaches for o in opts]  # ranked as the engine ranks (results.rankable)
    tco = [o.tco.deterministic for o in opts]
    p = [finance_rules.parts(o, usd_lines(o), price_lines(o, FleetKind.CLOUD), price_lines(o, FleetKind.DEDICATED))
         for o in opts]
    usd, brl = [x["usd_part"] for x in p], [x["brl_part"] for x in p]
    cloud, ded = [x["cloud_part"] for x in p], [x["dedicated_part"] for x in p]
    lead = min((j for j in range(n) if feas[j]), key=lambda j: tco[j], default=None)
    at = 0 if lead is None else lead
    mult = [finance_rules.multiples(tco=tco[j] if feas[j] else float("nan"), i=float(j + 1), lead_pos=float(at + 1),
                                    usd=usd[j], brl=brl[j], cloud=cloud[j], tco_lead=tco[at], usd_lead=usd[at],
                                    brl_lead=brl[at], cloud_lead=cloud[at], min_multiple=MIN_MULTIPLE, trial_cloud=1.0,
                                    trial_fx=1.0, spot=res.scenario.fx.usdbrl) for j in range(n)]
    return {"feas": feas, "tco": tco, "usd": usd, "brl": brl, "cloud": cloud, "dedicated": ded, "lead": lead,
            "k": [x["fx_k"] for x in mult], "m": [x["cloud_m"] for x in mult], "multiples": mult}


def breakevens(res) -> dict:
    """The leader and where it changes (the summary cells' values): FX path multiples and cloud price multiples."""
    v = _values(res)
    k_lo, k_hi = nearest(v["k"])
    m_lo, m_hi = nearest(v["m"])
    lead = v["lead"]
    others = [v["tco"][j] for j in range(len(v["tco"])) if v["feas"][j] and j != lead]
    return {"lead": lead, "fx_down": k_lo, "fx_up": k_hi, "cloud_down": m_lo, "cloud_up": m_hi,
            "margin": (min(others) - v["tco"][lead]) if others and lead is not None else None}


def _summary_cells(book: Book, res, ws, sheet: str, s0: int, rng: dict, cell: dict, v: dict) -> None:
    """The summary under the table from row `s0`: each cell of SUMMARY named, live where it has a formula, with its
    comment; then the goal-seek note."""
    t = book.t
    formulas = _summary_formulas(book, res, rng, cell)
    ws.write_string(s0, 0, t("be_summary"), book.fmt("h2"))
    for j, key in enumerate(SUMMARY):
        rr = s0 + 1 + j
        f, cached, fmt = formulas[key]
        ws.write_string(rr, 0, t(key))
        if f is None:
            ws.write_number(rr, 1, cached, book.fmt(fmt))
        else:
            ws.write_formula(rr, 1, f, book.fmt(fmt), cached)
        book.name(key, abs_cell(sheet, rr, 1))
        if key in COMMENTS:  # how to read the tricky cells, in the workbook's language
            ws.write_comment(rr, 1, t(COMMENTS[key]), {"x_scale": 2.5, "y_scale": 1.6})
    rr = s0 + 1 + len(SUMMARY)
    ws.merge_range(rr, 0, rr, 9, t("be_goal_seek"), book.fmt("small_wrap"))
    ws.set_row(rr, 36)


def _summary_formulas(book: Book, res, rng: dict, cell: dict) -> dict[str, tuple]:
    """Summary cell → (formula or None for an input, cached value, number format): the leader and its position, the
    nearest FX and cloud price multiples each side of 1, the trial multiples and the gaps goal seek zeroes."""
    b = breakevens(res)
    lead = b["lead"]
    s = res.scenario.fx.usdbrl
    pos = cell["be_leader_pos"]

    def rate(mult):  # the rule of column J on a summary multiple
        names = {"c.fx_k": cell[mult], "spot": spot(book)}
        return finance_rules.FX_RATE.formula(XlContext("", None, _no_cell, names.__getitem__))

    return {
        "be_leader": (f"=INDEX({rng['A']},{pos})", res.options[lead].name if lead is not None else "", "fin_text"),
        "be_leader_pos": (f"=MATCH(MIN({rng['D']}),{rng['D']},0)", (lead or 0) + 1, "calc_int"),
        "be_min_multiple": (None, MIN_MULTIPLE, "calc_num4"),
        "be_fx_down": (f'=IF(COUNT({rng["N"]})=0,"",MAX({rng["N"]}))', _blank(b["fx_down"]), "fin_mult"),
        "be_fx_down_rate": (rate("be_fx_down"), _blank(b["fx_down"], s), "fin_rate"),
        "be_fx_up": (f'=IF(COUNT({rng["O"]})=0,"",MIN({rng["O"]}))', _blank(b["fx_up"]), "fin_mult"),
        "be_fx_up_rate": (rate("be_fx_up"), _blank(b["fx_up"], s), "fin_rate"),
        "be_cloud_down": (f'=IF(COUNT({rng["P"]})=0,"",MAX({rng["P"]}))', _blank(b["cloud_down"]), "fin_mult"),
        "be_cloud_up": (f'=IF(COUNT({rng["Q"]})=0,"",MIN({rng["Q"]}))', _blank(b["cloud_up"]), "fin_mult"),
        "be_trial_cloud": (None, 1.0, "in_num"),
        "be_gap_cloud": (f'=IF(COUNT({rng["L"]})=0,"",MIN({rng["L"]})-(INDEX({rng["D"]},{pos})'
                         f'+({cell["be_trial_cloud"]}-1)*INDEX({rng["G"]},{pos})))', _blank(b["margin"]), "fin_kbrl"),
        "be_trial_fx": (None, 1.0, "in_num"),
        "be_gap_fx": (f'=IF(COUNT({rng["M"]})=0,"",MIN({rng["M"]})-(INDEX({rng["F"]},{pos})+{cell["be_trial_fx"]}'
                      f'*INDEX({rng["E"]},{pos})))', _blank(b["margin"]), "fin_kbrl"),
    }
