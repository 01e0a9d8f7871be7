"""`python -m tco plan` speaks the run's locale: the table's headers, row labels and closing lines from the catalog
(``plan_tab_*``), plan names by tco.report.plan_names, money, percentages, counts and hours in the locale's format,
the plan notes worded in the locale; the JSON the command writes stays the same in every locale.

The locale is the scenario's ``[scenario] locale`` (the English run below is the small example with that one line
changed), or the CLI's ``--locale``, which gives the same output (review L14)."""

from __future__ import annotations

import copy
import io
import re
import tomllib

import pytest

from tco.cli import main
from tco.findings import PlanSearch
from tco.plan.costing import _past_horizon
from tco.plan.naming import CONTRACT_EN, of_plan, render
from tco.report import fmt
from tco.report.i18n import t
from tco.report.plan_names import plan_label
from tco.report.plan_table import HEADS, NOTE_CODES, NOTE_SENTENCES, note_text, plan_table
from test_plan_table import _rows

from conftest import SMALL

ENGLISH = re.compile(r"\b(provider|training|serving|best|Best plan|Runner-up|note:|Re-run|paste|skipped|server\(s\)|"
                     r"committed|autoscaled|dedicated servers|shared fleet|candidate|Plan search|Plan \w+:|train|"
                     r"serve|wrote|reclaimed|costed)\b")
"""English words of the plan table (and of the plan names and notes it prints) that no pt-BR run may show."""


def _printed(plans: dict, locale: str) -> str:
    out = io.StringIO()
    plan_table(PlanSearch.of(plans), locale, file=out)  # the document (the JSON's) read back typed
    return out.getvalue()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The plan command on the small example (pt-BR) and on the same file with `locale = "en"`, each with --json:
    {locale: (terminal output, JSON text)}."""
    import contextlib

    folder = tmp_path_factory.mktemp("plantable")
    text = SMALL.read_text(encoding="utf-8")
    assert 'locale = "pt-BR"' in text
    files = {"pt-BR": SMALL, "en": folder / "assistant_en.toml"}
    files["en"].write_text(text.replace('locale = "pt-BR"', 'locale = "en"', 1), encoding="utf-8")
    out = {}
    for loc, path in files.items():
        buf, js = io.StringIO(), folder / f"plans-{loc}.json"
        with contextlib.redirect_stdout(buf):
            assert main(["plan", str(path), "--json", str(js)]) == 0
        out[loc] = (buf.getvalue(), js.read_text(encoding="utf-8"))
    return out


@pytest.fixture(scope="module")
def plans(runs):
    import json

    return json.loads(runs["pt-BR"][1])


# --- the command, in each locale -------------------------------------------------------------------------------------

def test_pt_br_run_has_portuguese_headers_and_names_and_no_english(runs, plans):
    out, _ = runs["pt-BR"]
    head = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in head.strip("┃").split("┃")] == [t(k, "pt-BR") for k, _ in HEADS]
    assert [c.strip() for c in head.strip("┃").split("┃")] == ["provedor", "#", "TCO (R$)", "vs. o melhor",
                                                               "treinamento", "atendimento"]
    best = plans["overall"]["best"]
    flat = out.replace("\n", " ")
    assert f"Melhor plano no geral: {plan_label(best, 'pt-BR')} — {fmt.money(best['tco_brl'], 'pt-BR', False)}" in flat
    assert plan_label(best, "pt-BR").startswith("Plano ") and plan_label(best, "pt-BR") != best["name"]
    assert "Busca de planos:" in out and "Segundo colocado" in out and "nota: " in out and "gravado: " in out
    assert ENGLISH.findall(out.replace("`plans.search.skipped`", "").replace("`--show-skipped`", "")) == []  # keys, flags


def test_en_run_has_the_english_table(runs, plans):
    out, _ = runs["en"]
    head = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in head.strip("┃").split("┃")] == ["provider", "#", "TCO (BRL)", "vs best", "training",
                                                               "serving"]
    best = plans["overall"]["best"]
    assert f"Best plan overall: {best['name']} — {fmt.money(best['tco_brl'], 'en', False)}" in out.replace("\n", " ")
    assert "Plan search:" in out and "wrote " in out
    assert not re.search(r"\b(Plano|melhor|provedor|treinamento|atendimento|servidor|nota)\b", out)
    assert ENGLISH.findall(out)  # the pt-BR test's pattern does see English


def test_the_json_is_the_same_in_every_locale(runs, plans):
    """Machine-readable output does not follow the locale: the same bytes, plan names in the contract's English."""
    assert runs["pt-BR"][1] == runs["en"][1]
    best = plans["overall"]["best"]
    assert best["name"] == render(of_plan(best), CONTRACT_EN) == best["option"]["name"]


