"""Regression tests for the outside review of 2026-12-01 (findings H3, M2, M3, L1, L2, L3, L12): hostile input is
refused with exit 2, the file, the line and the key named and nothing written; valid input runs with finite,
non-negative totals. Each test is named after its finding; every run is a real CLI run (``tco.cli.main``)."""

from __future__ import annotations

import json
import math
import re
import types
import typing
from pathlib import Path

import pytest

from tco import api
from tco.cli import MAX_PATHS, MAX_SEED, main
from tco.scenario import (
    FX,
    MAX_PLAN_CANDIDATES,
    MAX_SERVERS,
    MAX_USD_PER_HOUR,
    MIN_EFFICIENCY,
    Inference,
    Option,
    Plan,
    ScenarioInfo,
    Training,
)
from tco.scenario.toml import MAX_NESTING

ROOT = Path(__file__).resolve().parents[1]
SMALL_TEXT = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
SEED_TEXT = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8")
FAST = ["--quiet", "--formats", "json", "--no-sensitivity", "--paths", "200"]
SECTIONS = {"scenario": ScenarioInfo, "training": Training, "inference": Inference, "fx": FX, "options": Option,
            "plan": Plan}


def put(text: str, section: str, key: str, value: str) -> str:
    """`key = value` in the first [section] (or [[section]]) of a scenario: replaced where the key is written,
    added below the header where it is not, in a new [section] at the end where there is none."""
    lines = text.splitlines()
    sec, head = None, None
    for i, ln in enumerate(lines):
        h = re.match(r"^\[\[?\s*([A-Za-z_.]+)", ln)
        if h:
            if sec == section:
                break
            sec = h.group(1)
            head = i if sec == section else head
        elif sec == section and re.match(rf"^{key}\s*=", ln):
            lines[i] = f"{key} = {value}"
            return "\n".join(lines) + "\n"
    if head is None:
        lines += ["", f"[{section}]"]
        head = len(lines) - 1
    lines.insert(head + 1, f"{key} = {value}")
    return "\n".join(lines) + "\n"


def line_of(text: str, start: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if ln.strip().startswith(start))


def refused(tmp_path, capsys, text: str, key: str, line: int | None, *fragments: str, cmd: str = "run",
            extra: tuple = ()) -> str:
    """Run `cmd` on the text: exit 2, the problem at file:line [key] with the fragments, nothing written."""
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    args = [cmd, str(f), *(["-o", str(out), *FAST] if cmd == "run" else []), *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    where = f"{f}:{line}:" if line else f"{f}:"
    assert f"{where} [{key}]" in err, err
    for frag in fragments:
        assert frag in err, (frag, err)
    assert not out.exists()
    return err


def runs(tmp_path, text: str, *extra: str) -> dict:
    """Run the text with JSON output only; exit 0 and the JSON document."""
    f = tmp_path / "ok.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "ok-out"
    assert main(["run", str(f), "-o", str(out), *FAST, *extra]) == 0
    return json.loads((out / "ok.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# H3: tracebacks on zero or tiny efficiencies, a non-finite calibration, deep nesting


EFFICIENCIES = [("inference", "bandwidth_efficiency_share"), ("inference", "flops_efficiency_share"),
                ("inference", "utilization_target_share"), ("inference", "memory_usable_share"), ("training", "mfu")]


@pytest.mark.parametrize("section, key", EFFICIENCIES)
@pytest.mark.parametrize("value", ["0", "1e-300", "0.0099"])
def test_review_h3_bandwidth_efficiency_zero_is_refused(tmp_path, capsys, section, key, value):
    text = put(SMALL_TEXT, section, key, value)
    refused(tmp_path, capsys, text, f"{section}.{key}", line_of(text, f"{key} ="), "at least 0.01")


def test_review_h3_training_mfu_zero_and_tiny_are_refused_by_validate_too(tmp_path, capsys):
    for v in ("0", "1e-300"):
        text = put(SMALL_TEXT, "training", "mfu", v)
        refused(tmp_path, capsys, text, "training.mfu", line_of(text, "mfu ="), f"got {float(v):g}",
                cmd="validate")


@pytest.mark.slow
def test_review_h3_efficiency_at_the_minimum_runs_with_finite_totals(tmp_path):
    text = put(put(SMALL_TEXT, "inference", "flops_efficiency_share", repr(MIN_EFFICIENCY)), "training", "mfu",
               repr(MIN_EFFICIENCY))
    doc = runs(tmp_path, text)
    assert all(math.isfinite(o["tco_brl"]["deterministic"]) and o["tco_brl"]["deterministic"] > 0
               for o in doc["options"])


CALIBRATION = """name = "fitted"
bandwidth_share = 0.76
flops_share = 0.77
interconnect_share = 0.48
step_overhead_seconds = 0.0065
collective_latency_seconds = 7.4e-05
"""


@pytest.mark.parametrize("key, value, fragment", [
    ("step_overhead_seconds", "nan", "finite"), ("step_overhead_seconds", "inf", "finite"),
    ("collective_latency_seconds", "-inf", "finite"), ("step_overhead_seconds", "1e300", "limit of 1 s"),
    ("step_overhead_seconds", "-1.0", "negative time"), ("bandwidth_share", "0.0", "(0, 1]"),
    ("flops_share", "nan", "finite"), ("interconnect_share", "1e-300", "minimum share 0.01")])
def test_review_h3_calibration_with_non_finite_or_zero_values_is_refused(tmp_path, capsys, key, value, fragment):
    cal = tmp_path / "cal.toml"
    cal.write_text(CALIBRATION.replace(re.search(rf"{key} = \S+", CALIBRATION).group(), f"{key} = {value}"),
                   encoding="utf-8")
    text = put(SMALL_TEXT, "inference", "calibration", '"cal.toml"')
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), *FAST]) == 2
    err = capsys.readouterr().err
    assert f"{cal}:{line_of(cal.read_text(), key)}: [{key}]" in err and fragment in err, err
    assert not out.exists()


