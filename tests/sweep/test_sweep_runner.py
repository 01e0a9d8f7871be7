"""Batches, and the Dask path: a LocalCluster of two worker processes on the loopback, reached through its
scheduler address as a remote cluster would be, gives the rows the in-process run gives; a scheduler that does
not answer is bad input naming the address."""

import socket

import pytest

from sweep_files import FX_BY_TERM
from tco.errors import InputError
from tco.sweep import plan, runner


def test_batches_are_consecutive_and_bounded():
    assert runner.batches(list(range(5)), 4) == [[0], [1], [2], [3], [4]]
    big = runner.batches(list(range(10_000)), 2)  # 10,000 / (8 · 2) = 625 > MAX_BATCH
    assert {len(b) for b in big[:-1]} == {runner.MAX_BATCH} and sum(map(len, big)) == 10_000
    assert [i for b in big for i in b] == list(range(10_000))


@pytest.mark.slow
def test_two_workers_through_the_scheduler_address(sweep_file):
    from dask.distributed import LocalCluster

    work = plan.prepare(sweep_file(FX_BY_TERM, 'keep = ["tco"]'))
    local: list = []
    runner.execute(work.base, work.cases, [0, 3], lambda rows, n: local.extend(rows))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        client, own = runner.connect(cluster.scheduler_address, None)
        try:
            assert own is None and len(client.nthreads()) == 2
            got: list = []
            runner.execute(work.base, work.cases, [0, 3], lambda rows, n: got.extend(rows), client=client)
        finally:
            client.close()
    assert sorted(got, key=lambda r: (r["case"], r["option"])) == sorted(local, key=lambda r: (r["case"], r["option"]))


def test_a_scheduler_that_does_not_answer(monkeypatch):
    with socket.socket() as s:  # a free port on the loopback, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(runner, "CONNECT_SECONDS", 1)
    with pytest.raises(InputError) as exc:
        runner.connect(f"tcp://127.0.0.1:{port}", None)
    assert f"tcp://127.0.0.1:{port}: no Dask scheduler answered within 1 s" in str(exc.value)