def test_money_and_counts_in_the_locale(runs, plans):
    n = len(plans["search"]["skipped"])
    pt, en = runs["pt-BR"][0], runs["en"][0]
    assert f"{fmt.number(n, 'pt-BR')} combinações de oferta e modalidade descartadas" in pt
    assert f"{fmt.number(n, 'en')} offer/pricing uses skipped" in en
    c = plans["search"]["candidates"]
    assert f"Busca de planos: {fmt.number(c, 'pt-BR')} planos candidatos" in pt
    assert f"Plan search: {fmt.number(c, 'en')} candidate plans" in en
    assert "." in fmt.number(c, "pt-BR") and "," in fmt.number(c, "en")  # the search counts thousands here


# --- the table, by hand ----------------------------------------------------------------------------------------------

def test_margin_and_best_worked_by_hand_in_pt_br(plans):
    """A runner-up at R$ 125 against a best of R$ 100: +25,0% (125 / 100 − 1 = 0.25), the best 'melhor'."""
    p = copy.deepcopy(plans)
    g = next(g for g in p["by_provider"] if g != "hybrid")
    p["by_provider"] = {g: p["by_provider"][g], "hybrid": p["by_provider"]["hybrid"]}
    p["by_provider"][g]["best"]["tco_brl"] = 100.0
    p["by_provider"][g]["runners_up"] = [dict(p["by_provider"][g]["best"], tco_brl=125.0)]
    rows = _rows(_printed(p, "pt-BR"))
    assert [r[2:4] for r in rows[:2]] == [["R$\xa0100", "melhor"], ["R$\xa0125", "+25,0%"]]
    assert rows[0][0] == g and rows[2][0] == "híbrido"


def test_training_and_serving_cells_in_pt_br(plans):
    p = copy.deepcopy(plans)
    g = next(g for g, v in p["by_provider"].items() if v["best"]["training"] and v["best"]["fleet"] == "separate")
    best = p["by_provider"][g]["best"]
    best["training"] |= {"servers": 12, "wall_hours": 1234.6}
    best["serving"] |= {"mode": "committed_baseline", "committed_instances": [2, 3], "burst_pricing": "on_demand",
                        "peak_instances": 5}
    p["by_provider"] = {g: {"best": best, "runners_up": [], "candidates": 1, "margin_brl": None, "margin_share": None}}
    row = _rows(_printed(p, "pt-BR"))[0]
    tr = best["training"]
    pricing = f" {tr['pricing']}" if tr["kind"] == "cloud" else ""
    assert row[4] == f"{tr['offer']}{pricing}: 12 servidor(es), 1.235 h"  # 1234.6 h rounded, grouped by a dot
    assert row[5].endswith(": 2/3 comprometidas por prazo, horas acima em on_demand (pico 5)")
    assert _rows(_printed(p, "en"))[0][4] == f"{tr['offer']}{pricing}: 12 server(s), 1,235 h"


