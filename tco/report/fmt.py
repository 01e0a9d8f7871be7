"""Number, money and date formatting for the proposal, by locale (babel).

Presentation only: nothing here computes a value, it only shows one. Locales are the scenario's
("pt-BR" default, "en"); babel's CLDR data gives R$ 1.234.567,89 and "janeiro de 2027" in pt-BR,
R$1,234,567.89 and "January 2027" in English. Non-breaking spaces from CLDR are kept, so an
amount never wraps between "R$" and its digits.

>>> money(1234567.891, "pt-BR")
'R$\\xa01.234.567,89'
>>> month_year("2027-01", "pt-BR")
'janeiro de 2027'
"""

from __future__ import annotations

import datetime as _dt
import math

from babel import Locale
from babel.dates import format_date, format_skeleton
from babel.numbers import format_currency, format_decimal, format_percent

from tco.report.rounding import unsigned_zero

BABEL_LOCALE = {"pt-BR": "pt_BR", "en": "en"}
DASH = "—"


def babel_locale(locale: str) -> str:
    """The babel name of a scenario locale ("pt-BR" → "pt_BR"); unknown locales fall back to pt-BR."""
    return BABEL_LOCALE.get(locale, "pt_BR")


HUGE = 1e15
"""Amounts this large (R$ 1 quadrillion) are written in scientific notation."""


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and (math.isnan(x) or math.isinf(x)))


def money(x: float | None, locale: str, cents: bool = True) -> str:
    """Amount in BRL with the locale's currency pattern; `cents=False` rounds to whole reais [BRL]."""
    if x is None or _missing(x):
        return DASH
    x = unsigned_zero(x, 2 if cents else 0)
    if abs(x) >= HUGE:  # beyond babel's decimal precision (and any real budget): shown in scientific notation
        return f"R$ {scientific(x, locale)}"
    loc = babel_locale(locale)
    if cents:
        return format_currency(x, "BRL", locale=loc)
    pattern = Locale.parse(loc).currency_formats["standard"].pattern.split(";")[0].replace(".00", "")
    return format_currency(round(x), "BRL", format=pattern, locale=loc, currency_digits=False)


def money_compact(x: float | None, locale: str) -> str:
    """Short amount for key figures: R$ 2,5 mi / R$2.5M."""
    if x is None or _missing(x):
        return DASH
    from babel.numbers import format_compact_currency

    return format_compact_currency(x, "BRL", locale=babel_locale(locale), fraction_digits=1)


def _babel(fn, x: float, pattern: str, locale: str, digits: int, scale: float = 1.0) -> str:
    """babel's `fn` (format_decimal or format_percent); a number beyond babel's 28-digit decimal precision
    (about 1e25 with its decimals) in scientific notation instead of a decimal.InvalidOperation."""
    import decimal

    try:
        return fn(x, format=pattern, locale=babel_locale(locale))
    except decimal.InvalidOperation:
        return scientific(x * scale, locale, max(digits, 2)) + ("%" if scale != 1.0 else "")


def number(x: float | None, locale: str, digits: int = 0) -> str:
    """Plain number with grouping and exactly `digits` decimals."""
    if x is None or _missing(x):
        return DASH
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return _babel(format_decimal, unsigned_zero(x, digits), pattern, locale, digits)


def number_short(x: float | None, locale: str, max_digits: int = 2) -> str:
    """Number with up to `max_digits` decimals, trailing zeros dropped (axis ticks, rates)."""
    if x is None or _missing(x):
        return DASH
    pattern = "#,##0" + ("." + "#" * max_digits if max_digits else "")
    return _babel(format_decimal, x, pattern, locale, max_digits)


def percent(share: float | None, locale: str, digits: int = 1) -> str:
    """A 0–1 share shown as a percentage (0.34 → 34,0%)."""
    if share is None or _missing(share):
        return DASH
    pattern = "#,##0" + ("." + "0" * digits if digits else "") + "%"
    return _babel(format_percent, share, pattern, locale, digits, 100.0)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(x: float | None, locale: str, digits: int = 2) -> str:
    """Large counts as mantissa × 10ⁿ (2,54 × 10²¹)."""
    if x is None or _missing(x):
        return DASH
    if x == 0:
        return "0"
    exp = int(math.floor(math.log10(abs(x))))
    if -3 < exp < 6:
        return number_short(x, locale, digits)
    mant = x / 10**exp
    return f"{number(mant, locale, digits)} × 10{str(exp).translate(_SUPERSCRIPT)}"


def _month(ym: str) -> _dt.date:
    y, m = ym.split("-")
    return _dt.date(int(y), int(m), 1)


def month_year(ym: str, locale: str) -> str:
    """"2027-01" → "janeiro de 2027" / "January 2027"."""
    return format_skeleton("yMMMM", _month(ym), locale=babel_locale(locale))


def month_tick(ym: str, locale: str) -> str:
    """Short month for chart axes: "jan./27" / "Jan/27"."""
    return format_date(_month(ym), "MMM/yy", locale=babel_locale(locale))


def long_date(d: _dt.date, locale: str) -> str:
    """"30 de novembro de 2026" / "November 30, 2026"."""
    return format_date(d, "long", locale=babel_locale(locale))


def percent_short(share: float | None, locale: str, max_digits: int = 2) -> str:
    """A 0–1 share as a percentage with up to `max_digits` decimals, none lost to rounding where they
    fit (tax rates: 0.0925 → 9,25%, 0.15 → 15%)."""
    if share is None or _missing(share):
        return DASH
    pattern = "#,##0" + ("." + "#" * max_digits if max_digits else "") + "%"
    return _babel(format_percent, share, pattern, locale, max_digits, 100.0)


def iso_date(text: str, locale: str) -> str:
    """"2025-11-30" → "30/11/2025" / "Nov 30, 2025"; "2026-04" → "abr. de 2026" / "Apr 2026"; other text as is."""
    import re

    m = re.fullmatch(r"(\d{4})-(\d{2})(?:-(\d{2}))?", text.strip())
    if not m:
        return text
    y, mo, d = int(m[1]), int(m[2]), m[3]
    try:
        if d is None:
            return format_skeleton("yMMM", _dt.date(y, mo, 1), locale=babel_locale(locale))
        day = _dt.date(y, mo, int(d))
    except ValueError:
        return text
    return format_date(day, "dd/MM/yyyy" if babel_locale(locale) == "pt_BR" else "medium", locale=babel_locale(locale))
