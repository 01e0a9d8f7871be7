"""Time to first token with queueing (tco/sizing/queueing.py): hand-worked Erlang C and its invariants."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.sizing.queueing import erlang_c, planned_rate, queued_ttft


def test_erlang_c_by_hand_two_servers():
    # c = 2, a = 1 Erlang (ρ = 0.5): B1 = 1·1/(1 + 1) = 0.5; B2 = 1·0.5/(2 + 0.5) = 0.2;
    # C = 0.2 / (1 − 0.5·(1 − 0.2)) = 0.2 / 0.6 = 1/3 (the M/M/2 textbook value at ρ = 0.5)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)


def test_erlang_c_one_server_is_rho():
    # M/M/1: an arrival waits with probability ρ; B1 = a/(1 + a) = 0.7/1.7, C = B1 / (1 − 0.7·(1 − B1)) = 0.7
    assert erlang_c(1, 0.7) == pytest.approx(0.7)


def test_queued_ttft_by_hand():
    # batch c = 2 slots, cap = 2 req/s (μ = 1 per slot), λ = 1 req/s: ρ = 0.5, C = 1/3 (above);
    # E[W] = C / (cap − λ) = (1/3) / 1 = 0.3333 s; W95 = ln((1/3) / 0.05) / 1 = ln(6.667) = 1.8971 s;
    # bare TTFT 0.2 s → mean 0.5333 s, p95 2.0971 s
    q = queued_ttft(0.2, 2, 2.0, 1.0)
    assert q.utilisation == pytest.approx(0.5)
    assert q.wait_probability == pytest.approx(1 / 3)
    assert q.mean_seconds == pytest.approx(0.2 + 1 / 3)
    assert q.p95_seconds == pytest.approx(0.2 + math.log((1 / 3) / 0.05))


def test_large_batch_waits_rarely():
    # 100 slots at ρ = 0.8: few arrivals find every slot busy (C ≈ 0.02), so p95 is the bare TTFT
    q = queued_ttft(0.3, 100, 10.0, 8.0)
    assert q.wait_probability < 0.05
    assert q.p95_seconds == pytest.approx(0.3)
    assert q.mean_seconds > 0.3


def test_saturated_replica_has_no_steady_state():
    q = queued_ttft(0.3, 8, 2.0, 2.0)
    assert math.isinf(q.mean_seconds) and math.isinf(q.p95_seconds)


def test_planned_rate_by_hand():
    # peak 10 req/s, cap 3 req/s, utilisation 0.8: replicas = ⌈10 / 2.4⌉ = ⌈4.17⌉ = 5 → 2 req/s each; N+1: 6 → 1.667
    assert planned_rate(10.0, 3.0, 0.8) == pytest.approx(2.0)
    assert planned_rate(10.0, 3.0, 0.8, spare=1) == pytest.approx(10 / 6)
    assert planned_rate(0.0, 3.0, 0.8) == 0.0


loads = st.floats(0.0, 0.999)
batches = st.integers(1, 2048)


@settings(max_examples=60, deadline=None)
@given(batches, loads, loads)
def test_more_load_never_lowers_ttft(c, r1, r2):
    lo, hi = sorted((r1, r2))
    a, b = queued_ttft(0.1, c, 5.0, lo * 5.0), queued_ttft(0.1, c, 5.0, hi * 5.0)
    assert b.mean_seconds >= a.mean_seconds - 1e-12
    assert b.p95_seconds >= a.p95_seconds - 1e-12
    assert a.p95_seconds >= 0.1 and a.mean_seconds >= 0.1


@settings(max_examples=30, deadline=None)
@given(batches)
def test_ttft_grows_without_bound_near_saturation(c):
    near = queued_ttft(0.1, c, 5.0, 5.0 * (1 - 1e-6))
    assert near.mean_seconds > 1e3 * 0.1 or near.wait_probability > 0.99


@settings(max_examples=30, deadline=None)
@given(batches, st.floats(0.01, 100.0))
def test_zero_load_gives_the_bare_ttft(c, bare):
    q = queued_ttft(bare, c, 5.0, 0.0)
    assert q.mean_seconds == bare and q.p95_seconds == bare
