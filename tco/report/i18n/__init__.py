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
import re
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
    raw = path.read_bytes()
    data = flat_toml(raw)
    if data is None:  # not the flat subset (or not valid TOML): the full parser reads it, or says where it is wrong
        import tomllib

        data = tomllib.loads(raw.decode("utf-8"))
    bad = [k for k, v in data.items() if not isinstance(v, str)]
    if bad:
        raise ValueError(f"{path}: {bad[0]} is not a string (the catalog is flat: key = \"text\")")
    return data


_KEY_VALUE = re.compile(r'^[ \t]*(?:([A-Za-z0-9_-]+)|"([^"\\\n]*)")[ \t]*=[ \t]*"([^"\\\n]*(?:\\.[^"\\\n]*)*)"'
                        r'[ \t]*(?:#.*)?$', re.MULTILINE)
_COMMENTS = re.compile(r"(?:[ \t]*(?:#.*)?\n)*[ \t]*(?:#.*)?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Characters TOML allows in no string or comment (a tab is; a CR only before a LF, dealt with first)."""
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|([\"\\btnfr]))|(\\)")
_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}


class _NotFlat(Exception):
    pass


def _unescape(m: re.Match) -> str:
    if m[1] and not 0xD800 <= int(m[1], 16) <= 0xDFFF:  # a surrogate is no character TOML allows
        return chr(int(m[1], 16))
    if m[2]:
        return _ESCAPES[m[2]]
    raise _NotFlat  # an escape outside the simple ones (\U…, or one TOML refuses)


def flat_toml(raw: bytes) -> dict[str, str] | None:
    """A translation file read as what it is, lines of ``key = "text"`` (and comments), in a few regular
    expression passes instead of tomllib's character-by-character parser (a sixth of the time); None for anything
    else (a table, a dotted key, another kind of string or value, a repeated key, an escape other than the simple
    ones, a control character, bytes that are not UTF-8), which ``catalog`` then hands to tomllib. Where it
    answers, it answers what tomllib would (tests/test_i18n.py)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    parts = _KEY_VALUE.split(text)  # between, bare key, quoted key, value, between, …
    if _CONTROL.search(text) or not _COMMENTS.fullmatch("".join(parts[::4])):
        return None  # a control character (a lone CR too), or a line that is neither key = "text" nor a comment
    out: dict[str, str] = {}
    for bare, quoted, value in zip(parts[1::4], parts[2::4], parts[3::4]):
        key = bare if bare is not None else quoted
        if key in out:
            return None
        if "\\" in value:
            try:
                value = _ESCAPE.sub(_unescape, value)
            except _NotFlat:
                return None
        out[key] = value
    return out


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
    text = catalog(locale).get(key)  # the locale's own file (same keys as the default's): an English run reads one
    if text is not None:
        return text
    return str(value) if default is None else default


def labels(locale: str) -> dict[str, str]:
    """Every text of one locale, for templates (a copy: a template cannot change the catalog)."""
    return dict(catalog(locale))
