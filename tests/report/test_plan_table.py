"""tco.report.plan_table: the plan search's terminal table and the [[options]] snippet that re-runs the best plan.

The snippet is checked by parsing it with tomllib (it must give back the option it was made from, for any names and
values a plan can carry); the table by reading the printed text: groups cheapest first, the margin of each runner-up
over its group's best worked from the totals, and the overall best and runner-up lines."""

from __future__ import annotations

import copy
import io
import math
import re
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.report import fmt
from tco.findings import PlanSearch
from tco.report.plan_table import option_toml, plan_table


def _printed(plans: dict, locale: str = "en") -> str:
    out = io.StringIO()
    plan_table(PlanSearch.of(plans), locale, file=out)  # the document (the JSON's) read back typed
    return out.getvalue()


def _rows(out: str) -> list[list[str]]:
    rows: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("│"):
            cells = [c.strip() for c in line.strip("│").split("│")]
            if cells[1] == "" and rows:  # a wrapped row continues
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)
    return rows


@pytest.fixture(scope="module")
def plans(small_run):
    return small_run.analysis.plans.as_dict()


# --- the [[options]] snippet ---------------------------------------------------------------------------------------

def test_option_toml_by_hand():
    opt = {"pricing": "spot", "name": 'Plan "x" \\ y', "autoscale": False, "fleet": "separate", "max": 3,
           "share": 0.5, "offers": ["a", "b"]}
    assert option_toml(opt) == (
        "[[options]]\n"
        'name = "Plan \\"x\\" \\\\ y"\n'  # the name first, quotes and backslashes escaped
        "autoscale = false\n"
        "fleet = \"separate\"\n"
        "max = 3\n"
        'offers = ["a", "b"]\n'
        'pricing = "spot"\n'
        "share = 0.5\n")


_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(lambda k: k != "name")
_PRINTABLE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")))
_VALUES = st.one_of(st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=False), _PRINTABLE,
                    st.lists(st.one_of(st.integers(0, 100), _PRINTABLE), max_size=4))


