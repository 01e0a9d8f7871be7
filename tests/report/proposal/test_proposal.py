"""The PDF proposal, checked as its readers see it: text read back with pdftotext (per page, so the
six-page body can be counted), fonts with pdffonts, attachments with pdfdetach (poppler-utils); the
offer's arithmetic and the typed view by hand. Skipped only when pdftotext is absent."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import tco
from tco.errors import InputError
from tco.report import fmt, notices, proposal, view
from tco.report.proposal import notes_txt
from tco.report.proposal import sources as proposal_sources
from tco.report.i18n import catalog, t
from tco.scenario import load_text

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
TEMPLATES = ROOT / "tco" / "templates"
LOCALES = ("pt-BR", "en")
BODY_PAGES = 6

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) not installed")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("\xa0", " ").replace("\u202f", " "))


def _page_texts(pdf: Path) -> list[str]:
    """pdftotext of each page, whitespace collapsed."""
    out = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    return [_norm(p) for p in out.split("\f")][:-1] if out.endswith("\f") else [_norm(p) for p in out.split("\f")]


def _text(pdf: Path) -> str:
    return " ".join(_page_texts(pdf))


def _with_locale(res, loc: str):
    sc = res.scenario
    return dataclasses.replace(res, scenario=sc.model_copy(update={"scenario": sc.scenario.model_copy(
        update={"locale": loc})}))


@pytest.fixture(scope="module")
def results(example_runs):
    """Each example run as the CLI runs it (plan search and analyses), with few FX paths (conftest: each when first
    asked, once per session)."""
    return example_runs


@pytest.fixture(scope="module")
def rendered(results, tmp_path_factory):
    """Every example in both locales: {"stem:loc": {"pdf", "fetcher", "res"}}; the scenario's own locale also
    under "stem"."""
    out = tmp_path_factory.mktemp("proposals")
    workbook = out / "model.xlsx"
    workbook.write_bytes(b"PK\x03\x04 stand-in workbook")
    done = {}
    for path in SCENARIOS:
        for loc in LOCALES:
            res = _with_locale(results[path.stem], loc)
            fetcher = proposal.templates_only_fetcher()
            pdf = out / f"{path.stem}.{loc}.pdf"
            pdf.write_bytes(proposal.render(res, [path, workbook], fetcher=fetcher))
            done[f"{path.stem}:{loc}"] = {"pdf": pdf, "fetcher": fetcher, "res": res}
        done[path.stem] = done[f"{path.stem}:{results[path.stem].scenario.scenario.locale}"]
    return done


CASES = [f"{p.stem}:{loc}" for p in SCENARIOS for loc in LOCALES]


def _body(pages: list[str], loc: str) -> list[str]:
    """The pages before the annex (its heading opens the first annex page)."""
    head = _norm(t("pv_h_annex", loc))
    first = next(i for i, p in enumerate(pages) if head in p)
    return pages[:first]


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("case", CASES)
def test_body_is_at_most_six_pages_and_holds_offer_bridge_and_risks(rendered, case):
    loc = case.split(":")[1]
    pages = _page_texts(rendered[case]["pdf"])
    body = _body(pages, loc)
    assert 1 < len(body) <= BODY_PAGES
    text = " ".join(body)
    for key in ("pv_h_offer", "pv_col_item", "pv_col_qty", "pv_col_unit_month", "pv_t_term", "pv_t_adjust",
                "pv_t_taxes", "pv_t_validity", "pv_t_signatory", "pv_h_bridge", "pv_b_list", "pv_b_taxes",
                "pv_b_fleet", "pv_b_tco", "pv_h_risks", "pv_r_col_risk", "pv_r_col_mitigation", "pv_h_next",
                "pv_h_comparison", "pv_h_case"):
        assert _norm(t(key, loc)) in text, key
    assert "IPCA" in text


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("case", CASES)
def test_offer_prices_and_totals_match_the_results(rendered, case):
    """The derived or written items, at the prices the engine used; the recommendation's TCO as the engine's."""
    loc = case.split(":")[1]
    res = rendered[case]["res"]
    v = view.build(res)
    text = " ".join(_body(_page_texts(rendered[case]["pdf"]), loc))
    assert _norm(fmt.money(v.recommended.tco_brl, loc, False)) in text
    assert _norm(fmt.money(v.recommended.gpu_hour_brl["inference"], loc)) in text
    from tco.report.proposal.offer import offered

    o = offered(v)
    assert _norm(fmt.money(o.inference.price, loc, False)) in text  # R$ per month per server
    for p in [p for p in v.plans if p.provider != "hybrid" and p.serving_kind == "cloud"]:
        assert _norm(fmt.money(p.tco_brl, loc, False)) in text


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("case", CASES)
def test_no_engine_notice_and_no_jargon_in_the_body(rendered, case):
    loc = case.split(":")[1]
    res = rendered[case]["res"]
    pages = _page_texts(rendered[case]["pdf"])
    whole = " ".join(pages)
    for n in res.notices:
        assert _norm(notices.text(n, loc))[:60] not in whole, n.code
    body = " ".join(_body(pages, loc))
    for word in ("browniano", "Brownian", "6·N·D", "github.com", "rmmartins", "dev.to", "mês(es)", "month(s)"):
        assert word not in body, word
    for o in res.scenario.options:  # raw offer ids never reach the body
        assert o.inference_offer not in body


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("subsetter", ["installed", "fonttools"])
def test_two_runs_give_the_same_bytes(results, tmp_path, monkeypatch, subsetter):
    """Two renders an hour apart by the clock give the same bytes, whichever library subsets the fonts: with
    `fonttools` the HarfBuzz subsetter is switched off (as on a machine without libharfbuzz-subset0), and the clock
    fontTools stamps into each subset's head.modified moves by 3,600 s between the renders."""
    import time as real_time

    from fontTools.misc import timeTools
    from tco.report.proposal.weasy import weasyprint

    weasyprint()
    from weasyprint.pdf import fonts

    if subsetter == "fonttools":
        monkeypatch.setattr(fonts, "harfbuzz_subset", None)
    clock = {"now": real_time.time()}

    class Clock:
        @staticmethod
        def time():
            return clock["now"]

    monkeypatch.setattr(timeTools, "time", Clock)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    path = ROOT / "scenarios" / "assistant_8b_l4.toml"
    res = results[path.stem]
    first = proposal.render(res, [path])
    clock["now"] += 3600.0
    second = proposal.render(res, [path])
    assert first == second
    assert b"CreationDate" in first and b"D:20270301" in first  # the start month, not the clock
    assert "SOURCE_DATE_EPOCH" not in __import__("os").environ  # the render put the environment back


