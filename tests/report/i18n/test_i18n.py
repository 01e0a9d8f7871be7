"""The one translation catalog (tco/report/i18n): both locales say the same things, every key the code
names exists, no key is left that nothing shows, every id the engine or a scenario can produce has a
label, and the PDF, the workbook and the terminal name each ledger line the same way."""

from __future__ import annotations

import dataclasses
import re
import string
import tomllib
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco import analysis, scenario
from tco.catalog import load_catalog
from tco.costs import LINES
from tco.report import i18n
from tco.report.i18n import LOCALES, catalog, has, labels, t, term

ROOT = Path(__file__).resolve().parents[3]
CODE = sorted((ROOT / "tco").rglob("*.py"))
TEMPLATES = sorted((ROOT / "tco" / "templates").glob("*.j2")) + sorted((ROOT / "tco" / "web" / "templates").glob("*.j2"))
KEYS = set(catalog("pt-BR"))


def _fields(text: str) -> set[str]:
    """The `{placeholders}` of a text (format fields, not literal braces)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ---------------------------------------------------------------------------------------------
# The files


def test_both_locales_have_exactly_the_same_keys_in_the_same_order():
    """A translator reads the two files side by side: same keys, same order."""
    pt, en = (list(catalog(loc)) for loc in LOCALES)
    assert set(pt) ^ set(en) == set()
    assert pt == en
    assert len(pt) > 500


def test_same_placeholders_per_key():
    pt, en = catalog("pt-BR"), catalog("en")
    differ = {k: (_fields(pt[k]), _fields(en[k])) for k in pt if _fields(pt[k]) != _fields(en[k])}
    assert differ == {}


def test_every_text_fills_with_its_placeholders():
    """Each text formats with values for its own placeholders (no stray `{`, no positional `{}`)."""
    for loc in LOCALES:
        for key, text in catalog(loc).items():
            fields = _fields(text)
            assert "" not in fields, (loc, key)
            out = t(key, loc, **{f: 7 for f in fields}) if fields else t(key, loc)  # 7 fits "{h:02d}" too
            assert "{" not in out and "}" not in out, (loc, key, out)


def test_texts_are_not_empty_and_not_padded():
    exceptions = {"unit_one": "a money axis in units has no unit word",
                  "src_more": "appended after a list of hosts: ' e mais 3'",
                  "and_last": "joins the last item of a list: ' e '"}
    for loc in LOCALES:
        for key, text in catalog(loc).items():
            if key in exceptions:
                continue
            assert text and text == text.strip(), (loc, key, text)


def test_the_files_are_plain_toml_with_string_values(tmp_path):
    for loc in LOCALES:
        data = tomllib.loads((i18n.FOLDER / f"{loc}.toml").read_text(encoding="utf-8"))
        assert all(isinstance(v, str) for v in data.values()), loc
        assert data == catalog(loc)


def test_pt_br_is_portuguese_and_en_is_english():
    """A few anchors, so a swapped or copied file fails."""
    assert t("pv_h_summary", "pt-BR") == "Recomendação" and t("pv_h_summary", "en") == "Recommendation"
    assert t("line_taxes", "pt-BR") == "Tributos" and t("line_taxes", "en") == "Taxes"
    same = [k for k in KEYS if catalog("pt-BR")[k] == catalog("en")[k]]
    assert len(same) < len(KEYS) / 4  # acronyms, symbols and product names only


# ---------------------------------------------------------------------------------------------
# The API


def test_t_fills_placeholders_and_rejects_unknown_keys():
    assert t("cover_horizon_value", "en", months=24, start="January 2027", end="December 2028") == \
        "24 months, January 2027 to December 2028"
    assert t("term_wrote", "pt-BR", path="/tmp/x.json") == "gravado: /tmp/x.json"
    with pytest.raises(KeyError):
        t("no_such_key", "en")


def test_locale_falls_back_to_pt_br():
    assert i18n.locale_of("en") == "en" and i18n.locale_of("pt-BR") == "pt-BR"
    assert i18n.locale_of(None) == "pt-BR" and i18n.locale_of("fr") == "pt-BR"
    assert t("page", "fr") == t("page", "pt-BR") == "Página"
    assert i18n.language("pt-BR") == "pt" and i18n.language("en") == "en"


def test_term_labels_an_id_or_falls_back():
    assert term("pricing", "reserved_1yr", "pt-BR") == "reservado 1 ano"
    assert term("pricing", "reserved_1yr", "en") == "reserved 1 year"
    assert term("pricing", "weekly", "en") == "weekly"  # an id the catalog does not list: itself
    assert term("sens_in", "new_input", "en", "New input (engine text)") == "New input (engine text)"
    assert has("line_egress") and not has("line_power")


def test_labels_is_a_copy():
    got = labels("en")
    got["page"] = "changed"
    assert t("page", "en") == "Page"


# ---------------------------------------------------------------------------------------------
# Keys named by the code

_CALL = r"(?<![\w.])(?:book\.|self\.)?(?:t|_label_or)\(\s*"
LITERAL = re.compile(_CALL + r"""(['"])([A-Za-z0-9_/+\-]+)\1\s*[,)]""")
"""t("key", …), book.t("key"), _label_or("key", …): a whole key."""
CONCAT = re.compile(_CALL + r"""(['"])([a-z0-9_]+_)\1\s*\+""")
"""t("prefix_" + id): a family of keys."""
FSTRING = re.compile(_CALL + r"""f(['"])([a-z0-9_]+_)\{""")
"""t(f"prefix_{id}"): a family of keys."""
TERM = re.compile(r"""(?<![\w])(?:book\.)?term\(\s*(['"])([a-z0-9_]+)\1""")
"""term("prefix", id, …): the family prefix_."""
TEMPLATE = re.compile(r"\bt\.([a-z0-9_]+)")


def _code_text() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in CODE + TEMPLATES}


def _families() -> set[str]:
    """Prefixes the code completes with an id at run time (plus the workbook Catalog sheet's table of
    column → prefix, `workbook_catalog.TRANSLATED`, which `term` reads through a variable)."""
    from tco.report.workbook.catalog import TRANSLATED

    out = {v + "_" for v in TRANSLATED.values()}
    for text in _code_text().values():
        out |= {m.group(2) for m in CONCAT.finditer(text)} | {m.group(2) for m in FSTRING.finditer(text)}
        out |= {m.group(2) + "_" for m in TERM.finditer(text)}
    return out


BROAD = {"col_": "term('col', field) names every catalog column by its field name",
         "sens_": "term('sens', block) names the sensitivity blocks (other sens_ keys are called by name)"}
"""Families so wide that a key counts as used only when its id (the part after the prefix) is a string
in the code too (a catalog field in write_catalog's column lists, a block name in tco.analysis)."""


def test_every_key_named_in_the_code_exists():
    missing = []
    for path, text in _code_text().items():
        names = TEMPLATE.findall(text) if path.suffix == ".j2" else [m.group(2) for m in LITERAL.finditer(text)]
        missing += [(path.name, k) for k in names if k not in KEYS]
    assert missing == []


def test_the_scan_finds_the_calls():
    """The regexes above really see the code's calls (a scan that finds nothing would pass anything)."""
    text = _code_text()
    found = {m.group(2) for p, s in text.items() for m in LITERAL.finditer(s)}
    assert {"cover_horizon_value", "sh_inputs", "term_wrote", "chk_note", "u_per_year"} <= found
    assert {"line_", "fleet_", "kind_", "sh_", "col_", "sens_in_", "sens_unit_", "metric_", "fxm_", "pricing_",
            "status_", "pv_g_"} <= _families()
    assert {"doc_title", "pv_h_sources"} <= {k for p, s in text.items() if p.suffix == ".j2" for k in TEMPLATE.findall(s)}


def test_every_family_the_code_uses_has_keys():
    empty = [f for f in _families() if not any(k.startswith(f) for k in KEYS)]
    assert empty == []


# Keys no scan can see, each with why it stays
UNUSED_OK: dict[str, str] = {}


def test_no_key_is_left_unused():
    """A key is used when the code or a template names it (as a call's key or a string in a table of
    keys) or when it belongs to a family the code looks up by id (line_, pricing_, sens_in_ …)."""
    text = "\n".join(_code_text().values())
    strings = set(re.findall(r"""["']([A-Za-z0-9_/+\-]+)["']""", text)) | set(TEMPLATE.findall(text))
    families = _families() - set(BROAD)
    in_broad = {k for k in KEYS for f in BROAD if k.startswith(f) and k[len(f):] in strings}
    unused = sorted(k for k in KEYS if k not in strings and not any(k.startswith(f) for f in families)
                    and k not in in_broad and k not in UNUSED_OK)
    assert unused == []
    assert all(k in KEYS for k in UNUSED_OK)


# ---------------------------------------------------------------------------------------------
# Every id the engine, a scenario or the catalog can produce has a label


def _literal(model, field: str) -> tuple[str, ...]:
    return typing.get_args(model.model_fields[field].annotation)


def _ids() -> dict[str, set[str]]:
    cat = load_catalog(None)
    offers = list(cat.cloud_offers.values()) + list(cat.dedicated_offers.values())
    return {
        "line": set(LINES),
        "kind": {"cloud", "dedicated", "hybrid"},
        "fleet": set(_literal(scenario.Option, "fleet")),
        "pricing": set(scenario.PRICINGS) | {"monthly"} | {p for o in cat.cloud_offers.values() for p in o.prices},
        "method": set(_literal(scenario.Training, "method")),
        "fxm": set(_literal(scenario.FX, "model")),
        "growth": {_literal(m, "model")[0] for m in (scenario.LinearGrowth, scenario.CompoundGrowth,
                                                     scenario.LogisticGrowth, scenario.ListGrowth)},
        "redundancy": set(_literal(scenario.Inference, "redundancy")),
        "taxm": {p.method for p in cat.taxes.values()} | {"import_gross_up", "local_por_dentro", "none"},
        "status": {o.status for o in cat.dedicated_offers.values()}
        | {p.status for o in cat.cloud_offers.values() for p in o.prices.values()},
        "bound": {"memory", "latency-bandwidth", "latency-compute", "latency-interconnect", "latency-overhead",
                  "latency-ttft", "max-batch"},
        "ic": {g.interconnect for g in cat.gpus.values()},
        "sens_in": {row[0] for row in analysis.SENSITIVITY},
        "sens_unit": {row[0] for row in analysis.SENSITIVITY},
        "metric": {"tco", "tco_p95", "npv"},
        "price_unit": {"USD/h", "BRL/month"},
        "onoff": {"True", "False"},
        "yesno": {"True", "False"},
        "sh": {"summary", "inputs", "catalog", "sizing", "timeline", "calc", "comparison", "fx", "sensitivity",
               "checks"},
        "sens": {"leaders", "dedicated_vs_cloud"},
    } | {"_offers_seen": {o.kind for o in offers}}


def test_every_engine_and_scenario_id_has_a_label():
    ids = _ids()
    assert ids.pop("_offers_seen") <= ids["kind"]
    missing = sorted(f"{prefix}_{v}" for prefix, values in ids.items() for v in values if not has(f"{prefix}_{v}"))
    assert missing == []


def test_the_statuses_and_bounds_the_engine_writes_are_the_ones_listed():
    """The id lists above are the engine's, not a copy that could drift: sizing picks the bound among
    these names, and the sensitivity rows carry their metric."""
    import inspect

    from tco import sizing
    from tco.sizing import replica as sizing_inference
    from tco.sizing import replica_rules as sizing_rules

    src = inspect.getsource(sizing) + inspect.getsource(sizing_inference) + inspect.getsource(sizing_rules)
    assert all(f'"{b}"' in src for b in _ids()["bound"])
    from tco.analysis import sensitivity as analysis_sensitivity

    assert {"npv", "tco_p95", "tco"} <= set(re.findall(r'"(npv|tco_p95|tco)"', inspect.getsource(analysis_sensitivity)))


# ---------------------------------------------------------------------------------------------
# One name per ledger line, wherever it is shown


@pytest.fixture(scope="module")
def assistant():
    from tco.engine import run_scenario
    from tco.report import json_out

    path = ROOT / "scenarios" / "assistant_8b_l4.toml"
    sc, sha, key_lines = scenario.load(str(path))
    res = run_scenario(sc, load_catalog(None), file=str(path), lines=key_lines)
    return sc, res, json_out.build(res, sha, str(path))


@pytest.mark.parametrize("loc", LOCALES)
def test_workbook_and_terminal_name_each_ledger_line_the_same(assistant, loc, tmp_path, capsys):
    import openpyxl

    from tco.report import view, workbook

    sc, res, doc = assistant
    sc = sc.model_copy(update={"scenario": sc.scenario.model_copy(update={"locale": loc})})
    res = dataclasses.replace(res, scenario=sc)
    doc = {**doc, "scenario": {**doc["scenario"], "locale": loc}}
    names = [t(f"line_{k}", loc) for k in LINES]
    assert len(set(names)) == len(LINES)

    # the workbook: the cost lines of each Calc sheet, in the offer's currency and in BRL
    f = tmp_path / "m.xlsx"
    workbook.write(res, view.build(res), f)
    wb = openpyxl.load_workbook(f, read_only=True)
    calc = wb[t("sh_calc", loc, i=1)]
    column_a = [r[0] for r in calc.iter_rows(min_col=1, max_col=1, values_only=True) if isinstance(r[0], str)]
    start = column_a.index(t("sec_lines", loc)) + 1
    assert column_a[start:start + len(LINES)] == names
    start = column_a.index(t("sec_brl", loc)) + 1
    assert column_a[start:start + len(LINES)] == [n + " (R$)" for n in names]

    # the terminal: the egress column of the summary
    from tco.report import terminal

    capsys.readouterr()
    terminal.summary(res, [])
    assert t("line_egress", loc) in capsys.readouterr().out


def test_no_inline_translation_left_in_the_renderers():
    """No `locale == "en"` branch and no Portuguese word in code: every text comes from the catalog."""
    branch = re.compile(r"""\b(loc|locale)\s*[!=]=\s*["'](en|pt-BR)["']""")
    words = re.compile(r'''["'](usuários|meses|1/ano|1/mês|/mês)["']''')
    files = sorted((ROOT / "tco" / "report").rglob("*.py")) + sorted((ROOT / "tco" / "cli").glob("*.py"))
    found = [(p.name, n, line.strip()) for p in files for n, line in enumerate(p.read_text().splitlines(), 1)
             if branch.search(line) or words.search(line)]
    assert found == []


def test_the_catalog_files_ship_with_the_package():
    """`pip install .` copies the TOML files (package data), or an installed tco would have no words."""
    from fnmatch import fnmatch

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tco"]
    for loc in LOCALES:
        assert any(fnmatch(f"report/i18n/{loc}.toml", g) for g in globs), loc


# ---------------------------------------------------------------------------------------------
# The terminal speaks the scenario's locale

ENGLISH = re.compile(r"\b(months from|spot \d|FX model|base path|option|best|NPV|wrote|warning|paths|minus|input|"
                     r"range|metric|at low|at high|swing|growth curve|Catalog offers|on demand|list price)\b")


def test_pt_br_terminal_summary_has_no_english(assistant, capsys):
    from tco.report import terminal

    sc, res, _ = assistant
    assert sc.scenario.locale == "pt-BR"
    capsys.readouterr()
    terminal.summary(res, [Path("/tmp/x/assistant.json")])  # the notices too: they are worded in pt-BR
    out = capsys.readouterr().out
    assert "meses a partir de" in out and "recomendada" in out and "gravado: /tmp/x/assistant.json" in out
    assert t("col_per_mtok", "pt-BR") in out
    assert ENGLISH.findall(out) == []


def test_tornado_table_in_pt_br(capsys):
    """Labels, unit and metric of a row come from the catalog (the engine's English is only a fallback);
    numbers and money in the locale's format."""
    from tco.findings import Tornado, TornadoRow
    from tco.report import terminal

    row = TornadoRow(input="users", label="Users", low=0.5, high=1.5, unit="× growth curve", metric="tco",
                     base_diff_brl=500.0, low_diff_brl=-1000.0, high_diff_brl=2000.0, swing_brl=3000.0)
    terminal.tornado_table(Tornado(challenger="B", leader="A", base_diff_brl=500.0, rows=(row,)), "pt-BR")
    out = re.sub(r"\s+", " ", capsys.readouterr().out.replace("\xa0", " "))
    assert "B menos A (base: R$ 500)" in out
    assert "Usuários" in out and "0,5 – 1,5 × curva de crescimento" in out
    assert "R$ 3.000" in out and "R$ 2.000" in out
    assert ENGLISH.findall(out) == []
    terminal.tornado_table(Tornado(leader="A", challenger=None), "pt-BR")
    assert capsys.readouterr().out.strip() == t("term_one_option", "pt-BR")


def test_offers_table_in_each_locale(capsys):
    from tco.report import terminal

    cat = load_catalog(None)
    terminal.offers_table(cat, "L4", "pt-BR")
    out = capsys.readouterr().out
    assert "Ofertas do catálogo" in out and "sob demanda" in out and "preço de tabela" in out
    assert ENGLISH.findall(out) == []
    terminal.offers_table(cat, "L4", "en")
    out = capsys.readouterr().out
    assert "Catalog offers" in out and "on demand" in out


# ---------------------------------------------------------------------------------------------
# The fast reader of the files (flat_toml): what tomllib reads, or None (then tomllib reads it)


def test_the_shipped_files_take_the_fast_reader_and_read_as_tomllib_reads_them():
    for loc in LOCALES:
        raw = (i18n.FOLDER / f"{loc}.toml").read_bytes()
        fast = i18n.flat_toml(raw)
        assert fast is not None, loc  # a line outside the flat subset would send every start through tomllib
        assert list(fast.items()) == list(tomllib.loads(raw.decode("utf-8")).items())


@pytest.mark.parametrize("text, expected", [
    ('a = "x"\n', {"a": "x"}),
    ('# comment\n\n  b_2-c = "y" # trailing\r\n"q+1" = "z"', {"b_2-c": "y", "q+1": "z"}),
    (r'e = "tab\there \"quoted\" back\\slash \u00e9"', {"e": 'tab\there "quoted" back\\slash é'}),
    ('t = "a\tb"', {"t": "a\tb"}),  # a raw tab is allowed in a basic string
])
def test_flat_files_read_as_tomllib_reads_them(text, expected):
    assert i18n.flat_toml(text.encode("utf-8")) == expected == tomllib.loads(text)


@pytest.mark.parametrize("text", [
    '[table]\na = "x"', 'a.b = "x"', "a = 1", "a = 'literal'", 'a = """multi"""', 'a = "x"\na = "y"',
    'a = "x"\n"a" = "y"', r'a = "\U0001F600"', r'a = "\ud800"', r'a = "\x41"', 'a = "x"\rb = "y"',
    '\ufeffa = "x"', 'a = "x\x01"', 'a = "x" # \x7f', 'a = "x', "a = ", 'a = "x" b = "y"', 'a = "x\\\n"',
])
def test_anything_else_goes_to_tomllib(text):
    assert i18n.flat_toml(text.encode("utf-8")) is None
    assert i18n.flat_toml(b'a = "\xff"') is None  # not UTF-8


TOMLISH = st.text(alphabet=list('ab_-1 ="\\#\n\r\tu0D8é[].\'\x01'), max_size=40)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(text=TOMLISH)
def test_whatever_the_fast_reader_accepts_tomllib_reads_the_same(text):
    fast = i18n.flat_toml(text.encode("utf-8"))
    if fast is not None:
        assert fast == tomllib.loads(text)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(pairs=st.dictionaries(st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
                             st.text(st.characters(blacklist_categories=("Cs",)), max_size=30), max_size=8))
def test_any_flat_catalog_written_by_a_toml_writer_takes_the_fast_reader(pairs):
    lines = [f'{k} = "{_toml_escape(v)}"' for k, v in pairs.items()]
    text = "# a catalog\n" + "\n".join(lines) + "\n"
    assert i18n.flat_toml(text.encode("utf-8")) == pairs == tomllib.loads(text)


def _toml_escape(v: str) -> str:
    out = v.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(c if c == "\t" or not (ord(c) < 0x20 or ord(c) == 0x7F) else f"\\u{ord(c):04x}" for c in out)