@pytest.mark.slow
def test_review_h3_a_sound_calibration_file_is_read(tmp_path):
    (tmp_path / "cal.toml").write_text(CALIBRATION, encoding="utf-8")
    doc = runs(tmp_path, put(SMALL_TEXT, "inference", "calibration", '"cal.toml"'))
    used = doc["assumptions"]["defaults_used"]["serving_calibration"]
    assert "cal.toml" in used["name"] and (used["flops_share"], used["step_overhead_seconds"]) == (0.77, 0.0065)


DEEP_ARRAY = "[" * 1000 + "]" * 1000
DEEP_TABLE = "{a = " * 600 + "1" + "}" * 600


@pytest.mark.parametrize("where, key, value", [("scenario", "deep", DEEP_ARRAY), ("inference", "storage_gb", DEEP_ARRAY),
                                               ("inference", "storage_gb", DEEP_TABLE),
                                               ("training", "x", "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1))])
def test_review_h3_deeply_nested_toml_is_a_located_error(tmp_path, capsys, where, key, value):
    text = put(SMALL_TEXT, where, key, value)
    err = refused(tmp_path, capsys, text, f"{where}.{key}", line_of(text, f"{key} ="), "nested too deeply",
                  cmd="validate")
    assert "RecursionError" not in err


def test_review_h3_deeply_nested_calibration_file_is_a_located_error(tmp_path, capsys):
    cal = tmp_path / "cal.toml"
    cal.write_text(CALIBRATION + "\n[fit]\nrows = " + DEEP_ARRAY + "\n", encoding="utf-8")
    f = tmp_path / "s.toml"
    f.write_text(put(SMALL_TEXT, "inference", "calibration", '"cal.toml"'), encoding="utf-8")
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{cal}:9: [fit.rows] nested too deeply" in err, err


def _validate_with_defaults_overlay(tmp_path, capsys, defaults: str) -> tuple[int, str, Path]:
    """`validate` of the small example with a catalog_dir whose defaults.toml is `defaults`: (exit code, stderr,
    the overlay file)."""
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "defaults.toml").write_text(defaults, encoding="utf-8")
    f = tmp_path / "s.toml"
    f.write_text(put(SMALL_TEXT, "scenario", "catalog_dir", '"cat"'), encoding="utf-8")
    return main(["validate", str(f)]), capsys.readouterr().err, cat / "defaults.toml"


def test_review_h3_deeply_nested_catalog_overlay_is_a_located_error(tmp_path, capsys):
    code, err, overlay = _validate_with_defaults_overlay(tmp_path, capsys, "[training]\nmfu = " + DEEP_ARRAY + "\n")
    assert code == 2
    assert f"{overlay}:2: [training.mfu] nested too deeply" in err, err


def test_review_h3_a_catalog_overlay_mfu_below_the_minimum_is_refused(tmp_path, capsys):
    code, err, _ = _validate_with_defaults_overlay(tmp_path, capsys, "[training]\nmfu = 1e-300\n")
    assert code == 2
    assert "[training.mfu] must be at least 0.01, got 1e-300" in err, err


def test_review_h3_huge_numbers_are_formatted_not_raised():
    from tco.report import fmt

    # babel quantizes to 28 digits: 1e300 raised decimal.InvalidOperation; now scientific notation
    assert fmt.number(1e300, "pt-BR") == "1,00 × 10³⁰⁰"
    assert fmt.number_short(1e300, "en") == "1.00 × 10³⁰⁰"
    assert fmt.percent(1e300, "en") == "1.00 × 10³⁰²%"   # 1e300 as a share is 1e302 %
    assert fmt.number(1234.0, "en") == "1,234"          # ordinary numbers as before


def _numeric_fields():
    """(section, key, kind, low, high) of every number of the sections a scenario writes with `key = value`."""
    for section, model in SECTIONS.items():
        for key, field in model.model_fields.items():
            kinds, low, high = _bounds(field.annotation, field.metadata)
            if kinds:
                yield section, key, (int if kinds == {int} else float), low, high


def _bounds(ann, meta) -> tuple[set, float | None, float | None]:
    kinds: set = set()
    low = high = None
    for m0 in meta:
        for m in getattr(m0, "metadata", [m0]):
            low = next((getattr(m, a) for a in ("ge", "gt") if getattr(m, a, None) is not None), low)
            high = next((getattr(m, a) for a in ("le", "lt") if getattr(m, a, None) is not None), high)
    if ann in (int, float):
        kinds.add(ann)
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        base, *more = typing.get_args(ann)
        k, lo, hi = _bounds(base, more)
        kinds |= k
        low, high = (lo if lo is not None else low), (hi if hi is not None else high)
    elif origin in (typing.Union, types.UnionType, list):
        for a in typing.get_args(ann):
            k, lo, hi = _bounds(a, ())
            kinds |= k
            low, high = (lo if lo is not None else low), (hi if hi is not None else high)
    return kinds, low, high


def _literal(kind, v) -> str:
    return str(int(v)) if kind is int else repr(float(v))


@pytest.mark.slow
@pytest.mark.parametrize("example", ["assistant_8b_l4", "pretrain_burst"])
def test_review_h3_every_numeric_key_at_zero_tiny_and_its_bounds_is_refused_or_sane(tmp_path, capsys, example):
    """The loop of the review over every number of the schema: 0, 1e-300 and both bounds give exit 2 with the
    file, a line and a key, or exit 0 with finite, non-negative totals; never a traceback."""
    base = (ROOT / "scenarios" / f"{example}.toml").read_text(encoding="utf-8")
    f = tmp_path / "s.toml"
    tried = 0
    for section, key, kind, low, high in _numeric_fields():
        for v in sorted({0, 1e-300, low, high} - {None}):
            if kind is int and 0 < v < 1:
                continue
            f.write_text(put(base, section, key, _literal(kind, v)), encoding="utf-8")
            code = main(["validate", str(f)])
            err = capsys.readouterr().err
            assert code in (0, 2), (section, key, v, err)
            tried += 1
            if code == 2:
                assert re.search(rf"{re.escape(str(f))}(:\d+)?: \[", err), (section, key, v, err)
                continue
            res = api.check(str(f))
            totals = [o.tco.deterministic for o in res.options]
            assert all(math.isfinite(t) and t >= 0 for t in totals), (section, key, v, totals)
    assert tried > 100


# ---------------------------------------------------------------------------------------------
# M2: upper bounds


def test_review_m2_burst_usd_per_hour_has_an_upper_bound(tmp_path, capsys):
    for v in ("1e300", "1e308", "10000.01"):
        text = put(SMALL_TEXT, "options", "burst_usd_per_hour", v)
        refused(tmp_path, capsys, text, "options[0].burst_usd_per_hour", line_of(text, "burst_usd_per_hour"),
                f"{MAX_USD_PER_HOUR:g}")


@pytest.mark.parametrize("value", ["9223372036854775807", "1000000000000", "100001", "[2, 100001]"])
def test_review_m2_committed_instances_has_an_upper_bound(tmp_path, capsys, value):
    text = put(SMALL_TEXT, "options", "committed_instances", value)
    refused(tmp_path, capsys, text, "options[0].committed_instances", line_of(text, "committed_instances"),
            f"{MAX_SERVERS}")


def test_review_m2_plan_max_candidates_has_an_upper_bound(tmp_path, capsys):
    text = put(SMALL_TEXT, "plan", "max_candidates", str(MAX_PLAN_CANDIDATES + 1))
    refused(tmp_path, capsys, text, "plan.max_candidates", line_of(text, "max_candidates"), "100000000",
            cmd="validate")


def test_review_m2_every_number_of_the_schema_has_both_bounds():
    loose = [(s, k) for s, k, _, low, high in _numeric_fields() if low is None or high is None]
    assert loose == []


# ---------------------------------------------------------------------------------------------
# M3: the model's context window


def test_review_m3_requests_longer_than_the_context_are_refused(tmp_path, capsys):
    # llama-3.1-8b: max_context_tokens 131,072 (models.csv)
    text = put(SMALL_TEXT, "inference", "input_tokens_per_request", "200000")
    refused(tmp_path, capsys, text, "inference.input_tokens_per_request", line_of(text, "input_tokens_per_request"),
            "200,000 input + 300 output tokens = 200,300", "131,072")
    # the prompt fits, the prompt and the output together do not: blamed on the output
    text = put(SMALL_TEXT, "inference", "input_tokens_per_request", "131000")
    refused(tmp_path, capsys, text, "inference.output_tokens_per_request",
            line_of(text, "output_tokens_per_request"), "131,300")
    refused(tmp_path, capsys, text, "inference.output_tokens_per_request",
            line_of(text, "output_tokens_per_request"), "131,300", cmd="plan")


def test_review_m3_a_request_filling_the_context_exactly_is_accepted(tmp_path, capsys):
    text = put(SMALL_TEXT, "inference", "input_tokens_per_request", str(131_072 - 300))
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    assert main(["validate", str(f)]) in (0, 2)
    assert "context window" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# L2: the CLI keeps the schema's limits


def test_review_l2_batch_paths_is_capped_like_run(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(SMALL_TEXT, encoding="utf-8")
    for cmd in ("run", "batch"):
        out = tmp_path / f"out-{cmd}"
        assert main([cmd, str(f), "-o", str(out), "--paths", str(MAX_PATHS + 1)]) == 2
        assert "at most 10,000,000 paths" in capsys.readouterr().err
        assert not out.exists()


@pytest.mark.parametrize("seed", [str(2**63), str(2**64), str(10**41), "1" * 5000])
def test_review_l2_seed_is_bounded_like_the_schema(tmp_path, capsys, seed):
    f = tmp_path / "s.toml"
    f.write_text(SMALL_TEXT, encoding="utf-8")
    for cmd in ("run", "batch"):
        out = tmp_path / f"out-{cmd}"
        assert main([cmd, str(f), "-o", str(out), "--seed", seed]) == 2
        err = capsys.readouterr().err
        assert "--seed" in err and ("2^63" in err or "not a whole number" in err) and len(err) < 400
        assert not out.exists()


def test_review_l2_the_cli_bounds_are_the_schemas():
    """run and batch read --seed and --paths with the same types (tco.cli.args), bounded as the schema's fx."""
    from tco.cli import args as cli_args

    paths, seed = FX.model_fields["paths"].metadata, FX.model_fields["seed"].metadata
    assert MAX_PATHS == cli_args.MAX_PATHS == next(m.le for m in paths if getattr(m, "le", None) is not None)
    assert MAX_SEED == cli_args.MAX_SEED == next(m.le for m in seed if getattr(m, "le", None) is not None) == 2**63 - 1
    from tco.cli import _parser

    batch = _parser()._subparsers._group_actions[0].choices["batch"]  # type: ignore[union-attr]
    types = {a.dest: a.type for a in batch._actions}
    assert types["seed"] is cli_args.seed and types["paths"] is cli_args.paths


@pytest.mark.slow
def test_review_l2_the_largest_seed_runs(tmp_path):
    doc = runs(tmp_path, SEED_TEXT, "--seed", str(MAX_SEED))
    assert doc["fx"]["seed"] == MAX_SEED == doc["assumptions"]["fx"]["seed"]


# ---------------------------------------------------------------------------------------------
# L1: overrides shown where they are used


@pytest.mark.slow
def test_review_l1_assumptions_show_the_seed_and_paths_of_the_cli(tmp_path):
    doc = runs(tmp_path, SEED_TEXT, "--seed", "7", "--paths", "300")
    assert (doc["fx"]["seed"], doc["fx"]["paths"]) == (7, 300)
    assert (doc["assumptions"]["fx"]["seed"], doc["assumptions"]["fx"]["paths"]) == (7, 300)


@pytest.mark.slow
def test_review_l1_an_override_runs_as_the_same_values_written_in_the_file(tmp_path):
    """--seed/--paths give the JSON of a file that says them, the sensitivity's Monte Carlo included (it read
    the file's seed before); only the file's hash differs."""
    f1, f2 = tmp_path / "a" / "s.toml", tmp_path / "b" / "s.toml"
    f1.parent.mkdir()
    f2.parent.mkdir()
    f1.write_text(SMALL_TEXT, encoding="utf-8")
    f2.write_text(put(put(SMALL_TEXT, "fx", "seed", "7"), "fx", "paths", "300"), encoding="utf-8")
    docs = []
    for f, extra in ((f1, ["--seed", "7", "--paths", "300"]), (f2, [])):
        out = f.parent / "out"
        assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "json", *extra]) == 0
        doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
        doc["scenario"].pop("sha256"), doc["scenario"].pop("file")
        docs.append(doc)
    assert docs[0] == docs[1]
    assert any(r["input"] == "volatility" for r in docs[0]["sensitivity"]["leaders"]["rows"])


# ---------------------------------------------------------------------------------------------
# L3: messages that say what to do


def test_review_l3_max_candidates_without_plan_says_what_to_do(tmp_path, capsys):
    text = SMALL_TEXT.replace("start_users = 300, end_users = 1500", "start_users = 1e10, end_users = 1e10")
    assert "[plan]" not in text
    err = refused(tmp_path, capsys, text, "inference.users", line_of(text, "users ="), "add a [plan] section",
                  "max_candidates", "reduce the users", cmd="validate")
    assert "committed-baseline levels" in err


def test_review_l3_max_candidates_with_plan_stays_on_its_key(tmp_path, capsys):
    text = put(SMALL_TEXT, "plan", "max_candidates", "10")
    refused(tmp_path, capsys, text, "plan.max_candidates", line_of(text, "max_candidates"),
            "more than max_candidates (10)", "or set max_candidates =", cmd="validate")


def test_review_l3_output_tokens_below_one_are_refused_on_their_key(tmp_path, capsys):
    text = put(SMALL_TEXT, "inference", "output_tokens_per_request", "1e-300")
    refused(tmp_path, capsys, text, "inference.output_tokens_per_request", line_of(text, "output_tokens_per_request"),
            "greater than or equal to 1")


def test_review_l3_an_unmet_time_to_first_token_blames_its_key(tmp_path, capsys):
    text = put(SMALL_TEXT, "inference", "time_to_first_token_seconds", "0.001")
    refused(tmp_path, capsys, text, "inference.time_to_first_token_seconds",
            line_of(text, "time_to_first_token_seconds"), "time to first token of 0.001 s", cmd="validate")


# ---------------------------------------------------------------------------------------------
# L12: names a reader cannot tell apart


@pytest.mark.parametrize("twin", ["Dedicado BR — 4x L4 ", " Dedicado BR — 4x L4", "DEDICADO BR — 4X L4",
                                  "Dedicado  BR — 4x L4", "Dedicado\u00a0BR — 4x L4", "Ｄedicado BR — 4x L4"])
def test_review_l12_names_differing_by_case_spaces_or_width_are_duplicates(tmp_path, capsys, twin):
    text = SMALL_TEXT.replace('name = "AWS São Paulo — g6.xlarge (L4)"', f'name = "{twin}"')
    refused(tmp_path, capsys, text, "options[1].name", line_of(text, f'name = "{twin}"'),
            "only by case, spaces or invisible characters", "options[0]")


@pytest.mark.parametrize("char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e"])
def test_review_l12_invisible_characters_in_names_are_refused(tmp_path, capsys, char):
    text = SMALL_TEXT.replace('name = "Dedicado BR — 4x L4"', f'name = "Dedicado BR — 4x L4{char}"')
    refused(tmp_path, capsys, text, "options[0].name", line_of(text, 'name = "Dedicado BR'),
            f"invisible character U+{ord(char):04X}")


def test_review_l3_a_bad_daily_profile_element_is_not_preceded_by_the_named_profiles(tmp_path, capsys):
    profile = "[0.5, 0.5, -0.1, 0.1" + ", 0" * 20 + "]"
    text = SMALL_TEXT.replace('daily_profile = "business_hours"', f"daily_profile = {profile}")
    err = refused(tmp_path, capsys, text, "inference.daily_profile[2]", line_of(text, "daily_profile"),
                  "greater than or equal to 0", cmd="validate")
    assert "'flat' or 'business_hours'" not in err and "1 problem in" in err
