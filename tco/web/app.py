"""The sales desk: a local web page where a salesperson fills a proposal's form, sees the answer and downloads the
client's files, on the library API (``tco.load``/``tco.run``/``tco.write``, in worker processes: ``tco.web.jobs``).

Routes: ``GET /`` the form (``?example=NAME``, ``?lang=en``); ``POST /recalc`` the answer for the form as edited;
``POST /upload`` a scenario file; ``POST /download`` one of the files; ``GET /proposals`` the saved ones,
``GET /proposals/{id}`` one of them in the form, ``POST /proposals/{id}/status``; ``GET /static/{name}`` the
page's CSS and script.

Safe by default: every value is escaped by Jinja (autoescape); a POST from another origin is refused (Origin, else
Sec-Fetch-Site, must say this site), and so is a Host header that is not this server's (DNS rebinding); uploads
and forms are capped (MAX_BODY_BYTES) and parsed with the scenario's own schema; nothing is fetched from a URL.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable
from pathlib import Path

from tco.web import fields as F
from tco.web import guards, jobs

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_BODY_BYTES = 1_100_000
"""Largest request body [bytes]: a scenario file (at most 1 MB, the loader's limit) and the form around it."""
STATIC = {"desk.css": "text/css; charset=utf-8", "desk.js": "text/javascript; charset=utf-8"}
CSP = ("default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
DOWNLOADS = {"pdf": "application/pdf", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
             "toml": "application/toml", "json": "application/json", "csv": "text/csv", "notes.txt": "text/plain"}
"""What the page offers to download (by the file's extension) and its media type."""
CACHED_RUNS = 4


@dataclass
class Desk:
    """What the app needs: the example scenarios, the data folder (None: nothing saved) and the workers."""

    examples: dict[str, Path]
    data: Path | None
    pool: object
    hosts: tuple[str, ...]
    runs: OrderedDict = field(default_factory=OrderedDict)
    renew: Callable[[], object] | None = None
    """Makes a new pool of workers when one died (out of memory) and broke the pool; None: the pool is kept."""


def examples_in(folder: Path | None) -> dict[str, Path]:
    """The example scenarios (``*.toml`` of `folder`) by stem; the form names one by its stem, never by path."""
    if folder is None or not Path(folder).is_dir():
        return {}
    return {p.stem: p for p in sorted(Path(folder).glob("*.toml")) if p.is_file()}


def _env():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=StrictUndefined)


def _lang(value: str | None) -> str:
    from tco.report.i18n import LOCALES

    return value if value in LOCALES else LOCALES[0]


def _catalog_choices() -> dict:
    """The catalog's models, dedicated servers and cloud offers (with their pricings) for the selects."""
    from tco.catalog import load_catalog

    cat = load_catalog(None)
    return {"models": sorted(cat.models), "dedicated": sorted(cat.dedicated_offers),
            "cloud": sorted(cat.cloud_offers),
            "pricings": sorted({p for o in cat.cloud_offers.values() for p in o.prices}),
            "status": {k: o.status for k, o in cat.dedicated_offers.items()}}


def page_context(text: str, stem: str, lang: str, *, result: dict | None = None, note: str = "",
                 desk: Desk | None = None, saved: int | None = None) -> dict:
    """What desk.html.j2 shows for scenario `text`: the fields' values (empty when the text does not parse), the
    option rows, the problems beside their fields and above the form, and the answer."""
    import tomllib

    from tco.report.i18n import t

    try:
        data = tomllib.loads(text)
    except ValueError:  # TOMLDecodeError, or an integer past 4,300 digits (a 500: 2026-12d T3)
        data = {}
    choices = _choices()
    rows = F.option_rows(data, set(choices["dedicated"]))
    origin = {k: f"opt.{r['i']}" for k, r in enumerate(rows)}
    by_field: dict[str, list[str]] = {}
    general = []
    for p in (result or {}).get("problems", []):
        where = F.field_of(p["key"], origin)
        if where:
            by_field.setdefault(where, []).append(f"[{p['key']}] {p['message']}" if p["key"] else p["message"])
        general.append(p["text"])
    return {"lang": lang, "t": lambda key, **kw: t(key, lang, **kw), "fields": F.FIELDS, "groups": F.GROUPS,
            "values": F.values(data), "rows": rows, "items": F.item_rows(data), "choices": choices, "errors": by_field, "problems": general,
            "answer": (result or {}).get("answer"), "base": text, "stem": jobs.safe_stem(stem), "note": note,
            "examples": sorted((desk.examples if desk else {})), "saved": saved,
            "saving": bool(desk and desk.data), "downloads": list(DOWNLOADS), "edit_paths": jobs.EDIT_PATHS,
            "choice_keys": _choice_keys(), "defaults": _defaults()}


@functools.cache
def _defaults() -> dict[str, str]:
    """Each field's schema default, as its blank input's placeholder."""
    return {f.path: F.schema_default(f.path) for f in F.FIELDS}


def _choice_keys() -> set[str]:
    """The i18n keys that name a select's values (web_c_…): a value without one shows as it is."""
    from tco.report.i18n import DEFAULT_LOCALE, catalog

    return {k for k in catalog(DEFAULT_LOCALE) if k.startswith("web_c_")}


_CHOICES: dict = {}


def _choices() -> dict:
    if not _CHOICES:
        _CHOICES.update(_catalog_choices())
    return _CHOICES


def scenario_text(base: str, form) -> str:
    """The scenario the form describes: `base` (the scenario the page was built from) with the form written in."""
    import tomllib

    from tco.web import tomlw

    try:
        data = tomllib.loads(base)
    except ValueError:  # TOMLDecodeError, or an integer past 4,300 digits (a 500: 2026-12d T3)
        data = {}
    new, _ = F.apply(data, form)
    if new == data and data:  # nothing edited: the file as it came (its comments kept; the newlines a browser
        return base.replace("\r\n", "\n")  # sends back as CR LF made LF again)
    return tomlw.dumps(new, "Written by the tco sales desk (python -m tco serve); `python -m tco run` reads it as is.")


async def _in_worker(desk: Desk, fn, *args):
    """`fn(*args)` in a worker, stopped there after JOB_SECONDS (``jobs.timed``); a job past its time, or a worker
    that died (out of memory), is a problem the page shows ({"problems": […]}), never a 500. A worker that does not
    stop its job within STUCK_SECONDS more has its pool replaced and its processes ended (``_replace_pool``)."""
    from concurrent.futures import BrokenExecutor

    loop = asyncio.get_running_loop()
    limit = jobs.JOB_SECONDS
    ran_on = desk.pool  # the pool this job runs on: by the time it fails, another job may have replaced it
    try:
        return await asyncio.wait_for(loop.run_in_executor(ran_on, jobs.timed, fn, limit, *args),  # type: ignore[arg-type]
                                      limit + jobs.STUCK_SECONDS)
    except (TimeoutError, asyncio.TimeoutError):
        _replace_pool(desk, ran_on)
        return {"problems": [jobs._internal(RuntimeError(f"the job took longer than {limit:g} s"))]}
    except BrokenExecutor as exc:  # the next job gets a new pool (this one refuses every job from now on)
        if desk.renew is not None and desk.pool is ran_on:
            desk.pool = desk.renew()
        return {"problems": [jobs._internal(exc)]}


def _replace_pool(desk: Desk, stuck: object | None = None) -> None:
    """A new pool for the next jobs and the stuck one's processes ended: ProcessPoolExecutor cannot cancel a running
    job, so its processes (its private ``_processes``) are terminated; another job still running there gets the
    broken pool's problem. Nothing is done for a pool that cannot be renewed (a test's thread pool), nor when
    `stuck` (the pool the stuck job ran on; default the current one) was replaced already: a second job stuck on
    the same pool ended the new pool's processes, and with them the jobs other users had started there."""
    if desk.renew is None or (stuck is not None and desk.pool is not stuck):
        return
    old, desk.pool = desk.pool, desk.renew()
    for proc in list((getattr(old, "_processes", None) or {}).values()):
        proc.terminate()
    old.shutdown(wait=False, cancel_futures=True)  # type: ignore[attr-defined]


def create_app(desk: Desk):
    """The Starlette application of `desk`."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    env = _env()

    def html(name: str, ctx: dict, status: int = 200) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**ctx), status_code=status, headers=_headers())

    async def form_of(request: Request):
        length = request.headers.get("content-length") or "0"
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:  # BodyLimit caps a body without one
            return None
        return await request.form(max_files=1, max_fields=2000, max_part_size=MAX_BODY_BYTES)

    def lang_of(request: Request, form=None) -> str:
        return _lang((form or {}).get("lang") or request.query_params.get("lang"))

    async def show(text: str, stem: str, lang: str, note: str = "", saved: int | None = None) -> HTMLResponse:
        result = await _in_worker(desk, jobs.check, text, stem, lang)
        return html("desk.html.j2", page_context(text, stem, lang, result=result, note=note, desk=desk, saved=saved),
                    422 if "problems" in result else 200)

    async def home(request: Request):
        lang = lang_of(request)
        name = request.query_params.get("example") or ("seed_70b_h200" if "seed_70b_h200" in desk.examples
                                                       else next(iter(desk.examples), ""))
        if name and name not in desk.examples:
            return PlainTextResponse("unknown example", status_code=404)
        if name:
            from tco.scenario import MAX_SCENARIO_BYTES, read_limited

            text = read_limited(desk.examples[name], MAX_SCENARIO_BYTES, "scenario file").decode("utf-8-sig")
        else:
            from tco.scenario.starter import STARTER

            text, name = STARTER, "proposta"
        return await show(text, name, lang)

    async def recalc(request: Request):
        form = await form_of(request)
        if form is None:
            return PlainTextResponse("request too large", status_code=413)
        text = scenario_text(str(form.get("base") or ""), form)
        return await show(text, str(form.get("stem") or "proposta"), lang_of(request, form))

    async def upload(request: Request):
        form = await form_of(request)
        if form is None:
            return PlainTextResponse("request too large", status_code=413)
        lang = lang_of(request, form)
        up = form.get("scenario")
        if up is None or isinstance(up, str):
            return RedirectResponse(f"/?lang={lang}", status_code=303)
        raw = await up.read(MAX_BODY_BYTES + 1)
        if len(raw) > MAX_BODY_BYTES:
            return PlainTextResponse("file too large", status_code=413)
        stem = Path(up.filename or "proposta").stem
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            from tco.report.i18n import t

            return html("desk.html.j2", page_context("", stem, lang, desk=desk, note=t("web_not_utf8", lang)), 422)
        return await show(text, stem, lang)

    async def download(request: Request):
        form = await form_of(request)
        if form is None:
            return PlainTextResponse("request too large", status_code=413)
        kind = str(form.get("format") or "")
        if kind not in DOWNLOADS:
            return PlainTextResponse("unknown format", status_code=400)
        lang, stem = lang_of(request, form), jobs.safe_stem(str(form.get("stem") or "proposta"))
        text = scenario_text(str(form.get("base") or ""), form)
        got = await _run_files(desk, text, stem)
        if "problems" in got:
            return html("desk.html.j2", page_context(text, stem, lang, result=got, desk=desk), 422)
        if desk.data is not None:
            _save(desk, text, stem)
        name = f"{stem}.{kind}"
        return Response(got["files"][name], media_type=DOWNLOADS[kind], headers={
            **_headers(), "Content-Disposition": f'attachment; filename="{name}"'})

    async def proposals(request: Request):
        from tco.web import store

        lang = lang_of(request)
        rows = store.listed(desk.data) if desk.data is not None else []
        return html("proposals.html.j2", {"lang": lang, "t": _t(lang), "rows": rows, "saving": desk.data is not None,
                                          "statuses": store.STATUSES})

    async def proposal(request: Request):
        from tco.web import store

        row = store.get(desk.data, int(request.path_params["pid"])) if desk.data is not None else None
        if row is None:
            return PlainTextResponse("no such proposal", status_code=404)
        return await show(row["scenario"], row["stem"], lang_of(request), saved=row["id"])

    async def status(request: Request):
        from tco.web import store

        form = await form_of(request)
        if form is None or desk.data is None:
            return PlainTextResponse("not saved", status_code=404)
        st = str(form.get("status") or "")
        if st not in store.STATUSES or not store.set_status(desk.data, int(request.path_params["pid"]), st):
            return PlainTextResponse("unknown proposal or status", status_code=400)
        return RedirectResponse(f"/proposals?lang={lang_of(request, form)}", status_code=303)

    async def static(request: Request):
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", status_code=404)
        return Response((TEMPLATES / name).read_bytes(), media_type=STATIC[name], headers=_headers())

    routes = [Route("/", home), Route("/recalc", recalc, methods=["POST"]), Route("/upload", upload, methods=["POST"]),
              Route("/download", download, methods=["POST"]), Route("/proposals", proposals),
              Route("/proposals/{pid:int}", proposal),
              Route("/proposals/{pid:int}/status", status, methods=["POST"]), Route("/static/{name}", static)]
    return Starlette(routes=routes, middleware=[Middleware(guards.HostCheck, hosts=desk.hosts),
                                                Middleware(SameOrigin), Middleware(guards.BodyLimit, limit=MAX_BODY_BYTES)])


def _t(lang: str):
    from tco.report.i18n import t

    return lambda key, **kw: t(key, lang, **kw)


def _headers() -> dict:
    return {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store"}


async def _run_files(desk: Desk, text: str, stem: str) -> dict:
    """The files of `text` (jobs.files), from the last few runs when the same text and stem were run already."""
    key = hashlib.sha256(f"{stem}\n{text}".encode("utf-8")).hexdigest()
    if key in desk.runs:
        desk.runs.move_to_end(key)
        return desk.runs[key]
    got = await _in_worker(desk, jobs.files, text, stem)
    if "files" in got:
        desk.runs[key] = got
        while len(desk.runs) > CACHED_RUNS:
            desk.runs.popitem(last=False)
    return got


def _save(desk: Desk, text: str, stem: str) -> int:
    import tomllib

    from tco.web import store

    data = tomllib.loads(text)
    assert desk.data is not None
    return store.save(desk.data, text, number=str(F.get(data, "proposal.number") or ""),
                      client=str(F.get(data, "scenario.client") or ""), name=str(F.get(data, "scenario.name") or ""),
                      stem=stem)


class SameOrigin:
    """Refuse a POST that does not come from this site's own pages (CSRF): its Origin header must be this server's
    origin; without one, Sec-Fetch-Site must say 'same-origin'; with neither, it is refused."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            if not same_origin(headers, scope.get("scheme", "http")):
                from starlette.responses import PlainTextResponse

                await PlainTextResponse("cross-origin request refused", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def same_origin(headers: dict[str, str], scheme: str = "http") -> bool:
    """Whether a request's headers show it comes from a page of this server (`headers` by lower-case name)."""
    origin = headers.get("origin")
    host = headers.get("host", "")
    if origin is not None:
        return origin == f"{scheme}://{host}"
    return headers.get("sec-fetch-site") == "same-origin"
