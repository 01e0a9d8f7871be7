"""Taxes tax by tax: the import gross-up, local billing, the reform's months, credits by regime, billing defaults.

Hand-worked cases follow brazil_fx_tax.md §3.4 and the 2026-11 review §4a-§4b; the arithmetic is in each test.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.costs import taxes
from tco.catalog import DATA_DIR, TaxProfile, load_catalog
from tco.cli import main
from tco.engine import run_scenario
from tco.errors import InputError
from tco.scenario import load, load_text

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def month_components(cat, profile_id: str, month: str, base: float, regime: str | None) -> dict[str, float]:
    """Each component on `base` in one month, with the catalog's rates in force that month."""
    prof = cat.taxes[profile_id]
    rates = taxes.rates_by_month(prof, [month], cat.tax_reform)
    return {k: float(v[0]) for k, v in taxes.components(np.array([base]), prof, rates, regime).items()}


# ---------------------------------------------------------------------------------------------
# 2026: the import gross-up and local billing


def test_import_gross_up_per_component_in_2026(cat):
    # brazil_fx_tax.md §3.4, P = 100: V = 100 / (1 − 0.15) = 117.65
    p = 100.0
    v = p / (1 - 0.15)
    expected = {"irrf": v - p,                                        # 17.65
                "cide": 0.10 * v,                                     # 11.76
                "iss": 0.029 * v,                                     # 3.41
                "pis_cofins": 0.0925 * v * (1 + 0.029) / (1 - 0.0925),  # 12.34
                "cbs": 0.0, "ibs": 0.0,                               # 2026 is the reform's test year
                "iof": 0.035 * p}                                     # 3.50
    got = month_components(cat, "import_direct_sp", "2026-06", p, "simples")
    for k, x in expected.items():
        assert got[k] == pytest.approx(x, abs=1e-12), k
    assert [round(got[k], 2) for k in ("irrf", "cide", "iss", "pis_cofins", "iof")] == [17.65, 11.76, 3.41, 12.34, 3.50]
    assert got["credits"] == 0.0  # simples: no credit
    assert round(taxes.total({k: np.array([x]) for k, x in got.items()})[0], 2) == 48.66
    # lucro real takes the PIS/COFINS-import back: 48.66 − 12.34 = 36.32
    real = month_components(cat, "import_direct_sp", "2026-06", p, "lucro_real")
    assert real["credits"] == pytest.approx(expected["pis_cofins"])
    assert round(sum(real[k] for k in taxes.TAXES) - real["credits"], 2) == 36.32
    # lucro presumido is cumulative for PIS/COFINS: no credit in 2026
    assert month_components(cat, "import_direct_sp", "2026-06", p, "lucro_presumido")["credits"] == 0.0


def test_aws_brazil_local_billing_in_2026_and_its_lucro_real_credit(cat):
    # AWS Serviços Brasil: NFS-e in BRL, PIS/COFINS 9.25 % and ISS 2.9 % inside the price (reference §3.3)
    p = 100.0
    g = p / (1 - 0.0925 - 0.029)          # 113.83: the invoice
    got = month_components(cat, "aws_brazil_local", "2026-03", p, "simples")
    assert got["pis_cofins"] == pytest.approx(0.0925 * g)     # 10.53
    assert got["iss"] == pytest.approx(0.029 * g)             # 3.30
    assert got["irrf"] == got["cide"] == got["iof"] == 0.0
    assert round(got["pis_cofins"] + got["iss"], 2) == 13.83
    # a lucro-real buyer credits the PIS/COFINS of the invoice: 13.83 − 10.53 = 3.30 (review §4a: "about +3.3 %")
    real = month_components(cat, "aws_brazil_local", "2026-03", p, "lucro_real")
    assert real["credits"] == pytest.approx(0.0925 * g)
    assert round(g - p - real["credits"], 2) == 3.30


