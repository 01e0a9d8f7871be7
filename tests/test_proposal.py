"""The PDF proposal, checked as its readers see it: text read back with pdftotext, fonts with
pdffonts, attachments with pdfdetach (poppler-utils). Skipped only when pdftotext is absent."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.numbers import format_currency

from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.report import fmt, json_out, proposal, proposal_sections
from tco.report.i18n import catalog, t
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
TEMPLATES = ROOT / "tco" / "templates"

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) not installed")


def _run(path: Path, enrich: bool = True):
    """Engine results and JSON doc as the CLI makes them (`enrich`: break-evens, sensitivity, … as `run` adds)."""
    scenario, sha, lines = load(str(path))
    cat_dir = (path.parent / scenario.scenario.catalog_dir).resolve() if scenario.scenario.catalog_dir else None
    res = run_scenario(scenario, load_catalog(cat_dir), file=str(path), lines=lines)
    if enrich:
        from tco import analysis

        res = analysis.enrich(res)
    return res, json_out.build(res, sha, str(path))


def _text(pdf: Path) -> str:
    """pdftotext output with whitespace (line breaks, non-breaking spaces) collapsed to one space."""
    out = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    return re.sub(r"\s+", " ", out.replace("\xa0", " "))


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("\xa0", " "))


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Every example scenario rendered once: {stem: (pdf path, doc, fetcher)}."""
    out = tmp_path_factory.mktemp("proposals")
    workbook = out / "model.xlsx"
    workbook.write_bytes(b"PK\x03\x04 stand-in workbook")
    done = {}
    for path in SCENARIOS:
        res, doc = _run(path)
        fetcher = proposal.templates_only_fetcher()
        pdf = out / f"{path.stem}.pdf"
        pdf.write_bytes(proposal.render(res, doc, [path, workbook], fetcher=fetcher))
        done[path.stem] = (pdf, doc, fetcher)
    return done


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_text_has_client_options_and_tco_equal_to_json(rendered, stem):
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = fmt.babel_locale(doc["scenario"]["locale"])
    assert _norm(doc["scenario"]["client"]) in text
    assert _norm(doc["scenario"]["name"]) in text
    for o in doc["options"]:
        assert _norm(o["name"]) in text, o["name"]
        # formatted independently of tco.report.fmt, straight from babel and the JSON value
        tco = _norm(format_currency(o["tco_brl"]["deterministic"], "BRL", locale=loc))
        assert tco in text, (o["name"], tco)


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_locale_labels_and_page_footer(rendered, stem):
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    n = _pages(pdf)
    assert 6 <= n <= 20
    assert f"{t('page', loc)} 2 {t('page_of', loc)} {n}" in text
    for key in ("h_summary", "h_workload", "h_options", "h_lines", "h_fx", "h_egress_taxes", "h_fleets", "h_sources",
                "h_glossary", "h_disclaimers"):
        assert t(key, loc) in text, key
    first_month = fmt.month_year(doc["scenario"]["start"], loc)
    assert first_month in text
    if loc == "pt-BR":
        assert re.search(r"(janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)"
                         r" de 20\d\d", text)
        assert "Página" in text and "R$ " in text
    else:
        assert "Executive summary" in text and "Page 2 of" in text


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_summary_states_saving_and_fx(rendered, stem):
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    ranked = sorted(doc["options"], key=lambda o: o["tco_brl"]["deterministic"])
    assert f"{t('recommended', loc).upper()} {_norm(ranked[0]['name'])}" in text
    if doc["fx"]["model"] in ("gbm", "bootstrap"):
        cloud = next(o for o in ranked if o["kind"] == "cloud")
        p5 = _norm(fmt.money(cloud["tco_brl"]["p5"], loc, cents=False))
        p95 = _norm(fmt.money(cloud["tco_brl"]["p95"], loc, cents=False))
        assert f"{p5} – {p95}" in text
    else:
        assert ("fixo" if loc == "pt-BR" else "fixed") in text


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_engine_analyses_are_shown(rendered, stem):
    """Break-even USD/BRL rates and the fleet-separation savings come from the engine and appear as computed."""
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    for row in (doc.get("breakevens") or {}).get("usdbrl") or []:
        if row.get("usdbrl"):
            assert _norm(fmt.money(row["usdbrl"], loc)) in text
    for row in doc.get("separation") or []:
        if row.get("saving_brl") is not None:
            assert _norm(fmt.money(row["saving_brl"], loc, cents=False)) in text


