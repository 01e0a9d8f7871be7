"""tco.report.workbook.option_inputs: each option's inputs on the Inputs sheet (prices, setup, GPU specs, taxes),
one column per option, named in_o<i>_<key>.

The named cells hold what the engine resolved for that option (its price in its own unit and currency, setup fee,
GPUs per server, tax rates), and the calculation sheets read them through the names."""

from __future__ import annotations

import pytest

from tco.report.i18n import t


def test_prices_are_the_resolved_prices(small_run, book):
    for i, o in enumerate(small_run.options, start=1):
        f = o.resolved.inference
        assert book.name_values(f"in_o{i}_inf_price") == [pytest.approx(f.price)]  # R$/month or US$/h
        assert book.name_values(f"in_o{i}_inf_gps") == [f.gpus_per_server]


def test_one_column_per_option_on_the_inputs_sheet(small_run, book):
    cols = set()
    for i in range(1, len(small_run.options) + 1):
        sheet, ref = book.name_ref(f"in_o{i}_inf_price")
        assert sheet == t("sh_inputs", "pt-BR")
        cols.add("".join(ch for ch in ref if ch.isalpha()))
    assert len(cols) == len(small_run.options)


def test_the_dedicated_setup_fee_and_the_cloud_none(small_run, book):
    for i, o in enumerate(small_run.options, start=1):
        if o.kind == "dedicated":
            assert book.name_values(f"in_o{i}_setup") == [pytest.approx(o.resolved.inference.setup_fee_brl)]


def test_calc_sheets_read_the_option_through_its_names(small_run, book):
    for i in range(1, len(small_run.options) + 1):
        s = t("sh_calc", "pt-BR", i=i)
        texts = " ".join(str(c.value) for row in book.f[s].iter_rows() for c in row if isinstance(c.value, str)
                         and c.value.startswith("="))
        assert f"in_o{i}_inf_price" in texts
        assert not any(f"in_o{j}_" in texts for j in range(1, len(small_run.options) + 1) if j != i)
