"""The seller's notes: `<stem>.notes.txt` beside the proposal, in the scenario's language.

The engine's notices (estimates, idle minimum terms, tax rules that stop before the horizon…) are for the
seller, who decides what to fix before the proposal goes out; the client's PDF does not carry them. The notes
also say where the plan search found a plan cheaper than every option written, and whether the offer is an
estimate (no firm `[proposal]` items).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.report import fmt, notices
from tco.report.i18n import t
from tco.report.plan_names import plan_label

if TYPE_CHECKING:
    from tco.report.view import View
    from tco.results import Results


def render(res: Results, v: View | None = None) -> str:
    """The notes as text (ends with a newline); `v` is the view of `res` when the caller has built it."""
    from tco.report import view
    from tco.report.proposal.offer import offered
    from tco.report.words import document_date

    v = v if v is not None else view.build(res)
    loc = v.locale
    s = res.scenario
    p = s.proposal
    lines = [t("nt_title", loc, name=v.name), t("nt_date", loc, date=fmt.long_date(document_date(s), loc)), ""]
    from tco.report.offer_checks import notices as proposal_notices

    found = notices.grouped(list(v.notices) + proposal_notices(v, s), loc, t("and_last", loc))
    lines.append(t("nt_notices", loc, n=len(found)))
    lines += [f"- {x}" for x in found] or [f"- {t('nt_none', loc)}"]
    lines.append("")
    plans = v.analysis.plans
    vs = plans.vs_options if plans is not None else None
    if plans is not None and vs is not None and vs.best_plan_saving_brl > 0:
        best = plan_label(plans.overall.best, loc)  # vs.best_plan in the run's locale
        lines.append(t("nt_best_plan", loc, plan=best, tco=fmt.money(vs.best_plan_tco_brl, loc, False),
                       saving=fmt.money(vs.best_plan_saving_brl, loc, False)))
    srch = plans.search if plans is not None else None
    if srch is not None:  # every catalog provider in the fight or its reason, and the stand-in prices the plans rest on
        from tco.report.plan_table import coverage_lines

        lines += coverage_lines(srch, loc)
    o = offered(v)
    if o is None:
        lines.append(t("nt_no_offer", loc))
    elif p is None or not p.items or not all(i.firm_quote for i in p.items):
        lines.append(t("nt_estimate", loc, option=o.label))
    if o is not None and o.name != v.ranked[0]:
        lines.append(t("nt_not_recommended", loc, option=o.label, rec=v.recommended.label))
    return "\n".join(lines).rstrip() + "\n"
