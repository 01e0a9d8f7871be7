"""The PDF proposal sales attaches: Jinja2 templates in templates/, rendered by WeasyPrint.

    write(res, doc, path, attachments)   Results + JSON doc → output/<scenario>.pdf

The renderer never recomputes the model: totals, percentiles, sizing and sources come from the
engine's Results and the JSON document built from them. What it does compute is presentation —
rankings, savings and shares between totals already computed, cumulative sums for a chart, and
every string in the scenario's locale (`fmt`, `i18n`) — so the templates hold no arithmetic.

Branding comes from templates/theme.toml (provider name, logo, colours, contact); a scenario
`[proposal]` section may override it once the schema has one. Safety: Jinja2 autoescapes every
value, charts are SVG whose text matplotlib escapes, and `TemplatesOnlyFetcher` serves files
under templates/ only, refusing every other file, http(s) and data: URL.
"""

from __future__ import annotations

import datetime as _dt
import logging
import mimetypes
import re
import tomllib
from pathlib import Path


from tco.report import charts, fmt
from tco.report.i18n import labels, language, locale_of, t
from tco.report.proposal_sections import (  # noqa: F401  (the sections of the proposal)
    GLOSSARY, _attachment_label, _breakevens, _egress, _fleets, _fx, _lines, _options, _other_breakevens, _sensitivity,
    _sources, _summary, _workload,
)

LOG = logging.getLogger(__name__)
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
"""The templates folder: proposal.html.j2, proposal.css, theme.toml, logo, fonts/."""
MONTE_CARLO = ("gbm", "bootstrap")
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}){1,2}$")
DEFAULT_COLORS = {"primary": "#1f3b63", "accent": "#e07b39", "text": "#1d1d1f", "muted": "#5f6670", "rule": "#c9ced6",
                  "shade": "#eef2f7"}


# ---------------------------------------------------------------------------------------------
# Fetching: only files under templates/


def templates_only_fetcher(root: Path = TEMPLATES):
    """A WeasyPrint URL fetcher that serves files under `root` and refuses everything else.

    Every URL asked for is recorded in `.requested`, every refusal in `.refused` (tests read them).
    """
    from urllib.parse import unquote, urlsplit

    from weasyprint.urls import URLFetcher, URLFetcherResponse

    base = root.resolve()

    class TemplatesOnlyFetcher(URLFetcher):
        def __init__(self):
            super().__init__(allowed_protocols=("file",))
            self.requested: list[str] = []
            self.refused: list[str] = []

        def fetch(self, url, headers=None):
            self.requested.append(url)
            parts = urlsplit(url)
            path = Path(unquote(parts.path)).resolve() if parts.scheme == "file" and not parts.netloc else None
            if path is None or not path.is_relative_to(base) or not path.is_file():
                self.refused.append(url)
                LOG.warning("proposal: refused to fetch %.80s", url)
                raise ValueError(f"refused: only files under {base} are served")
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(path.as_uri(), path.read_bytes(), {"Content-Type": mime})

    return TemplatesOnlyFetcher()


def load_theme(path: Path = TEMPLATES / "theme.toml") -> dict:
    """The branding: provider, contact, colours (hex only, so a colour cannot inject CSS)."""
    theme = tomllib.loads(path.read_text(encoding="utf-8"))
    colors = theme.setdefault("colors", {})
    for key, value in list(colors.items()):
        bad = [v for v in (value if isinstance(value, list) else [value]) if not _HEX.match(str(v))]
        if bad:
            raise ValueError(f"{path}: colors.{key} = {bad[0]!r} is not a hex colour like '#1f3b63'")
    for key, value in DEFAULT_COLORS.items():
        colors.setdefault(key, value)
    colors.setdefault("palette", list(charts.DEFAULT_PALETTE))
    provider = theme.setdefault("provider", {})
    for key in ("name", "short_name", "tagline", "logo"):
        provider.setdefault(key, "")
    theme.setdefault("contact", {})
    return theme


# ---------------------------------------------------------------------------------------------
# Presentation values


def _localised(theme: dict, loc: str) -> dict:
    """The theme with `key_en` values in place of `key` for an English proposal (pt-BR uses `key`)."""
    suffix = "_" + language(loc)  # "_pt" keys, if a theme ever has them, override too
    out = {}
    for section, values in theme.items():
        if not isinstance(values, dict):
            out[section] = values
            continue
        vals = {k: v for k, v in values.items() if not k.endswith("_en")}
        vals |= {k.removesuffix(suffix): v for k, v in values.items() if k.endswith(suffix)}
        out[section] = vals
    return out


