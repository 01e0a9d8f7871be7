"""tco.report.fmt_light writes exactly what tco.report.fmt (babel) writes, for every kind a notice shows, in both
locales: hand-worked cases, the rounding edges (half-even on the float's shortest repr), then random values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report import fmt, fmt_light

LOCALES = ("pt-BR", "en")


def test_hand_worked_cases():
    # 1 234 567.891 with one decimal: 1234567.9, grouped by threes with the locale's symbols
    assert fmt_light.number(1234567.891, "pt-BR", 1) == "1.234.567,9"
    assert fmt_light.number(1234567.891, "en", 1) == "1,234,567.9"
    # 2.675 is 2.67499999… in binary, but babel rounds its shortest repr "2.675" half-even: 2.68
    assert fmt_light.number(2.675, "en", 2) == "2.68"
    assert fmt_light.number(0.125, "en", 2) == "0.12"  # half-even: the 2 stays
    assert fmt_light.number_short(12.50, "pt-BR") == "12,5"  # trailing zero dropped
    assert fmt_light.number_short(3.0, "en") == "3"
    assert fmt_light.percent_short(0.0925, "pt-BR") == "9,25%"  # 0.0925 × 100 = 9.25
    assert fmt_light.percent_short(0.15, "en") == "15%"
    assert fmt_light.money(277351.4, "pt-BR") == "R$\xa0277.351"  # whole reais, a no-break space after R$
    assert fmt_light.money(-1234.5, "en") == "-R$1,234"  # round(-1234.5) = -1234 (half to even)
    assert fmt_light.month_year("2027-03", "pt-BR") == "março de 2027"
    assert fmt_light.month_year("2027-12", "en") == "December 2027"


EDGES = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, 0.005, 0.015, 0.045, 1e-7, 999.995, 999999.5, 1234567.891, -2.675,
         0.1 + 0.2, 1e14 - 0.5, 99999999999999.99, -987654321.123456]


@pytest.mark.parametrize("loc", LOCALES)
def test_the_edges_match_babel(loc):
    for x in EDGES:
        for d in (0, 1, 2):
            assert fmt_light.number(x, loc, d) == fmt.number(x, loc, d), (x, d)
        assert fmt_light.number_short(x, loc) == fmt.number_short(x, loc), x
        assert fmt_light.percent_short(x, loc) == fmt.percent_short(x, loc), x
        assert fmt_light.money(x, loc) == fmt.money(x, loc, False), x


@pytest.mark.parametrize("loc", LOCALES)
def test_every_month_matches_babel(loc):
    for year in (1990, 2027, 2200):
        for m in range(1, 13):
            ym = f"{year}-{m:02d}"
            assert fmt_light.month_year(ym, loc) == fmt.month_year(ym, loc)


@pytest.mark.parametrize("loc", LOCALES)
def test_what_it_does_not_write_goes_to_babel(loc):
    for x in (math.inf, -math.inf, math.nan, 1e15, -3e20):
        assert fmt_light.money(x, loc) == fmt.money(x, loc, False)
        assert fmt_light.number(x, loc, 1) == fmt.number(x, loc, 1)
    assert fmt_light.month_year("2027-1", loc) == fmt.month_year("2027-1", loc)
    assert fmt_light.number(1234.5, "fr", 1) == fmt.number(1234.5, "fr", 1)  # unknown locale: fmt's fallback


FLOATS = st.one_of(st.floats(min_value=-1e14, max_value=1e14, allow_nan=False),
                   st.integers(min_value=-10**14, max_value=10**14).map(lambda n: n / 1000),
                   st.integers(min_value=-10**6, max_value=10**6).map(lambda n: n / 8))


@settings(max_examples=300, deadline=None)
@given(x=FLOATS, loc=st.sampled_from(LOCALES), digits=st.integers(0, 2))
def test_random_values_match_babel(x, loc, digits):
    assert fmt_light.number(x, loc, digits) == fmt.number(x, loc, digits)
    assert fmt_light.number_short(x, loc, digits) == fmt.number_short(x, loc, digits)
    assert fmt_light.percent_short(x / 1e3, loc, digits) == fmt.percent_short(x / 1e3, loc, digits)
    assert fmt_light.money(x, loc) == fmt.money(x, loc, False)