@needs_poppler
def test_saving_is_against_cheapest_cloud(rendered):
    pdf, doc, _ = rendered["seed_70b_h200"]
    ranked = sorted(doc["options"], key=lambda o: o["tco_brl"]["deterministic"])
    rec = ranked[0]
    cloud = next(o for o in ranked if o["kind"] == "cloud")
    saving = cloud["tco_brl"]["deterministic"] - rec["tco_brl"]["deterministic"]
    share = saving / cloud["tco_brl"]["deterministic"]
    text = _text(pdf)
    assert f"{_norm(fmt.money(saving, 'pt-BR', cents=False))} ({fmt.percent(share, 'pt-BR')})" in text


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_fonts_embedded(rendered, stem):
    pdf, _, _ = rendered[stem]
    out = subprocess.run(["pdffonts", str(pdf)], check=True, capture_output=True, text=True).stdout
    rows = out.splitlines()[2:]
    assert rows, "no fonts listed"
    for row in rows:
        # columns: name type encoding emb sub uni object-id generation
        assert re.search(r"\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$", row), row
        assert "DejaVu" in row, row


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_attachments_and_fetches(rendered, stem):
    pdf, _, fetcher = rendered[stem]
    if shutil.which("pdfdetach"):
        out = subprocess.run(["pdfdetach", "-list", str(pdf)], check=True, capture_output=True, text=True).stdout
        assert f"{stem}.toml" in out and "model.xlsx" in out
    base = TEMPLATES.resolve().as_uri()
    assert fetcher.refused == []
    assert fetcher.requested and all(u.startswith(base + "/") for u in fetcher.requested)
    assert any(u.endswith("DejaVuSans.ttf") for u in fetcher.requested)


HOSTILE_CLIENT = '<img src="file:///etc/passwd">'
HOSTILE_NAME = "<script>alert(1)</script>"
HOSTILE_OPTION = '<link rel="stylesheet" href="http://example.com/x.css"> $x$ & "AWS"'


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    src = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
    src = re.sub(r'^client = .*$', f"client = '{HOSTILE_CLIENT}'", src, count=1, flags=re.M)
    src = re.sub(r'^name = .*$', f"name = '{HOSTILE_NAME}'", src, count=1, flags=re.M)
    src = src.replace('name = "AWS São Paulo — g6.xlarge (L4)"', f"name = '{HOSTILE_OPTION}'")
    path = tmp_path_factory.mktemp("hostile") / "hostile.toml"
    path.write_text(src, encoding="utf-8")
    res, doc = _run(path, enrich=False)  # also proves the proposal renders without the optional analyses
    fetcher = proposal.templates_only_fetcher()
    pdf = path.with_suffix(".pdf")
    pdf.write_bytes(proposal.render(res, doc, [path], fetcher=fetcher))
    theme = proposal.load_theme()
    html = proposal.render_html(proposal.context(res, doc, [path], theme))
    return pdf, fetcher, html


@needs_poppler
def test_scenario_text_shows_literally_and_fetches_nothing_outside(hostile):
    pdf, fetcher, html = hostile
    text = _text(pdf)
    assert HOSTILE_CLIENT in text
    assert HOSTILE_NAME in text
    assert _norm(HOSTILE_OPTION) in text
    assert fetcher.refused == []
    base = TEMPLATES.resolve().as_uri() + "/"
    assert all(u.startswith(base) for u in fetcher.requested)
    assert not any("passwd" in u or "example.com" in u for u in fetcher.requested)


