"""tco.report.proposal.sources: a catalog source and date as the proposal's sources table shows them.

The annex reads ``_short_source`` and ``_as_of`` (the module's interface, underscored because only the proposal
uses them). Hand cases for hosts (www. dropped, GitHub repositories kept, e-mail addresses not hosts, each host once in
order of first mention), first clauses and dates; properties over arbitrary text and over every source in the
shipped catalog: the hosts shown are named in the source, at most three and "N more", a clause never longer than
the cap."""

from __future__ import annotations

import re

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report.i18n import t
from tco.report.proposal.sources import SOURCE_CAP, _as_of, _short_source


def test_hosts_once_each_in_order_without_www():
    src = "see https://WWW.Example.com/x and example.com again; then docs.aws.amazon.com"
    assert _short_source(src, "en") == "example.com, docs.aws.amazon.com"


def test_a_github_link_names_its_repository():
    src = "https://github.com/skypilot-org/skypilot-catalog/blob/main/x.csv and https://github.com/owner"
    assert _short_source(src, "en") == "github.com/skypilot-org/skypilot-catalog, github.com"


def test_an_email_address_is_not_a_host():
    assert _short_source("quote by e-mail from sales@provider.com.br, 2026", "en") == (
        "quote by e-mail from sales@provider.com.br, 2026")


def test_brazilian_domains_keep_their_country_suffix():
    assert _short_source("ICMS SP (sefaz.sp.gov.br) and eixos.com.br", "pt-BR") == "sefaz.sp.gov.br, eixos.com.br"


def test_more_than_three_hosts_counts_the_rest():
    assert _short_source("a.com b.com c.com d.com e.com", "en") == "a.com, b.com, c.com" + t("src_more", "en", n=2)
    assert _short_source("a.com b.com c.com d.com", "pt-BR") == "a.com, b.com, c.com e mais 1"


def test_an_estimate_says_it_is_our_own():
    assert _short_source("dataxconnect.com", "en", estimate=True) == t("src_estimate_from", "en",
                                                                          hosts="dataxconnect.com")


def test_without_hosts_the_first_clause():
    assert _short_source("AWS Price List API (bulk), 2025-11-30; fetched", "en") == "AWS Price List API"
    assert _short_source("reference: Banco Central do Brasil. Focus report", "en") == "Banco Central do Brasil"
    assert _short_source("Provisional: vendor sheet: 'H200 NVL'", "en") == "vendor sheet"


def test_a_long_clause_is_cut_at_a_word_with_an_ellipsis():
    src = "one two three " * 10
    out = _short_source(src, "en")
    assert out.endswith("…") and len(out) <= SOURCE_CAP
    assert src.startswith(out[:-1])  # cut between words
    assert _short_source("x" * 200, "en") == "x" * (SOURCE_CAP - 1) + "…"  # one long word: cut inside it


def test_no_source_is_a_dash():
    assert _short_source("", "en") == "—" and _short_source(None, "pt-BR") == "—"


def test_a_blank_source_is_a_dash():
    # Was '' (an empty cell) for a source of only spaces, where an absent source gives the dash.
    assert _short_source("   ", "en") == "—" and _short_source("\t \n", "pt-BR") == "—"


def test_dates():
    assert _as_of("2025-11-30", "pt-BR") == "30/11/2025"
    assert _as_of("2025-11-30", "en") == "Nov 30, 2025"
    assert _as_of("2025-11", "pt-BR") == "nov. de 2025"
    assert _as_of("2025-11-30 (list page)", "en") == "Nov 30, 2025"
    assert _as_of(None, "pt-BR") == "sem data" and _as_of("", "en") == "undated"
    assert _as_of("undated", "en") == "undated"
    assert _as_of("undated; checked 2026-04-02", "en") == t("as_of_undated_checked", "en", date="Apr 2, 2026")
    # neither a date nor "undated": its first clause, at most 32 characters
    assert _as_of("Q3 2025 public page; see notes", "en") == "Q3 2025 public page"
    assert len(_as_of("a very long description of when this price was seen online", "en")) <= 32


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300), loc=st.sampled_from(["pt-BR", "en"]))
def test_any_text_gives_a_short_source_without_raising(text, loc):
    out = _short_source(text, loc)
    assert out or not text.strip()
    if not re.search(r"https?://|\.(com|org|net|io|ai|dev|sh|to|gov|edu|co|cloud)\b", text, flags=re.I):
        assert len(out) <= SOURCE_CAP


_HOST = st.from_regex(r"[a-z][a-z0-9]{0,8}\.(com|org|io|dev|gov\.br|com\.br)", fullmatch=True)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(hosts=st.lists(_HOST, min_size=1, max_size=6), loc=st.sampled_from(["pt-BR", "en"]))
def test_hosts_shown_are_the_first_three_distinct_ones_named(hosts, loc):
    src = "; ".join(f"see https://www.{h}/page" if i % 2 else f"per {h}" for i, h in enumerate(hosts))
    distinct = list(dict.fromkeys(hosts))
    out = _short_source(src, loc)
    expected = ", ".join(distinct[:3])
    if len(distinct) > 3:
        expected += t("src_more", loc, n=len(distinct) - 3)
    assert out == expected


def _catalog_sources(cat):
    for oid in cat.offer_ids:
        o = cat.offer(oid)
        if o.kind == "cloud":
            for p in o.prices.values():
                yield oid, p.source, p.as_of
        else:
            yield oid, o.source, o.as_of


def test_every_shipped_source_reads_short(seed_inputs):
    seen = 0
    for oid, src, as_of in _catalog_sources(seed_inputs.catalog):
        out = _short_source(src, "pt-BR")
        seen += 1
        assert out != "—", oid  # every catalog price names its source
        for part in out.split(", "):
            host = part.split(" e mais ")[0]
            if "." in host and " " not in host:
                assert host.split("/")[0] in src.lower(), (oid, host)
        date = _as_of(as_of, "pt-BR")
        assert not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", date), (oid, date)  # ISO dates are localised
    assert seen > 100


def test_www_is_dropped_only_when_a_domain_remains():
    from tco.report.proposal.sources import _bare

    assert _bare("WWW.aws.amazon.com") == "aws.amazon.com"
    assert _bare("www.com") == "www.com"  # "com" alone is no host
    assert _short_source("per www.com; see https://www.www.com/x", "en") == "www.com"


# Review L9: AWS São Paulo showed "pricing.us-east-1.amazonaws.com", the host its row says could not be reached.
def test_a_host_the_source_says_was_unreachable_is_not_shown():
    text = ("AWS Price List offer files (pricing.us-east-1.amazonaws.com) not reachable from this environment on "
            "2026-11-30 (host unresolvable), so not re-pulled from AWS; the same value in a transcription: "
            "https://github.com/tsaol/aws-gpu/blob/77fcd9f/data/p5_instances.js; earlier: instances.vantage.sh data")
    assert _short_source(text, "en") == "github.com/tsaol/aws-gpu, instances.vantage.sh"


def test_a_source_whose_only_host_was_unreachable_shows_its_other_words():
    text = "pricing.us-east-1.amazonaws.com unreachable on 2026-11-30; value from the provider's sales desk"
    assert _short_source(text, "en") == "value from the provider's sales desk"


def test_every_aws_sao_paulo_row_names_only_hosts_it_read():
    import csv
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "tco" / "catalog" / "data" / "cloud_offers.csv"
    with data.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["offer_id"].startswith("aws/sa-east-1/")]
    assert rows and all("amazonaws.com" not in _short_source(r["source"], "en") for r in rows)
