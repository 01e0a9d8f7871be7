"""tco.plan_results: the plan search's typed results write the JSON's ``plans`` keys exactly and read them back."""

from tco.plan_results import GroupPlans, Plan, PlanSearch, ServingFleet, TrainingFleet

FLEET = {"offer": "aws/sa-east-1/p5.48xlarge", "provider": "aws", "region": "sa-east-1", "kind": "cloud",
         "gpu": "H100", "gpus_per_server": 8, "pricing": "spot", "price": 98.32, "price_unit": "USD/h",
         "status": "listed", "as_of": "2026-11-01"}
TRAINING = FLEET | {"servers": 2, "wall_hours": 31.5}
SERVING = FLEET | {"offer": "br-dedicated/sp/h200-nvl-1x", "provider": "br-dedicated", "region": "sp",
                   "kind": "dedicated", "pricing": "monthly", "mode": "committed_baseline",
                   "committed_instances": [2, 3], "burst_pricing": "on_demand", "peak_instances": 5,
                   "tensor_parallel": 2, "tokens_per_second_per_user": 31.2}


def plan_doc(name: str, tco: float, notes: list[str], training: dict | None = TRAINING) -> dict:
    """A plan as the search's JSON document has it."""
    return {"name": name, "group": "hybrid", "fleet": "separate", "tco_brl": tco, "npv_brl": tco * 0.9,
            "tax_profile": "t", "tax_uplift_share": 0.1, "training": training, "serving": SERVING, "notes": notes,
            "option": {"inference_offer": SERVING["offer"], "name": name}}


def test_the_fleets_read_and_write_their_keys():
    tr, sv = TrainingFleet.of(TRAINING), ServingFleet.of(SERVING)
    assert (tr.servers, tr.wall_hours, tr.pricing) == (2, 31.5, "spot")
    assert sv.committed_instances == (2, 3) and sv.peak_instances == 5 and sv.kind == "dedicated"
    assert tr.as_dict() == TRAINING and sv.as_dict() == SERVING  # the same keys, the levels a list again
    assert "servers" not in sv.as_dict() and "mode" not in tr.as_dict()


def test_the_plan_search_from_its_document():
    x, y = plan_doc("Plan x", 1.0, ["n1"]), plan_doc("Plan y", 1.5, [], training=None)
    search = {"candidates": 3, "providers": ["aws"], "brazil_only": False, "hybrids": True, "spot_for_serving": False,
              "training_components": 1, "serving_components": 2, "shared_plans": 0, "skipped": [
                  {"offer": "aws/us-east-1/g6.xlarge", "pricing": "spot", "role": "serving", "reason": "too slow"}],
              "coverage": [{"provider": "aws", "tco_brl": 1.0, "reason": "", "detail": ""},
                           {"provider": "lambda", "tco_brl": None, "reason": "gpus", "detail": ""}],
              "stand_ins": [{"provider": "aws", "group": "aws", "what": "egress", "id": "aws/x", "source": "STAND-IN"}]}
    found = {"search": search, "hybrid": x,
             "by_provider": {"hybrid": {"best": x, "runners_up": [y], "candidates": 3, "margin_brl": 0.5,
                                        "margin_share": 0.5}},
             "overall": {"best": x, "runner_up": None, "margin_brl": None, "margin_share": None}}
    p = PlanSearch.of(found)
    assert isinstance(p.best, Plan) and p.best.name == "Plan x" and p.best.notes == ("n1",) and p.vs_options is None
    assert isinstance(p.by_provider["hybrid"], GroupPlans) and p.by_provider["hybrid"].runners_up[0].tco_brl == 1.5
    assert p.by_provider["hybrid"].runners_up[0].training is None and p.best.serving.mode == "committed_baseline"
    assert p.as_dict() == found  # every key back, no vs_options key when the search was not set against options
    assert p.search.skipped[0].reason == "too slow" and p.search.coverage[1].tco_brl is None
    assert p.search.stand_ins[0].what == "egress" and p.search.providers == ("aws",)
    vs = {"cheapest_option": "a", "cheapest_option_tco_brl": 2.0, "best_plan": "Plan x", "best_plan_tco_brl": 1.0,
          "best_plan_saving_brl": 1.0}
    back = PlanSearch.of(found | {"vs_options": vs})
    assert back.vs_options is not None and back.vs_options.best_plan_saving_brl == 1.0
    assert back.as_dict() == found | {"vs_options": vs}
