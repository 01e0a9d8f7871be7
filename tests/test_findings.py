"""tco.findings: the decision analysis as typed values, and each part as the JSON writes it (DESIGN.md's keys,
a key the engine leaves out when it has no value left out here too)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tco.findings import (
    Analysis, Breakevens, Decomposition, EgressClaim, FxBreakeven, Payback, PlanSearch, SeparationRow, Sensitivity,
    Tornado, UsersBreakeven,
)


def test_parts_are_frozen_and_keyword_only():
    b = Payback(option="a", versus="b", payback_month=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.payback_month = 8  # type: ignore[misc]
    with pytest.raises(TypeError):
        Payback("a", "b", 7)  # type: ignore[misc]


def test_a_users_breakeven_names_its_direction_or_its_note_never_both():
    flip = UsersBreakeven(leader="a", challenger="b", users_scale=1.5, peak_users=150.0, base_peak_users=100.0,
                          direction="more users")
    none = UsersBreakeven(leader="a", challenger="b", users_scale=None, peak_users=None, base_peak_users=100.0,
                          note="no flip")
    assert flip.as_dict() == {"leader": "a", "challenger": "b", "users_scale": 1.5, "peak_users": 150.0,
                              "base_peak_users": 100.0, "direction": "more users"}
    assert set(none.as_dict()) == {"leader", "challenger", "users_scale", "peak_users", "base_peak_users", "note"}


def test_a_tornado_without_challenger_has_no_base_difference():
    assert Tornado(leader="a", challenger=None).as_dict() == {"leader": "a", "challenger": None, "rows": []}
    assert Tornado(leader="a", challenger="b", base_diff_brl=3.0).as_dict() == {
        "leader": "a", "challenger": "b", "base_diff_brl": 3.0, "rows": []}
    s = Sensitivity(leaders=Tornado(leader="a", challenger=None))
    assert list(s.pairs()) == ["leaders"] and list(s.as_dict()) == ["leaders"]


def test_a_separation_row_keeps_chosen_and_note_only_when_set():
    by_design = SeparationRow(option="o", shared_brl=None, separate_brl=None, saving_brl=None, note="separate")
    costed = SeparationRow(option="o", shared_brl=10.0, separate_brl=7.0, saving_brl=3.0, chosen="separate")
    assert "chosen" not in by_design.as_dict() and by_design.as_dict()["note"] == "separate"
    assert "note" not in costed.as_dict() and costed.as_dict()["chosen"] == "separate"


def test_the_decomposition_adds_the_fleet_separation_when_set():
    d = Decomposition(dedicated="d", cloud="c", difference_brl=5.0, parts_brl={"compute": 5.0},
                      parts_share_of_cloud_tco={"compute": 0.5}, check_sum_brl=5.0, fx_risk_premium_brl=1.0,
                      fx_risk_premium_note="n", egress_share_of_cloud_tco=0.1,
                      egress_claim=EgressClaim(range=(0.2, 0.4), verdict="below", statement="s"))
    assert "fleet_separation_brl" not in d.as_dict() and d.as_dict()["egress_claim"]["range"] == [0.2, 0.4]
    d2 = dataclasses.replace(d, fleet_separation_brl={"dedicated": 2.0, "cloud": None}, fleet_separation_note="x")
    assert d2.as_dict()["fleet_separation_brl"] == {"dedicated": 2.0, "cloud": None}


def test_the_analysis_writes_the_parts_computed():
    assert Analysis().as_dict() == {} and not Analysis().ran
    ran = Analysis(breakevens=Breakevens(usdbrl=(FxBreakeven(option="a", versus="b", usdbrl=6.1),), users=None,
                                         payback=()), probability_cheapest={"a": 0.25})
    assert ran.ran
    assert ran.as_dict() == {"breakevens": {"usdbrl": [{"option": "a", "versus": "b", "usdbrl": 6.1, "note": None}],
                                            "users": None, "payback": []},
                             "decomposition": None, "separation": [], "probability_cheapest": {"a": 0.25},
                             "hedging": None}
    fan = {"p50": np.array([5.0, 5.1])}
    assert Analysis(fx_fan=fan).as_dict() == {"fx_fan": fan}


def test_a_run_with_analysis_is_typed(small_run):
    a = small_run.analysis
    assert a.ran and isinstance(a.breakevens, Breakevens) and isinstance(a.plans, PlanSearch)
    assert all(isinstance(r, FxBreakeven) for r in a.breakevens.usdbrl)
    assert isinstance(a.sensitivity, Sensitivity) and a.sensitivity.leaders.rows


def test_the_repr_names_the_parts_computed(small_run):
    assert repr(Analysis()) == "Analysis(empty)"
    r = repr(small_run.analysis)
    assert r.startswith("Analysis(breakevens, sensitivity") and r.endswith("plans)") and len(r) < 120
