"""The replica block of the Sizing sheet: the rules of tco.sizing.replica_rules rendered as live formulas.

One column per layout the engine tried (tensor parallel inside a server, or whole servers by pipeline or
expert parallel), every term the formula of its rule with the engine's value (the same rule evaluated by
numpy) as cache; the main table takes the column with the highest score by INDEX/MATCH.
"""

from __future__ import annotations

from tco.sizing import replica_rules as sizing_rules
from tco.domain import ParallelMode
from tco.expr import XlContext
from tco.report.workbook.book import Book, col, num
from tco.report.workbook.cells import by_letters, row_texts

ROWS = (("nodes", "servers"), (sizing_rules.EP.key, "")) + tuple((r.key, r.unit) for r in sizing_rules.RULES if r.key != "bound")
"""The rows below the layout's tensor-parallel degree: the two given rows, then every rule but the bound."""
FORMATS = {"ep": "calc_int", "nodes": "calc_int", "gpus": "calc_int", "b_mem": "calc_int", "b_max": "calc_int",
           "b1": "calc_int", "b2": "calc_int", "batch": "calc_int", "ratio": "calc_num", "decode_tps": "calc_num",
           "cap": "calc_num4", "score": "calc_num4", "touch1": "calc_pct", "touch2": "calc_pct", "touch": "calc_pct"}
FORMATS.update({key: "calc_gen" for key in sizing_rules.FLAGS})
BOUND = next(r for r in sizing_rules.RULES if r.key == "bound")


def fmt_of(key: str) -> str:
    unit = next((u for k, u in ROWS if k == key), "")
    return FORMATS.get(key, "calc_num6" if unit == "s" else "calc_sci")


def context(rows: dict[str, int], column: str, prefix: str) -> XlContext:
    """Where the rules of one layout column read: rows by key (0-based here), inputs by defined name."""
    return XlContext(col=column, prev=None, row_of=lambda key: rows[key] + 1,
                     name_of=lambda name: sizing_rules.INPUTS[name].format(p=prefix))


def _rendered(rule, rows: dict[str, int], prefix: str):
    """``formula(column, previous)`` of a rule in a layout column (no previous month here)."""
    return lambda c, p: rule.formula(context(rows, c, prefix))


def candidate_block(book: Book, ws, r: int, i: int, o, vals: list[dict]) -> tuple[int, dict, str]:
    """One option's candidate layouts below the main table: returns (next row, row of each key, last column)."""
    t = book.t
    ws.write_string(r, 0, t("sz_candidates", i=i), book.fmt("h2"))
    ws.write_string(r, 1, o.name, book.fmt("bold_gen"))  # scenario text
    r += 1
    rows = {"tp": r}
    ws.write_string(r, 0, t("tp"))
    ws.write_string(r, 1, "GPU", book.fmt("small"))
    for j, v in enumerate(vals):
        ws.write_number(r, 2 + j, v["tp"], book.fmt("eng_int"))
    r += 1
    for key, unit in ROWS + (("bound", ""),):
        rows[key] = r
        ws.write_string(r, 0, t(key))
        ws.write_string(r, 1, unit, book.fmt("small"))
        r += 1
    labels = ",".join(f'"{book.term("bound", k)}"' for k in sizing_rules.BOUND_TERMS)
    columns = [col(2 + j) for j in range(len(vals))]
    texts = {rule.key: row_texts(_rendered(rule, rows, f"in_o{i}_"), columns, columns, by_letters(rule.expr))
             for rule in sizing_rules.RULES if rule.key != "bound"}
    bound = row_texts(lambda c, p: f"=CHOOSE({BOUND.expr.xl(context(rows, c, f'in_o{i}_'))},{labels})", columns,
                      columns, by_letters(BOUND.expr))
    for j, v in enumerate(vals):
        ws.write_number(rows["nodes"], 2 + j, v["nodes"], book.fmt("eng_int"))
        ws.write_number(rows["ep"], 2 + j, 1 if v["mode"] == ParallelMode.EP else 0, book.fmt("eng_int"))
        for rule in sizing_rules.RULES:
            if rule.key != "bound":
                x = v[rule.key]
                ws.write_formula(rows[rule.key], 2 + j, texts[rule.key][j], book.fmt(fmt_of(rule.key)),
                                 x if isinstance(x, bool) else num(x))
        ws.write_formula(rows["bound"], 2 + j, bound[j], book.fmt("text"), book.term("bound", v["bound"]))
    return r + 1, rows, col(2 + len(vals) - 1)
