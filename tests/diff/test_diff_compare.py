"""`tco diff`: the seed against a copy with USD/BRL +10 % and one option's minimum term changed names those two
inputs (with units) and the options whose TCO moved, with the right signs; JSON results compare by what they
record; results of two tco versions are refused."""

import json
from pathlib import Path

import pytest

from tco.diff import compare
from tco.errors import InputError

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "seed_70b_h200.toml"
SEPARATE = "Dedicado BR — 8x H200 (frotas separadas)"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff")
    text = SEED.read_text(encoding="utf-8").replace("paths = 10000", "paths = 200")
    (folder / "a.toml").write_text(text, encoding="utf-8")
    b = text.replace("usdbrl = 5.40", "usdbrl = 5.94").replace(  # 5.40 · 1.10 = 5.94
        'inference_offer = "br-dedicated/sp/h200-nvl-1x"\nfleet = "separate"\n',
        'inference_offer = "br-dedicated/sp/h200-nvl-1x"\nfleet = "separate"\nmin_term_months = 3\n', 1)
    (folder / "b.toml").write_text(b, encoding="utf-8")
    a_side, b_side = compare.load_side(str(folder / "a.toml")), compare.load_side(str(folder / "b.toml"))
    return folder, a_side, b_side, compare.diff(a_side, b_side)


def test_the_two_inputs_are_named_with_units(pair):
    d = pair[3]
    assert [(r["key"], r["a"], r["b"], r["unit"]) for r in d["inputs"]] == [
        ("fx.usdbrl", 5.40, 5.94, "BRL/USD"), (f"options[{SEPARATE}].min_term_months", None, 3, "months")]
    assert d["inputs"][0]["change_share"] == pytest.approx(0.10)


def test_the_options_moved_with_the_right_signs(pair):
    by = {o["name"]: o for o in pair[3]["options"]}
    assert by[SEPARATE]["delta"] < 0  # a 3-month term instead of the training cluster's 12 months: cheaper
    assert [ln["line"] for ln in by[SEPARATE]["lines"]] == ["training_compute"]
    clouds = [o for o in pair[3]["options"] if o["name"].startswith(("AWS", "Azure", "GCP"))]
    assert len(clouds) == 5 and all(o["delta"] > 0 for o in clouds)  # billed in USD: a dearer dollar costs more
    assert by["Dedicado BR — 8x H200"]["delta"] == 0  # BRL only, term unchanged
    for o in pair[3]["options"]:
        assert o["delta"] == o["tco_b"] - o["tco_a"]
        assert sum(ln["delta"] for ln in o["lines"]) == pytest.approx(o["delta"], abs=0.01)


def test_ranking_and_recommendation(pair):
    d = pair[3]
    by = {o["name"]: o for o in d["options"]}
    for side in ("a", "b"):  # each side's ranking is its options by TCO
        tcos = [by[n][f"tco_{side}"] for n in d["ranking"][side]]
        assert tcos == sorted(tcos)
    assert d["ranking"]["changed"] == (d["ranking"]["a"] != d["ranking"]["b"])
    assert d["cheapest"]["changed"] == (d["ranking"]["a"][0] != d["ranking"]["b"][0])
    # the separate fleet got cheaper while every cloud option got dearer: it can only move up
    assert d["ranking"]["b"].index(SEPARATE) <= d["ranking"]["a"].index(SEPARATE)


def test_json_results_compare_by_the_inputs_they_record(pair, tmp_path):
    _, a_side, b_side, _ = pair
    (tmp_path / "a.json").write_text(json.dumps(a_side.doc), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(b_side.doc), encoding="utf-8")
    d = compare.diff(compare.load_side(str(tmp_path / "a.json")), compare.load_side(str(tmp_path / "b.json")))
    keys = [r["key"] for r in d["inputs"]]
    assert "fx.usdbrl" in keys and f"options[{SEPARATE}].training_offer.min_term_months" in keys
    assert [o["delta"] for o in d["options"]] == [o["delta"] for o in pair[3]["options"]]


def test_two_versions_are_refused(pair, tmp_path):
    doc = dict(pair[1].doc, tool={"name": "tco", "version": "0.0.9"})
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match="written by tco 0.0.9, but .* by tco 0.1.0"):
        compare.diff(pair[1], compare.load_side(str(tmp_path / "old.json")))


def test_a_json_that_is_not_a_result(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(InputError, match="not a JSON result of tco run"):
        compare.load_side(str(tmp_path / "x.json"))


def test_units_from_key_names():
    assert compare.unit_of("scenario.horizon_months") == "months"
    assert compare.unit_of("inference.storage_gb") == "GB"
    assert compare.unit_of("options[x].training_usd_per_hour") == "USD/h"
    assert compare.unit_of("scenario.discount_rate") == "fraction/year"
    assert compare.unit_of("model.id") == ""


def test_flatten_keys_options_by_name():
    assert compare.flatten({"a": {"b": 1}, "options": [{"name": "x", "p": 2}], "l": [1, 2]}) == {
        "a.b": 1, "options[x].p": 2, "l": [1, 2]}
