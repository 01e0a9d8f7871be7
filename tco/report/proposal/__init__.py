"""The PDF proposal sales sends: Jinja2 templates in templates/, rendered by WeasyPrint.

    write(res, path, attachments)   Results → output/<scenario>.pdf

A body of at most six pages a CFO reads (cover; recommendation and the bridge from price per GPU-hour to
TCO; the offer and its conditions; the comparison with each competitor's best plan; risks and the case
beyond cost; next steps and signatures), then the technical annex. The sections read the typed view of
the results (`tco.report.view`), never the JSON; they compute presentation only, so the templates hold no
arithmetic. The commercial terms come from the scenario's `[proposal]` section (`tco.scenario.proposal`).
The engine's notices go to the seller (`notes_txt`), not into this document.

Reproducible: every date (cover, PDF metadata, attachments, the embedded font subsets' timestamps) is the
document date, so two runs give the same bytes. Branding comes from templates/theme.toml. Safety: Jinja2 autoescapes every value, charts are
SVG shapes whose labels `chart_svg` escapes, and `TemplatesOnlyFetcher` serves files under templates/ only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
import datetime as _dt
import functools
import logging
import mimetypes
from pathlib import Path


from tco import __version__
from tco.report import fmt
from tco.report.proposal import charts  # noqa: F401  (public: proposal.charts)
from tco.report.i18n import labels, language, locale_of, t
from tco.report.proposal.attach import attachment_bytes, scenario_bytes, workbook_bytes  # noqa: F401  (public)
from tco.report.brand import DEFAULT_COLORS, TEMPLATES, load_theme  # noqa: F401  (public here too)
from tco.report.words import document_date

if TYPE_CHECKING:
    from tco.report.view import View
    from tco.results import Results

LOG = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------
# Fetching: only files under templates/


def templates_only_fetcher(root: Path = TEMPLATES, brand: Path | None = None):
    """A WeasyPrint URL fetcher that serves files under `root` (and under the seller's `brand` folder, for its
    logo) and refuses everything else.

    Every URL asked for is recorded in `.requested`, every refusal in `.refused` (tests read them).
    """
    from urllib.parse import unquote, urlsplit

    from tco.report.proposal.weasy import weasyprint

    weasyprint()  # before any `from weasyprint…` import: no library search (proposal_weasy)
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    bases = [root.resolve()] + ([Path(brand).resolve()] if brand is not None else [])

    class TemplatesOnlyFetcher(URLFetcher):
        def __init__(self):
            super().__init__(allowed_protocols=("file",))
            self.requested: list[str] = []
            self.refused: list[str] = []

        def fetch(self, url, headers=None):
            self.requested.append(url)
            parts = urlsplit(url)
            path = Path(unquote(parts.path)).resolve() if parts.scheme == "file" and not parts.netloc else None
            if path is None or not any(path.is_relative_to(b) for b in bases) or not path.is_file():
                self.refused.append(url)
                LOG.warning("proposal: refused to fetch %.80s", url)
                raise ValueError(f"refused: only files under {bases[0]} are served")
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(path.as_uri(), path.read_bytes(), {"Content-Type": mime})

    return TemplatesOnlyFetcher()


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


def context(res: Results, attachments: list[Path], theme: dict, v: View | None = None) -> dict:
    """Everything the template shows, as formatted strings, tables and SVG charts (read from the typed view `v`,
    built here when not given)."""
    from tco.report.proposal import body
    from tco.report.proposal import offer
    from tco.report import view as view_mod

    v = v if v is not None else view_mod.build(res)
    loc = v.locale or "pt-BR"
    sc = res.scenario
    palette = theme["colors"]["palette"]
    theme = _localised(theme, loc)
    doc_date = document_date(sc)
    ours = offer.offered(v) or v.recommended
    out = {
        "lang": locale_of(loc),
        "t": labels(loc),
        "theme": theme,
        "created": doc_date.isoformat(),
        "cover": _cover(v, sc, doc_date, theme, loc),
        "summary": body.summary(v, loc),
        "offer": offer.offer(v, sc, doc_date, theme, loc, getattr(res, "catalog", None)),
        "comparison": body.comparison(v, ours, loc),
        "risks": body.risks(v, ours, sc, loc),
        "case": body.case(v, ours, sc, loc),
        "steps": offer.next_steps(v, sc, doc_date, theme, loc),
        **_annex(v, res, palette, loc),
        "attached": "; ".join(f"{_attachment_label(a, loc)}: {a.name}" for a in attachments),
        "tool": f"tco {__version__}",
        "notes": sc.scenario.notes,
    }
    return out


def _annex(v: View, res: Results, palette, loc: str) -> dict:
    """The technical annex: sizing, FX and sensitivity (with their charts), sources and glossary."""
    from markupsafe import Markup

    from tco.report.proposal import annex

    out: dict = {"sizing": annex.sizing(v, loc), "fx": annex.fx(v, palette, loc),
                 "sensitivity": annex.sensitivity(v, palette, loc), "sources": annex.sources(v, res, loc),
                 "glossary": annex.glossary(loc)}
    # charts are SVG shapes with HTML labels escaped by chart_svg: the only markup passed through
    for c in (out["fx"]["chart"], (out["sensitivity"] or {}).get("chart")):
        if c:
            c["html"] = Markup(c["html"])
    return out


def _cover(v: View, sc, doc_date, theme: dict, loc: str) -> dict:
    """The cover page's lines: title, client, date, proposal number, authors, horizon, contact."""
    p = sc.proposal
    contact = theme.get("contact", {})
    return {
        "scenario": _no_widow(v.name), "client": v.client or "—", "date": fmt.long_date(doc_date, loc),
        "number": t("pv_number_version", loc, number=p.number, version=p.version) if p is not None and p.number
        else "",
        "prepared_by": ", ".join(x for x in (v.prepared_by, theme["provider"].get("name")) if x) or "—",
        "horizon": t("cover_horizon_value", loc, months=v.horizon_months, start=fmt.month_year(v.months[0], loc),
                     end=fmt.month_year(v.months[-1], loc)),
        "contact": [x for x in (contact.get("person"), contact.get("email"), contact.get("phone"),
                                contact.get("website")) if x],
        "confidential": t("confidential", loc, client=v.client or v.name),
        "cnpj": p.client_cnpj if p is not None else "",
        "client_contact": ", ".join(x for x in (c.name, c.role, c.email, c.phone) if x)
        if p is not None and (c := p.client_contact) is not None else "",
        "example": t("pv_brand_example", loc) if theme["provider"].get("example") else "",
    }