def test_scenario_text_is_escaped_in_html(hostile):
    _, _, html = hostile
    assert HOSTILE_CLIENT not in html and HOSTILE_NAME not in html
    assert "&lt;img src=&#34;file:///etc/passwd&#34;&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # the only tags of these kinds are the template's own
    assert re.findall(r"<link\b[^>]*>", html) == ['<link rel="stylesheet" href="proposal.css">']
    assert re.findall(r"<img\b[^>]*>", html) == ['<img class="logo" src="logo.svg" alt="Nuvem Exemplo">']
    assert "<script" not in html


@pytest.mark.parametrize("url", [
    "file:///etc/passwd",
    TEMPLATES.resolve().as_uri() + "/../pyproject.toml",
    TEMPLATES.resolve().as_uri() + "/%2e%2e/pyproject.toml",
    "http://example.com/x.png",
    "https://example.com/x.css",
    "data:text/css,body{color:red}",
    "data:image/svg+xml;base64,PHN2Zy8+",
    "ftp://example.com/x",
    "file://otherhost/etc/passwd",
    TEMPLATES.resolve().as_uri() + "/does-not-exist.css",
])
def test_fetcher_refuses_everything_outside_templates(url):
    fetcher = proposal.templates_only_fetcher()
    with pytest.raises(ValueError):
        fetcher.fetch(url)
    assert fetcher.refused == [url]


def test_fetcher_serves_templates_files():
    fetcher = proposal.templates_only_fetcher()
    resp = fetcher.fetch((TEMPLATES / "proposal.css").resolve().as_uri())
    assert b"@font-face" in resp.read()
    assert resp.content_type == "text/css"
    assert fetcher.refused == []


