"""tco.scenario.workload: the [scenario], [model], [training] and [inference] sections (frozen, strict pydantic).

The start month's format and year range, the tax regime with the closest valid name, a training that has work to
do, the four users curves chosen by their `model` key, the daily profile (24 shares summing to 1), and each bound at
its edge. Properties: any 24 non-negative shares normalised to 1 are a valid profile; any month 01–12 of a year in
range is a valid start and any other text is not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tco.scenario.workload import (
    CompoundGrowth,
    Inference,
    LinearGrowth,
    ListGrowth,
    LogisticGrowth,
    ModelSpec,
    ScenarioInfo,
    Training,
)

INFO = {"name": "S", "start": "2027-01", "horizon_months": 36}
INF = {"users": {"model": "linear", "start_users": 100, "end_users": 500}, "requests_per_user_per_day": 20,
       "input_tokens_per_request": 1500, "output_tokens_per_request": 400}


def _errors(model, data) -> str:
    with pytest.raises(ValidationError) as e:
        model.model_validate(data)
    return str(e.value)


# --- [scenario] ----------------------------------------------------------------------------------------------------

def test_scenario_defaults():
    s = ScenarioInfo.model_validate(INFO)
    assert (s.discount_rate, s.locale, s.tax_regime, s.client, s.catalog_dir) == (0.14, "pt-BR", "lucro_real", "",
                                                                                 None)


@pytest.mark.parametrize("bad", ["2027-1", "2027-13", "2027-00", "27-01", "2027/01", "January 2027", "2027-01-01"])
def test_start_must_be_yyyy_mm(bad):
    assert "YYYY-MM" in _errors(ScenarioInfo, INFO | {"start": bad})


def test_start_digits_are_ascii():
    # Was matched with \\d, which takes any Unicode digit: '２０２７-03' (full-width) passed and reached the JSON.
    assert "YYYY-MM" in _errors(ScenarioInfo, INFO | {"start": "２０２７-03"})


def test_start_year_in_range():
    assert ScenarioInfo.model_validate(INFO | {"start": "1990-01"}).start == "1990-01"
    assert ScenarioInfo.model_validate(INFO | {"start": "2200-12"}).start == "2200-12"
    assert "between 1990 and 2200" in _errors(ScenarioInfo, INFO | {"start": "1989-12"})
    assert "between 1990 and 2200" in _errors(ScenarioInfo, INFO | {"start": "2201-01"})


@settings(max_examples=150, deadline=None)
@given(year=st.integers(1990, 2200), month=st.integers(1, 12))
def test_every_month_in_range_is_a_start(year, month):
    assert ScenarioInfo.model_validate(INFO | {"start": f"{year:04d}-{month:02d}"}).start == f"{year:04d}-{month:02d}"


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=12).filter(lambda s: not (len(s) == 7 and s[4] == "-" and s[:4].isascii()
                                                        and s[:4].isdigit() and s[5:] in
                                                        [f"{m:02d}" for m in range(1, 13)])))
def test_any_other_text_is_not_a_start(text):
    with pytest.raises(ValidationError):
        ScenarioInfo.model_validate(INFO | {"start": text})


def test_horizon_and_discount_bounds():
    assert ScenarioInfo.model_validate(INFO | {"horizon_months": 240}).horizon_months == 240
    _errors(ScenarioInfo, INFO | {"horizon_months": 0})
    _errors(ScenarioInfo, INFO | {"horizon_months": 241})
    _errors(ScenarioInfo, INFO | {"horizon_months": 36.0})  # strict: a whole number
    _errors(ScenarioInfo, INFO | {"discount_rate": 14})  # a fraction, not a percent


def test_an_unknown_tax_regime_names_the_closest():
    msg = _errors(ScenarioInfo, INFO | {"tax_regime": "lucro_rael"})
    assert "unknown tax regime 'lucro_rael'" in msg and "lucro_real" in msg


def test_notes_may_hold_line_breaks_but_names_may_not():
    assert ScenarioInfo.model_validate(INFO | {"notes": "a\n\tb"}).notes == "a\n\tb"
    _errors(ScenarioInfo, INFO | {"name": "a\nb"})
    _errors(ScenarioInfo, INFO | {"client": "x" * 201})


# --- [model] and [training] ----------------------------------------------------------------------------------------

def test_model_precisions():
    m = ModelSpec.model_validate({"id": "llama-3.1-70b"})
    assert (m.precision, m.kv_precision) == ("bf16", "bf16")
    _errors(ModelSpec, {"id": "x", "precision": "int4"})


def test_training_needs_work_unless_none():
    assert Training.model_validate({"method": "none"}).tokens == 0.0
    assert "tokens` > 0 or `gpu_hours`" in _errors(Training, {"method": "lora"})
    assert Training.model_validate({"method": "lora", "gpu_hours": 500.0}).gpu_hours == 500.0
    assert Training.model_validate({"method": "full", "tokens": 1e9}).epochs == 1.0
    t = Training.model_validate({"method": "lora", "tokens": 1e9})
    assert (t.start_month, t.target_days, t.servers, t.lora_trainable_share) == (1, 30.0, None, 0.01)


@pytest.mark.parametrize(("key", "ok", "bad"), [("epochs", (0.001, 1000.0), (0.0, 1000.1)),
                                                ("target_days", (0.1, 3650.0), (0.09, 3651.0)),
                                                ("servers", (1, 100_000), (0, 100_001)),
                                                ("start_month", (1, 240), (0, 241)),
                                                ("sequence_length", (128, 1_048_576), (127, 1_048_577))])
def test_training_bounds(key, ok, bad):
    base = {"method": "lora", "tokens": 1e9}
    for v in ok:
        assert getattr(Training.model_validate(base | {key: v}), key) == v
    for v in bad:
        _errors(Training, base | {key: v})


def test_training_sequence_length_is_an_integer_and_unset_by_default():
    base = {"method": "lora", "tokens": 1e9}
    assert Training.model_validate(base).sequence_length is None  # the engine takes defaults.toml's
    assert "integer" in _errors(Training, base | {"sequence_length": 4096.0}).lower()
    assert "integer" in _errors(Training, base | {"sequence_length": "8k"}).lower()


def test_a_bad_sequence_length_names_file_line_and_key():
    """Out of bounds or not an integer: one problem with the file, the line of the key and the key's path."""
    from tco.errors import InputError
    from tco.scenario import load_text

    text = ('[scenario]\nname = "S"\nstart = "2027-01"\nhorizon_months = 12\n[model]\nid = "llama-3.1-8b"\n'
            '[training]\nmethod = "lora"\ntokens = 1e9\nsequence_length = {v}\n')
    for v, words in (("64", "greater than or equal to 128"), ("4096.5", "integer")):
        with pytest.raises(InputError) as e:
            load_text(text.format(v=v), "s.toml")
        p = [x for x in e.value.problems if "sequence_length" in str(x.key)]
        assert p and p[0].file == "s.toml" and p[0].line == 10 and words in p[0].message, (v, e.value.problems)


