"""Dedicated prices as a Brazilian landed cost: each step by hand, every catalog price recomputed, quotes."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.catalog import landed
from tco.catalog import DATA_DIR, load_catalog
from tco.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


@pytest.fixture(scope="module")
def comps():
    return landed.load_components()


def test_import_tax_cascade_by_hand():
    cv = 100.0
    t = landed.import_taxes(cv, 0.18, 0.0975, 0.021, 0.0965, 0.18)
    ii = 0.18 * 100  # 18
    ipi = 0.0975 * (100 + ii)  # 11.505
    pis, cofins = 0.021 * 100, 0.0965 * 100  # 2.1, 9.65
    icms = 0.18 * (100 + ii + ipi + pis + cofins) / (1 - 0.18)  # 0.18 × 141.255 / 0.82 = 31.0072
    assert t == pytest.approx({"ii": ii, "ipi": ipi, "pis": pis, "cofins": cofins, "icms": icms})
    # the review's illustrative figures (§4 3c): +72 % gross, +60 % not recoverable when PIS/COFINS is credited
    assert sum(t.values()) / cv == pytest.approx(0.7226, abs=5e-4)
    assert landed.landed_hardware_brl(cv, t, True) / cv - 1 == pytest.approx(0.6051, abs=5e-4)
    assert landed.landed_hardware_brl(cv, t, False) == pytest.approx(cv + ii + ipi + pis + cofins + icms)


def test_import_switches_by_hand():
    # ex-tarifário: II 0, the rest stays (review: +36 % not recoverable)
    t = landed.import_taxes(100.0, 0.18, 0.0975, 0.021, 0.0965, 0.18, ex_tarifario=True)
    expected_icms = 0.18 * (100 + 0 + 9.75 + 2.1 + 9.65) / 0.82
    assert t["ii"] == 0 and t["ipi"] == pytest.approx(9.75) and t["icms"] == pytest.approx(expected_icms)
    assert landed.landed_hardware_brl(100.0, t, True) - 100 == pytest.approx(9.75 + expected_icms)  # 36.42
    # REDATA: II, IPI, PIS/COFINS suspended, ICMS only (review: +22 %)
    t = landed.import_taxes(100.0, 0.18, 0.0975, 0.021, 0.0965, 0.18, redata=True)
    assert t == pytest.approx({"ii": 0, "ipi": 0, "pis": 0, "cofins": 0, "icms": 0.18 * 100 / 0.82})


def test_capital_cost_by_hand():
    # zero rate: straight line
    assert landed.capital_cost_monthly(1200.0, 0.0, 0.0, 12) == pytest.approx(1200 / 12)
    assert landed.capital_cost_monthly(1200.0, 240.0, 0.0, 12) == pytest.approx((1200 - 240) / 12)
    # an annual rate whose monthly rate is exactly 1 %
    r = 1.01 ** 12 - 1
    expected = 1000 * 0.01 / (1 - 1.01 ** -12)  # 88.8488
    assert landed.capital_cost_monthly(1000.0, 0.0, r, 12) == pytest.approx(expected)
    expected_rv = (1000 - 100 * 1.01 ** -12) * 0.01 / (1 - 1.01 ** -12)
    assert landed.capital_cost_monthly(1000.0, 100.0, r, 12) == pytest.approx(expected_rv)
    with pytest.raises(ValueError):
        landed.capital_cost_monthly(1000.0, 0.0, 0.1, 0)


@given(p=st.floats(1e3, 1e7), rv_share=st.floats(0, 0.9), r=st.floats(0.0, 0.5), n=st.integers(1, 120))
def test_capital_payments_repay_the_principal(p, rv_share, r, n):
    """Present value of the payments plus the discounted residual equals the principal."""
    pmt = landed.capital_cost_monthly(p, rv_share * p, r, n)
    i = landed.monthly_rate(r)
    pv = sum(pmt * (1 + i) ** -k for k in range(1, n + 1)) + rv_share * p * (1 + i) ** -n
    assert pv == pytest.approx(p, rel=1e-9)


def test_running_costs_by_hand():
    assert landed.colocation_monthly_brl(10.2, 217.30, 5.40) == pytest.approx(10.2 * 217.30 * 5.40)  # 11,968.88
    assert landed.power_monthly_brl(10.2, 1.4, 303.03) == pytest.approx(10.2 * 1.4 * 730 * 303.03 / 1000)  # 3,158.91
    assert landed.opex_monthly_brl(1_200_000, 0.03) == pytest.approx(0.03 * 1_200_000 / 12)
    assert landed.with_margin(100.0, 0.15) == pytest.approx(115.0)
    assert landed.with_provider_taxes(87.85, 0.1215) == pytest.approx(100.0)


def test_reproduces_the_reviews_central_rederivation():
    """Review §4 3c: $340k, +50 % non-recoverable import, 16 % cost of capital, 15 % residual, colocation and power as
    the old catalog, 3 %/yr opex, 15 % margin, 12.15 % output taxes → R$141.7k/month."""
    landed_brl = 340_000 * 5.40 * 1.5  # 2,754,000
    capital = landed.capital_cost_monthly(landed_brl, 0.15 * landed_brl, 0.16, 36)
    running = 10.2 * 217.30 * 5.40 + 10.2 * 1.4 * 730 * 303.03 / 1000 + 0.03 * landed_brl / 12
    price = (capital + running) * 1.15 / (1 - 0.1215)
    assert round(price / 100) * 100 == 141_700


def test_hgx_h200_central_case_by_hand(cat, comps):
    """The 8×H200 offer's catalog price, every step written out."""
    c = comps["br-dedicated/sp/hgx-h200-8x"]["central"]
    fx = 5.42
    cv = 340_000 * fx  # customs value 1,842,800
    ii = 0.18 * cv
    ipi = 0.0975 * (cv + ii)
    pis, cofins = 0.021 * cv, 0.0965 * cv
    icms = 0.18 * (cv + ii + ipi + pis + cofins) / (1 - 0.18)
    landed_brl = cv + ii + ipi + icms  # PIS/COFINS credited by a lucro-real provider
    i = 1.16 ** (1 / 12) - 1
    capital = (landed_brl - 0.15 * landed_brl * (1 + i) ** -36) * i / (1 - (1 + i) ** -36)
    colocation = 10.2 * 217.30 * fx
    power = 10.2 * 1.4 * 730 * 350 / 1000
    opex = 0.03 * landed_brl / 12
    price = (capital + colocation + power + opex) * (1 + 0.15) / (1 - 0.1215)
    d = landed.derive(c, 8)
    assert d.landed_brl == pytest.approx(landed_brl)
    assert d.price == pytest.approx(price)
    assert cat.dedicated_offers["br-dedicated/sp/hgx-h200-8x"].brl_per_month == round(price / 100) * 100


