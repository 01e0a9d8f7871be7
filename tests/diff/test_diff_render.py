"""The diff as text: the headline, Markdown with escaped names, JSON, terminal tables that fit 80 columns."""

import io
import json

from rich.console import Console

from tco.diff import render

D = {"a": "a.toml", "b": "b.toml",
     "inputs": [{"key": "fx.usdbrl", "a": 5.4, "b": 5.94, "unit": "BRL/USD"}],
     "options": [{"name": "Cloud | A very long option name that will not fit in a narrow terminal at all", "tco_a": 100.0,
                  "tco_b": 110.0, "delta": 10.0, "delta_share": 0.1, "rank_a": 1, "rank_b": 2,
                  "lines": [{"line": "inference_compute", "a": 90.0, "b": 100.0, "delta": 10.0}]},
                 {"name": "Dedicated", "tco_a": 105.0, "tco_b": 105.0, "delta": 0.0, "delta_share": 0.0, "rank_a": 2,
                  "rank_b": 1, "lines": []}],
     "ranking": {"a": ["Cloud", "Dedicated"], "b": ["Dedicated", "Cloud"], "changed": True},
     "cheapest": {"a": "Cloud", "b": "Dedicated", "changed": True}}


def test_headline():
    assert render.headline(D) == ["The cheapest option changed: Cloud → Dedicated.", "The ranking changed.",
                                  "1 input(s) changed; 1 option(s) changed TCO."]


def test_markdown_escapes_pipes_and_signs_differences():
    md = render.markdown(D)
    assert "| fx.usdbrl | 5.4 | 5.94 | BRL/USD |" in md
    assert "Cloud \\| A very long" in md and "| +10 | +10.0% | 1 → 2 |" in md
    assert "| inference_compute | 90 | 100 | +10 |" in md


def test_json_round_trips():
    assert json.loads(render.to_json(D)) == D


def test_terminal_tables_fit_80_columns():
    buf = io.StringIO()
    console = Console(file=buf, width=80, emoji=False)
    for part in render.tables(D, 80):
        console.print(part)
    lines = buf.getvalue().splitlines()
    assert max(len(x) for x in lines) <= 80
    assert any("…" in x for x in lines)  # the long name shortened, the frame whole
