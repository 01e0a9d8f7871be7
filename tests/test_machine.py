import os

import pytest

from tco import machine


def test_usable_cores_is_the_affinity_where_there_is_one(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert machine.usable_cores() == 3


@pytest.mark.parametrize("count, cores", [(6, 6), (None, 1)])
def test_usable_cores_falls_back_to_the_machines_count_and_at_least_one(monkeypatch, count, cores):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: count)
    assert machine.usable_cores() == cores