def test_shared_plan_and_brazil_only_in_pt_br(plans):
    p = copy.deepcopy(plans)
    g = next(iter(p["by_provider"]))
    best = p["by_provider"][g]["best"]
    best["fleet"], best["serving"]["mode"] = "shared", "shared"
    best["training"] = best["training"] or {"offer": best["serving"]["offer"]}
    p["by_provider"] = {g: {"best": best, "runners_up": [], "candidates": 1, "margin_brl": None, "margin_share": None}}
    p["search"]["brazil_only"] = True
    out = _printed(p, "pt-BR")
    row = _rows(out)[0]
    assert row[4] == "na frota de atendimento" and row[5].endswith(": uma frota compartilhada")
    assert "(somente Brasil)" in out.replace("\n", " ")


def test_the_rerun_snippet_names_the_option_in_the_locale(plans, tmp_path):
    """The snippet is the JSON's option but for its name, which is the plan's name in the run's locale; pasted into
    the scenario it loads (a name the scenario accepts, unique among its options)."""
    import tco

    out = _printed(plans, "pt-BR")
    snippet = out[out.index("[[options]]"):]
    snippet = snippet[:snippet.index("\n\n") + 1]
    best = plans["overall"]["best"]
    opt = tomllib.loads(snippet)["options"][0]
    assert opt == best["option"] | {"name": plan_label(best, "pt-BR")}
    pasted = tmp_path / "pasted.toml"
    pasted.write_text(SMALL.read_text(encoding="utf-8") + "\n" + snippet, encoding="utf-8")
    names = [o.name for o in tco.load(pasted).scenario.options]
    assert names[-1] == plan_label(best, "pt-BR")


# --- the notes -------------------------------------------------------------------------------------------------------

def test_every_note_the_search_wrote_is_worded_in_portuguese(plans):
    """Every note of every reported plan is one the table knows: in English it reads as tco.plan wrote it (a
    sentence) or as the code's sentence, and in pt-BR it is never the English."""
    notes = {n for v in plans["by_provider"].values() for p in [v["best"]] + v["runners_up"] for n in p["notes"]}
    assert any("spot" in n for n in notes) and "min_term_idle" in notes  # both kinds are met here
    for n in notes:
        assert note_text(n, "pt-BR") != note_text(n, "en")
        assert note_text(n, "en") == (t(f"plan_tab_note_{n}", "en") if n in NOTE_CODES else n)
    spot = next(n for n in notes if "spot" in n)
    assert note_text(spot, "pt-BR").startswith("o treinamento roda em capacidade spot")


@pytest.mark.parametrize("upfront", [0.0, 1.0])
def test_past_horizon_notes_are_read_back_with_their_numbers(upfront):
    """tco.plan's own sentence: a 36-month term from month 1 over a 34-month horizon runs 0 + 36 − 34 = 2 months
    past it."""
    (sentence,) = _past_horizon(1, 36, 34, [2], upfront)
    assert "36-month term runs 2 month(s)" in sentence
    assert note_text(sentence, "en") == sentence
    pt = note_text(sentence, "pt-BR")
    assert pt.startswith("o último prazo de 36 meses passa 2 mês(es) do horizonte; ")
    assert ("pagamento antecipado" in pt) == bool(upfront)


def test_each_known_sentence_has_its_key_and_an_unknown_note_stays_as_written():
    for _, key in NOTE_SENTENCES:
        assert t(key, "pt-BR") != t(key, "en")
    for code in NOTE_CODES:
        assert note_text(code, "pt-BR") == t(f"plan_tab_note_{code}", "pt-BR")
    assert note_text("price_estimate", "pt-BR") == "price_estimate"
    assert note_text("something else", "pt-BR") == "something else"


def test_review_l14_locale_flag_speaks_as_the_files_locale(runs, tmp_path):
    import contextlib

    buf, js = io.StringIO(), tmp_path / "plans.json"
    with contextlib.redirect_stdout(buf):
        assert main(["plan", str(SMALL), "--locale", "en", "--json", str(js)]) == 0
    printed, text = runs["en"]
    assert buf.getvalue().replace(str(SMALL), "FILE").replace(str(js), "JSON") == \
        re.sub(r"\S*assistant_en\.toml", "FILE", printed).replace(
            re.search(r"\S*plans-en\.json", printed).group(0), "JSON")
    assert js.read_text(encoding="utf-8") == text
