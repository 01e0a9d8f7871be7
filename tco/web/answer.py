"""The answer the sales desk shows under the form, read from a run's results through the typed view (the same
view, tables and words the PDF proposal uses): the ranked options with their TCO and FX band, the
recommendation, the bridge from price per GPU-hour to TCO, the cumulative-cost chart, the proposal's FX chart,
each provider's best plan, and the seller's notes (``<stem>.notes.txt``, never in the client's files).

Everything returned is text, numbers already formatted, or chart HTML whose labels the chart code escaped: the
worker process builds it and the page only lays it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.domain import is_monte_carlo
from tco.report.i18n import t

if TYPE_CHECKING:
    from tco.report.view import View
    from tco.results import Results


def build(res: Results, paths: int, full_paths: int) -> dict:
    """The page's answer for `res` (``engine.Results``), run with `paths` Monte Carlo paths of the scenario's
    `full_paths` (the downloads use the full number)."""
    from tco.report import view
    from tco.report.proposal import annex, body, load_theme
    from tco.report.proposal import notes_txt
    from tco.report.proposal.offer import offered
    from tco.report.words import money, multiple
    from tco.web import chart

    v = view.build(res)
    loc = v.locale
    palette = load_theme()["colors"]["palette"]
    rec = v.recommended
    ours = offered(v) or rec
    mc = is_monte_carlo(v.fx_model)
    ranked = []
    for i, o in enumerate(v.ranked_options, 1):
        band = "—"
        if mc and o.p5_brl is not None:  # an option priced in reais only has no band: said so, not a range of one
            low, high = money(o.p5_brl, loc), money(o.p95_brl, loc)
            band = f"{low} – {high}" if low != high else t("web_a_no_fx", loc)
        ranked.append({"rank": i, "label": o.label, "name": o.name, "kind": t(f"web_kind_{o.kind}", loc),
                       "tco": money(o.tco_brl, loc), "tco_brl": o.tco_brl, "band": band,
                       "vs": "—" if o.name == rec.name else multiple(o.tco_brl, rec.tco_brl, loc),
                       "offered": o.name == ours.name})
    other = body.counterpart(v, ours)
    lines = [(o.label, list(o.monthly_brl)) for o in v.ranked_options]
    if ours.name not in [o.name for o in v.ranked_options[:chart.MAX_LINES]]:
        lines = [(ours.label, list(ours.monthly_brl))] + lines
    fx = annex.fx(v, palette, loc)
    return {
        "locale": loc,
        "ranked": ranked,
        "infeasible": [o.label for o in v.options if not o.feasible],
        "outside": _outside(v, res, loc),
        "recommendation": t("web_a_recommend", loc, option=rec.label, tco=money(rec.tco_brl, loc),
                            months=v.horizon_months),
        "offered": t("web_a_offered", loc, option=ours.label) if ours.name != rec.name else "",
        "bridge": body.bridge(v, ours, other, loc) if other is not None else None,
        "comparison": body.comparison(v, ours, loc),
        "cumulative": chart.cumulative(lines, list(v.months), loc, palette),
        "fx_chart": (fx.get("chart") or {}).get("html"),
        "fx_text": fx.get("paragraphs") or [],
        "notes": notes_txt.render(res).splitlines()[2:],
        "monte_carlo": mc,
        "paths": paths if mc else None,
        "full_paths": full_paths if mc else None,
        "reduced": mc and paths < full_paths,
    }


def _outside(v: View, res: Results, loc: str) -> list[str]:
    """The feasible options left out of the ranking by the client's constraints, each with what it breaks (costed,
    shown, never ranked: the terminal's and the PDF's rule)."""
    from tco.report.words import breach_text

    return [f"{v.option(o.name).label} ({breach_text(o.resolved.breaches, loc)})" for o in res.options
            if o.feasible and o.resolved.breaches]
