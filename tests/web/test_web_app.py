"""The desk's web application (tco.web.app) through Starlette's test client, its jobs in a real worker process."""

import re
import tomllib
from pathlib import Path

import pytest

from tco.web import app as webapp
from tco.web import jobs

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
SAME = {"Origin": "http://testserver"}


@pytest.fixture(scope="module")
def pool():
    p = jobs.pool(1)
    yield p
    p.shutdown()


@pytest.fixture()
def client(pool, tmp_path):
    from starlette.testclient import TestClient

    examples = tmp_path / "examples"
    examples.mkdir()
    (examples / "small.toml").write_bytes(SMALL.read_bytes())
    desk = webapp.Desk(webapp.examples_in(examples), tmp_path / "data", pool, ("testserver",))
    with TestClient(webapp.create_app(desk)) as c:
        yield c


def _form(html: str) -> dict:
    """The main form's fields as a browser would post them (inputs, selects, checked boxes, the hidden base)."""
    form = html[html.index('<form method="post" action="/recalc"'):]
    form = form[:form.index("</form>")]
    out = {}
    for m in re.finditer(r"<input ([^>]*)>", form):
        attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m.group(1)))
        if "name" not in attrs or (attrs.get("type") == "checkbox" and "checked" not in m.group(1)):
            continue
        out[attrs["name"]] = _unescape(attrs.get("value", ""))
    for m in re.finditer(r'<select [^>]*name="([^"]+)"[^>]*>(.*?)</select>', form, re.S):
        sel = re.search(r'<option value="([^"]*)"[^>]*selected', m.group(2))
        out[m.group(1)] = _unescape(sel.group(1)) if sel else ""
    for m in re.finditer(r'<textarea [^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', form, re.S):
        out[m.group(1)] = _unescape(m.group(2))
    return out


def _unescape(s: str) -> str:
    import html

    return html.unescape(s)


def test_home_shows_the_example_and_its_answer(client):
    r = client.get("/")
    assert r.status_code == 200
    assert 'value="Assistente interno — Llama 3.1 8B"' in r.text or "Llama 3.1 8B" in r.text
    assert 'id="ranked"' in r.text and 'id="cumulative"' in r.text
    assert r.headers["content-security-policy"].startswith("default-src 'none'")
    assert client.get("/?example=nope").status_code == 404
    assert client.get("/?lang=en").text.count("Recalculate") == 1


def test_a_bad_value_is_shown_beside_its_field_and_nothing_is_saved(client, tmp_path):
    form = _form(client.get("/").text) | {"inference.tokens_per_second_per_user": "fast"}
    r = client.post("/recalc", data=form, headers=SAME)
    assert r.status_code == 422
    start = r.text.index('for="f-inference_tokens_per_second_per_user"')
    field = r.text[start:r.text.index('<div class="field', start)]  # the field's own block, up to the next field
    assert "[inference.tokens_per_second_per_user] must be a number (got &#39;fast&#39;)" in field
    assert re.search(r"<code>small\.toml:\d+: \[inference\.tokens_per_second_per_user\] must be a number", r.text)
    assert 'id="answer"' not in r.text
    d = client.post("/download", data=form | {"format": "pdf"}, headers=SAME)
    assert d.status_code == 422 and "application/pdf" not in d.headers["content-type"]
    assert not (tmp_path / "data").exists()


def test_recalc_answers_the_edit(client):
    form = _form(client.get("/").text) | {"inference.users.end_users": "3000"}
    r = client.post("/recalc", data=form, headers=SAME)
    assert r.status_code == 200
    assert 'name="inference.users.end_users" value="3000"' in r.text
    base = _unescape(re.search(r'<textarea name="base" hidden>(.*?)</textarea>', r.text, re.S).group(1))
    assert tomllib.loads(base)["inference"]["users"]["end_users"] == 3000


def test_scenario_text_is_escaped_everywhere(client):
    form = _form(client.get("/").text) | {"scenario.client": '<script>alert("x")</script>'}
    r = client.post("/recalc", data=form, headers=SAME)
    assert "<script>alert" not in r.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in r.text


