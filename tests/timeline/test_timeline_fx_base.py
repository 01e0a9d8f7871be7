"""tco.timeline.fx_base: which base path a scenario uses, its checks (messages naming the key), the Focus file and its
month-by-month interpolation."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.timeline import fx_base as fp


def fx(**kw):
    base = dict(model="fixed", base_path=None, path=None, focus_edition=None, drift=None, usdbrl=5.0,
                brl_rate=0.12, usd_rate=0.04)
    return SimpleNamespace(**(base | kw))


def test_base_path_choice():
    assert fp.base_path(fx()) == "focus"                          # the default
    assert fp.base_path(fx(base_path="spot")) == "spot"
    assert fp.base_path(fx(model="parity")) == "forward"          # the old name of the forward path


@pytest.mark.parametrize("kw,words", [
    (dict(model="parity", base_path="spot"), "model 'parity' is the forward base path"),
    (dict(base_path="list"), "base_path 'list' needs `path`"),
    (dict(base_path="spot", path=[5.0]), "`path` is only read with base_path = 'list'"),
    (dict(base_path="spot", focus_edition="2026-01"), "focus_edition is only read with base_path = 'focus'"),
    (dict(focus_edition="1999-01"), "focus_edition '1999-01' is not in tco/catalog/data/usdbrl_focus.csv"),
    (dict(model="fixed", drift=0.02), "drift is only read with model 'gbm'"),
])
def test_check_base_path_messages(kw, words):
    with pytest.raises(ValueError) as e:
        fp.check_base_path(fx(**kw))
    assert words in str(e.value)


def test_check_base_path_accepts_valid_combinations():
    for kw in (dict(), dict(model="parity"), dict(model="parity", base_path="forward"),
               dict(base_path="list", path=[5.1, 5.2]), dict(model="gbm", drift=0.03),
               dict(focus_edition=min(fp.focus_table()))):
        fp.check_base_path(fx(**kw))  # no exception


def test_month_index():
    assert fp.month_index("2027-01") == 2027 * 12
    assert fp.month_index("2027-12") - fp.month_index("2027-01") == 11


def test_focus_weights_by_hand():
    # start 2027-01: month 0 is 2026-12 (the spot). The 2026 year-end sits on month 0 itself and is dropped;
    # 2027's sits on 2027-12 (t = 12), 2028's on t = 24, then it holds.
    rates = {2026: 9.0, 2027: 6.0, 2028: 7.2}
    spot = 4.8
    path = fp.focus_monthly(rates, spot, "2027-01", 30)
    # t = 6: halfway from the spot to 6.0 → 4.8 + 6/12·(6.0 − 4.8) = 5.4
    assert path[5] == pytest.approx(4.8 + 6 / 12 * (6.0 - 4.8))
    assert path[11] == pytest.approx(6.0)
    assert path[17] == pytest.approx(6.0 + 6 / 12 * (7.2 - 6.0))
    assert path[23] == pytest.approx(7.2) and path[29] == pytest.approx(7.2)   # holds after the last point
    w, b = fp.focus_weights(rates, "2027-01", 30)
    np.testing.assert_allclose(spot * w + b, path)
    assert w[0] == pytest.approx(11 / 12) and w[11] == 0.0


@given(st.floats(1.0, 10.0), st.floats(1.0, 10.0), st.floats(1.0, 10.0), st.integers(1, 60))
def test_focus_path_is_linear_in_the_spot_and_stays_between_its_points(spot, f1, f2, horizon):
    rates = {2027: f1, 2028: f2}
    w, b = fp.focus_weights(rates, "2027-01", horizon)
    assert np.all((w >= 0) & (w <= 1))
    path = fp.focus_monthly(rates, spot, "2027-01", horizon)
    lo, hi = min(spot, f1, f2), max(spot, f1, f2)
    assert np.all(path >= lo - 1e-12) and np.all(path <= hi + 1e-12)
    np.testing.assert_allclose(fp.focus_monthly(rates, 2 * spot, "2027-01", horizon) - path, spot * w, atol=1e-9)


def test_focus_table_reads_the_shipped_file():
    table = fp.focus_table()
    assert "2026-01" in table
    e = table["2026-01"]
    assert e["rates"][2027] == 5.51 and e["rates"][2029] == 5.58   # as the file's source text states
    assert e["status"] in ("listed", "estimate", "unverified") and e["sources"]
    assert fp.focus_edition(fx()) == max(table)


def test_list_inputs_per_base():
    assert fp.list_inputs(fx(base_path="spot"), "2027-01", 3) == {"fx_list": None, "fx_w": None, "fx_b": None}
    assert fp.list_inputs(fx(base_path="list", path=[5, 6]), "2027-01", 3)["fx_list"] == [5.0, 6.0]
    got = fp.list_inputs(fx(), "2027-01", 3)
    rates = fp.focus_table()[max(fp.focus_table())]["rates"]
    w, b = fp.focus_weights(rates, "2027-01", 3)
    assert got["fx_w"] == list(w) and got["fx_b"] == list(b) and got["fx_list"] is None


def test_describe_base():
    d = fp.describe_base(fx(base_path="forward", brl_rate=0.12, usd_rate=0.04), "2027-01", 12)
    assert d.path == "forward" and d.label == fp.BASE_LABELS["forward"] and d.focus is None
    assert d.source.startswith("S·((1 + 0.12)/(1 + 0.04))^(t/12)")
    assert set(d.as_dict()) == {"base_path", "base_path_label", "base_path_source"}  # no Focus keys
    assert fp.describe_base(fx(base_path="list", path=[5, 6, 7]), "2027-01", 12).source == \
        "fx.path (3 monthly values; the last holds)"
    assert fp.describe_base(fx(base_path="spot"), "2027-01", 12).source == "fx.usdbrl"
    ed = max(fp.focus_table())
    last = max(fp.focus_table()[ed]["rates"])
    short = fp.describe_base(fx(), f"{last}-01", 12)           # ends in December of the last year-end
    assert short.focus is not None and short.focus.edition == ed and short.focus.held_from is None
    assert short.as_dict()["focus_held_from"] is None          # the JSON writes the key, null
    long = fp.describe_base(fx(), f"{last}-01", 13)            # one month past it
    assert long.focus is not None and long.focus.held_from == f"{last}-12"
