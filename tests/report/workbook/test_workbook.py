"""The workbook as finance sees it: written for every example scenario, recalculated by LibreOffice
headless (a throw-away profile set to always recalculate on load), read back with openpyxl.

All LibreOffice conversions of this module happen in one `soffice` call (a module fixture), since
each start of LibreOffice costs seconds. Tests that need it skip only when `soffice` is absent. The fast set checks
the small example's workbook (`FAST`); the other examples, LibreOffice and whole-workbook scans are in the slow set.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import openpyxl
import pytest
from lazy import PerKey

from tco.catalog import load_catalog
from tco.engine import run_scenario
from tco.report import json_out, view, workbook
from tco.results import rankable
from tco.scenario import Scenario, load

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
FAST = "assistant_8b_l4"
"""The one example whose whole workbook the fast set checks (the smallest); the others are in the slow set."""


def stems(*names: str) -> list:
    """The examples named (all by default) as parameters, each but FAST marked slow."""
    return [s if s == FAST else pytest.param(s, marks=pytest.mark.slow) for s in (names or [p.stem for p in SCENARIOS])]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
needs_soffice = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
TOL = 0.01  # R$
# LibreOffice re-saves a date axis' category cache as formatted text ("2027-01"), which openpyxl cannot
# read back as numbers; the tests read cells, never the charts of a recalculated copy.
pytestmark = pytest.mark.filterwarnings("ignore:Unable to read chart:UserWarning")

RECALC_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


# ---------------------------------------------------------------------------------------------
# helpers


def run_engine(scenario: Scenario, path: Path, enrich: bool = False):
    """Results and JSON doc as the CLI makes them (`enrich` adds tornado, break-evens and the FX fan)."""
    cat_dir = (path.parent / scenario.scenario.catalog_dir).resolve() if scenario.scenario.catalog_dir else None
    res = run_scenario(scenario, load_catalog(cat_dir), file=str(path), paths=400)
    if enrich:
        from tco import analysis

        res = analysis.enrich(res)
    return res, json_out.build(res, "", str(path))


def modified(scenario: Scenario, change) -> Scenario:
    data = scenario.model_dump()
    change(data)
    return Scenario.model_validate(data)


def named_cells(wb, name: str) -> list:
    """The cells a defined name points to, flattened."""
    out = []
    for sheet, ref in wb.defined_names[name].destinations:
        got = wb[sheet][ref.replace("$", "")]
        if isinstance(got, tuple):
            out += [c for row in got for c in (row if isinstance(row, tuple) else (row,))]
        else:
            out.append(got)
    return out


def named_values(wb, name: str) -> list:
    return [c.value for c in named_cells(wb, name)]


def assert_matches_engine(wb, doc: dict) -> None:
    for i, o in enumerate(doc["options"], start=1):
        totals = named_values(wb, f"out_o{i}_total")
        expected = [m["total_brl"] for m in o["monthly"]]
        assert len(totals) == len(expected)
        for m, (got, want) in enumerate(zip(totals, expected)):
            assert got == pytest.approx(want, abs=TOL), f"{o['name']} month {m + 1}"
        assert named_values(wb, f"out_o{i}_tco")[0] == pytest.approx(o["tco_brl"]["deterministic"], abs=TOL), o["name"]
        assert named_values(wb, f"out_o{i}_npv")[0] == pytest.approx(o["npv_brl"]["deterministic"], abs=TOL), o["name"]


def set_input(wb, name: str, value) -> None:
    (cell,) = named_cells(wb, name)
    cell.value = value


def recalculate(files: list[Path], out_dir: Path, profile: Path) -> None:
    """Recalculate xlsx files with LibreOffice headless in one call; results land in out_dir."""
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_XCU, encoding="utf-8")
    cmd = [SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore", "--convert-to", "xlsx",
           "--outdir", str(out_dir), *map(str, files)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    missing = [f.name for f in files if not (out_dir / f.name).exists()]
    assert not missing, f"LibreOffice did not convert {missing}"


# Input changes made in a copy of the workbook, and the same change made to the scenario.
# (scenario stem, {defined name: new value}, change to the scenario dict)
SEED_OPTIONS = (ROOT / "scenarios" / "seed_70b_h200.toml").read_text(encoding="utf-8").count("[[options]]")
"""Options of the seed (the regime change turns every option's credits off)."""

CHANGES = {
    "fx_rate": ("seed_70b_h200", {"in_usdbrl": 6.1}, lambda d: d["fx"].update(usdbrl=6.1)),
    "dedicated_price": ("seed_70b_h200", {"in_o1_inf_price": 98_765.0},
                        lambda d: d["options"][0].update(brl_per_month=98_765.0)),
    "users": ("seed_70b_h200", {"in_start_users": 420.0}, lambda d: d["inference"]["users"].update(start_users=420.0)),
    # the MFU of a dense model is each option's catalog cell (its GPU generation at the training precision): 0.30 in
    # every option's cell is a scenario MFU of 0.30
    "training_tokens_mfu": ("seed_70b_h200", {"in_train_tokens": 8.0e9} | {
        f"in_o{n}_tr_mfu_base": 0.30 for n in range(1, SEED_OPTIONS + 1)},
                            lambda d: d["training"].update(tokens=8.0e9, mfu=0.30)),
    # a 32K training sequence: the causal attention's FLOPs per token, 6 × 80 × 32768 × 8192 = 1.288e11 on 6 × 70.55e9
    # = 4.233e11 (+30.4 %, against +3.8 % at the default 4,096), drive the training GPU-hours and their cost
    "sequence_length": ("seed_70b_h200", {"in_tr_seq_len": 32768.0},
                        lambda d: d["training"].update(sequence_length=32768)),
    # the replica layout is re-chosen: H100 options go from tensor parallel 4 to 2, H200 batch 143 → 245
    "input_tokens": ("seed_70b_h200", {"in_in_tokens": 1000.0},
                     lambda d: d["inference"].update(input_tokens_per_request=1000.0)),
    # 30 tokens/s: the 4x L4 server moves to tensor parallel 4; single L4s miss the target and run batch 1
    "speed_layout": ("assistant_8b_l4", {"in_target_tps": 30.0},
                     lambda d: d["inference"].update(tokens_per_second_per_user=30.0)),
    "growth_cloud_discount_speed": ("assistant_8b_l4", {"in_end_users": 2600.0, "in_o3_inf_price": 0.61,
                                                        "in_discount_rate": 0.10, "in_target_tps": 20.0},
                                    lambda d: (d["inference"]["users"].update(end_users=2600.0),
                                               d["options"][2].update(usd_per_hour=0.61),
                                               d["scenario"].update(discount_rate=0.10),
                                               d["inference"].update(tokens_per_second_per_user=20.0))),
    # (AWS bills these options through its Brazilian entity, ISS and PIS/COFINS inside: no IOF input to change)
    "growth_training": ("pretrain_burst", {"in_growth_rate": 0.09, "in_o2_tr_price": 150_000.0},
                            lambda d: (d["inference"]["users"].update(monthly_growth_rate=0.09),
                                       d["options"][1].update(training_brl_per_month=150_000.0))),
    # the done-when edits of issue 11 not covered above: each alone, on the seed
    "discount_rate": ("seed_70b_h200", {"in_discount_rate": 0.15}, lambda d: d["scenario"].update(discount_rate=0.15)),
    "cloud_price": ("seed_70b_h200", {"in_o3_inf_price": 70.0}, lambda d: d["options"][2].update(usd_per_hour=70.0)),
    "growth_ceiling": ("seed_70b_h200", {"in_ceiling_users": 12_000.0},
                       lambda d: d["inference"]["users"].update(ceiling_users=12_000)),
    "efficiency": ("seed_70b_h200", {f"in_o{n}_tr_mfu_base": 0.30 for n in range(1, SEED_OPTIONS + 1)},
                   lambda d: d["training"].update(mfu=0.30)),
    # the USD/BRL lever (× 1.1 on the spot rate's path) is the engine's spot × 1.1
    "lever_fx": ("seed_70b_h200", {"in_lv_fx_base": 1.1}, lambda d: _scale_fx(d, 1.1)),
    # the scenario switch on "aggressive" (its levers as generated): users × 1.2, cloud × 1.1, dedicated × 0.95,
    # USD/BRL × 1.1, each the same change to the scenario (prices as overrides of the resolved ones)
    "scenario_switch": ("seed_70b_h200", {"in_scenario": 3}, "aggressive"),
    # the reform's CBS rate for 2027-2028 and the buyer's regime (no credits), month by month in the tax block
    "tax_reform_regime": ("seed_70b_h200", {"in_rf1_cbs": 0.10, **{f"in_o{n}_cr_{k}": 0 for n in range(1, SEED_OPTIONS + 1)
                                                                   for k in ("pis_cofins", "cbs", "ibs")}},
                          lambda d: d["scenario"].update(tax_regime="simples")),
}


def _scale_fx(d: dict, k: float) -> None:
    """The scenario change the USD/BRL lever makes: the whole base path × k (tco.analysis.scaled_fx)."""
    from tco.analysis import scaled_fx
    from tco.scenario import Scenario

    s = Scenario.model_validate(d)
    d["fx"] = scaled_fx(s, k).model_dump(exclude_none=True)


def _levers(res, scenario_key: str):
    """The scenario change that the workbook's levers make in scenario `scenario_key` (tco.report.workbook.levers)."""
    from tco.report.workbook.levers import LEVERS, SCENARIOS

    j = SCENARIOS.index(scenario_key)
    lv = {key: (1.0, cons, aggr)[j] for key, cons, aggr in LEVERS}

    def scale(fleet) -> float:
        return lv["cloud"] if fleet.kind == "cloud" else lv["dedicated"]

    def change(d):
        _scale_fx(d, lv["fx"])
        users = d["inference"]["users"]
        for k in ("start_users", "end_users", "max_users", "ceiling_users"):
            if users.get(k) is not None:
                users[k] = round(users[k] * lv["users"])
        for od, o in zip(d["options"], res.options):
            r = o.resolved
            price = {"cloud": "usd_per_hour", "dedicated": "brl_per_month"}
            od[price[r.inference.kind]] = r.inference.price * scale(r.inference)
            if r.training is not None and od["fleet"] == "separate":
                od["training_" + price[r.training.kind]] = r.training.price * scale(r.training)
            if r.burst is not None:
                od["burst_usd_per_hour"] = r.burst.price * lv["cloud"]
    return change


REGIME_FLAG = re.compile(r"in_o\d+_cr_\w+")
"""A regime's credit flag: present for an option whose taxes include that creditable tax."""


def _no_training_list_parity(d):
    d["training"] = {"method": "none"}
    d["inference"].update(users={"model": "list", "users": [100, 300, 500]}, daily_profile="flat", redundancy="none")
    d["fx"].update(model="parity", base_path=None)  # "parity": the former name of the forward base path
    for o in d["options"]:
        o["training_offer"] = None
    d["options"][2].update(autoscale=False, pricing="on_demand")


def _without_savings_plan(d):
    """The seed's options without its Savings Plan option: the variants below shorten the horizon (a 3-year plan no
    longer fits) or name options by their place in the list of the seed before that option was added."""
    d["options"] = [o for o in d["options"] if "Savings Plan" not in o["name"]]


def _gbm_drift_min_term_custom_profile(d):
    _without_savings_plan(d)
    d["fx"].update(model="gbm", drift=0.02, volatility=0.1)
    d["inference"]["users"] = {"model": "compound", "start_users": 300, "monthly_growth_rate": 0.04}
    d["options"][1]["min_term_months"] = 6
    d["options"][3]["taxes"] = "import_direct_sp_lucro_real"
    d["training"].update(gpu_hours=50_000.0, start_month=2, servers=1)  # memory needs 2 servers
    d["inference"]["start_month"] = 4
    d["inference"]["daily_profile"] = [0.5 if h in (9, 14) else 0.0 for h in range(24)]


def _two_months_linear(d):
    _without_savings_plan(d)
    d["scenario"].update(horizon_months=2, locale="en")
    d["inference"].update(start_month=2, users={"model": "linear", "start_users": 300, "end_users": 900})
    d["options"][0]["fleet"] = "separate"
    d["options"][2]["pricing"] = "on_demand"  # a 1-year commitment is longer than a 2-month horizon (rejected)


def _heavy_egress_shared_cloud_trends(d):
    _without_savings_plan(d)
    d["scenario"]["horizon_months"] = 30
    d["inference"]["egress_kb_per_request"] = 20_000.0
    d["options"][2]["fleet"] = "shared"
    d["options"][4]["price_trend_rate"] = -0.1
    d["options"][0]["indexation_rate"] = 0.06
    d["options"][3]["pricing"] = "ri_1yr_convertible_no_upfront"  # 3 years exceed the 30-month horizon (rejected)


def _committed_baseline(d):
    _without_savings_plan(d)
    # AWS São Paulo p5: 1-year terms from the first serving month, 0 committed in the first (all the hours on
    # demand, by the hour), 1 in the second and, the last value holding, the third
    d["options"][3].update(pricing="ri_1yr_convertible_no_upfront", committed_instances=[0, 1],
                           burst_pricing="on_demand", autoscale=False)


def _upfront_and_fx_list(d):
    # all-upfront commitments (the upfront in the month each term starts): a committed baseline on p5 us-east-1,
    # a reserved serving fleet in São Paulo, a shared A100 fleet on 1-year terms renewed twice in 40 months;
    # the FX base path a monthly list
    d["scenario"]["horizon_months"] = 40
    d["fx"].update(base_path="list", path=[5.3, 5.5, 5.6])
    d["options"][3].update(training_offer="aws/us-east-1/p5.48xlarge", inference_offer="aws/us-east-1/p5.48xlarge",
                           pricing="ri_3yr_standard_all_upfront_effective", committed_instances=[1],
                           burst_pricing="on_demand")
    d["options"][4].update(pricing="ri_3yr_standard_all_upfront_effective", training_pricing="on_demand",
                           fleet="separate")
    d["options"][5].update(training_offer="aws/us-east-1/p4de.24xlarge", inference_offer="aws/us-east-1/p4de.24xlarge",
                           pricing="ri_1yr_standard_all_upfront_effective", fleet="shared", autoscale=False,
                           storage_usd_per_gb_month=None)


def _deepseek_moe_two_servers_ttft(d):
    d["model"].update(id="deepseek-v3", kv_precision="bf16")
    d["training"] = {"method": "none"}
    d["options"] = [o for o in d["options"] if "nvl" not in o["inference_offer"]]  # one H200 NVL cannot hold it
    for o in d["options"]:
        o["training_offer"] = None
        o["fleet"] = "separate"
    d["inference"].update(time_to_first_token_seconds=1.5, tokens_per_second_per_user=20.0)


def _moe_fp8_training(d):
    """A mixture-of-experts model pre-trained in FP8 (the Sizing sheet's expert size, MoE factor and MFU rules, the
    FP8 peak)."""
    _without_savings_plan(d)
    d["model"].update(id="mixtral-8x7b")
    d["training"].update(precision="fp8")


def _sglang_prefill_steps(d):
    """SGLang serving: prefills in steps of their own (in_prefill_mix 0, the prompt GEMMs outside the weight read) and
    its KV cache paged on demand (in_kv_reserve 0.5), with its own bandwidth share."""
    d["inference"].update(framework="sglang")


# Scenarios off the beaten path (every growth model, FX model, fleet and pricing branch of the
# formulas): each must recalculate to the engine and pass its checks.
VARIANTS = {
    "no_training_list_parity": ("seed_70b_h200", _no_training_list_parity),
    "gbm_drift_min_term_custom_profile": ("pretrain_burst", _gbm_drift_min_term_custom_profile),
    "two_months_linear": ("assistant_8b_l4", _two_months_linear),
    "heavy_egress_shared_cloud_trends": ("seed_70b_h200", _heavy_egress_shared_cloud_trends),
    # MoE expert touch, expert parallel over two H100 servers (p5), a time-to-first-token target
    "deepseek_moe_two_servers_ttft": ("seed_70b_h200", _deepseek_moe_two_servers_ttft),
    "committed_baseline": ("seed_70b_h200", _committed_baseline),
    "upfront_and_fx_list": ("seed_70b_h200", _upfront_and_fx_list),
    "moe_fp8_training": ("pretrain_burst", _moe_fp8_training),
    "sglang_prefill_steps": ("seed_70b_h200", _sglang_prefill_steps),
}


def _reform_catalog(tmp: Path) -> Path:
    """A catalog overlay with a CBS rate of 10 % in 2027-2028, for the tax_reform_regime change."""
    from tco.catalog import DATA_DIR

    text = (DATA_DIR / "tax_profiles.toml").read_text(encoding="utf-8")
    assert "cbs_rate = 0.0911" in text
    d = tmp / "catalog_reform"
    d.mkdir()
    (d / "tax_profiles.toml").write_text(text.replace("cbs_rate = 0.0911", "cbs_rate = 0.10"), encoding="utf-8")
    return d


# ---------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def runs():
    """stem → (scenario, scenario path, Results, JSON doc)."""

    def make(stem):
        path = ROOT / "scenarios" / f"{stem}.toml"
        scenario, _, _ = load(path)
        res, doc = run_engine(scenario, path, enrich=True)
        return scenario, path, res, doc

    return PerKey(make, [p.stem for p in SCENARIOS])


@pytest.fixture(scope="module")
def written(runs, tmp_path_factory):
    d = tmp_path_factory.mktemp("xlsx")

    def make(stem):
        _, _, res, doc = runs[stem]
        workbook.write(res, view.build(res), d / f"{stem}.xlsx")
        return d / f"{stem}.xlsx"

    return PerKey(make, [p.stem for p in SCENARIOS])


@pytest.fixture(scope="module")
def recalculated(runs, written, tmp_path_factory):
    """stem or change key → (recalculated workbook path, expected JSON doc)."""
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    src = tmp_path_factory.mktemp("src")
    out = tmp_path_factory.mktemp("recalc")
    expected = {}
    inputs = []
    for stem, f in written.every().items():
        shutil.copy(f, src / f.name)
        inputs.append(src / f.name)
        expected[stem] = runs[stem][3]
    for key, (stem, cells, change) in CHANGES.items():
        scenario, path, _, _ = runs[stem]
        wb = openpyxl.load_workbook(written[stem])
        for name, value in cells.items():
            if name in wb.defined_names or not REGIME_FLAG.fullmatch(name):  # an option has the flags of its taxes
                set_input(wb, name, value)
        target = src / f"changed_{key}.xlsx"
        wb.save(target)
        inputs.append(target)
        s2 = modified(scenario, change if callable(change) else _levers(runs[stem][2], change))
        if key == "tax_reform_regime":
            cat = load_catalog(_reform_catalog(tmp_path_factory.mktemp("cat")))
            res2 = run_scenario(s2, cat, file=str(path), paths=400)
            expected[key] = json_out.build(res2, "", str(path))
        else:
            expected[key] = run_engine(s2, path)[1]
    for key, (stem, change) in VARIANTS.items():
        scenario, path, _, _ = runs[stem]
        res, expected[key] = run_engine(modified(scenario, change), path, enrich=True)
        target = src / f"variant_{key}.xlsx"
        workbook.write(res, view.build(res), target)
        inputs.append(target)
    recalculate(inputs, out, tmp_path_factory.mktemp("lo-profile"))
    return {k: (out / Path(f).name, expected[k]) for k, f in zip(expected, inputs)}


# ---------------------------------------------------------------------------------------------
# without LibreOffice: what a viewer that does not recalculate shows


@pytest.mark.parametrize("stem", stems())
def test_cached_values_are_the_engine_numbers(runs, written, stem):
    wb = openpyxl.load_workbook(written[stem], data_only=True)
    assert_matches_engine(wb, runs[stem][3])
    assert named_values(wb, "chk_master") == [True]


@pytest.mark.slow
def test_calculation_cells_are_formulas_and_inputs_are_named(runs, written):
    wb = openpyxl.load_workbook(written["seed_70b_h200"])
    doc = runs["seed_70b_h200"][3]
    for i in range(1, len(doc["options"]) + 1):
        cells = named_cells(wb, f"out_o{i}_total")
        assert all(isinstance(c.value, str) and c.value.startswith("=") for c in cells)
    for name in ("in_usdbrl", "in_discount_rate", "in_start_users", "in_o1_inf_price", "in_o3_inf_price", "in_o3_eg2_p"):
        (cell,) = named_cells(wb, name)
        assert isinstance(cell.value, (int, float))
    # the timeline has months across the columns, one formula per row: same formula shifted by column
    calc = wb["Cálculo 1"]
    row = next(r for r in calc.iter_rows() if r[0].value in ("Custo total do mês", "Total cost of month"))
    f1, f2 = row[4].value, row[5].value
    assert f1.replace("E", "F") == f2


@pytest.mark.slow
def test_native_charts(runs, written):
    """Cumulative cost per option, monthly cost by line (stacked, one per option), FX fans, tornado."""
    with zipfile.ZipFile(written["seed_70b_h200"]) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    n_opts = len(runs["seed_70b_h200"][3]["options"])
    stacked = [c for c in charts if '<c:grouping val="stacked"/>' in c]
    lines = [c for c in charts if "<c:lineChart>" in c]
    tornado = [c for c in charts if '<c:barDir val="bar"/>' in c]
    assert len(stacked) == n_opts
    # months, not date serials, under the cumulative and per-option charts
    cumulative = [c for c in lines if "Linha do tempo'!$E$4:" in c]
    assert len(cumulative) == 2  # Summary and Comparison
    for c in stacked + cumulative:
        assert "<c:dateAx>" in c and 'formatCode="mmm/yy"' in c
    assert len(lines) >= 3  # cumulative (summary and comparison), the USD/BRL fan, cost fans
    assert tornado, "the JSON has 'sensitivity', so the workbook has a tornado"
    assert "sensitivity" in runs["seed_70b_h200"][3]


@pytest.mark.slow
def test_labels_follow_the_scenario_locale(written):
    assert "Premissas" in openpyxl.load_workbook(written["seed_70b_h200"], read_only=True).sheetnames  # pt-BR
    assert "Inputs" in openpyxl.load_workbook(written["pretrain_burst"], read_only=True).sheetnames  # en


# engine and scenario ids that must reach a pt-BR reader translated (case-sensitive: "LoRA" is the label)
RAW_IDS = re.compile(r"\b(on_demand|reserved_\dyr|separate|shared|monthly|hybrid|lora|full|pretrain|linear_|logistic|"
                     r"compound|gbm|bootstrap|parity|growth curve|every rate|input and output|annual|share|npv|tco_p95|"
                     r"req/user|latency-bandwidth|latency-compute|max-batch|memory|on|off)\b")


def _label_cells(path: Path, res) -> list[tuple[str, str, str]]:
    """(sheet, cell, text) of every text a pt-BR reader sees as a label, with the cached results of
    formulas: every sheet but the Catalog (catalog data as listed), leaving out the Inputs' source
    column, the engine's warnings and any cell holding an option name (scenario text)."""
    wb = openpyxl.load_workbook(path, data_only=True)
    from tco.report import notices

    names = [o.name for o in res.options]
    notice_lines = {notices.line(n, res.scenario.scenario.locale) for n in res.notices}
    out = []
    for ws in wb.worksheets:
        if ws.title in ("Catálogo", "Catalog"):
            continue
        for row in ws.iter_rows():
            for c in row:
                v = c.value
                if not isinstance(v, str) or v in notice_lines or any(n in v for n in names):
                    continue
                if ws.title == "Premissas" and c.column_letter == "F":
                    continue
                out.append((ws.title, c.coordinate, v))
    return out


@pytest.mark.slow
def test_pt_br_labels_carry_no_raw_engine_ids(runs, written, tmp_path):
    """Fleet, pricing, kind (hybrid too), training method, growth and FX models, sensitivity units and
    metrics, the batch bound and units: all from the labels dict, never the engine's ids or English."""
    files = [(written[k], runs[k][2]) for k in ("seed_70b_h200", "assistant_8b_l4")]
    scenario, path, _, _ = runs["pretrain_burst"]  # full fine-tuning, hybrid option, bootstrap FX: in pt-BR
    res, doc = run_engine(modified(scenario, lambda d: d["scenario"].update(locale="pt-BR")), path)
    assert {o.kind for o in res.options} >= {"hybrid", "cloud", "dedicated"}
    f = tmp_path / "pretrain_pt.xlsx"
    workbook.write(res, view.build(res), f)
    files.append((f, res))
    for f, res in files:
        cells = _label_cells(f, res)
        assert len(cells) > 300
        raw = [(sh, c, v) for sh, c, v in cells if RAW_IDS.search(v)]
        assert not raw, raw[:10]
        texts = {v for _, _, v in cells}
        assert "Método de treinamento" in texts
        # the Catalog lists catalog ids (offers, tables, GPUs) as they are, under translated headers, with
        # the engine's ids among its values (kind, pricing, unit, status, tax method) translated
        cat = openpyxl.load_workbook(f, read_only=True)["Catálogo"]
        values = {v for row in cat.iter_rows(values_only=True) for v in row if isinstance(v, str)}
        assert not values & {"memory_gb", "price_unit", "usd_per_gb_month", "tier_from_gb", "on_demand", "cloud",
                             "dedicated", "BRL/month", "listed", "import_gross_up", "True", "False"}
        assert {"Memória (GB)", "Modalidade", "nuvem"} <= values
    kinds = [v for sh, c, v in _label_cells(f, res) if sh == "Comparação" and c.startswith("C") and c != "C3"]
    assert "híbrido (nuvem + dedicado) / frotas separadas" in kinds


@pytest.mark.slow
def test_en_labels_translate_ids_too(written, runs):
    texts = {v for _, _, v in _label_cells(written["pretrain_burst"], runs["pretrain_burst"][2])}
    assert "Training method" in texts and "block bootstrap of the history" in texts
    assert not [v for v in texts if re.search(r"\b(on_demand|reserved_\dyr|req/user/d)\b", v)]


@pytest.mark.parametrize("stem", stems())
def test_summary_ranking_reads_top_down_in_the_engines_order(runs, written, stem):
    doc = runs[stem][3]
    wb = openpyxl.load_workbook(written[stem], data_only=True)
    ws = wb.worksheets[0]
    head = next(r for r in ws.iter_rows() if r[0].value in ("Posição", "Rank") and r[1].value in ("Opção", "Option"))
    rows = [[c.value for c in r[:5]] for r in ws.iter_rows(min_row=head[0].row + 1, max_row=head[0].row + len(doc["options"]))]
    n = len(doc["ranking"])  # the ranked options, then those not ranked (breaking the client's constraints)
    assert [r[1] for r in rows[:n]] == doc["ranking"]
    assert [r[1] for r in rows[n:]] == [o["name"] for o in doc["options"] if o["name"] not in doc["ranking"]]
    tcos = [r[2] for r in rows[:n]]
    assert tcos == sorted(tcos)
    assert [r[0] for r in rows[:n]] == sorted(r[0] for r in rows[:n]) and rows[0][0] == 1
    assert rows[0][4] == pytest.approx(0.0)
    # sorted by formula: row k finds the option whose place in Comparison's order column is k (INDEX/MATCH), so
    # the ranking reorders when an edit changes the leader (tests/test_workbook_finance.py edits one)
    formulas = openpyxl.load_workbook(written[stem]).worksheets[0]
    cmp_rows = {r[1]: r[0] for r in rows}
    assert len(cmp_rows) == len(rows)
    for k, r in enumerate(formulas.iter_rows(min_row=head[0].row + 1, max_row=head[0].row + len(rows)), start=1):
        x = r[0].row
        assert r[5].value.startswith(f"=MATCH({k},") and "$O$" in r[5].value
        assert r[2].value.startswith("=INDEX(") and r[2].value.endswith(f"$D${4 + len(rows) - 1},F{x})")
        assert r[0].value.startswith("=INDEX(") and r[0].value.endswith(f",F{x})")


def _decimals(number_format: str) -> int:
    """Most decimals a number format shows."""
    m = re.search(r"\.([0#]+)", number_format)
    return len(m.group(1)) if m else 0


@pytest.mark.parametrize("stem", stems("seed_70b_h200", "assistant_8b_l4"))
def test_unit_prices_show_every_decimal_money_two(runs, written, stem):
    """USD/h and per-GB prices show every decimal they have (0.0405 is not 0.04, egress 0.085 is not
    0.09); money totals keep 2 decimals."""
    wb = openpyxl.load_workbook(written[stem])
    names = [n for n in wb.defined_names if re.fullmatch(r"in_o\d+_(inf_price|tr_price|storage|eg\d+_p)", n)]
    assert len(names) > 10
    shown = 0
    for name in names:
        (cell,) = named_cells(wb, name)
        if isinstance(cell.value, (int, float)) and "R$" not in cell.number_format:  # BRL a month is money
            need = len(repr(float(cell.value)).split(".")[1].rstrip("0"))
            assert _decimals(cell.number_format) >= max(need, 4), (name, cell.value, cell.number_format)
            shown += need >= 3
    assert shown  # some price really has more than 2 decimals
    (price,) = named_cells(wb, "in_o1_inf_price")  # a dedicated server, BRL per month
    assert _decimals(price.number_format) == 2
    for i in range(1, len(runs[stem][3]["options"]) + 1):
        for out in ("tco", "npv"):
            (cell,) = named_cells(wb, f"out_o{i}_{out}")
            assert _decimals(cell.number_format) == 2


def test_scenario_text_is_literal_text_never_a_formula_or_link(runs, tmp_path):
    scenario, path, _, _ = runs["assistant_8b_l4"]
    evil = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3", "http://example.com/x"]

    def change(d):
        d["scenario"].update(client=evil[0], prepared_by=evil[2], notes=evil[3])
        d["options"][0].update(name=evil[1])
        d["options"][1].update(name=evil[4])

    res, doc = run_engine(modified(scenario, change), path)
    f = tmp_path / "evil.xlsx"
    workbook.write(res, view.build(res), f)
    wb = openpyxl.load_workbook(f)
    found = {v: 0 for v in evil}
    for ws in wb.worksheets:
        # the only links are the Index's, each to a sheet of this file (a location, no address)
        links = [c.hyperlink for row in ws.iter_rows() for c in row if c.hyperlink is not None] + list(ws._hyperlinks)
        if ws.title in ("Index", "Índice"):
            assert links and all(h.target is None and h.location.endswith("!A1") for h in links)
        else:
            assert not links, ws.title
        for row in ws.iter_rows():
            for c in row:
                if c.value in found:
                    assert c.data_type == "s", (ws.title, c.coordinate)
                    found[c.value] += 1
                elif isinstance(c.value, str) and c.data_type == "f":
                    assert "HYPERLINK" not in c.value.upper() and "cmd|" not in c.value, (ws.title, c.coordinate)
    assert all(found.values()), found
    with zipfile.ZipFile(f) as z:
        for name in z.namelist():
            body = z.read(name).decode("utf-8", "replace")
            assert "<hyperlink" not in body or "r:id=" not in body, name  # internal links only
            assert 'TargetMode="External"' not in body, name
            assert not [f for f in re.findall(r"<f[^>]*>(.*?)</f>", body) if "HYPERLINK" in f.upper() or "cmd|" in f], name


# ---------------------------------------------------------------------------------------------
# with LibreOffice: the model really recalculates, to the engine's numbers


@pytest.mark.slow
@needs_soffice
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_recalculated_workbook_equals_engine_and_checks_pass(recalculated, written, stem):
    path, doc = recalculated[stem]
    wb = openpyxl.load_workbook(path, data_only=True)
    assert_matches_engine(wb, doc)
    assert named_values(wb, "chk_master") == [True]
    (master,) = named_cells(wb, "chk_master")
    checks = [r[4].value for r in master.parent.iter_rows(min_row=4, max_row=master.row - 2)]
    checks = [v for v in checks if v is not None]
    assert checks and all(v is True for v in checks)
    # every formula's cached value (the engine's) is what LibreOffice computes
    cached = openpyxl.load_workbook(written[stem], data_only=True)
    formulas = openpyxl.load_workbook(written[stem])
    n = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                want, got = cached[ws.title][c.coordinate].value, wb[ws.title][c.coordinate].value
                if isinstance(want, (int, float)) and not isinstance(want, bool):
                    if hasattr(got, "year"):  # dates come back as datetimes
                        continue
                    assert got == pytest.approx(want, rel=1e-9, abs=1e-6), (ws.title, c.coordinate, c.value)
                else:
                    assert got == want, (ws.title, c.coordinate, c.value)
                n += 1
    assert n > 1000


@pytest.mark.slow
@needs_soffice
@pytest.mark.parametrize("key", list(VARIANTS))
def test_variant_scenarios_recalculate_to_the_engine(recalculated, key):
    path, doc = recalculated[key]
    wb = openpyxl.load_workbook(path, data_only=True)
    assert_matches_engine(wb, doc)
    assert named_values(wb, "chk_master") == [True]


@pytest.mark.slow
@needs_soffice
@pytest.mark.parametrize("key", list(CHANGES))
def test_changed_input_recalculates_to_the_engine_with_the_same_change(recalculated, runs, key):
    path, doc = recalculated[key]
    wb = openpyxl.load_workbook(path, data_only=True)
    assert_matches_engine(wb, doc)
    # integrity holds after the edit; the edit is flagged; the snapshot of the engine's run no longer matches
    assert named_values(wb, "chk_master") == [True]
    assert named_values(wb, "chk_inputs_changed")[0] >= 1  # how many inputs differ from their generated copy
    assert named_values(wb, "chk_reconciled") == [False]
    stem = CHANGES[key][0]
    before = runs[stem][3]
    assert any(abs(a[k]["deterministic"] - b[k]["deterministic"]) > 1.0 for k in ("tco_brl", "npv_brl")
               for a, b in zip(doc["options"], before["options"])), "the change should move some TCO or NPV"


# ---------------------------------------------------------------------------------------------
# every input drives something: a trace of each formula's precedents, from the inputs to the options' TCO and NPV


def _cells_of(sheet: str, ref: str) -> list[tuple[str, str]]:
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    ref = ref.replace("$", "")
    if ":" not in ref:
        return [(sheet, ref)]
    c1, r1, c2, r2 = range_boundaries(ref)
    return [(sheet, f"{get_column_letter(c)}{r}") for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def _driving_cells(wb) -> tuple[dict, set]:
    """(defined name → its cells, every cell some option's TCO or NPV depends on through the formulas)."""
    from openpyxl.formula.tokenizer import Tokenizer

    names = {n: [c for s, r in dn.destinations for c in _cells_of(s, r)] for n, dn in wb.defined_names.items()}
    precedents: dict = {}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                out = []
                for tok in Tokenizer(c.value).items:
                    if tok.type == "OPERAND" and tok.subtype == "RANGE":
                        if tok.value in names:
                            out += names[tok.value]
                        elif "!" in tok.value:
                            sheet, ref = tok.value.rsplit("!", 1)
                            out += _cells_of(sheet.strip("'").replace("''", "'"), ref)
                        else:
                            out += _cells_of(ws.title, tok.value)
                precedents[(ws.title, c.coordinate)] = out
    todo = [c for n, cells in names.items() if re.fullmatch(r"out_o\d+_(tco|npv)", n) for c in cells]
    seen: set = set()
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo += precedents.get(x, [])
    return names, seen


@pytest.mark.parametrize("stem", stems())
def test_every_input_drives_an_output(written, stem):
    """FAST: every input drives something. Each named input (numbers in input style: prices, rates, levers, the
    scenario switch…) is a precedent of some option's TCO or NPV; labels of how the file was generated are not
    inputs (no name, not input-styled)."""
    wb = openpyxl.load_workbook(written[stem])
    names, driving = _driving_cells(wb)
    inputs = [n for n in names if n.startswith("in_")]
    assert len(inputs) > 150
    dead = [n for n in inputs if not any(c in driving for c in names[n])]
    assert not dead
    for n in inputs:  # and each is a number in input style
        for sheet, ref in [c for c in names[n]][:1]:
            cell = wb[sheet][ref]
            assert cell.font.color is not None and cell.font.color.rgb in ("FF0000FF", "000000FF"), (n, cell.font.color)
    # the structure choices are labels, not input-styled
    labels = [c for row in wb[wb.sheetnames[2]].iter_rows() for c in row[1:2] if isinstance(c.value, str)]
    assert labels and all(c.font.color is None or c.font.color.rgb not in ("FF0000FF",) for c in labels)


def test_a_dead_input_is_found(written, tmp_path):
    """The trace fails on an input that drives nothing: a formula reading the USD/BRL input is replaced by its value."""
    wb = openpyxl.load_workbook(written["assistant_8b_l4"])
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f" and "in_usdbrl" in c.value:
                    c.value = 5.4
    names, driving = _driving_cells(wb)
    assert not any(c in driving for c in names["in_usdbrl"])


@pytest.mark.slow
def test_constants_are_named_not_literals(written):
    """The Timeline, the calculation sheets and the Checks use no number inside a formula but 0 and 1: 3600, 10⁹,
    the 1E-9 tolerance, 6·N·D, 16 B/param… are named cells of the constants block (tco.constants), each with its
    source. (Left: the 12 of the FX path's t/12, a rule of tco.timeline.fx_rule, and the Sizing sheet's replica
    candidates, tco.report.workbook.replica.)"""
    from openpyxl.formula.tokenizer import Tokenizer

    from tco.constants import ALL

    wb = openpyxl.load_workbook(written["seed_70b_h200"])
    for c in ALL:
        assert named_values(wb, c.name) == [c.value]
    sheets = [wb.sheetnames[5]] + [n for n in wb.sheetnames if n.startswith(("Cálculo", "Verificações"))]
    assert len(sheets) >= 3
    seen = 0
    for name in sheets:
        for row in wb[name].iter_rows():
            if name == wb.sheetnames[5] and row[0].value == "USD/BRL":
                continue
            for c in row:
                if c.data_type == "f":
                    literals = {t.value for t in Tokenizer(c.value).items if t.type == "OPERAND" and t.subtype == "NUMBER"}
                    assert literals <= {"0", "1"}, (name, c.coordinate, c.value)
                    seen += 1
    assert seen > 5000
    sizing = " ".join(c.value for row in wb[wb.sheetnames[4]].iter_rows() for c in row if c.data_type == "f")
    assert "c_train_flops_per_param_token*" in sizing and "c_adam_bytes_per_param*" in sizing


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["seed_70b_h200", "pretrain_burst"])
def test_row_n_means_the_same_on_every_option_sheet(runs, written, stem):
    """Every option's sheet has the same rows (a row an option lacks is there, "n/a", zero): the union of the
    options' rules, egress tiers to the largest table, the tax block of every method, the lines, TCO at one row."""
    wb = openpyxl.load_workbook(written[stem])
    sheets = [wb[n] for n in wb.sheetnames if n.startswith(("Cálculo", "Calc"))]
    assert len(sheets) == len(runs[stem][3]["options"])
    labels = [[r[0].value for r in ws.iter_rows(min_row=2, max_col=1)] for ws in sheets]
    assert all(x == labels[0] for x in labels)
    tco_cells = [named_cells(wb, f"out_o{i}_tco")[0].coordinate for i in range(1, len(sheets) + 1)]
    assert len(set(tco_cells)) == 1
    # a row that does not apply says so and holds zeros: the cloud setup line of a cloud option
    na = [r for r in sheets[-2].iter_rows(min_row=2) if r[1].value in ("não se aplica", "not applicable")]
    monthly = [r for r in na if r[4].value is not None]  # (a constant that does not apply has no months)
    assert monthly and all(c.value == 0 for r in monthly for c in r[4:8])


# ---------------------------------------------------------------------------------------------
# finance views (tests/test_workbook_finance.py holds the rest)


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["seed_70b_h200", "pretrain_burst"])
def test_live_tornado_rows_equal_the_engines_reruns(runs, written, stem):
    """USD/BRL, cloud and dedicated prices move the TCO along straight lines: their tornado rows are formulas of
    the Finance sheet, and give what the engine got by re-running the model at each end of the range."""
    doc = runs[stem][3]
    wb = openpyxl.load_workbook(written[stem], data_only=True)
    formulas = openpyxl.load_workbook(written[stem])
    sheet = "Sensibilidade" if "Sensibilidade" in wb.sheetnames else "Sensitivity"
    engine = [row for b in doc["sensitivity"].values() if isinstance(b, dict) for row in b.get("rows", [])
              if row["input"] in ("usdbrl", "cloud_price", "dedicated_price")]
    live = [r[0].row for r in formulas[sheet].iter_rows() if isinstance(r[5].value, str) and r[5].value.startswith("=E")]
    assert len(live) >= 3
    for n in live:
        low, low_diff, high_diff = (wb[sheet].cell(n, c).value for c in (3, 6, 7))
        same = [row for row in engine if row["low"] == low
                and row["low_diff_brl"] == pytest.approx(low_diff, rel=1e-9, abs=0.01)
                and row["high_diff_brl"] == pytest.approx(high_diff, rel=1e-9, abs=0.01)]
        assert same, (sheet, n, low_diff, high_diff)


