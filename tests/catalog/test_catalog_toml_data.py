"""tco.catalog.toml_data: tax profiles, reform periods and billing (tax_profiles.toml), defaults.toml and the
serving calibration; every bad value named with file, key and, where found, line."""

from __future__ import annotations

import pytest

from tco.catalog.toml_data import load_calibration, load_defaults, load_taxes
from tco.catalog.types import DATA_DIR


def test_shipped_tax_file_reads_without_problems():
    problems = []
    profiles, periods, billing = load_taxes([DATA_DIR / "tax_profiles.toml"], problems)
    assert problems == []
    assert {"import_direct_sp", "aws_brazil_local", "none"} <= set(profiles)
    assert profiles["none"].method == "none"
    assert [p.start for p in periods] == sorted(p.start for p in periods)            # month order
    assert all(0 <= r < 1 for prof in profiles.values() for r in prof.rates.values())
    assert all(b.profile in profiles for b in billing.values())


def test_bad_rates_methods_modes_and_profiles_are_named(tmp_path):
    p = tmp_path / "tax_profiles.toml"
    p.write_text('[profiles.x]\nmethod = "import_grossup"\nirrf_rate = 1.5\n\n'
                 '[billing.acme]\nmode = "imported"\nprofile = "nope"\n\n'
                 '[reform.r]\nfrom = "2027-13"\n', encoding="utf-8")
    problems = []
    profiles, periods, billing = load_taxes([p], problems)
    got = {q.key: q for q in problems}
    assert got["profiles.x.irrf_rate"].message == "rate must be a fraction in [0, 1), got 1.5"
    assert got["profiles.x.method"].message.startswith("unknown tax method 'import_grossup'; did you mean "
                                                       "'import_gross_up'")
    assert got["profiles.x.method"].line == 2
    assert got["billing.acme.mode"].line == 6 and "did you mean 'import'" in got["billing.acme.mode"].message
    assert got["billing.acme.profile"].message.startswith("unknown tax profile 'nope'")
    assert got["reform.r"].message == "'from' and 'until' must be months written 'YYYY-MM'"
    assert profiles["x"].rates["irrf_rate"] == 0.0 and periods == ()
    assert all(q.file == str(p) for q in problems)


def test_toml_syntax_error_names_the_line(tmp_path):
    p = tmp_path / "defaults.toml"
    p.write_text("[training]\nmfu = 0.4\nbroken = \n", encoding="utf-8")
    problems = []
    assert load_defaults([p], problems) == {}
    assert problems[0].line == 3 and problems[0].message.startswith("TOML syntax error")


@pytest.mark.parametrize("value", ["64", "4096.0", "2000000"])
def test_the_default_sequence_length_is_an_integer_in_bounds(tmp_path, value):
    p = tmp_path / "defaults.toml"
    p.write_text(f"[training]\nsequence_length = {value}\n", encoding="utf-8")
    problems = []
    out = load_defaults([DATA_DIR / "defaults.toml", p], problems)
    assert [q.key for q in problems] == ["training.sequence_length"] and "128 to 1,048,576" in problems[0].message
    assert out["training"]["sequence_length"] == 4096  # the shipped default stays


def test_defaults_checks_shares_and_merges_files(tmp_path):
    p = tmp_path / "defaults.toml"
    p.write_text("[training]\nmfu = 1.2\n[inference]\nbandwidth_efficiency_share = 0.6\n", encoding="utf-8")
    problems = []
    out = load_defaults([DATA_DIR / "defaults.toml", p], problems)
    assert [(q.key, q.message) for q in problems] == [("training.mfu", "must be a share in (0, 1], got 1.2")]
    assert out["training"]["mfu"] == 0.449                        # the bad file is left out whole
    q = tmp_path / "ok.toml"
    q.write_text("[inference]\nbandwidth_efficiency_share = 0.6\n", encoding="utf-8")
    out = load_defaults([DATA_DIR / "defaults.toml", q], [])
    assert out["inference"]["bandwidth_efficiency_share"] == 0.6 and out["inference"]["flops_efficiency_share"] == 0.5


def test_calibration_last_file_wins_and_names_itself(tmp_path):
    shipped = DATA_DIR / "calibration_default.toml"
    out = load_calibration([shipped, tmp_path / "absent.toml"], [])
    assert out["file"] == str(shipped)
    p = tmp_path / "calibration_default.toml"
    p.write_text('name = "mine"\n', encoding="utf-8")
    assert load_calibration([shipped, p], []) == {"name": "mine", "file": str(p)}


def test_azure_sold_to_brazil_is_an_import_of_services_by_hand(seed_results):
    """Microsoft sells Azure to a direct Brazilian customer in USD (MCA FAQ): the import profile, not local billing.
    Lucro real in 2027 (PIS/COFINS-import, CBS and IBS credited): IRRF 15 % grossed up, CIDE 10 % and ISS 2.9 % of
    the grossed-up value, IOF 3.5 % of the price: 1/0.85 − 1 + 0.10/0.85 + 0.029/0.85 + 0.035 = 0.363235…"""
    o = next(o for o in seed_results.options if o.name.startswith("Azure"))
    assert (o.resolved.billing.mode, o.resolved.billing.status, o.resolved.tax.profile_id) == (
        "import", "sourced", "import_direct_sp")
    expected = (1 / 0.85 - 1) + 0.10 / 0.85 + 0.029 / 0.85 + 0.035
    taxed = sum(o.lines_brl[k][0] for k in ("training_compute", "inference_compute", "storage", "egress"))
    assert o.lines_brl["taxes"][0] / taxed == pytest.approx(expected, rel=1e-9)
