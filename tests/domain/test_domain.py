"""The vocabulary (tco.domain): enums that equal their words, pricing classes, option kinds, notices
and distributions."""

from __future__ import annotations

import json

import pytest

from tco.domain import (
    LINES, CostLine, Dist, FleetKind, FxModel, Notice, commitment_term_months, is_capacity_block, is_committed,
    is_monte_carlo, is_spot, option_kind,
)


def test_enums_equal_and_serialise_to_their_words():
    assert FleetKind.CLOUD == "cloud" and json.dumps({"k": FleetKind.DEDICATED}) == '{"k": "dedicated"}'
    assert FleetKind("hybrid") is FleetKind.HYBRID
    assert LINES == ("training_compute", "inference_compute", "setup", "storage", "egress", "taxes")
    assert LINES[0] is CostLine.TRAINING_COMPUTE


@pytest.mark.parametrize("pricing,committed,spot,block,term", [
    ("on_demand", False, False, False, None),
    ("spot", False, True, False, None),
    ("spot_1h", False, True, False, None),
    ("reserved_1yr", True, False, False, 12),
    ("cud_3yr", True, False, False, 36),
    ("savings_plan_3_year", True, False, False, 36),
    ("capacity_block", True, False, True, None),
    ("dws_calendar_7d", True, False, True, None),
])
def test_pricing_classes(pricing, committed, spot, block, term):
    assert is_committed(pricing) is committed
    assert is_spot(pricing) is spot
    assert is_capacity_block(pricing) is block
    assert commitment_term_months(pricing) == term


def test_option_kind():
    assert option_kind("cloud", None) is FleetKind.CLOUD
    assert option_kind("dedicated", "dedicated") is FleetKind.DEDICATED
    assert option_kind("dedicated", "cloud") is FleetKind.HYBRID


def test_monte_carlo_models():
    assert [m for m in FxModel if is_monte_carlo(m)] == [FxModel.GBM, FxModel.BOOTSTRAP]
    assert FxModel.GBM.is_monte_carlo and not FxModel.PARITY.is_monte_carlo


def test_dist_point_and_notice():
    assert Dist.point(3.5).as_dict() == {"deterministic": 3.5, "mean": 3.5, "p5": 3.5, "p50": 3.5, "p95": 3.5}
    n = Notice("price_estimate", "A", {"offer": "x"})
    assert (n.code, n.option, n.params["offer"]) == ("price_estimate", "A", "x")


def test_the_scenario_and_catalog_words_are_the_enums():
    """The words a scenario or the catalog may write are exactly the enum's (so comparing with the enum sees them all)."""
    import typing

    from tco.domain import (
        BillingMode, FxBasePath, ParallelMode, Precision, Redundancy, TaxMethod, TaxRegime, TrainingMethod,
    )
    from tco.scenario.options import FX
    from tco.scenario.workload import Inference, ModelSpec, ScenarioInfo, Training
    from tco.sizing.replica import BYTES_PER_PARAM
    from tco.costs.taxes import BILLING_MODES, METHODS, REGIMES

    def words(model, name):
        return {a for a in typing.get_args(model.model_fields[name].annotation) if isinstance(a, str)} or {
            a for x in typing.get_args(model.model_fields[name].annotation) for a in typing.get_args(x)}

    assert words(ModelSpec, "precision") == set(Precision) == set(BYTES_PER_PARAM)
    assert words(Training, "method") == set(TrainingMethod)
    assert words(Inference, "redundancy") == set(Redundancy)
    assert words(ScenarioInfo, "tax_regime") == set(TaxRegime) == set(REGIMES)
    assert words(FX, "base_path") == set(FxBasePath)
    assert METHODS == ("import_gross_up", "local_por_dentro", "local_inclusive", "none") == tuple(TaxMethod)
    assert BILLING_MODES == ("local_entity", "import") == tuple(BillingMode)
    assert [repr(m) for m in METHODS] == ["'import_gross_up'", "'local_por_dentro'", "'local_inclusive'", "'none'"]
    assert ParallelMode("ep") is ParallelMode.EP and Redundancy("n+1") is Redundancy.N_PLUS_1


# --- one vocabulary: no domain word compared (or made a mapping's keys) as a string literal -------------------------

SCANNED = ("tco/report/workbook*.py", "tco/sizing*.py", "tco/sizing/training_rules.py", "tco/catalog/landed.py", "tco/costs/taxes.py",
           "tco/costs/tax_rules.py")
"""The modules whose domain words go through ``tco.domain`` (issue 8, part 2)."""


def _domain_words() -> dict[str, set[str]]:
    """Each enum of tco.domain → its words."""
    import enum

    import tco.domain as d

    return {name: {m.value for m in obj} for name, obj in vars(d).items()
            if isinstance(obj, type) and issubclass(obj, enum.Enum) and obj.__module__ == d.__name__}


def _literals(node) -> list[str]:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _literals(e)]
    return []


def domain_literals(source: str, words: dict[str, set[str]]) -> list[tuple[int, str]]:
    """(line, word) of each domain word written as a string where the code decides by it: a side of a comparison
    (``==``, ``!=``, ``in``, ``not in``), or the keys of a dict literal that are all words of one enum (a mapping
    over the vocabulary, like ``{"bf16": 2.0, "fp8": 1.0}``)."""
    import ast

    every = set().union(*words.values())
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            out += [(node.lineno, s) for x in (node.left, *node.comparators) for s in _literals(x) if s in every]
        elif isinstance(node, ast.Dict) and len(node.keys) > 1:
            keys = [s for k in node.keys if k is not None for s in _literals(k)]
            if len(keys) == len(node.keys) and any(set(keys) <= ws for ws in words.values()):
                out += [(node.lineno, s) for s in keys]
    return out


def test_the_scan_finds_a_word_compared_or_keyed_and_not_the_enum():
    words = {"Precision": {"bf16", "fp8"}, "ParallelMode": {"tp", "pp", "ep"}}
    src = ('if mode == "ep": pass\nif "pp" in modes: pass\nB = {"bf16": 2.0, "fp8": 1.0}\n'
           'if mode == ParallelMode.EP: pass\nROWS = {"ep": 1, "score": 2}\nlabel = "ep"\n')
    assert domain_literals(src, words) == [(1, "ep"), (2, "pp"), (3, "bf16"), (3, "fp8")]


def test_no_domain_word_is_compared_as_a_string():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    words = _domain_words()
    found = [f"{p.relative_to(root)}:{line}: {word!r}" for pattern in SCANNED for p in sorted(root.glob(pattern))
             for line, word in domain_literals(p.read_text(encoding="utf-8"), words)]
    assert found == [], "compare with the tco.domain enum instead:\n" + "\n".join(found)


def test_records_are_frozen_dataclasses_equal_only_to_themselves():
    import dataclasses

    from tco.domain import record

    @record
    class Pair:
        a: int
        b: int = 2

    p = Pair(1)
    assert dataclasses.is_dataclass(p) and p != Pair(1) and p == p and repr(p).endswith(".Pair(a=1, b=2)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.a = 3  # type: ignore[misc]
