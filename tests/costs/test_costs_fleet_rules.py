"""The cost rules of one option (tco.costs.fleet_rules) evaluated by hand: a dedicated serving fleet that
ratchets up and pays setup on every added server, and an autoscaled cloud fleet paying the servers of
each hour of the day, with tiered egress and a yearly price trend."""

from __future__ import annotations

import numpy as np
import pytest

from tco.costs import fleet_rules
from tco.costs import given_rows
from tco.expr import evaluate

BASE = {"c.cap": 1.0, "c.rps_server": 1.0, "utilization": 1.0, "n1": 0.0, "train_start": 1.0, "inf_start": 1.0,
        "storage_gb": 10.0, "o.trend": 0.0, "o.index": 0.0, "o.setup": 0.0, "o.storage": 0.0,
        "o.eg1_lo": 0.0, "o.eg1_hi": None, "o.eg1_p": 0.0}


def run(shape: fleet_rules.Shape, inputs: dict, rps: np.ndarray, days: list[float], egress: list[float]) -> dict:
    rows = given_rows(rps, np.array(days), np.array(egress))
    return evaluate(fleet_rules.plan(shape), BASE | inputs | {"horizon": float(len(days))}, len(days), rows)


def test_dedicated_fleet_ratchets_and_pays_setup_on_added_servers():
    shape = fleet_rules.Shape(shared=False, inference_cloud=False, training_cloud=None, autoscale=False,
                              committed=False, commit_terms=0, tiers=((False, True),))
    # one replica per server, 1 req/s each: 1, 3 then 2 req/s all day need 1, 3, 2 servers
    rps = np.repeat(np.array([[1.0], [3.0], [2.0]]), 24, axis=1)
    rows = run(shape, {"o.inf_price": 10_000.0, "o.setup": 500.0}, rps, [31.0, 28.0, 31.0], [0.0, 0.0, 0.0])
    assert rows["peak"].tolist() == [1.0, 3.0, 2.0]
    assert rows["inf_paid"].tolist() == [1.0, 3.0, 3.0]                 # a rented server is kept
    assert rows["l_inference_compute"].tolist() == [1 * 10_000.0, 3 * 10_000.0, 3 * 10_000.0]
    assert rows["l_setup"].tolist() == [1 * 500.0, 2 * 500.0, 0.0]      # the first server, then the two added
    assert rows["server_hours"].tolist() == [1 * 31 * 24, 3 * 28 * 24, 3 * 31 * 24]
    assert rows["stored"].tolist() == [10.0, 10.0, 10.0]                # data kept from the first month


def test_autoscaled_cloud_pays_each_hours_servers_with_tiered_egress_and_trend():
    shape = fleet_rules.Shape(shared=False, inference_cloud=True, training_cloud=None, autoscale=True,
                              committed=False, commit_terms=0, tiers=((True, True), (False, True)))
    # 12 hours at 2 req/s (2 servers), 12 at 0.5 req/s (1 server, never less under load); 13 months of 30 days
    day = np.array([2.0] * 12 + [0.5] * 12)
    rps = np.tile(day, (13, 1))
    tiers = {"o.eg1_lo": 0.0, "o.eg1_hi": 100.0, "o.eg1_p": 0.0, "o.eg2_lo": 100.0, "o.eg2_hi": None, "o.eg2_p": 0.09}
    rows = run(shape, {"o.inf_price": 4.0, "o.trend": -0.1, "o.storage": 0.02} | tiers, rps, [30.0] * 13,
               [150.0] * 13)
    hours = (12 * 2 + 12 * 1) * 30                                       # 1,080 instance-hours a month
    assert rows["inf_hours"][0] == hours
    assert rows["l_inference_compute"][0] == pytest.approx(hours * 4.0)
    assert rows["l_inference_compute"][12] == pytest.approx(hours * 4.0 * 0.9)   # year 2: (1 − 10%)¹
    assert rows["eg_1"][0] == 100.0 and rows["eg_2"][0] == 50.0
    assert rows["l_egress"][0] == pytest.approx(50 * 0.09)               # the first 100 GB are free
    assert rows["l_storage"][0] == pytest.approx(10 * 0.02)
    assert rows["l_setup"][0] == 0.0 and rows["l_training_compute"][0] == 0.0
