"""Words for the engine's notices, in each locale.

The engine reports what a reader must know as ``domain.Notice(code, option, params)``; this module is
the one place that turns a notice into a sentence. Every code has a template in both locales (a test
holds them to the same placeholders), and each parameter has a kind that says how it is shown:
``int`` (grouped whole number), ``num`` (as few decimals as it needs), ``num1`` (one decimal),
``pct`` (a share as a percent), ``month`` ("YYYY-MM" as month and year), ``ic`` (an interconnect id)
or ``text`` (verbatim: offer ids, GPU names).
"""

from __future__ import annotations

from tco.domain import Notice
from tco.report import fmt

NOTICES: dict[str, dict[str, object]] = {
    "price_estimate": {
        "params": {"offer": "text"},
        "pt-BR": "o preço de {offer} é uma estimativa ilustrativa, não uma cotação; substitua-o pela proposta de um "
                 "fornecedor.",
        "en": "the price of {offer} is an illustrative estimate, not a quote; replace it with a provider's quote.",
    },
    "price_status": {
        "params": {"offer": "text", "status": "text"},
        "pt-BR": "o preço de {offer} está marcado como '{status}' no catálogo.",
        "en": "the price of {offer} is marked '{status}' in the catalog.",
    },
    "price_anomalous": {
        "params": {"offer": "text", "pricing": "text"},
        "pt-BR": "o catálogo marca o preço de {offer} ({pricing}) como anômalo: confira-o.",
        "en": "the catalog flags the price of {offer} ({pricing}) as anomalous: check it.",
    },
    "tax_horizon": {
        "params": {"profile": "text", "until": "month", "end": "month", "year": "text"},
        "pt-BR": "o perfil tributário {profile} descreve os tributos até {until}, mas o horizonte vai até {end}; "
                 "a reforma CBS/IBS muda o PIS/COFINS a partir de {year}, e as alíquotas dos meses seguintes ainda "
                 "não são conhecidas.",
        "en": "tax profile {profile} describes taxes up to {until}, but the horizon runs to {end}; the CBS/IBS reform "
              "changes PIS/COFINS from {year}, and the rates of the later months are not yet known.",
    },
    "tax_on_brl_offer": {
        "params": {},
        "pt-BR": "um perfil tributário foi indicado para uma oferta em reais; os preços em reais já incluem os "
                 "tributos e nenhum acréscimo é somado.",
        "en": "a tax profile is set on a BRL offer; BRL prices are taken as tax-inclusive and no uplift is added.",
    },
    "target_unreachable": {
        "params": {"gpu": "text", "target": "num", "reached": "num1"},
        "pt-BR": "a {gpu} não alcança {target} tokens/s por usuário nem com lote 1 ({reached} tokens/s); "
                 "dimensionada com lote 1.",
        "en": "{gpu} cannot reach {target} tokens/s per user even at batch 1 ({reached} tokens/s); sized at batch 1.",
    },
    "multi_server_pcie": {
        "params": {"servers": "int", "ic": "ic", "gpu": "text", "efficiency": "pct"},
        "pt-BR": "o treinamento ocupa {servers} servidores {ic} de {gpu}; a rede entre servidores não é modelada "
                 "(eficiência de escala de {efficiency} assumida): confirme que esse cluster é viável.",
        "en": "training spans {servers} {ic} servers of {gpu}; the network between servers is not modelled "
              "(scaling efficiency {efficiency} assumed): check such a cluster is practical.",
    },
    "training_past_horizon": {
        "params": {"needed_hours": "int", "fitted_hours": "int"},
        "pt-BR": "o treinamento precisa de {needed_hours} h, mas só {fitted_hours} h cabem no horizonte; o restante "
                 "não é custeado.",
        "en": "training needs {needed_hours} h but only {fitted_hours} h fit in the horizon; the rest is not costed.",
    },
    "min_term_idle": {
        "params": {"term": "int", "busy": "int"},
        "pt-BR": "o cluster de treinamento é pago pelo prazo mínimo de {term} meses, mas fica ocupado {busy} mês(es); "
                 "uma frota compartilhada, ou servir a partir dele, pode custar menos.",
        "en": "the training cluster is paid for its {term}-month minimum term but busy {busy} month(s); a shared "
              "fleet, or serving from it, may cost less.",
    },
    "min_term_past_horizon": {
        "params": {"term": "int"},
        "pt-BR": "o prazo mínimo do cluster de treinamento ({term} meses) passa do horizonte; os meses além dele não "
                 "são custeados.",
        "en": "the training cluster's minimum term ({term} months) runs past the horizon; months beyond it are not "
              "costed.",
    },
}
"""Notice code → parameter kinds and a template per locale."""

_IC = {"pt-BR": {"pcie": "PCIe", "nvlink": "NVLink", "nvlink_bridge": "NVLink bridge"},
       "en": {"pcie": "PCIe", "nvlink": "NVLink", "nvlink_bridge": "NVLink bridge"}}


def _show(value: object, kind: str, locale: str) -> str:
    if kind == "int":
        return fmt.number(float(value), locale, 0)  # type: ignore[arg-type]
    if kind == "num":
        return fmt.number_short(float(value), locale)  # type: ignore[arg-type]
    if kind == "num1":
        return fmt.number(float(value), locale, 1)  # type: ignore[arg-type]
    if kind == "pct":
        return fmt.percent_short(float(value), locale)  # type: ignore[arg-type]
    if kind == "month":
        return fmt.month_year(str(value), locale)
    if kind == "ic":
        return _IC.get(locale, _IC["en"]).get(str(value), str(value))
    return str(value)


def text(notice: Notice, locale: str) -> str:
    """The notice's sentence in ``locale`` (without the option it concerns)."""
    spec = NOTICES[notice.code]
    loc = locale if locale in spec else "en"
    kinds: dict[str, str] = spec["params"]  # type: ignore[assignment]
    shown = {k: _show(notice.params[k], kind, loc) for k, kind in kinds.items()}
    return str(spec[loc]).format(**shown)


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
