"""The one translation catalog of tco: every label, heading, unit and sentence that the terminal, the
workbook and the PDF proposal show, as data, one TOML file per locale (`pt-BR.toml`, `en.toml` beside
this module). A translator edits one file; the code names a text by its key only.

Renderers never hold text of their own: they call `t(key, locale, **values)` or hand a template
`labels(locale)`. Values substituted into a sentence are already formatted (money, percent, names);
the result is plain text that each renderer escapes, so a name taken from a scenario can never become
markup. A key made of a prefix and an engine or scenario id (`line_egress`, `pricing_spot`,
`sens_in_users`) labels that id everywhere; `term(prefix, id, locale)` looks one up and falls back to
the id itself.

>>> t("page_of", "en")
'of'
>>> t("fleet_shared", "pt-BR")
'frota compartilhada'
>>> t("cover_horizon_value", "en", months=24, start="January 2027", end="December 2028")
'24 months, January 2027 to December 2028'
>>> term("pricing", "on_demand", "pt-BR"), term("pricing", "weekly", "pt-BR")
('sob demanda', 'weekly')
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

LOCALES = ("pt-BR", "en")
"""The locales a scenario may ask for; the first is the default."""
DEFAULT_LOCALE = LOCALES[0]
FOLDER = Path(__file__).resolve().parent
"""Where the catalog files are: `<locale>.toml`, shipped as package data."""


def locale_of(locale: str | None) -> str:
    """The catalog locale for a scenario's `locale` ("en" → "en"; anything else → pt-BR, the default)."""
    return locale if locale in LOCALES else DEFAULT_LOCALE


def language(locale: str | None) -> str:
    """The two-letter language of a locale ("pt-BR" → "pt", "en" → "en"), for data that carries one
    field per language (a tax profile's `label_pt` / `label_en`, the theme's `*_en` keys)."""
    return locale_of(locale).split("-")[0]


@functools.cache
def catalog(locale: str) -> dict[str, str]:
    """Every text of one locale, read once from its TOML file (key → text, placeholders left as they are)."""
    path = FOLDER / f"{locale_of(locale)}.toml"
    with path.open("rb") as f:
        data = tomllib.load(f)
    bad = [k for k, v in data.items() if not isinstance(v, str)]
    if bad:
        raise ValueError(f"{path}: {bad[0]} is not a string (the catalog is flat: key = \"text\")")
    return data


def t(key: str, locale: str, **values) -> str:
    """The text for `key` in `locale`, with its `{name}` placeholders filled from `values`.

    Raises KeyError for a key the catalog does not have (a typo in the code, caught by the tests).
    """
    text = catalog(locale)[key]
    return text.format(**values) if values else text


def has(key: str) -> bool:
    """Whether the catalog has `key` (every locale has the same keys)."""
    return key in catalog(DEFAULT_LOCALE)


def term(prefix: str, value, locale: str, default: str | None = None) -> str:
    """The label of an engine or scenario id (`prefix_value`); when the catalog has none, `default`
    (the engine's own text, say) or else the id itself."""
    key = f"{prefix}_{value}"
    if has(key):
        return t(key, locale)
    return str(value) if default is None else default


def labels(locale: str) -> dict[str, str]:
    """Every text of one locale, for templates (a copy: a template cannot change the catalog)."""
    return dict(catalog(locale))
