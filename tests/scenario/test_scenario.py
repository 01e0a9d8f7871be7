"""Bad input: every common mistake gets exit 2, file + line + key on stderr, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.cli import main
from tco.scenario import key_lines, load_text

ROOT = Path(__file__).resolve().parents[2]
GOOD = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")


def run_bad(tmp_path, text, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["run", str(f), "-o", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert not out.exists() or not any(out.iterdir()), "nothing may be written on bad input"
    return err


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith(needle))


CASES = [
    # (name, replace old, new, key path expected, fragment expected in message, line starts with)
    ("toml syntax", 'horizon_months = 24', 'horizon_months = = 24', "", "TOML syntax error", "horizon_months"),
    ("wrong type", 'horizon_months = 24', 'horizon_months = "two years"', "scenario.horizon_months", "integer",
     "horizon_months"),
    ("percent for fraction", 'discount_rate = 0.14', 'discount_rate = 14', "scenario.discount_rate",
     "looks like a percent", "discount_rate"),
    ("zero horizon", 'horizon_months = 24', 'horizon_months = 0', "scenario.horizon_months", "greater than 0",
     "horizon_months"),
    ("negative horizon", 'horizon_months = 24', 'horizon_months = -3', "scenario.horizon_months", "greater than 0",
     "horizon_months"),
    ("unknown key", 'locale = "pt-BR"', 'locale = "pt-BR"\nhorizon = 12', "scenario.horizon", "unknown key",
     "horizon ="),
    ("bad start month", 'start = "2027-03"', 'start = "03/2027"', "scenario.start", "YYYY-MM", "start ="),
    ("unknown offer", 'inference_offer = "aws/sa-east-1/g6.xlarge"\npricing = "on_demand"',
     'inference_offer = "aws/sa-east-1/g6.xlarg"\npricing = "on_demand"', "options[1].inference_offer",
     "did you mean 'aws/sa-east-1/g6.xlarge'", 'inference_offer = "aws/sa-east-1/g6.xlarg"'),
    ("unknown model", 'id = "llama-3.1-8b"', 'id = "llama-3-8b"', "model.id", "did you mean", "id ="),
    ("unknown pricing", 'pricing = "reserved_1yr"', 'pricing = "reserved"', "options[2].pricing", "reserved_1yr",
     'pricing = "reserved"'),
]


@pytest.mark.parametrize("name,old,new,key,fragment,line_start", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_reported_with_file_line_and_key(tmp_path, capsys, name, old, new, key, fragment, line_start):
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    err = run_bad(tmp_path, text, capsys)
    assert "bad.toml:" in err
    assert f"bad.toml:{line_of(text, line_start)}:" in err, err
    if key:
        assert f"[{key}]" in err, err
    assert fragment in err, err


def test_all_problems_are_reported_at_once(tmp_path, capsys):
    text = GOOD.replace("horizon_months = 24", "horizon_months = 0").replace("discount_rate = 0.14",
                                                                            "discount_rate = 14")
    text = text.replace('start = "2027-03"', 'start = "2027-3"')
    err = run_bad(tmp_path, text, capsys)
    assert "3 problems" in err
    for key in ("scenario.horizon_months", "scenario.discount_rate", "scenario.start"):
        assert key in err


def test_model_that_fits_on_no_gpu(tmp_path, capsys):
    text = GOOD.replace('id = "llama-3.1-8b"', 'id = "llama-3.1-405b"')
    err = run_bad(tmp_path, text, capsys)
    assert "fits on no GPU count" in err and "[options[0].inference_offer]" in err
    n = line_of(text, 'inference_offer = "br-dedicated/sp/l4-4x"')
    assert f"bad.toml:{n}:" in err


def test_unpriced_offer_names_the_prices_that_exist(tmp_path, capsys):
    text = GOOD.replace('pricing = "reserved_1yr"', 'pricing = "reserved_3yr"').replace(
        'inference_offer = "aws/sa-east-1/g6.xlarge"\npricing = "reserved_3yr"',
        'inference_offer = "aws/sa-east-1/p5en.48xlarge"\npricing = "on_demand"')
    err = run_bad(tmp_path, text, capsys)
    assert "p5en.48xlarge" in err


def test_missing_file_is_exit_2(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read scenario file" in capsys.readouterr().err


def test_growth_model_fields_are_checked(tmp_path, capsys):
    text = GOOD.replace('users = { model = "linear", start_users = 300, end_users = 1500 }',
                        'users = { model = "logistic", start_users = 300 }')
    err = run_bad(tmp_path, text, capsys)
    assert "inference.users.ceiling_users" in err and "required key is missing" in err


def test_daily_profile_must_sum_to_one():
    text = GOOD.replace('daily_profile = "business_hours"', "daily_profile = [" + ", ".join(["0.05"] * 24) + "]")
    with pytest.raises(Exception) as exc:
        load_text(text, "x.toml")
    assert "sum to 1" in str(exc.value)


def test_key_lines_maps_tables_arrays_and_inline_tables():
    text = '[a]\nx = 1\n\n[[options]]\nname = "p"\n[[options]]\nname = "q"\n[b]\nu = { model = "linear", k = 2 }\n'
    lines = key_lines(text)
    assert lines[("a", "x")] == 2
    assert lines[("options", 0, "name")] == 5
    assert lines[("options", 1, "name")] == 7
    assert lines[("b", "u", "k")] == 9


def test_scenario_reference_doc_is_up_to_date():
    from tco.scenario.schema_doc import render

    doc = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    assert doc.strip() == render().strip(), "regenerate with: python -m tco.scenario.schema_doc > docs/scenario.md"


def test_every_schema_field_is_documented():
    from tco.scenario.schema_doc import SECTIONS
    from tco.scenario.types import field_docs

    for _, model in SECTIONS:
        for name in model.model_fields:
            assert field_docs(model).get(name), f"{model.__name__}.{name} has no docstring"


def test_unknown_key_suggests_the_closest_valid_key(tmp_path, capsys):
    text = GOOD.replace("horizon_months = 24", "horizon_month = 24")
    err = run_bad(tmp_path, text, capsys)
    assert "did you mean 'horizon_months'?" in err
    # problems come in file order
    lines = [int(ln.split(":")[1]) for ln in err.splitlines() if "bad.toml:" in ln]
    assert lines == sorted(lines)


def test_unquoted_month_gets_a_hint(tmp_path, capsys):
    text = GOOD.replace('start = "2027-03"', "start = 2027-03")
    err = run_bad(tmp_path, text, capsys)
    assert 'write months as text: start = "2027-03"' in err
    assert f"bad.toml:{line_of(text, 'start =')}:" in err
