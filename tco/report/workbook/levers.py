"""Levers: multipliers that drive the model live (users, cloud compute prices, dedicated prices, USD/BRL) and a
scenario switch (1 base, 2 conservative, 3 aggressive) that picks each lever's value by CHOOSE.

Every lever is 1 in the base scenario, so the workbook as generated equals the engine. The conservative and
aggressive columns are illustrative starting values for the analyst to edit (not engine results): conservative
stresses the dedicated case (fewer users, cheaper cloud, dearer dedicated, a stronger real), aggressive the cloud
case. Where they act: ``lv_users`` multiplies the Timeline's users row, ``lv_fx`` its USD/BRL row, ``lv_cloud`` and
``lv_dedicated`` the compute prices in the calculation sheets (``price_name``).
"""

from __future__ import annotations

from tco.domain import FleetKind, Role
from tco.report.workbook.book import Book, abs_cell

LEVERS = (
    # (key, conservative, aggressive)
    ("users", 0.8, 1.2),
    ("cloud", 0.9, 1.1),
    ("dedicated", 1.1, 0.95),
    ("fx", 0.9, 1.1),
)
SCENARIOS = ("base", "conservative", "aggressive")

PRICES: dict[str, str] = {"inf_price": Role.INFERENCE, "tr_price": Role.TRAINING, "burst_price": Role.INFERENCE}
"""Option inputs that are compute prices (→ the role of the fleet whose kind picks the lever)."""


def write_levers(book: Book, w) -> None:
    """The levers block on the Inputs sheet (at the writer's row): the switch, then one row per lever with its
    active value (a formula, named ``lv_<key>``) and its three scenario values (inputs)."""
    t = book.t
    ws, sheet = w.ws, w.sheet
    w.section(t("sec_levers"))
    labels = [t("lv_sc_" + k) for k in SCENARIOS]
    w.add("in_scenario", t("lv_scenario"), 1, "1 / 2 / 3", "in_int", " · ".join(f"{j} = {x}" for j, x in
                                                                              enumerate(labels, 1)))
    ws.data_validation(w.r - 1, 1, w.r - 1, 1, {"validate": "list", "source": [1, 2, 3]})
    chosen = ",".join('"' + x.replace('"', "'") + '"' for x in labels)
    ws.write_formula(w.r - 1, 2, f"=CHOOSE(in_scenario,{chosen})", book.fmt("bold_gen"), labels[0])
    r = w.r
    for c, k in enumerate(("lv_active",) + tuple("lv_sc_" + s for s in SCENARIOS)):
        ws.write_string(r, 1 + c, t(k), book.fmt("head"))
    ws.write_string(r, 5, t("lv_note"), book.fmt("small"))
    r += 1
    for key, cons, aggr in LEVERS:
        ws.write_string(r, 0, t("lv_" + key))
        for j, v in enumerate((1.0, cons, aggr)):
            name = f"in_lv_{key}_{SCENARIOS[j]}"
            ws.write_number(r, 2 + j, v, book.fmt("in_num"))
            book.name(name, abs_cell(sheet, r, 2 + j))
            book.inputs.append((f"{t('lv_' + key)} — {t('lv_sc_' + SCENARIOS[j])}", abs_cell(sheet, r, 2 + j), v))
        ws.write_formula(r, 1, f"=CHOOSE(in_scenario,C{r + 1},D{r + 1},E{r + 1})", book.fmt("bold_num"), 1.0)
        book.name("lv_" + key, abs_cell(sheet, r, 1))
        r += 1
    w.r = r


def price_name(name: str, defined: str, opt) -> str:
    """The defined name of an option input, times its lever when it is a compute price."""
    fleet = PRICES.get(name)
    if fleet is None:
        return defined
    f = opt.inference if fleet == Role.INFERENCE else opt.training
    lever = "lv_" + (FleetKind.CLOUD if f is not None and f.kind == FleetKind.CLOUD else FleetKind.DEDICATED)
    return f"({defined}*{lever})"


def levered(key: str, formula: str) -> str:
    """A Timeline row's formula times its lever (users, USD/BRL); others unchanged."""
    lever = {"users": "lv_users", "fx": "lv_fx"}.get(key)
    return f"={lever}*({formula.removeprefix('=')})" if lever else formula
