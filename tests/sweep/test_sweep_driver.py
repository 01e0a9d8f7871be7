"""A sweep to its files: the table, the map and its workbook; Ctrl-C keeps the finished cases and --resume runs
only the rest, giving the table an uninterrupted sweep gives."""

import pandas as pd
import pytest

from sweep_files import FX_BY_TERM, SEED
from tco.sweep import driver, plan, runner


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    from sweep_files import write_sweep

    return plan.prepare(write_sweep(tmp_path_factory.mktemp("sw"), FX_BY_TERM, settings='keep = ["tco"]'))


@pytest.fixture(scope="module")
def whole(work, tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    o = driver.run(work, out, csv=True)
    return out, o


def test_an_uninterrupted_sweep_writes_every_file(whole):
    out, o = whole
    assert (o.total, o.done, o.failed, o.interrupted) == (4, 4, 0, False)
    assert sorted(p.name for p in out.iterdir()) == ["s.csv", "s.map.svg", "s.map.xlsx", "s.parquet"]
    df = pd.read_parquet(out / "s.parquet")
    options = SEED.read_text(encoding="utf-8").count("[[options]]")  # one row per case and option
    assert len(df) == 4 * options and df.groupby("case")["leader"].sum().tolist() == [1, 1, 1, 1]
    assert pd.read_csv(out / "s.csv")["tco_brl"].tolist() == df["tco_brl"].tolist()


def test_interrupt_keeps_what_finished_and_resume_runs_the_rest(work, whole, tmp_path, monkeypatch):
    real = runner.execute
    seen = []

    def stops_after_one_batch(base, cases, todo, on_rows, client=None):
        def once(rows, n):
            on_rows(rows, n)
            seen.append(n)
            raise KeyboardInterrupt
        real(base, cases, todo, once, client)

    monkeypatch.setattr(runner, "execute", stops_after_one_batch)
    o = driver.run(work, tmp_path)
    assert o.interrupted and o.done == 1 and seen == [1]
    assert pd.read_parquet(tmp_path / "s.parquet")["case"].unique().tolist() == [0]
    monkeypatch.setattr(runner, "execute", real)
    ran = []
    o = driver.run(work, tmp_path, resume=True, progress=ran.append)
    assert (o.resumed, o.done, o.interrupted, sum(ran)) == (1, 4, False, 3)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "s.parquet"), pd.read_parquet(whole[0] / "s.parquet"))


def test_the_map_words_follow_the_base_locale(work):
    words = driver.map_words(work, 4, "fx.usdbrl", "fx.paths")
    assert words["title"] == "Mapa de decisão: a opção mais barata por fx.usdbrl e fx.paths"  # the seed is pt-BR
    assert driver.locale_of(work) == "pt-BR"