@settings(max_examples=200, deadline=None)
@given(name=_PRINTABLE, rest=st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_option_toml_parses_back_to_the_option(name, rest):
    opt = {"name": name} | rest
    parsed = tomllib.loads(option_toml(opt))
    assert parsed == {"options": [opt]}


# Was escaping only backslash and quote: a control character gave a snippet TOML could not read.
@pytest.mark.parametrize("text", ["two\nlines", "esc\x1b[0m", "tab\there", "del\x7f", 'q"uote\\', "crlf\r\n"])
def test_option_toml_escapes_control_characters(text):
    assert tomllib.loads(option_toml({"name": text}))["options"][0]["name"] == text


def test_option_toml_of_the_best_plan_is_a_valid_option(plans):
    best = plans["overall"]["best"]
    parsed = tomllib.loads(option_toml(best["option"]))["options"][0]
    assert parsed == best["option"]
    assert parsed["name"] == best["name"]


# --- the table -----------------------------------------------------------------------------------------------------

def test_groups_are_cheapest_first_with_their_runners_up(plans):
    rows = _rows(_printed(plans))
    groups = sorted(plans["by_provider"], key=lambda g: plans["by_provider"][g]["best"]["tco_brl"])
    assert [r[0] for r in rows if r[0]] == groups
    expected = sum(1 + len(plans["by_provider"][g]["runners_up"]) for g in groups)
    assert len(rows) == expected


def test_runner_up_margin_over_the_group_best(plans):
    out = _printed(plans)
    rows = _rows(out)
    g = next(g for g, v in plans["by_provider"].items() if v["runners_up"])
    v = plans["by_provider"][g]
    start = next(i for i, r in enumerate(rows) if r[0] == g)
    assert rows[start][1:4] == ["1", fmt.money(v["best"]["tco_brl"], "en", False), "best"]
    for n, p in enumerate(v["runners_up"], 2):
        r = rows[start + n - 1]
        assert r[1] == str(n)
        assert r[2] == fmt.money(p["tco_brl"], "en", False)
        # "+2.5%": (runner-up TCO / best TCO − 1), one decimal
        assert r[3] == "+" + fmt.percent(p["tco_brl"] / v["best"]["tco_brl"] - 1, "en")


def test_margin_worked_by_hand(plans):
    """A group whose runner-up costs R$ 125 against a best of R$ 100 shows +25.0%."""
    p = copy.deepcopy(plans)
    g = next(iter(p["by_provider"]))
    p["by_provider"] = {g: p["by_provider"][g]}
    p["by_provider"][g]["best"]["tco_brl"] = 100.0
    p["by_provider"][g]["runners_up"] = [dict(p["by_provider"][g]["best"], tco_brl=125.0)]
    rows = _rows(_printed(p))
    assert [r[2:4] for r in rows] == [["R$100", "best"], ["R$125", "+25.0%"]]


def test_overall_best_and_runner_up_lines(plans):
    out = _printed(plans).replace("\n", " ")
    ov = plans["overall"]
    assert f"Best plan overall: {ov['best']['name']} — {fmt.money(ov['best']['tco_brl'], 'en', False)}" in out
    r = ov["runner_up"]
    assert f"{fmt.money(r['tco_brl'], 'en', False)}, +{fmt.money(ov['margin_brl'], 'en', False)}" in out
    assert math.isclose(ov["margin_brl"], r["tco_brl"] - ov["best"]["tco_brl"], rel_tol=1e-9)


def test_the_printed_snippet_parses(plans):
    out = _printed(plans)
    snippet = out[out.index("[[options]]"):]
    snippet = snippet[:snippet.index("\n\n")]
    assert tomllib.loads(snippet)["options"][0] == plans["overall"]["best"]["option"]


def test_skipped_uses_are_counted(plans):
    out = _printed(plans)
    n = len(plans["search"]["skipped"])
    assert re.search(rf"^{n} offer/pricing uses skipped", out, flags=re.M)
    p = copy.deepcopy(plans)
    p["search"]["skipped"] = []
    assert "skipped" not in _printed(p)


def test_training_and_serving_descriptions(plans):
    rows = _rows(_printed(plans))
    text = {r[0]: r for r in rows if r[0]}
    shared = [r for r in rows if r[4] == "on the serving fleet"]
    assert shared, "the dedicated group has a one-fleet plan"
    assert all("one shared fleet" in r[5] for r in shared)
    best = plans["by_provider"]["aws"]["best"]
    tr = best["training"]
    assert text["aws"][4] == f"{tr['offer']} {tr['pricing']}: {tr['servers']} server(s), {tr['wall_hours']:,.0f} h"


def test_a_committed_baseline_serving_names_its_terms(plans):
    p = copy.deepcopy(plans)
    g = next(iter(p["by_provider"]))
    best = p["by_provider"][g]["best"]
    best["serving"] |= {"mode": "committed_baseline", "committed_instances": [2, 3], "burst_pricing": "on_demand",
                        "peak_instances": 5}
    p["by_provider"] = {g: {"best": best, "runners_up": [], "candidates": 1, "margin_brl": None, "margin_share": None}}
    row = _rows(_printed(p))[0]
    assert "2/3 committed per term, hours above on on_demand (peak 5)" in row[5]


def test_names_are_printed_literally(plans):
    """The plan's name is rendered from its parts (tco.report.plan_names), so the markup rides in on a part: the
    group (a provider id), in the table's first column and in the closing line."""
    p = copy.deepcopy(plans)
    p["overall"]["best"]["group"] = "[bold]x[/bold]"
    g = next(iter(p["by_provider"]))
    p["by_provider"] = {"[red]y[/red]": p["by_provider"][g]}
    out = _printed(p)
    assert "Best plan overall: Plan [bold]x[/bold]: " in out
    assert _rows(out)[0][0] == "[red]y[/red]"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_option_toml_round_trips_any_text(text):
    assert tomllib.loads(option_toml({"name": text}))["options"][0]["name"] == text
