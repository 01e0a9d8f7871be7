"""What the desk shows of a run (tco.web.answer): the engine's numbers in the proposal's words."""

from pathlib import Path

import pytest

import tco
from tco.report.words import money
from tco.web import answer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def res():
    return tco.run(ROOT / "scenarios" / "assistant_8b_l4.toml", analysis=False)


def test_ranked_options_carry_the_engines_tco(res):
    a = answer.build(res, 1, 1)
    ranked = sorted((o for o in res.options if o.feasible), key=lambda o: o.tco.deterministic)
    assert [r["tco"] for r in a["ranked"]] == [money(o.tco.deterministic, "pt-BR") for o in ranked]
    assert [r["rank"] for r in a["ranked"]] == list(range(1, len(ranked) + 1))
    assert a["ranked"][0]["vs"] == "—"
    assert a["ranked"][0]["label"] in a["recommendation"]


def test_fixed_fx_has_no_band_and_no_paths(res):
    a = answer.build(res, 1, 1)
    assert a["monte_carlo"] is False and a["paths"] is None and a["reduced"] is False
    assert {r["band"] for r in a["ranked"]} == {"—"}


def test_the_notes_are_the_sellers_notes_file(res):
    from tco.report.proposal import notes_txt

    a = answer.build(res, 1, 1)
    assert a["notes"] == notes_txt.render(res).splitlines()[2:]


def test_the_plans_table_is_the_proposals(res):
    from tco.report import view
    from tco.report.proposal import body
    from tco.report.proposal.offer import offered

    v = view.build(res)
    a = answer.build(res, 1, 1)
    assert a["comparison"] == body.comparison(v, offered(v) or v.recommended, "pt-BR")
    assert '<div class="chart"' in a["cumulative"]


def test_options_outside_the_clients_constraints_are_said_never_ranked(seed_results):
    """The seed keeps its data in Brazil: its us-east-1 options are costed, listed with what they break, not ranked."""
    from tco.report.words import breach_text

    a = answer.build(seed_results, 1, 1)
    outside = [o for o in seed_results.options if o.feasible and o.resolved.breaches]
    assert outside and len(a["outside"]) == len(outside)
    ranked = {r["name"] for r in a["ranked"]}
    for o, said in zip(outside, a["outside"], strict=True):
        assert o.name not in ranked and said.endswith(f"({breach_text(o.resolved.breaches, 'pt-BR')})")


def test_the_small_example_has_nothing_outside(res):
    assert answer.build(res, 1, 1)["outside"] == []
