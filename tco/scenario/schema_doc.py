"""Render the scenario schema (field docstrings, types, defaults) as a Markdown reference.

``python -m tco.scenario.schema_doc > docs/scenario.md``; a test keeps docs/scenario.md in step.
"""

from __future__ import annotations

import typing

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from tco import scenario as sc
from tco.scenario import proposal as scp
from tco.scenario.owned import Owned
from tco.scenario.types import field_docs

SECTIONS = (("[scenario]", sc.ScenarioInfo), ("[model]", sc.ModelSpec), ("[training]", sc.Training),
            ("[inference]", sc.Inference), ("inference.users (growth: linear)", sc.LinearGrowth),
            ("inference.users (growth: compound)", sc.CompoundGrowth),
            ("inference.users (growth: logistic)", sc.LogisticGrowth),
            ("inference.users (growth: list)", sc.ListGrowth),
            ("[fx]", sc.FX), ("[[options]] (one table per deployment option)", sc.Option),
            ("[options.owned] (optional: buy the servers, kind 'owned')", Owned),
            ("[plan] (optional: the plan search)", sc.Plan),
            ("[proposal] (optional: the offer's commercial terms)", scp.Proposal),
            ("proposal.owner, proposal.signatory", scp.Person),
            ("[[proposal.items]]", scp.Item), ("[proposal.included]", scp.Included),
            ("[[proposal.next_steps]]", scp.Step))


def _bound(v) -> str:
    """A bound as the reference shows it: a number in its shortest form (1e+06), a date as 1990-01-01."""
    return f"{v:g}" if isinstance(v, (int, float)) else str(v)


def _type(ann) -> str:
    """A short, readable type: 'float ≥ 0', 'int or none', '"a" | "b"', 'list of float'."""
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Annotated:
        base, *meta = args
        bounds = []
        for m in meta:
            for fm in getattr(m, "metadata", [m]):
                for attr, sym in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
                    if getattr(fm, attr, None) is not None:
                        bounds.append(f"{sym} {_bound(getattr(fm, attr))}")
        return _type(base) + (" " + ", ".join(bounds) if bounds else "")
    if origin is typing.Literal:
        return " \\| ".join(f'"{a}"' for a in args)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        parts = [a for a in args if a is not type(None)]
        if all(isinstance(a, type) and issubclass(a, BaseModel) for a in parts):
            return "inline table (see below)"
        text = " or ".join(_type(a) for a in parts)
        return text + (" or none" if len(parts) < len(args) else "")
    if origin is list:
        return "list of " + _type(args[0])
    return getattr(ann, "__name__", str(ann))


def render() -> str:
    out = ["# Scenario file reference", "",
           "Generated from the schema in `tco/scenario.py` (`python -m tco.scenario.schema_doc`). Unknown keys are errors;",
           "fractions (`_rate`, `_share`) are 0–1. `python -m tco init FILE` writes a commented starter.",
           "Types are strict (`\"36\"` is text, not a number; `\"yes\"` is not `true`), numbers must be finite",
           "(`inf` and `nan` are refused) and within the bounds shown, and text may not hold control characters;",
           "names are at most 200 characters, `notes` at most 5,000. A scenario file is at most 1 MB.", ""]
    for title, model in SECTIONS:
        out += [f"## {title}", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        for name, f in model.model_fields.items():
            default = "required" if f.default is PydanticUndefined and f.default_factory is None else repr(f.default)
            desc = field_docs(model).get(name, "").replace("|", "\\|").replace("\n", " ")
            bounds = [f"{sym} {_bound(getattr(m, attr))}" for m in f.metadata
                      for attr, sym in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))
                      if getattr(m, attr, None) is not None]
            kind = _type(f.annotation) + (" " + ", ".join(bounds) if bounds else "")
            out.append(f"| `{name}` | {kind} | {default} | {desc} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(render())
