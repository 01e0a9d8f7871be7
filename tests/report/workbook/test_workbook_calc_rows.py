"""tco.report.workbook.calc_rows: which rows every calculation sheet has (the union over the options, so a row means
the same on every sheet), and each row's label, unit and number format.

Read back from the written workbooks: column A of every calc sheet reads the same label on the same row (a row an
option lacks is blank or "n/a", never another quantity); each cost line is labelled with its currency; the tax block's
rows; and the label rules by hand."""

from __future__ import annotations

import pytest
from workbook_eval import written

from tco.expr import Rule
from tco.report import i18n
from tco.report.workbook.calc_rows import SHOWN, block_of, consts_of, shown, tax_shown

LOC = "pt-BR"


def _t(key, **kw):
    return i18n.t(key, LOC, **kw)


def _column_a(book, sheet):
    return {c.row: c.value for (c,) in book.f[sheet].iter_rows(min_col=1, max_col=1) if isinstance(c.value, str)}


@pytest.mark.parametrize("which", ["small", "seed"])
@pytest.mark.slow
def test_a_row_means_the_same_on_every_calc_sheet(which, small_run, seed_results):
    res = small_run if which == "small" else seed_results
    book = written(res)
    sheets = [_t("sh_calc", i=i) for i in range(1, len(res.options) + 1)]
    cols = [_column_a(book, s) for s in sheets]
    rows = set().union(*cols)
    for r in sorted(rows - {1}):  # row 1: each sheet's own title ("Cálculo i")
        labels = {c[r] for c in cols if r in c}
        assert len(labels) == 1, f"row {r}: {labels}"
    assert len(rows) > 40


def test_line_labels_carry_their_currency(small_run):
    book = written(small_run)
    for i, o in enumerate(small_run.options, start=1):
        s = _t("sh_calc", i=i)
        rows = book.labels(s)
        r = rows[_t("line_inference_compute")]
        assert book.cached(s, r, 2) == o.costs.currency["inference_compute"]  # US$ for clouds, R$ dedicated
        assert book.cached(s, r, 3) == pytest.approx(float(o.costs.lines["inference_compute"].sum()), rel=1e-12)


def test_shown_by_hand():
    rule = Rule("srv_7", None, "", "")
    assert shown(rule, _t_bound, "USD") == (_t("srv_hour", h=7), "", "calc_int", None)
    assert shown(Rule("eg_2", None, "", ""), _t_bound, "USD") == (_t("egress_in_tier", j=2), "GB", "calc_num", None)
    assert shown(Rule("l_storage", None, "", ""), _t_bound, "USD") == (_t("line_storage"), "USD", "calc_usd", "sum")
    assert shown(Rule("l_storage", None, "", ""), _t_bound, "BRL")[2] == "calc_brl"
    # a money row takes the currency of the option; a summed row has a total in column C
    assert shown(Rule("unit", None, "", ""), _t_bound, "USD")[1:3] == ("USD", "calc_usd")
    assert shown(Rule("server_hours", None, "", ""), _t_bound, "BRL") == (_t("server_hours"), "h", "calc_int", "sum")
    assert set(SHOWN) >= {"fleet", "need", "unit", "server_hours"}


def _t_bound(key, **kw):
    return _t(key, **kw)


def test_tax_rows_by_hand():
    cur = {"taxes": "USD", "inference_compute": "USD", "setup": "BRL"}

    class B:  # the Book's term, for the tax names
        @staticmethod
        def term(prefix, value, default=None):
            return i18n.term(prefix, value, LOC, default)

    assert tax_shown("g_inference_compute", _t_bound, B, cur) == (
        _t("line_inference_compute") + " — " + _t("gross_of_taxes"), "USD", "calc_usd")
    assert tax_shown("rate_iss", _t_bound, B, cur)[1:] == ("", "calc_pct")
    assert tax_shown("brate_cbs", _t_bound, B, cur)[0].endswith(" — " + _t("brl_invoice"))
    assert tax_shown("tx_credits", _t_bound, B, cur) == (_t("credits"), "USD", "calc_usd")
    assert tax_shown("tax_base", _t_bound, B, cur) == (_t("tax_base"), "USD", "calc_usd")


def test_block_and_constants_of_an_option(seed_results):
    hybrid = next(o for o in seed_results.options if o.kind == "hybrid")
    keys = [k for k, _ in block_of(hybrid)]
    assert keys[0].startswith("g_")  # gross price lines first, then the tax rules
    assert "tx_credits" in keys and "l_taxes" not in keys
    consts = consts_of(hybrid)
    assert consts[-1] == "uplift" and len(set(consts)) == len(consts)