def test_theme_rejects_non_hex_colour(tmp_path):
    bad = tmp_path / "theme.toml"
    bad.write_text('[colors]\nprimary = "red; } body { background: url(http://x)"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="colors.primary"):
        proposal.load_theme(bad)


def test_minimal_theme_renders(tmp_path):
    """A theme with only a provider name still renders (defaults for colours, no logo)."""
    for f in TEMPLATES.iterdir():
        if f.is_file() and f.name != "theme.toml":
            (tmp_path / f.name).write_bytes(f.read_bytes())
    shutil.copytree(TEMPLATES / "fonts", tmp_path / "fonts")
    (tmp_path / "theme.toml").write_text('[provider]\nname = "Outra Empresa"\n', encoding="utf-8")
    res, doc = _run(ROOT / "scenarios" / "assistant_8b_l4.toml", enrich=False)
    fetcher = proposal.templates_only_fetcher(tmp_path)
    pdf = proposal.render(res, doc, [], fetcher=fetcher, templates=tmp_path)
    assert pdf.startswith(b"%PDF") and fetcher.refused == []


def test_catalog_has_both_locales():
    pt, en = catalog("pt-BR"), catalog("en")
    assert set(pt) == set(en)
    for key in pt:
        assert isinstance(pt[key], str) and isinstance(en[key], str), key
        assert set(re.findall(r"{(\w+)}", pt[key])) == set(re.findall(r"{(\w+)}", en[key])), key


def test_formatting_by_locale():
    assert _norm(fmt.money(1234567.891, "pt-BR")) == "R$ 1.234.567,89"
    assert fmt.money(1234567.891, "en") == "R$1,234,567.89"
    assert _norm(fmt.money(1234567.891, "pt-BR", cents=False)) == "R$ 1.234.568"
    assert fmt.month_year("2027-01", "pt-BR") == "janeiro de 2027"
    assert fmt.month_year("2027-01", "en") == "January 2027"
    assert fmt.percent(0.744, "pt-BR") == "74,4%"
    assert fmt.scientific(2.54e21, "pt-BR") == "2,54 × 10²¹"


@needs_poppler
def test_cli_writes_pdf_with_scenario_and_workbook_attached(tmp_path):
    from tco.cli import main

    scenario = ROOT / "scenarios" / "assistant_8b_l4.toml"
    assert main(["run", str(scenario), "-o", str(tmp_path), "--quiet", "--formats", "json,xlsx,pdf"]) == 0
    pdf = tmp_path / "assistant_8b_l4.pdf"
    assert pdf.exists()
    if shutil.which("pdfdetach"):
        out = subprocess.run(["pdfdetach", "-list", str(pdf)], check=True, capture_output=True, text=True).stdout
        assert "assistant_8b_l4.toml" in out
        if (tmp_path / "assistant_8b_l4.xlsx").exists():
            assert "assistant_8b_l4.xlsx" in out


def _sources_text(text: str, loc: str) -> str:
    start = text.rindex(t("h_sources", loc))
    return text[start:text.index(t("h_glossary", loc), start)]


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_sources_read_for_a_client_and_keep_every_source_and_date(rendered, stem):
    """Sources are shown concise and in the locale (no raw audit notes), but every offer, its source and its date
    are still named; the full text stays in the JSON."""
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    sources = _sources_text(text, loc)
    squeeze = lambda s: re.sub(r"\s+", "", s)  # noqa: E731  (ids may wrap at a hyphen)
    for audit in ("NOT A QUOTE", "MERGED duplicate", "catalog bug", "ILLUSTRATIVE ESTIMATE", "brl_per_month"):
        assert audit not in text, audit
    if loc == "pt-BR":
        assert "undated" not in text.lower()
        assert "sem data" in sources or all(re.match(r"\d{4}-\d{2}", x["as_of"] or "") for x in
                                            doc["catalog_rows"]["offers"])
    assert t("src_full", loc) in text
    src_label = t("col_source", loc) + ":"
    offers = doc["catalog_rows"]["offers"]
    assert sources.count(src_label) >= len(offers)
    for x in offers:
        assert squeeze(x["offer"]) in squeeze(sources), x["offer"]
        m = re.match(r"\d{4}-\d{2}-\d{2}", x["as_of"] or "")
        if m:
            assert fmt.iso_date(m.group(0), loc) in sources, x["as_of"]
        # every source is still named: by the hosts it cites, or by its first clause
        hosts = proposal_sections._hosts(x["source"] or "")
        if hosts:
            assert squeeze(hosts[0]) in squeeze(sources), (x["offer"], hosts[0])


def test_concise_source_and_date():
    src = ("SkyPilot catalog https://github.com/skypilot-org/skypilot-catalog/blob/098741e7/catalogs/v6/azure/vms.csv "
           "(US regions only; undated); catalog lists AcceleratorCount=12 (catalog bug; VM has 8 GPUs). Corroborated "
           "by https://www.rmmartins.com/2026/06/11/x/ (2026-06-11)")
    assert proposal_sections._short_source(src, "pt-BR") == "github.com/skypilot-org/skypilot-catalog, rmmartins.com"
    est = "ILLUSTRATIVE ESTIMATE via dataxconnect.com; eixos.com.br; servnetuk.com/research; fp4.dev. NOT A QUOTE."
    assert proposal_sections._short_source(est, "pt-BR", estimate=True) == (
        "estimativa própria a partir de dataxconnect.com, eixos.com.br, servnetuk.com e mais 1")
    long = "meta-llama/llama-models models/llama3_1/api/sku_list.py@1768925a9d343b19459b5bc2acc893c842874179 (dim=8192)"
    assert proposal_sections._short_source(long, "en") == "meta-llama/llama-models models/llama3_1/api/sku_list.py"
    clipped = proposal_sections._short_source("word " * 40, "en")
    assert clipped.endswith("…") and len(clipped) <= proposal_sections.SOURCE_CAP
    assert proposal_sections._as_of("undated snapshot (skypilot-catalog@017e2502)", "pt-BR") == "sem data"
    assert proposal_sections._as_of("undated (blog); first tier corroborated 2026-04", "pt-BR") == (
        "sem data (conferido em abr. de 2026)")
    assert proposal_sections._as_of("2025-11-30", "pt-BR") == "30/11/2025"
    assert proposal_sections._as_of(None, "en") == "undated"


def test_tax_rates_keep_their_digits():
    assert fmt.percent_short(0.0925, "pt-BR") == "9,25%"
    assert fmt.percent_short(0.15, "pt-BR") == "15%"
    assert fmt.percent_short(0.029, "en") == "2.9%"


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_rates_ids_and_headers_in_the_locale(rendered, stem):
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    for prof in doc["catalog_rows"]["taxes"]:
        rate = (prof.get("rates") or {}).get("pis_cofins_rate")
        if rate:
            assert f"PIS/COFINS {fmt.percent_short(rate, loc)}" in text
    if any(abs(((p.get("rates") or {}).get("pis_cofins_rate") or 0) - 0.0925) < 1e-12
           for p in doc["catalog_rows"]["taxes"]):
        assert ("9,25%" if loc == "pt-BR" else "9.25%") in text
    for raw in ("nvlink_bridge", "interconexão nvlink", "interconexão pcie", "n+1"):
        assert raw not in text, raw
    assert "\u2011" in t("wl_gpu_hours", loc)  # a non-breaking hyphen: the header never breaks at it
    assert not re.search(r"GPU-\s?hour|GPU-\s?hora", text)


def _opt(name, kind, tco):
    return {"name": name, "kind": kind, "tco_brl": {"deterministic": tco}}


def test_comparators_treat_hybrid_as_neither_kind():
    hyb, ded, cld, cld2 = (_opt("H", "hybrid", 5), _opt("D", "dedicated", 9), _opt("C", "cloud", 14),
                           _opt("C2", "cloud", 20))
    assert proposal_sections._comparators([hyb, ded, cld, cld2]) == [("dedicated", ded), ("cloud", cld)]
    assert proposal_sections._comparators([ded, hyb, cld]) == [("cloud", cld)]
    assert proposal_sections._comparators([cld, hyb, cld2, ded]) == [("dedicated", ded)]
    assert proposal_sections._comparators([cld, hyb]) == []


def test_separation_sentence_follows_the_recommendation_not_the_biggest_saving():
    ranked = [_opt("Ded", "dedicated", 2.5e6), _opt("Ded shared", "dedicated", 3.3e6), _opt("AWS", "cloud", 9.7e6),
              _opt("Azure", "cloud", 23.7e6)]
    sep = [{"option": "Ded", "chosen": None, "saving_brl": None, "shared_brl": None, "separate_brl": None},
           {"option": "Ded shared", "chosen": "shared", "saving_brl": -1e6, "shared_brl": 3.3e6, "separate_brl": 4.3e6},
           {"option": "AWS", "chosen": "separate", "saving_brl": 48e3, "shared_brl": 9.75e6, "separate_brl": 9.7e6},
           {"option": "Azure", "chosen": "separate", "saving_brl": 387e3, "shared_brl": 24e6, "separate_brl": 23.7e6}]
    text = " ".join(proposal_sections._separation_sentences(sep, ranked, "pt-BR"))
    assert "Azure" not in text and "Ded shared" not in text
    assert "AWS" in text and "R$\xa048.000" in text and "por definição" in text
    # nothing comparable: nothing said
    sep = [r | {"saving_brl": None, "chosen": "separate"} for r in sep]
    assert proposal_sections._separation_sentences(sep, ranked, "pt-BR") == []


@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_summary_compares_with_each_pure_kind_it_is_not(rendered, stem):
    """A cloud recommendation meets the cheapest dedicated option, a dedicated one the cheapest cloud option, a
    hybrid one both."""
    pdf, doc, _ = rendered[stem]
    text = _text(pdf)
    loc = doc["scenario"]["locale"]
    ranked = sorted(doc["options"], key=lambda o: o["tco_brl"]["deterministic"])
    rec = ranked[0]
    for kind in {"cloud", "dedicated"} - {rec["kind"]}:
        other = next((o for o in ranked[1:] if o["kind"] == kind), None)
        if other is None:
            continue
        tco = lambda o: o["tco_brl"]["deterministic"]  # noqa: E731
        sentence = t(f"s_vs_{kind}", loc, saving=fmt.money(tco(other) - tco(rec), loc, False),
                     share=fmt.percent((tco(other) - tco(rec)) / tco(other), loc), other=other["name"],
                     other_tco=fmt.money(tco(other), loc, False))
        assert _norm(sentence) in text, sentence