def test_every_dedicated_price_is_its_central_landed_cost(cat, comps):
    assert set(comps) == set(cat.dedicated_offers), "every dedicated offer needs its components, and only those"
    for oid, offer in cat.dedicated_offers.items():
        cases = landed.price_cases(oid, offer.gpu_count, comps)
        assert offer.brl_per_month == landed.catalog_price(cases["central"].price), oid
        assert offer.brl_per_month_low == landed.catalog_price(cases["low"].price), oid
        assert offer.brl_per_month_high == landed.catalog_price(cases["high"].price), oid
        assert cases["low"].price < cases["central"].price < cases["high"].price, oid
        assert offer.setup_fee_brl == pytest.approx(comps[oid]["central"]["setup_fee_share"] * offer.brl_per_month)
        assert offer.status == "estimate"


def test_every_component_row_is_sourced_and_dated():
    with (DATA_DIR / "dedicated_landed.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        assert r["source"].strip() and r["as_of"][:4].isdigit(), r["component"]
        assert r["status"] in ("listed", "estimate", "unverified"), r["component"]
        assert float(r["low"]) >= 0 and float(r["central"]) >= 0 and float(r["high"]) >= 0


@given(k=st.floats(1.01, 3.0))
def test_dearer_hardware_never_gives_a_cheaper_price(k):
    c = landed.load_components()["br-dedicated/sp/hgx-h200-8x"]["central"]
    dearer = dict(c, system_usd=c["system_usd"] * k)
    assert landed.derive(dearer, 8).price > landed.derive(c, 8).price


# --- quotes in the scenario -----------------------------------------------------------------------

L4 = (ROOT / "scenarios" / "assistant_8b_l4.toml").read_text(encoding="utf-8")
DEDICATED = 'inference_offer = "br-dedicated/sp/l4-4x"\n'


def _run(tmp_path, text, capsys, formats="json"):
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["run", str(f), "-o", str(out), "--quiet", "--formats", formats, "--paths", "200"])
    return code, out, capsys.readouterr().err


