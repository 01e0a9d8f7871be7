"""tco.report.offer_checks: the offer's items against the fleet the TCO was costed on (review H1), quotes past
their validity (M9), and unverified or undated prices under the recommendation or the best plan (M7); each read
back from the PDF with pdftotext, from notes.txt and from the check itself, with the figures worked by hand."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import tco
from tco.report import proposal, view
from tco.report.proposal import notes_txt
from tco.report import offer_checks as proposal_checks
from tco.report.i18n import t
from tco.report.words import money

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) not installed")


def _pdf_text(res, tmp: Path) -> str:
    pdf = tmp / "p.pdf"
    pdf.write_bytes(proposal.render(res))
    out = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    return re.sub(r"\s+", " ", out.replace("\xa0", " ").replace("\u202f", " "))


@pytest.fixture(scope="module")
def cheap_items(tmp_path_factory):
    """The seed offering 2 servers at R$ 9.999 while its TCO is costed on 7 at R$ 17.400 (review H1)."""
    text = SEED.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^brl_per_month = 17400$", "brl_per_month = 9999", text)
    text = re.sub(r"(?m)^quantity = 7$", "quantity = 2", text)
    path = tmp_path_factory.mktemp("h1") / "x.toml"
    path.write_text(text, encoding="utf-8")
    return tco.run(path, paths=50, sensitivity=False)


@pytest.fixture(scope="module")
def expired(tmp_path_factory):
    """The L4 example whose dedicated option's price is a quote valid until 2000-01-01 (review M9)."""
    text = SMALL.read_text(encoding="utf-8").replace(
        'fleet = "shared"\n', 'fleet = "shared"\nbrl_per_month = 10000\nquote_valid_until = 2000-01-01\n', 1)
    path = tmp_path_factory.mktemp("m9") / "q.toml"
    path.write_text(text, encoding="utf-8")
    return tco.run(path, paths=50, sensitivity=False)


def test_items_that_differ_from_the_costed_fleet_give_a_notice(cheap_items):
    v = view.build(cheap_items)
    found = [n for n in proposal_checks.notices(v, cheap_items.scenario) if n.code == "proposal_items_differ"]
    assert len(found) == 1 and found[0].option == v.recommended.name
    peak = v.recommended.peak_servers  # 7 of the 1x H200 NVL servers since the prompt steps stall the batch (5 before)
    assert found[0].params == {"items": 2 * 9999, "costed": peak * 17400, "items_setup": 2 * 1740,
                               "costed_setup": peak * 1740}
    assert peak == 7 and v.recommended.inference.price == 17400


def test_the_seed_items_match_its_costed_fleet(seed_results):
    v = view.build(seed_results)
    assert not [n for n in proposal_checks.notices(v, seed_results.scenario) if n.code == "proposal_items_differ"]


@pytest.mark.slow
@needs_poppler
def test_the_pdf_and_notes_say_the_items_differ(cheap_items, tmp_path):
    text = _pdf_text(cheap_items, tmp_path)
    said = t("pv_caveat_items", "pt-BR", items=money(2 * 9999, "pt-BR"), costed=money(7 * 17400, "pt-BR"))
    assert said.replace("\xa0", " ") in text
    notes = notes_txt.render(cheap_items)
    notes = notes.replace("\xa0", " ")
    assert "R$ 19.998" in notes and "R$ 121.800" in notes and "R$ 12.180" in notes  # 7 × 17.400 and 7 × 1.740


def test_an_expired_quote_gives_a_notice(expired):
    v = view.build(expired)
    found = [n for n in proposal_checks.notices(v, expired.scenario) if n.code == "quote_expired"]
    assert [n.params["until"] for n in found] == ["2000-01-01"]
    assert found[0].params["date"] == "2027-03-01"  # no [proposal].date: the first day of the start month
    from tco.report import notices as notice_text

    assert "venceu em 01/01/2000, antes da data da proposta (01/03/2027)" in notice_text.line(found[0], "pt-BR")
    assert "expired on Jan 1, 2000, before the proposal's date (Mar 1, 2027)" in notice_text.line(found[0], "en")


@pytest.mark.slow
@needs_poppler
def test_the_pdf_calls_an_expired_quote_an_expired_quote(expired, tmp_path):
    text = _pdf_text(expired, tmp_path)
    assert t("pv_quote_expired", "pt-BR") in text  # the sources' status column
    assert "01/01/2000" in text and "venceu" in text  # the offer page's caveat
    from tco.report.proposal.offer import _items, offered
    from tco.report.words import document_date

    items, derived = _items(None, offered(view.build(expired)), "pt-BR", document_date(expired.scenario))
    assert derived and [i["firm"] for i in items] == [False]  # never shown as a firm quote


def test_the_best_plan_on_an_unverified_undated_price_is_said(seed_results, small_run):
    v = view.build(small_run)
    best = small_run.analysis.plans.overall.best.training
    found = [n for n in proposal_checks.notices(v, small_run.scenario) if n.code == "plan_unverified"]
    assert [n.params for n in found] == [{"offer": best.offer, "status": best.status, "as_of": best.as_of}]
    assert (best.status, best.as_of) == ("unverified", "undated")
    assert any(best.offer in line for line in notes_txt.render(small_run).splitlines())


def test_a_listed_price_without_date_under_the_recommendation_is_said(seed_results):
    import dataclasses

    v = view.build(seed_results)
    rec = v.recommended
    undated = dataclasses.replace(rec, training=dataclasses.replace(rec.training, status="listed", as_of="undated"))
    assert [n.params["offer"] for n in proposal_checks.recommended_notices(undated)] == [rec.training.offer]
    dated = dataclasses.replace(rec, training=dataclasses.replace(rec.training, status="listed", as_of="2026-07-01"))
    assert proposal_checks.recommended_notices(dated) == []
