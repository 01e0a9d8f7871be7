"""tco.report.fmt: money, numbers, percentages and dates as each locale writes them (babel/CLDR).

Hand-worked cases for every function in both locales, then properties: a pt-BR or English amount parses back to the
number it shows (to the cent), a missing value is always the dash, never "nan"."""

from __future__ import annotations

import datetime as dt
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report import fmt

NBSP = "\xa0"
PROPS = settings(max_examples=200, deadline=None)


def _parse_money(text: str, locale: str) -> float:
    """The number a formatted amount shows: currency sign and spaces dropped, grouping removed, the locale's
    decimal separator read as a point."""
    body = text.replace("R$", "").replace(NBSP, "").replace(" ", "")
    group, decimal = (".", ",") if locale == "pt-BR" else (",", ".")
    return float(body.replace(group, "").replace(decimal, "."))


# --- money ------------------------------------------------------------------------------------------------------

def test_money_pt_br_groups_thousands_with_points_and_cents_with_a_comma():
    assert fmt.money(1234567.891, "pt-BR") == f"R${NBSP}1.234.567,89"
    # the sign goes before the currency, and the amount keeps its non-breaking space
    assert fmt.money(-1234.5, "pt-BR") == f"-R${NBSP}1.234,50"


def test_money_en_has_no_space_and_swaps_the_separators():
    assert fmt.money(1234567.891, "en") == "R$1,234,567.89"
    assert fmt.money(-1234.5, "en") == "-R$1,234.50"


def test_money_without_cents_rounds_to_whole_reais():
    assert fmt.money(1234567.891, "pt-BR", cents=False) == f"R${NBSP}1.234.568"
    assert fmt.money(1234567.391, "en", cents=False) == "R$1,234,567"
    assert fmt.money(3.5, "pt-BR", cents=False) == f"R${NBSP}4"


