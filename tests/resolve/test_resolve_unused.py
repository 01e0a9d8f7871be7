"""Review L4: a price or pricing an offer cannot have is a located error (tco.resolve.unused); keys that are only
inert are notices (tco.scenario.plausibility); none is silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")


def _after(text: str, anchor: str, line: str) -> str:
    i = text.index(anchor) + len(anchor)
    return text[:i] + "\n" + line + text[i:]


def _validate(tmp_path, text: str, capsys) -> tuple[int, str]:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["validate", str(path)])
    return code, capsys.readouterr().err


def _line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


@pytest.mark.parametrize("anchor,key,words", [
    ('inference_offer = "br-dedicated/sp/l4-4x"', "usd_per_hour = 1.5", "is a dedicated server"),
    ('inference_offer = "br-dedicated/sp/l4-4x"', 'pricing = "spot"', "is a dedicated server"),
    ('inference_offer = "aws/sa-east-1/g6.xlarge"', "brl_per_month = 9000.0", "is a cloud instance"),
    ('training_offer = "br-dedicated/sp/l4-4x"', "training_usd_per_hour = 2.0", "is a dedicated server"),
    ('training_offer = "aws/sa-east-1/g6.12xlarge"', "training_brl_per_month = 9000.0", "is a cloud instance"),
])
def test_review_l4_a_price_or_pricing_the_offer_cannot_have_is_refused(tmp_path, capsys, anchor, key, words):
    text = _after(SMALL, anchor, key)
    code, err = _validate(tmp_path, text, capsys)
    name = key.split(" ")[0]
    assert code == 2
    assert f":{_line_of(text, key)}: [options[" in err and f".{name}] " in err and words in err
    assert f"{name} has no effect" in err


def test_review_l4_training_keys_when_nothing_is_trained_are_a_notice(tmp_path, capsys):
    """Inert keys leave the TCO as meant: the run goes on, and says so (a notice per option, like an ignored
    autoscale)."""
    text = SMALL.replace('method = "lora"', 'method = "none"')
    code, err = _validate(tmp_path, text, capsys)
    assert code == 0
    assert err.count("training.method é 'none': nada é treinado e estas chaves não mudam nada: training_offer") == 4


def test_review_l4_a_history_for_a_model_that_reads_none_is_a_notice(tmp_path, capsys):
    text = _after(SMALL, 'model = "fixed"', 'history_csv = "rates.csv"\nblock_months = 12')
    code, err = _validate(tmp_path, text, capsys)
    assert code == 0
    assert ("só o modelo bootstrap lê estas chaves de [fx]; com model = 'fixed' elas não mudam nada: history_csv, "
            "block_months.") in err
    assert _validate(tmp_path, _after(SMALL, 'model = "fixed"', "block_months = 6"), capsys)[1].count("[fx]") == 0


def test_the_examples_set_no_key_in_vain(capsys):
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        assert main(["validate", str(path)]) == 0, capsys.readouterr().err

