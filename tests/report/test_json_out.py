"""tco.report.json_out: the JSON for automation, read back with json.loads.

Checks that the document says what the engine computed (totals, lines, months, tax components converted at the
month's rate, ranking without the infeasible), that it is byte-identical from run to run and machine-independent,
and that money is never NaN, infinite or null: a non-finite amount is refused with an error naming where it is."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco import __version__
from tco.domain import LINES, is_monte_carlo
from tco.errors import InternalError
from tco.findings import Analysis, Breakevens, Hedging, Sensitivity, Tornado, TornadoRow
from tco.report import json_out


@pytest.fixture(scope="module")
def seed_doc(seed_results):
    return json.loads(json_out.dumps(json_out.build(seed_results, "abc123", "scenarios/seed_70b_h200.toml")))


def _option(doc: dict, name: str) -> dict:
    return next(o for o in doc["options"] if o["name"] == name)


def test_scenario_and_tool_header(seed_results, seed_doc):
    s = seed_results.scenario.scenario
    assert seed_doc["tool"] == {"name": "tco", "version": __version__}
    assert seed_doc["scenario"]["name"] == s.name
    assert seed_doc["scenario"]["horizon_months"] == 36
    assert seed_doc["scenario"]["sha256"] == "abc123"
    assert seed_doc["scenario"]["file"] == "scenarios/seed_70b_h200.toml"


def test_totals_are_the_engine_totals_unrounded(seed_results, seed_doc):
    for o in seed_results.options:
        j = _option(seed_doc, o.name)
        assert j["tco_brl"] == o.tco.as_dict()
        assert j["npv_brl"] == o.npv.as_dict()
        for k in LINES:
            assert j["lines_brl"][k] == float(o.lines_brl[k].sum())
        assert j["egress_brl"] == j["lines_brl"]["egress"]


def test_monthly_rows_add_up_line_by_line(seed_results, seed_doc):
    o = seed_results.options[0]
    j = _option(seed_doc, o.name)
    assert [m["month"] for m in j["monthly"]] == list(seed_results.months)
    for i, m in enumerate(j["monthly"]):
        assert m["total_brl"] == float(o.total_brl[i])
        assert m["total_brl"] == pytest.approx(sum(m[f"{k}_brl"] for k in LINES), rel=1e-12, abs=1e-9)
    assert sum(m["total_brl"] for m in j["monthly"]) == pytest.approx(o.tco.deterministic, rel=1e-12)


def test_ranking_is_by_deterministic_tco_and_cheapest_is_first(seed_results, seed_doc):
    # the options that break the client's constraints (the seed asks for the data in Brazil) are never ranked
    tco_of = {o.name: o.tco.deterministic for o in seed_results.options if not o.resolved.breaches}
    assert seed_doc["ranking"] == sorted(tco_of, key=tco_of.get)
    breaking = {o["name"] for o in seed_doc["options"] if o["breaches"]}
    assert breaking and not breaking & set(seed_doc["ranking"])
    assert seed_doc["cheapest"] == seed_doc["ranking"][0]
    assert seed_doc["infeasible"] == []


def test_an_infeasible_option_is_listed_but_never_ranked(seed_results):
    cheapest = min(seed_results.options, key=lambda o: o.tco.deterministic)
    slow = dataclasses.replace(cheapest, replica=dataclasses.replace(cheapest.replica, target_met=False))
    res = dataclasses.replace(seed_results, options=[slow if o is cheapest else o for o in seed_results.options])
    doc = json_out.build(res)
    assert doc["infeasible"] == [cheapest.name]
    assert cheapest.name not in doc["ranking"]
    assert doc["cheapest"] != cheapest.name
    assert _option(doc, cheapest.name)["feasible"] is False


def test_sizing_counts_gpus_as_servers_times_gpus_per_server(seed_results, seed_doc):
    for o in seed_results.options:
        sz = _option(seed_doc, o.name)["sizing"]
        assert sz["inference_servers"] == np.asarray(o.costs.inference_servers).tolist()
        assert sz["inference_gpus"] == (np.asarray(o.costs.inference_servers)
                                        * o.resolved.inference.gpus_per_server).tolist()
    shared = _option(seed_doc, "Dedicado BR — 8x H200")
    assert shared["inference_offer"]["gpus_per_server"] == 8  # an 8× HGX: 8 GPUs per server
    servers = shared["sizing"]["inference_servers"]
    assert shared["sizing"]["inference_gpus"] == [n * 8 for n in servers]
    assert max(servers) >= 1


def test_tax_components_minus_credits_are_the_taxes_line(seed_results, seed_doc):
    """Each component in BRL (a USD-billed component converted at each month's rate); Σ taxes − credits = the line."""
    for o in seed_results.options:
        comp = _option(seed_doc, o.name)["taxes_by_component_brl"]
        line = float(o.lines_brl["taxes"].sum())
        assert sum(v for k, v in comp.items() if k != "credits") - comp.get("credits", 0.0) == pytest.approx(
            line, rel=1e-9, abs=1e-6), o.name


def test_a_usd_tax_component_is_converted_month_by_month(seed_results, seed_doc):
    aws = next(o for o in seed_results.options if o.costs.currency["taxes"] == "USD")
    usd = np.asarray(aws.costs.tax_components["cbs"])
    expected = float((usd * seed_results.fx_path).sum())  # Σ_m cbs[m] × USDBRL[m], not Σ cbs × one rate
    assert _option(seed_doc, aws.name)["taxes_by_component_brl"]["cbs"] == pytest.approx(expected, rel=1e-12)
    assert expected > 0


def test_catalog_files_are_named_without_machine_folders(seed_results, seed_doc):
    files = seed_doc["catalog_rows"]["files"]
    assert len(files) == len(seed_results.catalog.files)
    assert all(f.startswith("tco/catalog/data/") for f in files), files
    text = json_out.dumps(json_out.build(seed_results))
    root = str(seed_results.catalog.files[0]).rsplit("/tco/catalog/", 1)[0]
    assert root not in text  # no absolute path of this machine anywhere


def test_catalog_rows_list_each_offer_used_once(seed_results, seed_doc):
    used = {(f.offer_id, f.pricing) for o in seed_results.options
            for f in (o.resolved.inference, o.resolved.training) if f is not None}
    rows = seed_doc["catalog_rows"]["offers"]
    assert sorted((r["offer"], r["pricing"]) for r in rows) == sorted(used)
    assert all(r["source"] and r["as_of"] for r in rows)
    assert [g["gpu"] for g in seed_doc["catalog_rows"]["gpus"]] == sorted({g["gpu"] for g in
                                                                          seed_doc["catalog_rows"]["gpus"]})


def test_notices_are_codes_with_parameters_and_english_warnings(seed_results, seed_doc):
    assert [n["code"] for n in seed_doc["notices"]] == [n.code for n in seed_results.notices]
    assert len(seed_doc["warnings"]) == len(seed_results.notices) > 0
    assert all(isinstance(w, str) and w for w in seed_doc["warnings"])


def test_same_results_give_byte_identical_text(seed_results):
    a = json_out.dumps(json_out.build(seed_results, "x", "f.toml"))
    b = json_out.dumps(json_out.build(seed_results, "x", "f.toml"))
    assert a == b
    assert a.endswith("}\n")
    keys = list(json.loads(a))
    assert keys == sorted(keys)


def test_analysis_parts_are_written_when_computed(seed_results):
    """A part of the analysis is a key of the JSON only when computed; its numbers are plain floats."""
    hedge = Hedging(forward_first=np.float64(5.5), forward_last=6.0, brl_rate=0.1, usd_rate=0.04, options=(), note="n")
    res = dataclasses.replace(seed_results, analysis=Analysis(hedging=hedge))
    doc = json_out.build(res)
    assert "hedging" not in doc and "breakevens" not in doc  # the analysis did not run (no break-evens)
    ran = Analysis(breakevens=Breakevens(usdbrl=(), users=None, payback=()), hedging=hedge)
    doc = json_out.build(dataclasses.replace(seed_results, analysis=ran))
    assert doc["hedging"]["forward_first"] == 5.5 and type(doc["hedging"]["forward_first"]) is float
    assert doc["decomposition"] is None and doc["separation"] == [] and "sensitivity" not in doc


def test_small_run_has_percentiles_in_order(small_run):
    doc = json.loads(json_out.dumps(json_out.build(small_run)))
    for o in doc["options"]:
        t = o["tco_brl"]
        assert t["p5"] <= t["p50"] <= t["p95"]
        assert o["probability_cheapest"] is not None
    assert sum(o["probability_cheapest"] for o in doc["options"]) == pytest.approx(1.0)


# --- no NaN, no null money ------------------------------------------------------------------------------------

def _leaves(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, x


def _walk_money(x, path=""):
    """Every leaf under a key ending in _brl (the money of the document), with its path."""
    if isinstance(x, dict):
        for k, v in x.items():
            p = f"{path}.{k}"
            if k.endswith("_brl"):
                yield from _leaves(v, p)
            else:
                yield from _walk_money(v, p)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _walk_money(v, f"{path}[{i}]")


def _assert_money_finite(doc, simulated: bool):
    """The options' money (totals, percentiles, lines, months, taxes, prices): the analysis sections may say None
    for "not comparable" (documented there), an option's amount never may."""
    money = list(_walk_money(doc["options"], ".options"))
    assert len(money) > 300  # the walker reaches the monthly tables (months × options × lines)
    for p, v in money:
        if v is None and p.endswith(".fan_brl") and not simulated:
            continue  # the Monte Carlo fan: absent without a simulation
        if isinstance(v, str) and p.rsplit(".", 1)[1] in ("offer", "pricing"):
            continue  # gpu_hour_all_in_brl names the offer it prices
        assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), (p, v)


def test_every_amount_in_the_document_is_a_finite_number(seed_doc, small_run):
    _assert_money_finite(seed_doc, simulated=False)
    _assert_money_finite(json.loads(json_out.dumps(json_out.build(small_run))),
                         simulated=is_monte_carlo(small_run.scenario.fx.model))


@settings(max_examples=25, deadline=None)
@given(bad=st.sampled_from([math.nan, math.inf, -math.inf]), month=st.integers(0, 35), which=st.integers(0, 7))
def test_a_non_finite_monthly_total_is_refused_naming_the_option(seed_results, bad, month, which):
    o = seed_results.options[which]
    total = o.total_brl.copy()
    total[month] = bad
    res = dataclasses.replace(seed_results, options=[dataclasses.replace(o, total_brl=total) if x is o else x
                                                     for x in seed_results.options])
    with pytest.raises(InternalError, match="not a finite amount") as e:
        json_out.build(res)
    assert o.name in str(e.value)


@pytest.mark.parametrize("field", ["deterministic", "p95"])
def test_a_non_finite_total_is_refused_naming_the_statistic(seed_results, field):
    o = seed_results.options[1]
    bad = dataclasses.replace(o, tco=dataclasses.replace(o.tco, **{field: math.nan}))
    res = dataclasses.replace(seed_results, options=[bad if x is o else x for x in seed_results.options])
    with pytest.raises(InternalError, match=rf"tco_brl\.{field} is nan"):
        json_out.build(res)


def test_a_non_finite_number_anywhere_is_refused_naming_its_path(seed_results):
    row = TornadoRow(input="x", label="x", low=0.5, high=1.5, unit="", metric="tco", base_diff_brl=1.0,
                     low_diff_brl=np.float64("nan"), high_diff_brl=1.0, swing_brl=1.0)
    sens = Sensitivity(leaders=Tornado(leader="a", challenger="b", base_diff_brl=1.0, rows=(row, row)))
    res = dataclasses.replace(seed_results, analysis=Analysis(sensitivity=sens))
    with pytest.raises(InternalError, match=r"sensitivity\.leaders\.rows\[0\]\.low_diff_brl is nan"):
        json_out.build(res)


def test_dumps_refuses_nan_itself():
    with pytest.raises(ValueError):
        json_out.dumps({"x": math.nan})
