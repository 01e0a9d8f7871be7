"""options[].owned in the JSON (tco.report.owned): the totals are the engine's rows summed, the cash view is the
option's monthly total, and a rented option has no owned block."""

from __future__ import annotations

import dataclasses

from pathlib import Path

import pytest

from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.report import json_out
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def doc():
    path = ROOT / "scenarios" / "owned_70b_h200.toml"
    s, _, lines = load(path)
    res = run_scenario(s, load_catalog(), file=str(path), lines=lines, simulate=False)
    return res, json_out.build(res, "", str(path))


def test_owned_block_only_on_owned_options(doc):
    _, d = doc
    kinds = [(o["kind"], "owned" in o) for o in d["options"]]
    assert kinds == [("dedicated", False), ("owned", True), ("owned", True), ("cloud", False), ("hybrid", False)]


def test_cash_view_is_the_option_total_and_totals_are_the_rows(doc):
    res, d = doc
    o, own = res.options[1], d["options"][1]["owned"]
    assert [m["cash_brl"] for m in own["monthly"]] == [m["total_brl"] for m in d["options"][1]["monthly"]]
    assert own["capex_brl"] == pytest.approx(float(o.costs.rows["own_capex_brl"].sum()))
    # cash: nothing borrowed; the shield is 34 % of the depreciation
    assert own["borrowed_brl"] == 0.0 and own["interest_brl"] == 0.0
    assert own["depreciation_shield_brl"] == pytest.approx(0.34 * own["depreciation_brl"])
    # a 60-month tax life over 36 months: 36/60 of the purchase made in month 1 is depreciated (one server, bought once)
    assert own["servers_bought"] == 1.0
    assert own["depreciation_brl"] == pytest.approx(own["capex_brl"] * 36 / 60)


def test_the_proposal_offers_what_a_provider_can_sell_and_sets_buying_against_it(doc):
    from tco.report import view
    from tco.report.owned import offerable
    from tco.report.proposal.body import counterpart

    res, d = doc
    v = view.build(res)
    assert v.recommended is offerable(v) and v.recommended.kind != "owned"
    # without the rented hybrid (since issue 21's sizing the cheapest, on 6 of its 1x H200 NVL servers), buying the
    # 8x H200 is the cheapest: the proposal still offers what a provider can sell, and sets the purchase against it
    without = view.build(dataclasses.replace(res, options=[o for o in res.options if o.kind != "hybrid"]))
    assert without.ranked_options[0].kind == "owned"
    assert without.recommended is offerable(without) and without.recommended.kind != "owned"
    assert counterpart(without, without.recommended).name == without.ranked_options[0].name


def test_the_offer_is_never_the_clients_own_purchase(doc):
    from tco.report import view
    from tco.report.offer_checks import offered

    res, _ = doc
    v = view.build(res)
    assert offered(v).kind == "hybrid"  # the cheapest option with a rented dedicated fleet, not "Comprar 8x H200"