def test_non_technical_import_and_generic_local_entity_in_2026(cat):
    # review §4a: a non-technical service pays IRRF 25 % and no CIDE: V = 100 / 0.75 = 133.33
    p = 100.0
    v = p / (1 - 0.25)
    expected = (v - p) + 0.029 * v + 0.0925 * v * (1 + 0.029) / (1 - 0.0925) + 0.035 * p  # 33.33 + 3.87 + 13.98 + 3.50
    got = month_components(cat, "import_non_technical_sp", "2026-06", p, "simples")
    assert got["cide"] == 0.0
    assert sum(got[k] for k in taxes.TAXES) == pytest.approx(expected)
    assert round(expected, 1) == 54.7
    # GCP/Azure local billing is assumed like AWS Brazil's until checked: +13.83 %
    loc = month_components(cat, "brazil_local_entity_sp", "2026-06", p, "simples")
    assert round(sum(loc[k] for k in taxes.TAXES), 2) == 13.83
    assert cat.taxes["brazil_local_entity_sp"].status == "unverified"


# ---------------------------------------------------------------------------------------------
# 2027 on: CBS/IBS


def test_a_2027_month_under_cbs_ibs(cat):
    p = 100.0
    cbs, ibs = 0.0921 - 0.001, 0.001      # reference rate 9.21 % (CGIBS estimate) − 0.1 pp; IBS 0.1 %
    # local billing: PIS/COFINS gone, ISS still inside, CBS/IBS on top of the invoice
    g = p / (1 - 0.029)                   # 102.99
    got = month_components(cat, "aws_brazil_local", "2027-03", p, "lucro_presumido")
    assert got["pis_cofins"] == 0.0
    assert got["iss"] == pytest.approx(0.029 * g)             # 2.99
    assert got["cbs"] == pytest.approx(cbs * g)               # 9.38
    assert got["ibs"] == pytest.approx(ibs * g)               # 0.10
    assert got["credits"] == pytest.approx((cbs + ibs) * g)   # regular regime credits CBS/IBS (presumido too)
    assert round(g - p, 2) == 2.99                            # net cost: the ISS, "about +3.0 %" (review §4b)
    simples = month_components(cat, "aws_brazil_local", "2027-03", p, "simples")
    assert simples["credits"] == 0.0
    assert sum(simples[k] for k in taxes.TAXES) == pytest.approx((g - p) + (cbs + ibs) * g)  # 12.47
    # import: IRRF, CIDE, ISS and IOF stay; CBS/IBS-import on V replace PIS/COFINS-import and are credited
    v = p / (1 - 0.15)
    imp = month_components(cat, "import_direct_sp", "2027-03", p, "lucro_real")
    assert imp["pis_cofins"] == 0.0
    assert imp["cbs"] == pytest.approx(cbs * v)               # 10.72
    assert imp["ibs"] == pytest.approx(ibs * v)               # 0.12
    net = sum(imp[k] for k in taxes.TAXES) - imp["credits"]
    assert net == pytest.approx((v - p) + 0.10 * v + 0.029 * v + 0.035 * p)
    assert round(net, 2) == 36.32                              # review §4b: "+36.3 %"


def test_dedicated_invoice_2027_moves_cbs_ibs_to_the_taxes_line(cat):
    b = 100.0                             # a BRL price with its taxes inside
    cbs, ibs = 0.0911, 0.001
    got = month_components(cat, "brl_invoice_sp", "2027-05", b, "lucro_real")
    assert got["cbs"] == pytest.approx(b * cbs / (1 + cbs + ibs))   # 8.34: stated on the invoice, inside B
    assert got["ibs"] == pytest.approx(b * ibs / (1 + cbs + ibs))   # 0.09
    assert got["credits"] == pytest.approx(got["cbs"] + got["ibs"])
    share = taxes.inside_share("local_inclusive", taxes.rates_by_month(cat.taxes["brl_invoice_sp"], ["2027-05"],
                                                                         cat.tax_reform))
    assert share[0] == pytest.approx((cbs + ibs) / (1 + cbs + ibs))
    # price line keeps B·(1 − share); the taxes line is the moved taxes − credits = 0: net 100 − 8.43 = 91.57
    assert round(b * (1 - share[0]), 2) == 91.57
    # 2026: a lucro-real buyer credits 9.25 % of the invoice (Lei 10.637/10.833 art. 3)
    y26 = month_components(cat, "brl_invoice_sp", "2026-05", b, "lucro_real")
    assert y26["pis_cofins"] == pytest.approx(0.0925 * b) and y26["credits"] == pytest.approx(0.0925 * b)


