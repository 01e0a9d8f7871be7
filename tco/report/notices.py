"""Words for the engine's notices, in each locale.

The engine reports what a reader must know as ``domain.Notice(code, option, params)``; this module is
the one place that turns a notice into a sentence: the sentence is the translation catalog's
``notice_<code>`` (both locales, same placeholders: a test), and each parameter has a kind that says
how it is shown:
``int`` (grouped whole number), ``num`` (as few decimals as it needs), ``num1``/``num2`` (one or two
decimals), ``mode`` (expert or pipeline parallel),
``pct`` (a share as a percent), ``money`` (whole reais), ``month`` ("YYYY-MM" as month and year),
``ic`` (an interconnect id) or ``text`` (verbatim: offer ids, GPU names).
"""

from __future__ import annotations

from tco.domain import Notice
from tco.plain import plain
from tco.report import fmt_light  # babel's formats for the kinds below, without loading babel (~15 ms)
from tco.report.i18n import locale_of, t, term

PARAMS: dict[str, dict[str, str]] = {
    "price_estimate": {"offer": "text"},
    "price_status": {"offer": "text", "status": "text"},
    "price_anomalous": {"offer": "text", "pricing": "text"},
    "price_stand_in_egress": {"id": "text"},
    "price_stand_in_storage": {"id": "text"},
    "tax_horizon": {"profile": "text", "until": "month", "end": "month", "year": "text"},
    "tax_on_brl_offer": {},
    "target_unreachable": {"gpu": "text", "target": "num", "reached": "num1"},
    "targets_unreachable": {"gpu": "text", "target": "num", "reached": "num1", "ttft_target": "num", "ttft": "num2"},
    "ttft_queued_over_target": {"target": "num", "p95": "num2", "utilisation": "pct", "planned": "pct"},
    "replica_spans_servers": {"servers": "int", "offer": "text", "mode": "mode", "gbps": "num", "status": "text"},
    "multi_server_pcie": {"servers": "int", "ic": "ic", "gpu": "text", "efficiency": "pct"},
    "training_mfu_uncalibrated": {"gpu": "text", "generation": "text", "mfu": "pct"},
    "training_past_horizon": {"needed_hours": "int", "fitted_hours": "int"},
    "min_term_idle": {"term": "int", "busy": "int"},
    "min_term_past_horizon": {"term": "int"},
    "tax_rates_estimate": {"start": "month"},
    "billing_unverified": {"provider": "text", "profile": "text"},
    "hybrid_brl_credit": {"amount": "money"},
    "users_ceiling_below_start": {"ceiling": "int", "start": "int"},
    "users_runaway": {"rate": "pct", "months": "int"},
    "users_list_too_long": {"values": "int", "months": "int"},
    "autoscale_ignored_shared": {},
    "training_keys_ignored": {"keys": "text"},
    "fx_history_ignored": {"keys": "text", "model": "text"},
    "speculative_keys_ignored": {"keys": "text"},
    "training_hours_keys_ignored": {"keys": "text"},
    "proposal_term_beyond_horizon": {"name": "text", "term": "int", "months": "int"},
    "spot_interruptible": {},
    "min_term_beyond_horizon": {"term": "int", "months": "int"},
    "catalog_dir_empty": {"folder": "text"},
    "fx_focus_held": {"edition": "text", "year": "text"},
    "owned_price_estimate": {"offer": "text"},
    "owned_shield": {"rate": "pct", "amount": "money"},
    # the proposal's own checks (tco.report.offer_checks): not in the JSON
    "proposal_items_differ": {"items": "money", "costed": "money", "items_setup": "money", "costed_setup": "money"},
    "quote_expired": {"offer": "text", "until": "date", "date": "date"},
    "proposal_date_far": {"date": "date", "start": "month", "months": "int"},
    "recommended_undated": {"offer": "text"},
    "plan_unverified": {"offer": "text", "status": "text", "as_of": "date"},
    "brand_example": {},
    "offer_data_abroad": {"where": "text"},
}
"""Notice code → its parameters and how each is shown; the sentences are the catalog's ``notice_<code>``."""


_LIGHT = {
    "int": lambda f, v, loc: f.number(float(v), loc, 0),
    "num": lambda f, v, loc: f.number_short(float(v), loc),
    "num1": lambda f, v, loc: f.number(float(v), loc, 1),
    "num2": lambda f, v, loc: f.number(float(v), loc, 2),
    "pct": lambda f, v, loc: f.percent_short(float(v), loc),
    "money": lambda f, v, loc: f.money(float(v), loc, cents=False),
    "month": lambda f, v, loc: f.month_year(str(v), loc),
}
"""The kinds fmt_light writes, as tco.report.fmt writes them (with babel): the plain path of ``TCO_PLAIN``."""


def _show(value: object, kind: str, locale: str) -> str:
    if kind in _LIGHT and plain("fmt_light"):
        from tco.report import fmt

        return _LIGHT[kind](fmt, value, locale)
    if kind == "int":
        return fmt_light.number(float(value), locale, 0)  # type: ignore[arg-type]
    if kind == "num":
        return fmt_light.number_short(float(value), locale)  # type: ignore[arg-type]
    if kind == "num1":
        return fmt_light.number(float(value), locale, 1)  # type: ignore[arg-type]
    if kind == "num2":
        return fmt_light.number(float(value), locale, 2)  # type: ignore[arg-type]
    if kind == "mode":
        return t("mode_ep" if value == "ep" else "mode_pp", locale)
    if kind == "pct":
        return fmt_light.percent_short(float(value), locale)  # type: ignore[arg-type]
    if kind == "money":
        return fmt_light.money(float(value), locale)  # type: ignore[arg-type]
    if kind == "month":
        return fmt_light.month_year(str(value), locale)
    if kind == "ic":
        return term("ic", str(value), locale)
    if kind == "date":  # "2026-11-30" in the locale's form (30/11/2026); other text as it is (the proposal's notices
        from tco.report import fmt  # only, so `validate` does not load babel)

        return fmt.iso_date(str(value), locale)
    return str(value)


def text(notice: Notice, locale: str) -> str:
    """The notice's sentence in ``locale`` (without the option it concerns)."""
    loc = locale_of(locale)
    shown = {k: _show(notice.params[k], kind, loc) for k, kind in PARAMS[notice.code].items()}
    return t(f"notice_{notice.code}", loc, **shown)


def line(notice: Notice, locale: str) -> str:
    """The notice as one line: "<option>: <sentence>", or the sentence alone."""
    body = text(notice, locale)
    return f"{notice.option}: {body}" if notice.option else body


def grouped(notices: tuple[Notice, ...] | list[Notice], locale: str, and_word: str) -> list[str]:
    """One line per distinct sentence, naming every option it concerns ("A, B and C: …")."""
    by_text: dict[str, list[str]] = {}
    for n in notices:
        by_text.setdefault(text(n, locale), [])
        if n.option and n.option not in by_text[text(n, locale)]:
            by_text[text(n, locale)].append(n.option)
    out = []
    for body, who in by_text.items():
        if not who:
            out.append(body)
        elif len(who) == 1:
            out.append(f"{who[0]}: {body}")
        else:
            out.append(f"{', '.join(who[:-1])}{and_word}{who[-1]}: {body}")
    return out
