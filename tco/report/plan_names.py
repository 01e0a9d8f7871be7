"""A plan's name in the run's locale: its parts (``tco.plan.naming.of_plan``) in the words of the translation
catalog's templates (keys ``tco.plan.naming.TEMPLATE_KEYS``). The JSON keeps the English name the search wrote."""

from __future__ import annotations

from typing import Mapping

from tco.findings import Plan
from tco.plan.naming import TEMPLATE_KEYS, of_plan, render
from tco.report.i18n import t


def plan_label(plan: Plan | Mapping, loc: str) -> str:
    """`plan` (a plan of the search, typed or as the JSON has it) named in `loc`."""
    return render(of_plan(plan.as_dict() if isinstance(plan, Plan) else plan), {k: t(k, loc) for k in TEMPLATE_KEYS})