def test_a_quote_with_its_date_is_called_a_quote(tmp_path, capsys):
    import json

    text = L4.replace(DEDICATED, DEDICATED + 'brl_per_month = 5900\ntraining_brl_per_month = 5900\n'
                      'quote_valid_until = "2027-02-28"\nquote_source = "Provider X, proposal 123"\n', 1)
    code, out, err = _run(tmp_path, text, capsys)
    assert code == 0, err
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    rows = [x for x in doc["catalog_rows"]["offers"] if x["offer"] == "br-dedicated/sp/l4-4x"]
    assert rows and all(x["status"] == "quote" for x in rows)
    assert "Provider X, proposal 123" in rows[0]["source"] and "2027-02-28" in rows[0]["source"]
    assert not [n for n in doc["notices"] if n["code"] == "price_estimate"
                and n["params"]["offer"] == "br-dedicated/sp/l4-4x"]


def test_a_quote_without_a_validity_date_is_refused(tmp_path, capsys):
    text = L4.replace(DEDICATED, DEDICATED + 'brl_per_month = 5900\nquote_source = "Provider X"\n', 1)
    code, out, err = _run(tmp_path, text, capsys)
    assert code == 2 and not out.exists()
    n = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("quote_source"))
    assert f"s.toml:{n}:" in err and "[options[0].quote_valid_until]" in err and "validity date" in err


def test_a_validity_date_without_a_price_is_refused(tmp_path, capsys):
    text = L4.replace(DEDICATED, DEDICATED + 'quote_valid_until = "2027-02-28"\n', 1)
    code, out, err = _run(tmp_path, text, capsys)
    assert code == 2 and not out.exists()
    assert "[options[0].quote_valid_until]" in err and "brl_per_month" in err


def test_a_short_minimum_term_carries_its_vacancy_premium_by_hand():
    """Review 2026-12 H2: the 1× H200 NVL's 3-month term was priced as if let for all 36 months of its amortisation.
    The price now covers the months between tenants: ÷ (1 − 12.1 %), São Paulo colocation vacancy as the proxy."""
    assert landed.with_vacancy(100.0, 0.2) == pytest.approx(125.0)               # 100 / (1 − 0.2)
    comps = landed.load_components()["br-dedicated/sp/h200-nvl-1x"]
    central = comps["central"]
    assert central["vacancy_share"] == 0.121 and comps["low"]["vacancy_share"] == 0.0
    with_premium = landed.derive(central, 1).price
    without = landed.derive({**central, "vacancy_share": 0.0}, 1).price
    assert with_premium == pytest.approx(without / (1 - 0.121), rel=1e-12)
    assert landed.catalog_price(without) == 15300 and landed.catalog_price(with_premium) == 17400
    # the 12-month-term servers carry none (their rows do not name one)
    hgx = landed.load_components()["br-dedicated/sp/hgx-h200-8x"]["central"]
    assert hgx.get("vacancy_share", 0.0) == 0.0
