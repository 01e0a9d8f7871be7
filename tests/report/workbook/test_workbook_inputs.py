"""tco.report.workbook.inputs: the Inputs sheet (every scenario input, named, input-styled) and the Catalog sheet
(every catalog row the run used, with its source and date).

The named inputs hold the scenario's values; the daily profile's 24 shares add to 1; dates are Excel serials (by hand
from the 1899-12-30 epoch); every input cell is styled as an input (blue on yellow) and is what the model reads; the
catalog rows carry their source and as_of."""

from __future__ import annotations

import datetime as dt

import pytest

from tco.report.i18n import t
from tco.report.workbook.inputs import excel_date

LOC = "pt-BR"


def test_excel_dates_by_hand():
    assert excel_date("1900-03") == (dt.date(1900, 3, 1) - dt.date(1899, 12, 30)).days == 61
    assert excel_date("2027-03") == (dt.date(2027, 3, 1) - dt.date(1899, 12, 30)).days == 46447
    assert excel_date("2028-03") - excel_date("2028-02") == 29  # a leap February


def test_scenario_values_are_named_inputs(small_run, book):
    s = small_run.scenario
    assert book.name_values("in_usdbrl") == [s.fx.usdbrl]
    assert book.name_values("in_discount_rate") == [s.scenario.discount_rate]
    assert book.name_values("in_start_users") == [s.inference.users.start_users]
    assert book.name_values("in_end_users") == [s.inference.users.end_users]
    assert book.name_values("in_rpud") == [s.inference.requests_per_user_per_day]
    assert book.name_values("in_in_tokens") == [s.inference.input_tokens_per_request]
    sheet, ref = book.name_ref("in_start_date")
    assert book.f[sheet][ref].value.date() == dt.date(2027, 3, 1)  # "2027-03" as a date cell


def test_the_daily_profile_has_24_shares_adding_to_one(book):
    shares = book.name_values("in_profile")
    assert len(shares) == 24
    assert sum(shares) == pytest.approx(1.0)
    assert [book.name_values(f"in_profile_{h:02d}")[0] for h in range(24)] == shares


def test_inputs_are_input_styled_and_the_only_typed_numbers_the_model_reads(book):
    sheet = t("sh_inputs", LOC)
    for name in ("in_usdbrl", "in_discount_rate", "in_start_users", "in_o1_inf_price"):
        s, ref = book.name_ref(name)
        assert s == sheet
        cell = book.f[s][ref]
        assert cell.font.color is not None and cell.font.color.rgb.endswith("0000FF")  # blue: an input
        assert not str(cell.value).startswith("=")


def test_inputs_sheet_formulas_are_their_cached_values(book):
    assert book.check_formulas(t("sh_inputs", LOC)) >= 1


def test_catalog_sheet_lists_the_offers_used_with_source_and_date(small_run, book):
    s = t("sh_catalog", LOC)
    texts = {c.value for row in book.f[s].iter_rows() for c in row if isinstance(c.value, str)}
    for o in small_run.options:
        for f in (o.resolved.inference, o.resolved.training):
            if f is None:
                continue
            assert f.offer_id in texts
            assert f.price_source in texts
            assert f.price_as_of in texts
    assert any(x.startswith("tco/catalog/data/") for x in texts)  # the files, without this machine's folders