@pytest.mark.parametrize("missing", [None, math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("func", [fmt.money, fmt.money_compact, fmt.number, fmt.number_short, fmt.percent,
                                  fmt.percent_short, fmt.scientific])
def test_a_missing_or_non_finite_value_is_the_dash(func, missing):
    assert func(missing, "pt-BR") == fmt.DASH == "—"


def test_money_beyond_a_quadrillion_is_scientific():
    # babel's decimal precision ends near 1e15; R$ 2 × 10¹⁵ is written as mantissa and power of ten
    assert fmt.money(2e15, "pt-BR") == "R$ 2,00 × 10¹⁵"
    assert fmt.money(2e15, "en") == "R$ 2.00 × 10¹⁵"
    assert fmt.money(-1e15, "pt-BR") == "R$ -1,00 × 10¹⁵"
    # just under the threshold it is still an ordinary amount
    assert fmt.money(999_999_999_999.0, "pt-BR", cents=False) == f"R${NBSP}999.999.999.999"


def test_money_compact_for_key_figures():
    assert fmt.money_compact(2_500_000, "pt-BR") == f"R${NBSP}2,5{NBSP}mi"
    assert fmt.money_compact(2_500_000, "en") == "R$2.5M"


@PROPS
@given(x=st.floats(min_value=-1e13, max_value=1e13, allow_nan=False), locale=st.sampled_from(["pt-BR", "en"]))
def test_money_parses_back_to_the_amount_to_the_cent(x, locale):
    shown = _parse_money(fmt.money(x, locale), locale)
    # half a cent of rounding, plus the float's own last-digit error on large amounts
    assert abs(shown - x) <= 0.005 + abs(x) * 1e-15


@PROPS
@given(x=st.floats(min_value=-1e13, max_value=1e13, allow_nan=False), locale=st.sampled_from(["pt-BR", "en"]))
def test_money_without_cents_parses_back_to_the_amount_to_the_real(x, locale):
    text = fmt.money(x, locale, cents=False)
    assert "," not in text.replace(".", "") if locale == "pt-BR" else "." not in text
    assert abs(_parse_money(text, locale) - x) <= 0.5 + abs(x) * 1e-15


@PROPS
@given(x=st.floats(min_value=0, max_value=1e13, allow_nan=False), locale=st.sampled_from(["pt-BR", "en"]))
def test_money_keeps_currency_and_digits_together(x, locale):
    """No ordinary space inside an amount: a line break can never separate "R$" from its digits."""
    assert " " not in fmt.money(x, locale)


def test_an_amount_that_rounds_to_zero_has_no_minus_sign():
    # Was '-R$ 0,00' / '-0': a float residue like -1e-9 from a difference of equal totals reached the reader signed.
    assert fmt.money(-1e-9, "pt-BR") == f"R${NBSP}0,00"
    assert fmt.money(-0.4, "pt-BR", False) == f"R${NBSP}0"
    assert fmt.number(-0.4, "pt-BR") == "0"
    assert fmt.number(-0.005, "pt-BR", 2) == "0,00"    # -0.005 → -0.00 half to even, as babel rounds
    assert fmt.number(-0.006, "pt-BR", 2) == "-0,01"   # a real amount keeps its sign
    assert fmt.money(-0.5, "pt-BR", False) == f"R${NBSP}0"   # half to even: 0
    assert fmt.money(-1.5, "pt-BR", False).startswith("-")


# --- numbers and percentages ------------------------------------------------------------------------------------

def test_number_has_exactly_the_digits_asked():
    assert fmt.number(1234.5678, "pt-BR", 2) == "1.234,57"
    assert fmt.number(1234.5678, "en", 2) == "1,234.57"
    assert fmt.number(1234.5678, "pt-BR") == "1.235"
    assert fmt.number(2, "pt-BR", 3) == "2,000"


def test_number_short_drops_trailing_zeros():
    assert fmt.number_short(1.5, "pt-BR") == "1,5"
    assert fmt.number_short(1.0, "en") == "1"
    assert fmt.number_short(1.23456, "pt-BR", 3) == "1,235"
    assert fmt.number_short(12345.0, "pt-BR") == "12.345"


def test_percent_shows_a_share_with_fixed_decimals():
    assert fmt.percent(0.34, "pt-BR") == "34,0%"
    assert fmt.percent(0.744, "en") == "74.4%"
    assert fmt.percent(0.12346, "pt-BR", 2) == "12,35%"  # 0.12346 × 100 = 12.346 → 12,35 (2 decimals)
    assert fmt.percent(1.5, "pt-BR", 0) == "150%"


def test_percent_short_keeps_the_digits_a_tax_rate_has():
    assert fmt.percent_short(0.0925, "pt-BR") == "9,25%"  # PIS 1.65% + COFINS 7.6%
    assert fmt.percent_short(0.15, "pt-BR") == "15%"
    assert fmt.percent_short(0.029, "en") == "2.9%"


@PROPS
@given(share=st.floats(min_value=0, max_value=10, allow_nan=False), digits=st.integers(0, 3))
def test_percent_parses_back_to_a_hundred_times_the_share(share, digits):
    text = fmt.percent(share, "pt-BR", digits)
    assert text.endswith("%")
    body = text[:-1].replace(".", "").replace(",", ".")
    assert len(body.partition(".")[2]) == digits
    assert abs(float(body) - share * 100) <= 0.5 * 10**-digits + 1e-9


def test_scientific_uses_superscript_powers_outside_the_plain_range():
    assert fmt.scientific(2.54e21, "pt-BR") == "2,54 × 10²¹"
    assert fmt.scientific(2.54e21, "en") == "2.54 × 10²¹"
    assert fmt.scientific(1e-5, "pt-BR") == "1,00 × 10⁻⁵"
    # 10⁻³ < |x| < 10⁶ is written plainly, up to `digits` decimals
    assert fmt.scientific(123.456, "pt-BR") == "123,46"
    assert fmt.scientific(999_999.0, "en") == "999,999"
    assert fmt.scientific(0, "pt-BR") == "0"


@PROPS
@given(x=st.floats(min_value=1e6, max_value=1e300) | st.floats(min_value=1e-300, max_value=1e-3, exclude_max=True))
def test_scientific_parses_back_to_three_significant_digits(x):
    text = fmt.scientific(x, "en")
    m = re.fullmatch(r"(\d+\.\d\d) × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    assert m, text
    exp = int(m[2].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    value = float(m[1]) * 10.0**exp
    assert 1 <= float(m[1]) < 10.005
    assert math.isclose(value, x, rel_tol=0.0051)


# --- dates ------------------------------------------------------------------------------------------------------

def test_month_year_and_ticks():
    assert fmt.month_year("2027-01", "pt-BR") == "janeiro de 2027"
    assert fmt.month_year("2027-01", "en") == "January 2027"
    assert fmt.month_tick("2027-01", "pt-BR") == "jan./27"
    assert fmt.month_tick("2027-12", "en") == "Dec/27"


def test_long_date():
    assert fmt.long_date(dt.date(2026, 11, 30), "pt-BR") == "30 de novembro de 2026"
    assert fmt.long_date(dt.date(2026, 11, 30), "en") == "November 30, 2026"


def test_iso_date_reformats_only_real_iso_dates():
    assert fmt.iso_date("2025-11-30", "pt-BR") == "30/11/2025"
    assert fmt.iso_date("2025-11-30", "en") == "Nov 30, 2025"
    assert fmt.iso_date(" 2026-04 ", "pt-BR") == "abr. de 2026"
    assert fmt.iso_date("2026-04", "en") == "Apr 2026"
    # not a date (30 February, month 13, free text): shown as written, never an error
    assert fmt.iso_date("2025-02-30", "pt-BR") == "2025-02-30"
    assert fmt.iso_date("2025-13", "en") == "2025-13"
    assert fmt.iso_date("quote of 2025-11-30", "en") == "quote of 2025-11-30"


def test_unknown_locales_fall_back_to_portuguese():
    assert fmt.babel_locale("pt-BR") == "pt_BR"
    assert fmt.babel_locale("en") == "en"
    assert fmt.babel_locale("fr") == "pt_BR"
    assert fmt.money(1234.5, "fr") == fmt.money(1234.5, "pt-BR")
