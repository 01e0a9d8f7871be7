"""tco.scenario.schema_doc: the Markdown reference of the scenario schema (docs/scenario.md is kept equal to it by
tests/test_scenario.py).

A small model declared here shows each kind of field as the reference writes it (bounds, literals with escaped bars,
optional values, nested tables, lists, required vs default); then the real reference: one section per schema class,
one row per field, every row exactly four cells."""

from __future__ import annotations

import re
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from tco.scenario import schema_doc


class _Inner(BaseModel):
    x: int = 0
    """An inner table."""


class _Sample(BaseModel):
    name: str
    """Required text."""
    months: int = Field(12, ge=1, le=240)
    """Bounded on the field."""
    share: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.5
    """Bounded in the type: a | in the text is escaped."""
    kind: Literal["a", "b"] = "a"
    """One of two words."""
    maybe: float | None = None
    """Optional."""
    inner: _Inner | None = None
    """A nested table."""
    values: list[float] = Field(default_factory=list)
    """A list."""


@pytest.fixture()
def sample_doc(monkeypatch):
    monkeypatch.setattr(schema_doc, "SECTIONS", (("[sample]", _Sample),))
    return schema_doc.render()


def _rows(doc: str) -> dict[str, list[str]]:
    out = {}
    for line in doc.splitlines():
        m = re.match(r"\| `(\w+)` \|", line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            out[m[1]] = cells[1:]
    return out


def test_each_kind_of_field_as_the_reference_writes_it(sample_doc):
    rows = _rows(sample_doc)
    assert rows["name"] == ["str", "required", "Required text."]
    assert rows["months"] == ["int ≥ 1, ≤ 240", "12", "Bounded on the field."]
    assert rows["share"] == ["float > 0, < 1", "0.5", "Bounded in the type: a \\| in the text is escaped."]
    assert rows["kind"] == ['"a" \\| "b"', "'a'", "One of two words."]
    assert rows["maybe"] == ["float or none", "None", "Optional."]
    assert rows["inner"] == ["inline table (see below)", "None", "A nested table."]
    assert rows["values"][0] == "list of float"
    assert rows["values"][1] != "required"  # a default factory is a default


def test_a_section_is_a_heading_and_a_table(sample_doc):
    lines = sample_doc.splitlines()
    i = lines.index("## [sample]")
    assert lines[i + 2:i + 4] == ["| key | type | default | meaning |", "|---|---|---|---|"]
    assert sample_doc.startswith("# Scenario file reference\n")


def test_the_reference_has_a_section_per_schema_class_and_a_row_per_field():
    doc = schema_doc.render()
    headings = re.findall(r"^## (.*)$", doc, flags=re.M)
    assert headings == [title for title, _ in schema_doc.SECTIONS]
    rows = sum(len(model.model_fields) for _, model in schema_doc.SECTIONS)
    table_rows = [ln for ln in doc.splitlines() if ln.startswith("| `")]
    assert len(table_rows) == rows
    for ln in table_rows:  # four cells: no unescaped bar inside a cell
        assert len(re.split(r"(?<!\\)\|", ln)) == 6, ln


def test_the_reference_shows_real_bounds_and_choices():
    rows = _rows(schema_doc.render())
    assert rows["horizon_months"][0] == "int > 0, ≤ 240"
    assert rows["locale"][:2] == ['"pt-BR" \\| "en"', "'pt-BR'"]
    assert rows["start"][1] == "required"


@pytest.mark.filterwarnings("ignore:'tco.scenario.schema_doc' found in sys.modules:RuntimeWarning")
def test_it_runs_as_a_module(capsys):
    import runpy

    runpy.run_module("tco.scenario.schema_doc", run_name="__main__")
    assert capsys.readouterr().out.strip() == schema_doc.render().strip()
