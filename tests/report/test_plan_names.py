"""tco.report.plan_names: a plan's name in the run's locale. The catalog's English templates are the JSON's (every
reported plan renders to its JSON name in English), and pt-BR puts the same parts in Portuguese, by hand."""

from __future__ import annotations

import pytest

from test_plan import _all_plans, burst_plans, cat, seed_plans  # noqa: F401  (the searches, run once per module)
from tco.plan.naming import CONTRACT_EN, TEMPLATE_KEYS
from tco.report.i18n import t
from tco.report.plan_names import plan_label

HYBRID = {"group": "hybrid", "fleet": "separate",
          "training": {"offer": "gcp/us-east4/a3-highgpu-8g", "kind": "cloud", "pricing": "spot", "region": "us-east4"},
          "serving": {"offer": "br-dedicated/sp/h200-nvl-1x", "kind": "dedicated", "pricing": "monthly", "region": "br",
                      "mode": "dedicated", "committed_instances": None, "burst_pricing": None}}


def test_the_english_catalog_is_the_json_contract():
    assert {k: t(k, "en") for k in TEMPLATE_KEYS} == CONTRACT_EN


def test_a_hybrid_by_hand_in_each_locale():
    assert plan_label(HYBRID, "en") == "Plan hybrid: train a3-highgpu-8g spot (us-east4), serve h200-nvl-1x (br)"
    assert plan_label(HYBRID, "pt-BR") == \
        "Plano híbrido: treinar em a3-highgpu-8g spot (us-east4), servir em h200-nvl-1x (br)"


def test_an_autoscaled_shared_and_committed_plan_in_portuguese():
    auto = HYBRID | {"group": "gcp", "training": None,
                     "serving": {"offer": "gcp/us-central1/g2-standard-4", "kind": "cloud", "pricing": "on_demand",
                                 "region": "us-central1", "mode": "autoscaled"}}
    assert plan_label(auto, "pt-BR") == "Plano gcp: servir em g2-standard-4 on_demand com escala automática (us-central1)"
    shared = HYBRID | {"group": "br-dedicated", "fleet": "shared"}
    assert plan_label(shared, "pt-BR") == "Plano br-dedicated: frota compartilhada h200-nvl-1x (br)"
    committed = auto | {"group": "aws", "serving": auto["serving"] | {
        "offer": "aws/us-east-1/p5.4xlarge", "pricing": "ri_3yr", "region": "us-east-1", "mode": "committed_baseline",
        "committed_instances": [3], "burst_pricing": "on_demand"}}
    assert plan_label(committed, "pt-BR") == "Plano aws: servir em p5.4xlarge ri_3yr × 3 + on_demand (us-east-1)"


@pytest.mark.parametrize("which", ["seed_plans", "burst_plans"])
def test_every_reported_plan_in_english_is_its_json_name(request, which):
    _, plans = request.getfixturevalue(which)
    for p in _all_plans(plans):
        assert plan_label(p, "en") == p.name
        assert plan_label(p, "pt-BR").startswith("Plano ")


def test_a_pt_br_run_closes_with_the_plan_named_in_portuguese(tmp_path, capsys):
    import json

    from tco.cli import main
    from test_plan import SEED

    assert main(["run", str(SEED), "-o", str(tmp_path), "--formats", "json", "--paths", "200",
                 "--no-sensitivity"]) == 0
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "seed_70b_h200.json").read_text(encoding="utf-8"))
    best = doc["plans"]["overall"]["best"]
    assert best["name"].startswith("Plan ") and doc["plans"]["vs_options"]["best_plan"] == best["name"]  # the JSON
    closing = [line for line in out.splitlines() if line.startswith("melhor plano encontrado")]
    assert closing and plan_label(best, "pt-BR") in closing[0] and best["name"] not in out