def test_posts_from_another_origin_or_host_are_refused(client):
    form = _form(client.get("/").text)
    assert client.post("/recalc", data=form).status_code == 403  # no Origin, no Sec-Fetch-Site
    assert client.post("/recalc", data=form, headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/recalc", data=form, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert client.post("/recalc", data=form, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400  # DNS rebinding


def test_uploads_are_capped_and_parsed_with_the_schema(client):
    big = b"# " + b"x" * webapp.MAX_BODY_BYTES
    r = client.post("/upload", files={"scenario": ("big.toml", big)}, headers=SAME)
    assert r.status_code == 413
    r = client.post("/upload", files={"scenario": ("../../mine.toml", b"[scenario]\nname = 1\n")}, headers=SAME)
    assert r.status_code == 422
    assert "<code>mine.toml:" in r.text  # the stem only, never the path sent
    r = client.post("/upload", files={"scenario": ("x.toml", b"\xff\xfe")}, headers=SAME)
    assert r.status_code == 422 and "UTF-8" in r.text
    r = client.post("/upload", files={"scenario": ("ok.toml", SMALL.read_bytes())}, headers=SAME)
    assert r.status_code == 200 and 'name="stem" value="ok"' in r.text


@pytest.mark.slow
def test_download_gives_the_files_and_saves_the_proposal(client, tmp_path):
    form = _form(client.get("/").text)
    toml = client.post("/download", data=form | {"format": "toml"}, headers=SAME)
    assert toml.status_code == 200
    assert toml.headers["content-disposition"] == 'attachment; filename="small.toml"'
    assert toml.content == SMALL.read_bytes()  # nothing edited: the file as it came
    js = client.post("/download", data=form | {"format": "json"}, headers=SAME)
    assert js.json()["scenario"]["file"] == "small.toml"
    assert client.post("/download", data=form | {"format": "exe"}, headers=SAME).status_code == 400
    listed = client.get("/proposals")
    assert "Llama 3.1 8B" in listed.text
    pid = int(re.search(r'href="/proposals/(\d+)\?', listed.text).group(1))
    from tco.web import store

    assert store.get(tmp_path / "data", pid)["scenario"].encode("utf-8") == toml.content  # kept byte for byte
    again = client.get(f"/proposals/{pid}")
    assert again.status_code == 200 and 'id="ranked"' in again.text
    st = client.post(f"/proposals/{pid}/status", data={"status": "signed"}, headers=SAME, follow_redirects=False)
    assert st.status_code == 303
    assert 'value="signed" selected' in client.get("/proposals").text
    assert client.post(f"/proposals/{pid}/status", data={"status": "lost"}, headers=SAME).status_code == 400
    assert client.get("/proposals/999").status_code == 404


def test_static_files_by_name_only(client):
    assert client.get("/static/desk.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/desk.html.j2").status_code == 404
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_same_origin_rule():
    assert webapp.same_origin({"origin": "http://127.0.0.1:8000", "host": "127.0.0.1:8000"})
    assert not webapp.same_origin({"origin": "http://localhost:8000", "host": "127.0.0.1:8000"})
    assert not webapp.same_origin({"origin": "null", "host": "127.0.0.1:8000"})
    assert webapp.same_origin({"sec-fetch-site": "same-origin", "host": "x"})
    assert not webapp.same_origin({"host": "x"})


def test_the_templates_ship_with_the_package():
    """`pip install .` copies the page's templates, CSS and script (package data)."""
    from fnmatch import fnmatch

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tco"]
    for p in webapp.TEMPLATES.iterdir():
        assert any(fnmatch(f"web/templates/{p.name}", g) for g in globs), p.name
    assert set(webapp.STATIC) <= {p.name for p in webapp.TEMPLATES.iterdir()}


def test_a_stuck_worker_pool_is_replaced_and_its_processes_ended():
    """Past JOB_SECONDS + STUCK_SECONDS the server stops waiting: the next jobs get a new pool, and the old pool's
    processes are terminated (a running job cannot be cancelled) and it is shut down without waiting."""
    class Proc:
        def __init__(self):
            self.ended = False

        def terminate(self):
            self.ended = True

    class Pool:
        def __init__(self):
            self._processes = {1: Proc(), 2: Proc()}
            self.shut = None

        def shutdown(self, wait=True, cancel_futures=False):
            self.shut = (wait, cancel_futures)

    old, new = Pool(), Pool()
    desk = webapp.Desk({}, None, old, ("testserver",), renew=lambda: new)
    webapp._replace_pool(desk)
    assert desk.pool is new and old.shut == (False, True)
    assert all(p.ended for p in old._processes.values()) and not any(p.ended for p in new._processes.values())
    kept = webapp.Desk({}, None, old, ("testserver",))  # no renew (a test's thread pool): left alone
    webapp._replace_pool(kept)
    assert kept.pool is old