# --- users curves ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("users", "cls"), [({"model": "linear", "start_users": 0, "end_users": 10}, LinearGrowth),
                                            ({"model": "compound", "start_users": 10, "monthly_growth_rate": 0.05},
                                             CompoundGrowth),
                                            ({"model": "logistic", "start_users": 10, "ceiling_users": 100},
                                             LogisticGrowth),
                                            ({"model": "list", "users": [1, 2, 3]}, ListGrowth)])
def test_the_users_curve_is_chosen_by_its_model(users, cls):
    inf = Inference.model_validate(INF | {"users": users})
    assert type(inf.users) is cls


def test_users_curve_rules():
    _errors(Inference, INF | {"users": {"model": "logistic", "start_users": 0, "ceiling_users": 100}})  # u1 > 0
    _errors(Inference, INF | {"users": {"model": "list", "users": []}})
    _errors(Inference, INF | {"users": {"model": "list", "users": [1.0] * 241}})
    _errors(Inference, INF | {"users": {"model": "compound", "start_users": 10, "monthly_growth_rate": 1.5}})
    _errors(Inference, INF | {"users": {"model": "sigmoid", "start_users": 10}})
    _errors(Inference, INF | {"users": {"model": "linear", "start_users": 10, "end_users": 20, "max_users": 5}})


# --- [inference] ---------------------------------------------------------------------------------------------------

def test_inference_defaults():
    inf = Inference.model_validate(INF)
    assert (inf.daily_profile, inf.redundancy, inf.utilization_target_share) == ("business_hours", "none", 0.8)
    assert (inf.tokens_per_second_per_user, inf.max_batch_sequences, inf.memory_usable_share) == (20.0, 256, 0.9)
    assert (inf.active_days_per_week, inf.egress_kb_per_request, inf.storage_gb) == (7.0, 20.0, 0.0)


def test_daily_profile_needs_24_shares_summing_to_one():
    flat = [1 / 24] * 24
    assert Inference.model_validate(INF | {"daily_profile": flat}).daily_profile == flat
    assert "24 hourly shares, got 23" in _errors(Inference, INF | {"daily_profile": [1 / 23] * 23})
    assert "sum to 1" in _errors(Inference, INF | {"daily_profile": [0.05] * 24})  # 24 × 0.05 = 1.2
    _errors(Inference, INF | {"daily_profile": [-0.1] + [1.1 / 23] * 23})  # a share is 0–1


@settings(max_examples=100, deadline=None)
@given(weights=st.lists(st.floats(0.0, 1.0), min_size=24, max_size=24).filter(lambda w: sum(w) > 1e-3))
def test_any_normalised_profile_is_accepted(weights):
    total = sum(weights)
    shares = [w / total for w in weights]
    assert Inference.model_validate(INF | {"daily_profile": shares}).daily_profile == shares


@pytest.mark.parametrize(("key", "ok", "bad"), [("output_tokens_per_request", (1.0,), (0.0, 0.999)),
                                                ("active_days_per_week", (1.0, 7.0), (0.9, 7.1)),
                                                ("utilization_target_share", (0.01, 1.0), (0.0, 1.01)),
                                                ("max_batch_sequences", (1, 65_536), (0, 65_537)),
                                                ("time_to_first_token_seconds", (0.01, 3600.0), (0.0, 3601.0))])
def test_inference_bounds(key, ok, bad):
    for v in ok:
        assert getattr(Inference.model_validate(INF | {key: v}), key) == v
    for v in bad:
        _errors(Inference, INF | {key: v})
