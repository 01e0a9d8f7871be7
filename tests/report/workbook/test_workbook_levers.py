"""tco.report.workbook.levers: the four levers (users, cloud prices, dedicated prices, USD/BRL) and the scenario
switch that picks each lever's value.

As generated every lever is 1, so the workbook equals the engine; the switch picks the conservative or aggressive
column (evaluated in-process with the switch edited); and a lever reaches what it drives: the users row, the USD/BRL
row, each option's compute price (a cloud price by lv_cloud, a dedicated one by lv_dedicated)."""

from __future__ import annotations

import pytest

from tco.report.workbook.levers import LEVERS, SCENARIOS, levered, price_name


def test_every_lever_is_one_as_generated(book):
    for key, cons, aggr in LEVERS:
        assert book.name_values("lv_" + key) == [1.0]
        assert [book.name_values(f"in_lv_{key}_{s}")[0] for s in SCENARIOS] == [1, cons, aggr]
    assert book.name_values("in_scenario") == [1]


@pytest.mark.parametrize(("switch", "column"), [(1, 0), (2, 1), (3, 2)])
def test_the_switch_picks_the_scenario_column(book, switch, column):
    sh, ref = book.name_ref("in_scenario")
    for key, cons, aggr in LEVERS:
        s, cell = book.name_ref("lv_" + key)
        got = book.evaluate(s, book.v[s][cell].row, book.v[s][cell].column, {(sh, ref): switch})
        assert got == pytest.approx((1.0, cons, aggr)[column])


def test_conservative_stresses_the_dedicated_case():
    values = {key: (cons, aggr) for key, cons, aggr in LEVERS}
    assert values["users"][0] < 1 < values["users"][1]  # fewer users, then more
    assert values["cloud"][0] < 1 < values["cloud"][1]  # cheaper cloud, then dearer
    assert values["dedicated"][0] > 1 > values["dedicated"][1]
    assert values["fx"][0] < 1 < values["fx"][1]  # a stronger real, then a weaker one


def test_levered_formulas_by_hand():
    assert levered("users", "=in_start_users+E3") == "=lv_users*(in_start_users+E3)"
    assert levered("fx", "=in_usdbrl") == "=lv_fx*(in_usdbrl)"
    assert levered("tokens", "=E5*2") == "=E5*2"


def test_price_names_take_the_lever_of_their_fleet(small_run):
    ded = next(o for o in small_run.options if o.kind == "dedicated").resolved
    cloud = next(o for o in small_run.options if o.kind == "cloud").resolved
    assert price_name("inf_price", "in_o1_inf_price", ded) == "(in_o1_inf_price*lv_dedicated)"
    assert price_name("inf_price", "in_o2_inf_price", cloud) == "(in_o2_inf_price*lv_cloud)"
    assert price_name("tr_price", "in_o2_tr_price", cloud) == "(in_o2_tr_price*lv_cloud)"
    assert price_name("setup", "in_o1_setup", ded) == "in_o1_setup"  # not a compute price: no lever


def test_the_timeline_users_and_rate_rows_carry_their_levers(small_run, book):
    from tco.report.i18n import t

    s = t("sh_timeline", "pt-BR")
    texts = [c.value for row in book.f[s].iter_rows(min_col=5, max_col=5) for c in row if isinstance(c.value, str)]
    assert any(x.startswith("=lv_users*(") for x in texts)
    assert any(x.startswith("=lv_fx*(") for x in texts)
    # and a lever edit moves them: the USD/BRL row at lv_fx = 1.1
    fx_row = next(c.row for row in book.f[s].iter_rows(min_col=5, max_col=5) for c in row
                  if isinstance(c.value, str) and c.value.startswith("=lv_fx*("))
    lv_sheet, lv_ref = book.name_ref("lv_fx")
    moved = book.evaluate(s, fx_row, 5, {(lv_sheet, lv_ref): 1.1})
    assert moved == pytest.approx(1.1 * small_run.fx_path[0], rel=1e-12)