def test_rates_follow_the_profile_in_force_month_by_month(cat):
    months = ["2026-12", "2027-01", "2028-12", "2029-01", "2030-06", "2032-12", "2033-01"]
    r = taxes.rates_by_month(cat.taxes["import_direct_sp"], months, cat.tax_reform)
    np.testing.assert_allclose(r["pis_cofins_rate"], [0.0925, 0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(r["cbs_rate"], [0, 0.0911, 0.0911, 0.0921, 0.0921, 0.0921, 0.0921])
    np.testing.assert_allclose(r["ibs_rate"], [0, 0.001, 0.001, 0.1 * 0.187, 0.2 * 0.187, 0.4 * 0.187, 0.187])
    np.testing.assert_allclose(r["iss_rate"], [0.029, 0.029, 0.029, 0.9 * 0.029, 0.8 * 0.029, 0.6 * 0.029, 0.0])
    np.testing.assert_allclose(r["irrf_rate"], 0.15)   # IRRF, CIDE and IOF are not part of the reform
    np.testing.assert_allclose(r["iof_rate"], 0.035)
    assert all(p.status == "estimate" for p in cat.tax_reform)  # no CBS reference rate fixed by law yet
    none = taxes.rates_by_month(cat.taxes["none"], months, cat.tax_reform)
    assert all(np.all(v == 0) for v in none.values())


# ---------------------------------------------------------------------------------------------
# Creditable regimes never cost more


RATE = st.floats(0.0, 0.3)


@settings(max_examples=200, deadline=None)
@given(method=st.sampled_from(taxes.METHODS), irrf=RATE, cide=RATE, iss=st.floats(0.0, 0.05), pc=st.floats(0.0, 0.2),
       cbs=st.floats(0.0, 0.2), ibs=st.floats(0.0, 0.2), iof=RATE, base=st.floats(0.0, 1e7),
       flag=st.booleans())
def test_a_creditable_regime_never_costs_more(method, irrf, cide, iss, pc, cbs, ibs, iof, base, flag):
    prof = TaxProfile("p", method, {"irrf_rate": irrf, "cide_rate": cide, "iss_rate": iss, "pis_cofins_rate": pc,
                                    "cbs_rate": cbs, "ibs_rate": ibs, "iof_rate": iof}, flag, "", "", "", "")
    rates = {k: np.array([v]) for k, v in prof.rates.items()}
    net = {}
    for regime in taxes.REGIMES:
        comp = taxes.components(np.array([base]), prof, rates, regime)
        assert all(v[0] >= 0 for v in comp.values())                   # every component a positive amount
        assert comp["credits"][0] <= sum(comp[k][0] for k in taxes.TAXES) + 1e-9  # credits recover only what was paid
        net[regime] = taxes.total(comp)[0]
        # the price line keeps base·(1 − inside share), so a month's total never goes negative
        assert base * (1 - taxes.inside_share(method, rates)[0]) + net[regime] >= -1e-9
    assert net["lucro_real"] <= net["lucro_presumido"] + 1e-9
    assert net["lucro_presumido"] <= net["simples"] + 1e-9


def _seed_with(regime: str | None, extra: str = ""):
    text = SEED.read_text(encoding="utf-8")
    if regime:
        text = text.replace("[scenario]\n", f'[scenario]\ntax_regime = "{regime}"\n', 1)
    return run_scenario(load_text(text + extra, str(SEED)), load_catalog(), simulate=False)


def test_seed_regimes_are_ordered_and_lines_stay_positive():
    runs = {g: _seed_with(g) for g in taxes.REGIMES}
    for name in (o.name for o in runs["simples"].options):
        tco = {g: next(o for o in r.options if o.name == name).tco.deterministic for g, r in runs.items()}
        assert tco["lucro_real"] <= tco["lucro_presumido"] + 1e-6 <= tco["simples"] + 2e-6, name
    for r in runs.values():
        for o in r.options:
            for k, v in o.costs.lines.items():
                assert np.all(v >= 0), (o.name, k)     # costs are positive amounts, the taxes line too
            comp = o.costs.tax_components
            np.testing.assert_allclose(sum(comp[k] for k in taxes.TAXES) - comp["credits"], o.costs.lines["taxes"])
    # the default regime is lucro real
    dflt = _seed_with(None)
    assert [o.tco for o in dflt.options] == [o.tco for o in runs["lucro_real"].options]


# ---------------------------------------------------------------------------------------------
# Default profile from how the provider bills; overrides; outputs


def test_default_profile_follows_billing(cat):
    res = _seed_with(None)
    by = {o.name: o.resolved for o in res.options}
    aws = next(r for n, r in by.items() if "p5en" in n)
    assert aws.billing.mode == "local_entity" and aws.tax.profile_id == "aws_brazil_local"
    assert "AWS Serviços Brasil" in aws.billing.source and aws.billing.status == "sourced"
    gcp = next(r for n, r in by.items() if n.startswith("GCP"))
    assert gcp.tax.profile_id == "brazil_local_entity_sp" and gcp.billing.status == "unverified"
    assert any(n.code == "billing_unverified" and n.params["provider"] == "gcp" for n in res.notices)
    ded = next(r for n, r in by.items() if r.kind == "dedicated")
    assert ded.brl_tax.profile_id == "brl_invoice_sp" and ded.billing is None


def test_offer_billing_wins_and_scenario_override(cat):
    from dataclasses import replace

    from tco.catalog import CloudOffer
    from tco.domain import record

    @record
    class Billed(CloudOffer):  # an offer that says how it bills (the catalog's providers file sets this)
        br_billing: str | None = "import"
        br_billing_source: str = "test: an offshore contract"

    oid = "aws/us-east-1/p5en.48xlarge"
    o = cat.cloud_offers[oid]
    billed = Billed(o.offer_id, o.provider, o.region, o.instance, o.gpu, o.gpu_count, o.prices)
    cat2 = replace(cat, cloud_offers={**cat.cloud_offers, oid: billed})
    res = run_scenario(load(SEED)[0], cat2, simulate=False)
    opt = next(o.resolved for o in res.options if "p5en" in o.name)
    assert opt.tax.profile_id == "import_direct_sp" and opt.billing.source == "test: an offshore contract"
    assert opt.billing.status == "sourced"  # it names a source
    # an option's `taxes` key overrides the default
    text = SEED.read_text(encoding="utf-8")
    s = load_text(text.replace('inference_offer = "aws/us-east-1/p5en.48xlarge"',
                               'inference_offer = "aws/us-east-1/p5en.48xlarge"\ntaxes = "import_direct_sp"', 1))
    opt = next(o.resolved for o in run_scenario(s, load_catalog(), simulate=False).options if "p5en" in o.name)
    assert opt.tax.profile_id == "import_direct_sp"


def test_a_provider_without_billing_information_is_an_unverified_import(cat):
    from tco.resolve import billing_of

    f = next(o.resolved.inference for o in _seed_with(None).options if "p5en" in o.name)
    b = billing_of(replace_provider(cat, f.offer_id, "somecloud"), replace_fleet(f, "somecloud"))
    assert (b.mode, b.profile, b.status) == ("import", "import_direct_sp", "unverified")
    assert "somecloud" in b.source


def replace_provider(cat, oid, provider):
    from dataclasses import replace

    offer = replace(cat.cloud_offers[oid], provider=provider)
    if hasattr(offer, "br_billing"):  # the catalog's providers file copies its billing onto each offer
        offer = replace(offer, br_billing="", br_billing_source="")
    return replace(cat, cloud_offers={**cat.cloud_offers, oid: offer})


def replace_fleet(f, provider):
    from dataclasses import replace

    return replace(f, provider=provider)


def test_unknown_billing_mode_in_the_tax_file_is_named_with_line(tmp_path):
    (tmp_path / "tax_profiles.toml").write_text('[billing.lambda]\nprofile = "import_direct_sp"\nmode = "imprt"\n',
                                                encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_catalog(tmp_path)
    msg = str(exc.value)
    assert f"{tmp_path / 'tax_profiles.toml'}:3: [billing.lambda.mode] unknown billing mode 'imprt'" in msg
    assert "did you mean 'import'" in msg


def test_unknown_regime_exits_2_naming_file_line_key_and_closest(tmp_path, capsys):
    text = SEED.read_text(encoding="utf-8").replace("[scenario]\n", '[scenario]\ntax_regime = "lucro_rel"\n', 1)
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    line = text.splitlines().index('tax_regime = "lucro_rel"') + 1
    assert re.search(rf"bad\.toml:{line}:.*scenario\.tax_regime.*unknown tax regime 'lucro_rel'; did you mean 'lucro_real'",
                     err), err
    assert not out.exists() or not any(out.iterdir())


def test_a_profile_without_the_reform_still_warns_past_its_months(tmp_path):
    text = (DATA_DIR / "tax_profiles.toml").read_text(encoding="utf-8")
    (tmp_path / "tax_profiles.toml").write_text(text.replace('[profiles.aws_brazil_local]\n',
                                                             '[profiles.aws_brazil_local]\nreform = false\n'),
                                                encoding="utf-8")
    res = run_scenario(load(SEED)[0], load_catalog(tmp_path), simulate=False)
    assert any(n.code == "tax_horizon" and n.params["profile"] == "aws_brazil_local" and n.params["until"] == "2026-12"
               for n in res.notices)


@pytest.mark.slow
def test_json_and_ledger_show_each_tax(tmp_path):
    assert main(["run", str(SEED), "-o", str(tmp_path), "--formats", "json,csv", "--quiet", "--paths", "200"]) == 0
    doc = json.loads((tmp_path / "seed_70b_h200.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader((tmp_path / "seed_70b_h200.csv").open(encoding="utf-8")))
    for o in doc["options"]:
        comp = o["taxes_by_component_brl"]
        assert set(comp) == set(taxes.COMPONENTS)
        assert sum(comp[k] for k in taxes.TAXES) - comp["credits"] == pytest.approx(o["lines_brl"]["taxes"], rel=1e-9,
                                                                                     abs=1e-6)
        assert o["tax_regime"] == "lucro_real"
        tax_rows = [r for r in rows if r["x_Option"] == o["name"] and r["x_CostLine"] == "taxes"]
        assert sum(float(r["x_BilledCostBRL"]) for r in tax_rows) == pytest.approx(o["lines_brl"]["taxes"], abs=1e-6)
        for r in tax_rows:
            assert r["x_TaxComponent"] in taxes.COMPONENTS
            assert (r["ChargeCategory"] == "Credit") == (r["x_TaxComponent"] == "credits")
    aws = next(o for o in doc["options"] if "p5en" in o["name"])
    assert aws["taxes_by_component_brl"]["cbs"] > 0 and aws["taxes_by_component_brl"]["pis_cofins"] == 0.0  # 2027-29
    assert {p["period_id"] for p in doc["catalog_rows"]["tax_reform"]} == {"r2027_2028", "r2029"}


# ---------------------------------------------------------------------------------------------
# Hand-built options: a dedicated invoice and a hybrid, month by month


def _with_taxes(opt, cat, months, regime, tax=None):
    from dataclasses import replace

    tax = tax or opt.tax
    brl = cat.taxes["brl_invoice_sp"]
    return replace(opt, tax=tax, regime=regime, brl_tax=brl,
                   tax_rates=taxes.rates_by_month(tax, months, cat.tax_reform),
                   brl_tax_rates=taxes.rates_by_month(brl, months, cat.tax_reform))


def test_dedicated_option_2026_then_2027_by_hand(cat):
    from test_costs import DAYS14, REPLICA, flat_rps, fleet, option

    from tco.costs import option_costs

    inf = fleet("ded/serve", "dedicated", 1000.0)
    opt = _with_taxes(option(inf, None), cat, ["2026-12", "2027-01"], "lucro_real", cat.taxes["none"])
    oc = option_costs(opt, training=None, replica=REPLICA, rps=flat_rps([0.4, 0.4]), days=DAYS14[:2],
                      egress_gb=np.zeros(2), storage_gb=0.0, training_start=1, inference_start=1, utilization=0.5,
                      redundancy="none")
    cbs, ibs = 0.0911, 0.001
    inside = np.array([0.0925, (cbs + ibs) / (1 + cbs + ibs)])   # PIS/COFINS in 2026; CBS+IBS in 2027
    np.testing.assert_allclose(oc.lines["inference_compute"], 1000.0 * (1 - inside))  # 907.50, 915.67
    np.testing.assert_allclose(oc.tax_components["pis_cofins"], [92.5, 0.0])
    np.testing.assert_allclose(oc.tax_components["cbs"], [0.0, 1000.0 * cbs / (1 + cbs + ibs)])  # 83.42
    np.testing.assert_allclose(oc.tax_components["credits"], 1000.0 * inside)         # lucro real credits all
    np.testing.assert_allclose(oc.lines["taxes"], [0.0, 0.0], atol=1e-12)
    assert oc.currency["taxes"] == "BRL"
    total = sum(oc.lines[k] for k in oc.lines)
    np.testing.assert_allclose(total, [1000 - 92.5, 1000 - 1000 * (cbs + ibs) / (1 + cbs + ibs)])  # 907.50, 915.67


def test_hybrid_nets_its_brl_invoice_credit_from_its_brl_lines(cat):
    from test_costs import DAYS14, REPLICA, flat_rps, fleet, option, training_size

    from tco.costs import option_costs

    tr = fleet("cloud/train", "cloud", 30.0, pricing="on_demand")
    inf = fleet("ded/serve", "dedicated", 1000.0)
    opt = _with_taxes(option(inf, tr), cat, ["2027-01", "2027-02"], "lucro_presumido", cat.taxes["aws_brazil_local"])
    oc = option_costs(opt, training=training_size(1, 100.0), replica=REPLICA, rps=flat_rps([0.4, 0.4]),
                      days=DAYS14[:2], egress_gb=np.zeros(2), storage_gb=0.0, training_start=1, inference_start=1,
                      utilization=0.5, redundancy="none")
    cbs, ibs = 0.0911, 0.001
    credit = (cbs + ibs) / (1 + cbs + ibs)                 # presumido credits CBS/IBS from 2027
    np.testing.assert_allclose(oc.lines["inference_compute"], 1000.0 * (1 - credit))
    np.testing.assert_allclose(oc.brl_price_credits, 1000.0 * credit)
    usd = 100 * 30.0                                        # 100 h of training at 30 USD/h in month 1
    g = usd / (1 - 0.029)                                   # AWS Brazil 2027: ISS inside, CBS/IBS on top, credited
    np.testing.assert_allclose(oc.lines["taxes"], [g - usd, 0.0])
    assert oc.currency["taxes"] == "USD"
    assert "hybrid_brl_credit" in [n.code for n in oc.notices]