def context(res, doc: dict, attachments: list[Path], theme: dict, today: _dt.date | None = None) -> dict:
    """Everything the template shows, as formatted strings, tables and SVG charts."""
    from markupsafe import Markup

    today = today or _dt.date.today()
    loc = doc["scenario"].get("locale") or "pt-BR"
    palette = theme["colors"]["palette"]
    # the engine's ranking (feasible options only, engine.rankable): the others are named in the disclaimers
    by_name = {o["name"]: o for o in doc["options"]}
    ranked = [by_name[n] for n in doc["ranking"]]
    prob = {o.name: o.prob_cheapest for o in res.options}
    has_usd = res.ledger.has_usd()
    sc = doc["scenario"]
    theme = _localised(theme, loc)
    contact = theme.get("contact", {})
    months = doc["demand"]["months"]
    s = res.scenario.scenario
    ctx = {"prob": prob, "palette": palette}
    out = {
        "lang": locale_of(loc),
        "t": labels(loc),
        "theme": theme,
        "cover": {
            "scenario": sc["name"], "client": sc["client"] or "—", "date": fmt.long_date(today, loc),
            "prepared_by": ", ".join(x for x in (s.prepared_by, theme["provider"].get("name")) if x) or "—",
            "horizon": t("cover_horizon_value", loc, months=sc["horizon_months"], start=fmt.month_year(months[0], loc),
                         end=fmt.month_year(months[-1], loc)),
            "contact": [v for v in (contact.get("person"), contact.get("email"), contact.get("phone"),
                                    contact.get("website")) if v],
            "confidential": t("confidential", loc, client=sc["client"] or sc["name"]),
        },
        "summary": _summary(ctx, ranked, doc, loc, has_usd),
        "workload": _workload(res, doc, ranked, loc, palette),
        "options": _options(res, ranked, loc, palette),
        "lines": _lines(res, ranked, loc, palette),
        "fx": _fx(res, doc, ranked, loc, palette, has_usd, prob),
        "breakevens": _breakevens(doc, loc) if has_usd else None,
        "other_breakevens": _other_breakevens(doc, loc),
        "sensitivity": _sensitivity(doc, loc, palette),
        "egress": _egress(doc, ranked, loc),
        "fleets": _fleets(doc, ranked, loc),
        "sources": _sources(res, doc, ranked, loc, attachments, today),
        "glossary": [(t(f"g_{k}", loc), t(f"g_{k}_def", loc)) for k in GLOSSARY],
        "notes": s.notes,
    }
    estimates = sorted({x["offer"] for x in doc["catalog_rows"]["offers"]
                        if x["status"] in ("estimate", "illustrative_estimate")})
    infeasible = [t("d_infeasible_item", loc, name=o["name"], tps=fmt.number(o["achieved_tokens_per_second_per_user"], loc, 1))
                  for o in doc["options"] if not o.get("feasible", True)]
    out["disclaimers"] = ([t("d_infeasible", loc, target=fmt.number(res.scenario.inference.tokens_per_second_per_user, loc),
                             options="; ".join(infeasible))] if infeasible else []) + (
        [t("d_estimate", loc, offers=", ".join(estimates))] if estimates else []) + [
        t(k, loc) for k in ("d_not_offer", "d_fx", "d_taxes", "d_sizing")]
    # charts are SVG written by matplotlib (text escaped there): the only markup passed through
    for c in [out["workload"]["users_chart"], out["options"]["chart"], out["fx"]["chart"], *out["lines"]["charts"],
              out["fx"]["rate_chart"],
              out["summary"]["chart"], (out["sensitivity"] or {}).get("chart")]:
        if c:
            c["svg"] = Markup(c["svg"])
    return out


def render_html(ctx: dict, templates: Path = TEMPLATES) -> str:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(loader=FileSystemLoader(str(templates)), autoescape=True, undefined=StrictUndefined)
    return env.get_template("proposal.html.j2").render(**ctx)


def render(res, doc: dict, attachments: list[Path] = (), *, fetcher=None, templates: Path = TEMPLATES,
           today: _dt.date | None = None) -> bytes:
    """The PDF as bytes. `fetcher` defaults to a fresh templates-only fetcher (pass one to inspect it)."""
    from weasyprint import HTML, Attachment

    theme = load_theme(templates / "theme.toml")
    attachments = [Path(p) for p in attachments if p and Path(p).is_file()]
    html = render_html(context(res, doc, attachments, theme, today), templates)
    fetcher = fetcher or templates_only_fetcher(templates)
    loc = doc["scenario"].get("locale") or "pt-BR"
    files = [Attachment(string=p.read_bytes(), name=p.name, description=_attachment_label(p, loc),
                        url_fetcher=fetcher) for p in attachments]
    # PDF/A-3b: the archival variant that allows embedded files (scenario, workbook)
    return HTML(string=html, base_url=templates.resolve().as_uri() + "/", url_fetcher=fetcher).write_pdf(
        attachments=files, pdf_variant="pdf/a-3b")


def write(res, doc: dict, path: Path, attachments: list[Path] = ()) -> None:
    """Write the proposal PDF to `path`, with the scenario file and workbook (when present) attached."""
    Path(path).write_bytes(render(res, doc, attachments))