def _no_widow(title: str) -> str:
    """The title with its last short words (up to 14 characters) bound by no-break spaces: no widow on the cover."""
    words = title.split(" ")
    tail = [words.pop()]
    while words and len(" ".join(tail)) + len(words[-1]) < 14:
        tail.insert(0, words.pop())
    return " ".join(words + ["\u00a0".join(tail)]) if words else title


def _attachment_label(p: Path, loc: str) -> str:
    return t({".toml": "attach_scenario", ".xlsx": "attach_workbook"}.get(p.suffix, "attach_other"), loc)


@functools.cache
def _environment(templates: str):
    """The Jinja environment of a templates folder, made once per process: its templates are compiled on first
    use (30–45 ms) and recompiled only when their files change. Autoescape on: scenario text stays text."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    from tco.report.proposal import columns as proposal_columns

    env = Environment(loader=FileSystemLoader(templates), autoescape=True, undefined=StrictUndefined)
    env.globals |= {"table_widths": proposal_columns.for_table, "pair_widths": proposal_columns.for_pairs}
    return env


def render_html(ctx: dict, templates: Path = TEMPLATES) -> str:
    return _environment(str(Path(templates).resolve())).get_template("proposal.html.j2").render(**ctx)


def render(res: Results, attachments: list[Path] | tuple = (), *, fetcher=None, templates: Path = TEMPLATES,
           v: View | None = None) -> bytes:
    """The PDF as bytes, the same bytes on every run: every date in it (cover, metadata, attachments) is the
    document date (`[proposal].date`, else the scenario's start month). `fetcher` defaults to a fresh
    templates-only fetcher (pass one to inspect it); `v` is the view of `res` when the caller has built it."""
    from tco.report.proposal.weasy import weasyprint

    wp = weasyprint()
    HTML, Attachment = wp.HTML, wp.Attachment
    from tco.report import brand

    theme, brand_dir = brand.theme(res.scenario, getattr(res, "source_path", ""), templates)
    attachments = [Path(p) for p in attachments if p and Path(p).is_file()]
    html = render_html(context(res, attachments, theme, v), templates)
    fetcher = fetcher or templates_only_fetcher(templates, brand_dir)
    sc = res.scenario
    loc = sc.scenario.locale or "pt-BR"
    stamp = _dt.datetime.combine(document_date(sc), _dt.time(), tzinfo=_dt.timezone.utc)
    keep = bool(sc.proposal and sc.proposal.attach_scenario_comments)
    files = [Attachment(string=attachment_bytes(p, keep, stamp), name=p.name,
                        description=_attachment_label(p, loc), url_fetcher=fetcher, created=stamp, modified=stamp)
             for p in attachments]
    # PDF/A-3b: the archival variant that allows embedded files (scenario, workbook)
    with source_date(stamp):
        return HTML(string=html, base_url=templates.resolve().as_uri() + "/", url_fetcher=fetcher).write_pdf(
            attachments=files, pdf_variant="pdf/a-3b")


@contextlib.contextmanager
def source_date(stamp: _dt.datetime):
    """SOURCE_DATE_EPOCH set to `stamp` inside the block (unless the caller set it): the embedded font subsets
    carry it as their `head.modified` instead of the render time. fontTools, which subsets the fonts when
    libharfbuzz-subset is not installed, reads it (the reproducible-builds convention); the block restores the
    environment as it found it."""
    import os

    key = "SOURCE_DATE_EPOCH"
    before = os.environ.get(key)
    if before is None:
        os.environ[key] = str(int(stamp.timestamp()))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)


def write(res: Results, path: Path, attachments: list[Path] | tuple = (), v: View | None = None) -> None:
    """Write the proposal PDF to `path`, with the scenario file and workbook (when present) attached; `v` is the
    view of `res` when the caller has built it (``tco.report.view.build``)."""
    Path(path).write_bytes(render(res, attachments, v=v))