def test_document_date_from_proposal_or_start_month():
    from tco.report.words import document_date

    src = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
    assert document_date(load_text(src)) == dt.date(2027, 3, 1)
    seed = load_text((ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8"))
    assert document_date(seed) == dt.date(2026, 11, 30)


def test_attached_scenario_has_no_comment_lines(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("# internal: margin 40%\n[scenario]\nname = 'x' # kept: not a whole-line comment\n  # indented\n")
    assert proposal.scenario_bytes(f, keep_comments=False) == b"[scenario]\nname = 'x' # kept: not a whole-line comment\n"
    assert proposal.scenario_bytes(f, keep_comments=True) == f.read_bytes()


def test_notes_carry_every_notice_in_the_sellers_language(results):
    res = results["seed_70b_h200"]
    text = notes_txt.render(res)
    for line in notices.grouped(list(res.notices), "pt-BR", t("and_last", "pt-BR")):
        assert line in text
    assert t("nt_title", "pt-BR", name=res.scenario.scenario.name) in text


@pytest.mark.slow
def test_cli_writes_notes_beside_the_pdf(tmp_path):
    from tco.cli import main

    scenario = ROOT / "scenarios" / "pretrain_burst.toml"
    assert main(["run", str(scenario), "-o", str(tmp_path), "--quiet", "--formats", "pdf", "--paths", "200",
                 "--no-sensitivity"]) == 0
    notes = (tmp_path / "pretrain_burst.notes.txt").read_text(encoding="utf-8")
    assert notes.startswith("Notes for the seller") and "estimated CBS/IBS" in notes
    assert (tmp_path / "pretrain_burst.pdf").exists()


# ---------------------------------------------------------------------------------------------
# The [proposal] section and the option label: validated like every section

PROPOSAL = """
[proposal]
number = "NE-1"
date = 2026-11-30
valid_until = 2026-12-30
min_term_months = 12
adjustment_index = "IPCA"
adjustment_month = 3
[[proposal.items]]
description = "Servidor dedicado com 1 GPU H200 NVL"
quantity = 4
brl_per_month = 15300
setup_brl = 1530
firm_quote = true
"""


def _seed_text(extra: str = "") -> str:
    src = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
    return src[:src.index("[proposal]")] + extra


def test_proposal_section_is_read():
    sc = load_text(_seed_text(PROPOSAL))
    p = sc.proposal
    assert (p.number, p.date, p.items[0].quantity, p.items[0].brl_per_month, p.items[0].firm_quote) == (
        "NE-1", dt.date(2026, 11, 30), 4, 15300.0, True)


@pytest.mark.parametrize("bad, key, words", [
    ('brl_per_mont = 1', "proposal.items[0].brl_per_mont", "did you mean 'brl_per_month'"),
    ('quantity = "4"', "proposal.items[0].quantity", "integer"),
    ('quantity = 0', "proposal.items[0].quantity", "greater than or equal to 1"),
])
def test_proposal_errors_name_file_line_and_key(bad, key, words):
    text = _seed_text(PROPOSAL.replace("quantity = 4", bad) if "quantity" in bad else PROPOSAL + bad + "\n")
    with pytest.raises(InputError) as exc:
        load_text(text, "s.toml")
    msg = str(exc.value)
    assert f"[{key}]" in msg and words in msg and re.search(r"s\.toml:\d+:", msg)


def test_proposal_validity_before_date_is_refused():
    with pytest.raises(InputError, match="valid_until 2026-11-01 is before"):
        load_text(_seed_text(PROPOSAL.replace("valid_until = 2026-12-30", "valid_until = 2026-11-01")), "s.toml")


def test_option_label_is_limited_and_shown():
    src = _seed_text()
    with pytest.raises(InputError, match="at most 40 characters"):
        load_text(src.replace('label = "AWS p5en sob demanda"', 'label = "' + "x" * 41 + '"'), "s.toml")


def test_offer_from_written_items_by_hand(results):
    """Monthly total = Σ quantity × R$/month; setup = Σ quantity × setup; the adjustment month named."""
    from tco.report.proposal.offer import offer

    sc = load_text(_seed_text(PROPOSAL))
    res = dataclasses.replace(results["seed_70b_h200"], scenario=sc)
    v = view.build(res)
    theme = proposal.load_theme()
    out = offer(v, sc, dt.date(2026, 11, 30), theme, "pt-BR")
    expected_month = 4 * 15300
    expected_setup = 4 * 1530
    assert _norm(out["table"]["foot"][3]) == _norm(fmt.money(expected_month, "pt-BR", False)) == "R$ 61.200"
    assert _norm(out["table"]["foot"][4]) == _norm(fmt.money(expected_setup, "pt-BR", False)) == "R$ 6.120"
    terms = dict(out["terms"])
    assert "março" in terms[t("pv_t_adjust", "pt-BR")] and terms[t("pv_t_term", "pt-BR")] == "12 meses"
    assert terms[t("pv_t_validity", "pt-BR")] == "30 de dezembro de 2026"
    assert out["estimate_note"] is None  # every item a firm quote: no estimate caveat


def test_derived_offer_is_the_offered_options_fleet(results):
    """No [proposal]: the items are the offered option's dedicated serving fleet, quantity = its peak servers."""
    from tco.report.proposal.offer import offer, offered

    res = results["assistant_8b_l4"]
    v = view.build(res)
    o = offered(v)
    assert o.inference.kind == "dedicated"
    out = offer(v, res.scenario, dt.date(2027, 3, 1), proposal.load_theme(), "pt-BR")
    row = out["table"]["rows"][0]
    assert row[1] == fmt.number(o.peak_servers, "pt-BR")
    assert _norm(row[3]) == _norm(fmt.money(o.peak_servers * o.inference.price, "pt-BR", False))
    assert out["estimate_note"] == t("pv_estimate_once", "pt-BR")
    terms = dict(out["terms"])
    assert terms[t("pv_t_validity", "pt-BR")] == "31 de março de 2027"  # 1 March + 30 days


# ---------------------------------------------------------------------------------------------
# The typed view and the plain words


def test_view_reads_the_results(results):
    res = results["seed_70b_h200"]
    v = view.build(res)
    by = {o.name: o for o in res.options}
    for o in v.options:
        assert o.tco_brl == by[o.name].tco.deterministic
        assert sum(o.yearly_brl) == pytest.approx(o.tco_brl)
        assert o.label == (next(x for x in res.scenario.options if x.name == o.name).label or o.name)
    assert list(v.ranked) == sorted(v.ranked, key=lambda n: v.option(n).tco_brl)
    assert [p.tco_brl for p in v.plans] == sorted(p.tco_brl for p in v.plans)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.recommended.tco_brl = 0.0


def test_yearly_blocks_by_hand():
    import numpy as np

    assert view.yearly(np.array([1.0] * 12 + [2.0] * 12 + [3.0] * 6)) == (12.0, 24.0, 18.0)


def test_price_per_gpu_hour_by_hand():
    f = view.FleetView("br-dedicated/sp/x", "dedicated", "br-dedicated", "H200-NVL-141GB", 1, 15300.0, "BRL/month",
                       "BRL", "monthly", 1530.0, 3, "estimate", "", "")
    assert f.price_per_gpu_hour == pytest.approx(15300.0 / 730.0)
    g = dataclasses.replace(f, gpus_per_server=8, price=63.296, price_unit="USD/h", currency="USD")
    assert g.price_per_gpu_hour == pytest.approx(63.296 / 8)


def test_one_comparison_convention():
    from tco.report.words import fleet_name, gpu_name, multiple

    assert multiple(310.0, 100.0, "pt-BR") == "3,1× mais cara"
    assert multiple(50.0, 100.0, "pt-BR") == "2,0× mais barata"
    assert multiple(310.0, 100.0, "en") == "3.1× more expensive"
    assert gpu_name("H200-NVL-141GB") == "H200 NVL" and gpu_name("L4") == "L4"
    f = view.FleetView("aws/us-east-1/p5en.48xlarge", "cloud", "aws", "H200-SXM-141GB", 8, 63.3, "USD/h", "USD",
                       "on_demand", 0.0, 0, "listed", "", "")
    assert fleet_name(f, "pt-BR") == "AWS p5en.48xlarge com 8 GPUs H200 SXM"


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_fonts_embedded(rendered, stem):
    pdf = rendered[stem]["pdf"]
    out = subprocess.run(["pdffonts", str(pdf)], check=True, capture_output=True, text=True).stdout
    rows = out.splitlines()[2:]
    assert rows, "no fonts listed"
    for row in rows:
        # columns: name type encoding emb sub uni object-id generation
        assert re.search(r"\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$", row), row
        assert "DejaVu" in row, row


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_attachments_and_fetches(rendered, stem):
    pdf, fetcher = rendered[stem]["pdf"], rendered[stem]["fetcher"]
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
    src = re.sub(r"^label = .*\n", "", src, flags=re.M)  # options shown by name
    src = src.replace('name = "AWS São Paulo — g6.xlarge (L4)"', f"name = '{HOSTILE_OPTION}'")
    path = tmp_path_factory.mktemp("hostile") / "hostile.toml"
    path.write_text(src, encoding="utf-8")
    res = tco.run(path, paths=200, analysis=False, plans=False)  # the proposal renders without the optional analyses
    fetcher = proposal.templates_only_fetcher()
    pdf = path.with_suffix(".pdf")
    pdf.write_bytes(proposal.render(res, [path], fetcher=fetcher))
    theme = proposal.load_theme()
    html = proposal.render_html(proposal.context(res, [path], theme))
    return pdf, fetcher, html


@pytest.mark.slow
@needs_poppler
def test_scenario_text_shows_literally_and_fetches_nothing_outside(hostile):
    pdf, fetcher, html = hostile
    text = _text(pdf)
    assert HOSTILE_CLIENT in text
    assert HOSTILE_NAME in text
    assert re.sub(r"\s", "", HOSTILE_OPTION) in re.sub(r"\s", "", text)  # wrapped in a narrow column
    assert fetcher.refused == []
    base = TEMPLATES.resolve().as_uri() + "/"
    assert all(u.startswith(base) for u in fetcher.requested)
    assert not any("passwd" in u or "example.com" in u for u in fetcher.requested)


@pytest.mark.slow
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


@pytest.mark.slow
def test_minimal_theme_renders(tmp_path):
    """A theme with only a provider name still renders (defaults for colours, no logo)."""
    for f in TEMPLATES.iterdir():
        if f.is_file() and f.name != "theme.toml":
            (tmp_path / f.name).write_bytes(f.read_bytes())
    shutil.copytree(TEMPLATES / "fonts", tmp_path / "fonts")
    (tmp_path / "theme.toml").write_text('[provider]\nname = "Outra Empresa"\n', encoding="utf-8")
    res = tco.run(ROOT / "scenarios" / "assistant_8b_l4.toml", paths=200, analysis=False, plans=False)
    fetcher = proposal.templates_only_fetcher(tmp_path)
    pdf = proposal.render(res, [], fetcher=fetcher, templates=tmp_path)
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


@pytest.mark.slow
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


def test_concise_source_and_date():
    src = ("SkyPilot catalog https://github.com/skypilot-org/skypilot-catalog/blob/098741e7/catalogs/v6/azure/vms.csv "
           "(US regions only; undated); catalog lists AcceleratorCount=12 (catalog bug; VM has 8 GPUs). Corroborated "
           "by https://www.rmmartins.com/2026/06/11/x/ (2026-06-11)")
    assert proposal_sources._short_source(src, "pt-BR") == "github.com/skypilot-org/skypilot-catalog, rmmartins.com"
    est = "ILLUSTRATIVE ESTIMATE via dataxconnect.com; eixos.com.br; servnetuk.com/research; fp4.dev. NOT A QUOTE."
    assert proposal_sources._short_source(est, "pt-BR", estimate=True) == (
        "estimativa própria a partir de dataxconnect.com, eixos.com.br, servnetuk.com e mais 1")
    long = "meta-llama/llama-models models/llama3_1/api/sku_list.py@1768925a9d343b19459b5bc2acc893c842874179 (dim=8192)"
    assert proposal_sources._short_source(long, "en") == "meta-llama/llama-models models/llama3_1/api/sku_list.py"
    clipped = proposal_sources._short_source("word " * 40, "en")
    assert clipped.endswith("…") and len(clipped) <= proposal_sources.SOURCE_CAP
    assert proposal_sources._as_of("undated snapshot (skypilot-catalog@017e2502)", "pt-BR") == "sem data"
    assert proposal_sources._as_of("undated (blog); first tier corroborated 2026-04", "pt-BR") == (
        "sem data (conferido em abr. de 2026)")
    assert proposal_sources._as_of("2025-11-30", "pt-BR") == "30/11/2025"
    assert proposal_sources._as_of(None, "en") == "undated"


def test_tax_rates_keep_their_digits():
    assert fmt.percent_short(0.0925, "pt-BR") == "9,25%"
    assert fmt.percent_short(0.15, "pt-BR") == "15%"
    assert fmt.percent_short(0.029, "en") == "2.9%"




def test_proposal_schema_keeps_the_scenario_rules():
    """The [proposal] schema and the scenario's share one declaration of the base types (tco.scenario.types)."""
    from tco import scenario
    from tco.scenario import proposal as scenario_proposal
    from tco.scenario import types as scenario_types

    for name in ("Name", "Line", "Text", "Frozen"):
        assert getattr(scenario_proposal, name) is getattr(scenario_types, name)
        assert getattr(scenario, name) is getattr(scenario_types, name)
    with pytest.raises(InputError, match="control character"):
        load_text(_seed_text(PROPOSAL.replace('number = "NE-1"', 'number = "NE\\u0007"')), "s.toml")


def test_attached_workbook_dates_are_the_documents(tmp_path):
    """openpyxl stamps the workbook with the clock: the attached copy carries the document date instead."""
    import zipfile

    def book(name: str, when: str) -> Path:
        f = tmp_path / name
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("xl/workbook.xml", "<workbook/>")
            z.writestr("docProps/core.xml", f'<cp:coreProperties><dcterms:created xsi:type="dcterms:W3CDTF">{when}'
                                            f'</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">{when}'
                                            "</dcterms:modified></cp:coreProperties>")
        return f

    stamp = dt.datetime(2027, 3, 1, tzinfo=dt.timezone.utc)
    a = proposal.workbook_bytes(book("a.xlsx", "2026-11-30T19:56:28Z"), stamp)
    b = proposal.workbook_bytes(book("b.xlsx", "2026-12-01T08:00:00Z"), stamp)
    assert a == b
    with zipfile.ZipFile(__import__("io").BytesIO(a)) as z:
        core = z.read("docProps/core.xml").decode()
        assert core.count("2027-03-01T00:00:00Z") == 2 and z.read("xl/workbook.xml") == b"<workbook/>"


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("case", CASES)
def test_client_options_footer_and_every_tco_in_whole_reais(rendered, case):
    """Client, scenario, every ranked option (by its label) with its TCO in whole reais, the page footer and
    dates in the locale (kept from the first proposal's test, for the new layout)."""
    loc = case.split(":")[1]
    res = rendered[case]["res"]
    pages = _page_texts(rendered[case]["pdf"])
    text = " ".join(pages)
    v = view.build(res)
    assert _norm(v.client) in text and _norm(v.name).split()[0] in text
    for o in v.ranked_options:
        assert _norm(o.label) in text, o.label
        assert _norm(fmt.money(o.tco_brl, loc, False)) in text, o.label
    assert f"{t('page', loc)} 2 {t('page_of', loc)} {len(pages)}" in text
    assert _norm(fmt.month_year(v.months[0], loc)) in text
    cents = r"R\$ ?\d{1,3}(\.\d{3})+,\d\d" if loc == "pt-BR" else r"R\$ ?\d{1,3}(,\d{3})+\.\d\d"
    assert re.search(cents, " ".join(_body(pages, loc))) is None  # amounts in whole reais; unit prices may have cents


def test_one_environment_per_templates_folder_and_edits_are_seen(tmp_path):
    """The Jinja environment is made once per folder (templates compiled once) with autoescape on; a template
    edited afterwards is read again."""
    import os

    (tmp_path / "proposal.html.j2").write_text("<p>{{ x }}</p>", encoding="utf-8")
    assert proposal.render_html({"x": "<b>"}, tmp_path) == "<p>&lt;b&gt;</p>"
    env = proposal._environment(str(tmp_path.resolve()))
    assert env.autoescape and proposal._environment(str(tmp_path.resolve())) is env
    (tmp_path / "proposal.html.j2").write_text("<div>{{ x }}</div>", encoding="utf-8")
    later = os.stat(tmp_path / "proposal.html.j2").st_mtime + 5
    os.utime(tmp_path / "proposal.html.j2", (later, later))
    assert proposal.render_html({"x": "&"}, tmp_path) == "<div>&amp;</div>"


# --- issue 23: the client's residency respected; no page claims what the recommended option breaks ----------------


@needs_poppler
@pytest.mark.slow
def test_the_seed_with_and_without_its_residency_constraint(tmp_path):
    from tco import api

    inp = api.load(ROOT / "scenarios" / "seed_70b_h200.toml")
    assert inp.scenario.proposal.constraints.data_in_brazil == "both"
    free = dataclasses.replace(inp, scenario=inp.scenario.model_copy(update={
        "proposal": inp.scenario.proposal.model_copy(update={"constraints": None})}))
    texts = {}
    for case, i in (("brazil", inp), ("free", free)):
        res = api.run(i, analysis=False)
        pdf = tmp_path / f"{case}.pdf"
        pdf.write_bytes(proposal.render(res))
        texts[case] = " ".join(_body(_page_texts(pdf), "pt-BR"))
    brazil, free_text = texts["brazil"], texts["free"]
    # with the constraint: training in São Paulo, the data stays in Brazil, and the pages say so
    assert "Treino AWS SP + serviço dedicado NVL" in brazil
    assert "não há transferência internacional de dados" in brazil
    assert "us-east-1" not in brazil.split("Riscos e mitigação")[0]  # no page before the risks sends data abroad
    assert "nenhuma oferta no Brasil, e o cliente exige os dados no Brasil" in brazil  # who is left out, and why
    # without it: the cheaper us-east-1 training is recommended, and every residency sentence says it goes abroad
    assert "Treino AWS + serviço dedicado H200 NVL" in free_text
    assert "não há transferência internacional" not in free_text
    assert "há transferência internacional de dados (LGPD, art. 33)" in free_text
    assert "o treinamento roda fora do Brasil (AWS us-east-1)" in free_text