# ---------------------------------------------------------------------------------------------
# one break-even (issue 22): the JSON's FX break-evens, which the proposal prints (test_proposal_annex), are the
# Finance sheet's spot-at-k* column after LibreOffice recalculates it, on every example


def _breakeven_rates(path: Path, locale: str, names: list[str]) -> dict[str, object]:
    """Option → the recalculated 'spot USD/BRL at that multiple' of the Finance sheet's break-even table."""
    from tco.report.i18n import t

    head = t("be_fx_rate", locale)
    wb = openpyxl.load_workbook(path, data_only=True)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value == head:
                    return {ws.cell(c.row + 1 + j, 1).value: ws.cell(c.row + 1 + j, c.column).value
                            for j in range(len(names))}
    raise AssertionError(f"no break-even table in {path.name}")


@pytest.mark.slow
@needs_soffice
@pytest.mark.parametrize("stem", [p.stem for p in SCENARIOS])
def test_fx_breakevens_are_the_workbooks_after_recalculation(runs, recalculated, stem):
    scenario, _, res, _ = runs[stem]
    path, doc = recalculated[stem]
    names = [o["name"] for o in doc["options"]]
    rates = _breakeven_rates(path, scenario.scenario.locale, names)
    rows = doc["breakevens"]["usdbrl"]
    feasible = rankable(res.options)  # feasible and within the client's constraints
    assert len(rows) == len(feasible) - 1  # every such option but the leader, against the leader
    lead = min(feasible, key=lambda o: o.tco.deterministic).name
    for row in rows:
        assert row["versus"] == lead
        got = rates[row["option"]]
        if row["usdbrl"] is None:
            assert got in (None, "")
        else:
            assert got == pytest.approx(row["usdbrl"], rel=1e-9)
