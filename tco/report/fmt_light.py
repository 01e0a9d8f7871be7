"""The few formats a notice needs (grouped numbers, percentages, whole reais, month and year), without babel.

`tco.report.fmt` formats with babel's CLDR data, which costs about 15 ms to load (the import, then the pickled
locale data of pt_BR, pt and root): a third of what `validate` spends after its imports, for a handful of numbers
in its warnings. The two locales tco speaks need four symbols each, written here; the rules are babel's, step
by step (``NumberPattern.apply``): the float's shortest repr as a Decimal, scaled (percent), its sign set apart,
rounded half-even to the pattern's decimals, grouped by threes, optional trailing zeros dropped. A test compares
every function with `tco.report.fmt` on random and edge values in both locales, so the two cannot drift.

Anything outside what this module writes (a locale it does not know, a non-finite value, an amount of 10^15 or
more, which fmt shows in scientific notation) goes to `tco.report.fmt`.

>>> number(1234567.891, "pt-BR", 1), number_short(0.5, "en"), percent_short(0.0925, "pt-BR")
('1.234.567,9', '0.5', '9,25%')
>>> money(277351.4, "pt-BR"), money(484311.0, "en"), month_year("2027-01", "pt-BR")
('R$\\xa0277.351', 'R$484,311', 'janeiro de 2027')
"""

from __future__ import annotations

import math
from decimal import Decimal

from tco.report.rounding import unsigned_zero

SYMBOLS = {"pt-BR": (".", ","), "en": (",", ".")}
"""Locale → (group, decimal) symbols (CLDR, latn digits)."""

MONEY_PREFIX = {"pt-BR": "R$\xa0", "en": "R$"}
"""What precedes a BRL amount (CLDR's standard currency pattern: "¤ #,##0.00" in pt_BR, "¤#,##0.00" in en)."""

MONTHS = {
    "pt-BR": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
              "novembro", "dezembro"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"),
}
"""CLDR's wide month names, as babel's "yMMMM" skeleton writes them."""

MONTH_YEAR = {"pt-BR": "{month} de {year}", "en": "{month} {year}"}
"""CLDR's pattern of the "yMMMM" skeleton ("janeiro de 2027", "January 2027")."""

LIMIT = 1e15
"""fmt.HUGE: from here on amounts are written in scientific notation (by fmt)."""


def _fits(x, locale: str) -> bool:
    return locale in SYMBOLS and isinstance(x, (int, float)) and math.isfinite(x) and abs(x) < LIMIT


def _digits(x: float, scale: int, min_frac: int, max_frac: int, locale: str) -> str:
    """babel's NumberPattern.apply for "#,##0" with min_frac..max_frac decimals, the value times 10**scale."""
    group, point = SYMBOLS[locale]
    value = Decimal(str(x)).scaleb(scale)
    sign = "-" if value.is_signed() else ""
    rounded = abs(value).normalize().quantize(Decimal(10) ** -max_frac)
    whole, _, frac = f"{rounded:f}".partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    text = group.join([whole, *groups])
    frac = (frac or "0").ljust(min_frac, "0")
    if max_frac and not (min_frac == 0 and int(frac) == 0):
        while len(frac) > min_frac and frac[-1] == "0":
            frac = frac[:-1]
        text += point + frac
    return sign + text


def number(x: float, locale: str, digits: int = 0) -> str:
    """As fmt.number: grouped, exactly `digits` decimals."""
    if not _fits(x, locale):
        from tco.report import fmt

        return fmt.number(x, locale, digits)
    return _digits(unsigned_zero(x, digits), 0, digits, digits, locale)


def number_short(x: float, locale: str, max_digits: int = 2) -> str:
    """As fmt.number_short: grouped, up to `max_digits` decimals, trailing zeros dropped."""
    if not _fits(x, locale):
        from tco.report import fmt

        return fmt.number_short(x, locale, max_digits)
    return _digits(x, 0, 0, max_digits, locale)


def percent_short(share: float, locale: str, max_digits: int = 2) -> str:
    """As fmt.percent_short: a 0–1 share as a percentage with up to `max_digits` decimals."""
    if not _fits(share, locale) or abs(share) * 100 >= LIMIT:
        from tco.report import fmt

        return fmt.percent_short(share, locale, max_digits)
    return _digits(share, 2, 0, max_digits, locale) + "%"


def money(x: float, locale: str) -> str:
    """As fmt.money(x, locale, cents=False): whole reais (Python's round, half to even, as fmt does)."""
    if not _fits(x, locale):
        from tco.report import fmt

        return fmt.money(x, locale, False)
    text = _digits(round(unsigned_zero(x, 0)), 0, 0, 0, locale)
    return ("-" if text.startswith("-") else "") + MONEY_PREFIX[locale] + text.lstrip("-")


def month_year(ym: str, locale: str) -> str:
    """As fmt.month_year: "2027-01" → "janeiro de 2027" / "January 2027"."""
    y, _, m = ym.partition("-")
    if locale not in MONTHS or not (y.isdigit() and 1 <= int(y) <= 9999 and m.isdigit() and 1 <= int(m) <= 12):
        from tco.report import fmt

        return fmt.month_year(ym, locale)
    return MONTH_YEAR[locale].format(month=MONTHS[locale][int(m) - 1], year=int(y))
