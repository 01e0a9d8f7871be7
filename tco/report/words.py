"""Plain names and shared formatting for the proposal: what a CFO reads instead of catalog ids.

"br-dedicated/sp/h200-nvl-1x" → "servidor dedicado com 1 GPU H200 NVL"; a plan search's best AWS plan →
"AWS: p5en com 8 GPUs H200, EC2 Instance Savings Plan 3 anos". One comparison convention for every pair:
the dearer costs N× the cheaper ("3,1× mais cara" / "2,0× mais barata"), never a percentage of one base
beside a percentage of the other.
"""

from __future__ import annotations

import datetime as _dt
import re

from tco.domain import FleetKind
from tco.report import fmt
from tco.report.i18n import has, t


def _label_or(key: str, loc: str, fallback: str) -> str:
    return t(key, loc) if has(key) else fallback


def table(head, rows, num=(), highlight=(), name=None, foot=None) -> dict:
    """A table for the template: header, rows of strings, a CSS class per column, highlighted rows."""
    cls = [" ".join(c for c, on in (("num", i in num), ("name", i == name)) if on) for i in range(len(head))]
    return {"head": head, "rows": rows, "cls": cls, "highlight": set(highlight), "foot": foot}


def gpu_name(gpu: str) -> str:
    """"H200-NVL-141GB" → "H200 NVL"; "H100-SXM-80GB" → "H100 SXM"; "L4" → "L4"."""
    return re.sub(r"-\d+GB$", "", gpu).replace("-", " ")


def provider_name(provider: str, loc: str) -> str:
    return _label_or(f"pv_provider_{provider.replace('-', '_')}", loc, provider.capitalize())


def fleet_name(f, loc: str) -> str:
    """A fleet (view.FleetView) in plain words: what it is, how many GPUs of which kind."""
    gpus = f.gpus_per_server
    if f.kind == FleetKind.DEDICATED:
        key = "pv_fleet_dedicated_one" if gpus == 1 else "pv_fleet_dedicated"
    else:
        key = "pv_fleet_cloud_one" if gpus == 1 else "pv_fleet_cloud"
    return t(key, loc, n=gpus, gpu=gpu_name(f.gpu), instance=f.offer.split("/")[-1],
             provider=provider_name(f.provider, loc))


def pricing_name(pricing: str, loc: str) -> str:
    return _label_or(f"pricing_{pricing}", loc, pricing.replace("_", " "))


def plan_name(p, loc: str) -> str:
    """A plan search's best plan (view.PlanView) in plain words."""
    gpus = p.serving_gpus_per_server
    what = t("pv_plan_cloud_one" if gpus == 1 else "pv_plan_cloud", loc, provider=provider_name(p.provider, loc),
             instance=p.serving_offer.split("/")[-1], n=gpus, gpu=gpu_name(p.serving_gpu))
    out = f"{what}, {pricing_name(p.serving_pricing, loc)}"
    if p.training_offer and (p.training_offer, p.training_pricing) != (p.serving_offer, p.serving_pricing):
        region = p.training_offer.split("/")[1]
        out += t("pv_plan_training", loc, instance=p.training_offer.split("/")[-1],
                 pricing=pricing_name(p.training_pricing or "", loc), region=region)
    return out


def money(x: float | None, loc: str) -> str:
    """Whole reais: every amount of the proposal but unit prices."""
    return fmt.money(x, loc, False)


def unit_price(x: float | None, loc: str) -> str:
    """A unit price (per GPU-hour, per million tokens): in centavos, the only amounts shown so."""
    return fmt.money(x, loc)


def usd(x: float, loc: str) -> str:
    from babel.numbers import format_currency

    value = format_currency(x, "USD", locale=fmt.babel_locale(loc))
    return "US" + value if value.startswith("$") else value


def multiple(other: float, base: float, loc: str) -> str:
    """How `other` compares with `base`, one convention: "3,1× mais cara" or "2,0× mais barata"."""
    if base <= 0 or other <= 0:
        return "—"
    if other >= base:
        return t("pv_times_dearer", loc, x=fmt.number(other / base, loc, 1))
    return t("pv_times_cheaper", loc, x=fmt.number(base / other, loc, 1))


def day(d: _dt.date | None, loc: str) -> str:
    return fmt.long_date(d, loc) if d else "—"


def document_date(scenario) -> _dt.date:
    """The proposal's date: `[proposal].date`, else the first day of the scenario's start month (never the clock)."""
    p = scenario.proposal
    if p is not None and p.date is not None:
        return p.date
    y, m = scenario.scenario.start.split("-")
    return _dt.date(int(y), int(m), 1)


def month_name(month: int, loc: str) -> str:
    """1 → "janeiro" / "January"."""
    from babel.dates import get_month_names

    return get_month_names("wide", locale=fmt.babel_locale(loc))[month]


def breach_text(codes, loc: str) -> str:
    """The client's constraints an option breaks (``tco.scenario.proposal.breaches`` codes), in words:
    "treino fora do Brasil, provedor Azure não aceito"."""
    out = []
    for code in codes:
        head, _, provider = code.partition(":")
        out.append(t(f"breach_{head}", loc, provider=provider_name(provider, loc)) if provider
                   else t(f"breach_{head}", loc))
    return ", ".join(out)
