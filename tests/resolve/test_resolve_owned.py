"""An option's [options.owned] resolved against the catalog (tco.resolve.owned): the landed price and tax rates, the
payment, the regime's credits and shield; bad input as located exit-2 errors with nothing written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tco.catalog import load_catalog
from tco.cli import main
from tco.errors import InputError
from tco.resolve import resolve
from tco.resolve.owned import landed_rows
from tco.scenario import load

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "scenarios" / "owned_70b_h200.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "owned.toml"
    f.write_text(text, encoding="utf-8")
    return f


def _resolved(tmp_path, cat, text=EXAMPLE):
    s, _, lines = load(_write(tmp_path, text))
    return resolve(s, cat, "owned.toml", lines)[1]


def test_landed_server_takes_the_catalog_case_and_the_regime(tmp_path, cat):
    opts = _resolved(tmp_path, cat)
    own = opts[1].owned
    rows = landed_rows("br-dedicated/sp/hgx-h200-8x", "central")
    assert own.inputs["o.own_hw"] == 8 * rows["gpu_usd"][0] + rows["system_usd"][0] == 340_000.0
    assert own.inputs["o.own_ii"] == 0.18 and own.inputs["o.own_icms"] == 0.18
    assert own.inputs["o.own_credit"] == 1.0 and own.inputs["o.own_ir"] == 0.34  # lucro real
    assert own.inputs["o.own_cash"] == 1.0 and own.currency == "USD"
    assert opts[1].tax.profile_id == "none" and opts[1].brl_tax is None
    fin = opts[2].owned.inputs
    assert (fin["o.own_rate"], fin["o.own_term"], fin["o.own_grace"], fin["o.own_cash"]) == (0.1514, 60.0, 6.0, 0.2)
    assert "samuelnunescontabilidade" in opts[2].owned.sources["own_term"]


def test_presumido_has_no_credit_and_no_shield(tmp_path, cat):
    text = EXAMPLE.replace('locale = "pt-BR"', 'locale = "pt-BR"\ntax_regime = "lucro_presumido"')
    own = _resolved(tmp_path, cat, text)[1].owned
    assert own.inputs["o.own_credit"] == 0.0 and own.inputs["o.own_ir"] == 0.0


def test_a_quoted_brl_price_has_no_import_taxes(tmp_path, cat):
    text = EXAMPLE.replace('payment = "cash"', 'payment = "cash"\nprice_brl = 2500000')
    own = _resolved(tmp_path, cat, text)[1].owned
    assert own.currency == "BRL" and own.inputs["o.own_hw"] == 2_500_000.0
    assert all(own.inputs[f"o.own_{k}"] == 0.0 for k in ("ii", "ipi", "pis", "cofins", "icms", "credit"))


BAD = [
    # a 60-month loan in a 36-month horizon without a balloon
    (lambda t: t.replace("balloon = true\n", ""), "options[2].owned.payment", "longer than the horizon"),
    (lambda t: t.replace("balloon = true\n", "balloon = true\ngrace_months = 60\n"), "options[2].owned.grace_months",
     "leaves no instalment"),
    (lambda t: t.replace('payment = "bndes_finame"', 'payment = "bndes"'), "options[2].owned.payment",
     "did you mean"),
    (lambda t: t.replace("balloon = true\n", "balloon = true\nresale_share = 1.5\n"), "options[2].owned.resale_share",
     "looks like a percent"),
    (lambda t: t.replace("balloon = true\n", "balloon = true\nuseful_life_months = 0\n"),
     "options[2].owned.useful_life_months", "greater than or equal to 1"),
    (lambda t: t.replace("cross_connects = 2", "cross_connects = 2\ncontracted_kw = 5"),
     "options[1].owned.contracted_kw", "above the 5.0 kW contracted"),
    (lambda t: t.replace('fleet = "shared"\n\n[options.owned]\npayment = "cash"',
                         'fleet = "separate"\n\n[options.owned]\npayment = "cash"'), "options[1].owned",
     "fleet = 'shared'"),
]


@pytest.mark.parametrize("change,key,words", BAD, ids=[b[1] + ":" + b[2][:12] for b in BAD])
def test_bad_owned_input_is_a_located_exit_2(tmp_path, capsys, change, key, words):
    f = _write(tmp_path, change(EXAMPLE))
    out = tmp_path / "out"
    code = main(["run", str(f), "-o", str(out), "--formats", "json"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert key in err and words in err, err
    assert re.search(r"owned\.toml:\d+: \[" + re.escape(key), err), err  # the file, the line and the key
    assert not out.exists() or not any(out.iterdir())


def test_an_owned_cloud_offer_is_refused(tmp_path, cat):
    text = EXAMPLE.replace('inference_offer = "br-dedicated/sp/hgx-h200-8x"\nfleet = "shared"\n\n[options.owned]',
                           'inference_offer = "aws/us-east-1/p5en.48xlarge"\nfleet = "shared"\n\n[options.owned]', 1)
    text = text.replace('training_offer = "br-dedicated/sp/hgx-h200-8x"\ninference_offer = "aws',
                        'training_offer = "aws/us-east-1/p5en.48xlarge"\ninference_offer = "aws', 1)
    with pytest.raises(InputError) as exc:
        _resolved(tmp_path, cat, text)
    assert "dedicated offer" in str(exc.value)


def test_notices_name_the_estimated_price_and_the_one_sided_shield(tmp_path, cat):
    import numpy as np

    from tco.resolve.owned import owned_notices

    opt = _resolved(tmp_path, cat)[1]
    rows = {"own_shield": np.array([100.0, 100.0]), "own_gain_tax": np.array([0.0, -50.0])}
    codes = {n.code: n.params for n in owned_notices(opt, rows)}
    assert codes["owned_price_estimate"] == {"offer": "br-dedicated/sp/hgx-h200-8x"}
    assert codes["owned_shield"] == {"rate": 0.34, "amount": 250.0}  # 200 of shield + 50 saved on the loss
