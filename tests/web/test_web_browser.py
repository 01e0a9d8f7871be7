"""The sales desk in a real browser: `python -m tco serve` on a free localhost port, Debian's Chromium driven by
Playwright (its own browser download is not used), the form filled as a person would, the answer read from the
page, the files downloaded and checked as the other tests check them (PDF text, JSON bytes)."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tco
from tco.report.words import money
from tco.web import jobs

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed_70b_h200.toml"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]
"""Chromium's flags (the machine has no network and runs as root); Playwright adds an empty --user-data-dir."""
START_SECONDS = 90
PAGE_MS = 180_000
"""Longest wait for a page or a download [ms]: the full run behind a download takes seconds on a loaded machine."""

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (.ci/run installs it)")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The desk on 127.0.0.1, the seed as its example, saving proposals in a temporary folder."""
    tmp = tmp_path_factory.mktemp("desk")
    (tmp / "examples").mkdir()
    shutil.copy(SEED, tmp / "examples" / SEED.name)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tco", "serve", "--port", str(port), "--scenarios",
                             str(tmp / "examples"), "--data", str(tmp / "data"), "--workers", "1"],
                            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:  # bounded: the port answers, or the test fails
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"the server stopped: {proc.stdout.read() if proc.stdout else ''}")
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the server did not start")
    yield {"url": f"http://127.0.0.1:{port}/", "tmp": tmp}
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with playwright.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(tmp_path_factory.mktemp("profile")), executable_path=str(CHROMIUM),
                                                   headless=True, args=ARGS, accept_downloads=True,
                                                   viewport={"width": 1280, "height": 900})
        ctx.set_default_timeout(PAGE_MS)
        yield ctx
        ctx.close()


def _download(page, button: str, to: Path) -> Path:
    with page.expect_download(timeout=PAGE_MS) as d:
        page.click(button)
    d.value.save_as(to)
    return to


def _pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_the_seed_unedited_gives_tco_runs_files(server, browser, tmp_path):
    page = browser.new_page()
    page.goto(server["url"])
    assert "Dedicado" in page.locator("#ranked").inner_text()
    pdf = _download(page, "#dl-pdf", tmp_path / "page.pdf")
    toml = _download(page, "#dl-toml", tmp_path / "seed_70b_h200.toml")
    js = _download(page, "#dl-json", tmp_path / "page.json")
    assert toml.read_bytes() == SEED.read_bytes()  # nothing edited: the seed file itself
    cli = tmp_path / "cli"
    cli.mkdir()
    shutil.copy(toml, cli / toml.name)
    subprocess.run([sys.executable, "-m", "tco", "run", toml.name, "-o", "out", "--quiet"], cwd=cli, check=True,
                   timeout=600)
    assert (cli / "out" / "seed_70b_h200.json").read_bytes() == js.read_bytes()
    assert _pdf_text(cli / "out" / "seed_70b_h200.pdf") == _pdf_text(pdf)
    page.goto(server["url"] + "proposals")
    assert "NE-2026-0142" in page.locator("#saved").inner_text()
    page.close()


def test_users_and_term_changed_recalculate_to_the_librarys_tcos(server, browser, tmp_path):
    page = browser.new_page()
    page.goto(server["url"])
    page.fill("#f-inference_users_ceiling_users", "12000")
    page.fill("#f-scenario_horizon_months", "24")
    page.fill("#f-proposal_min_term_months", "")
    # 3-year commitments do not fit 24 months (the schema says so beside the row): the 1-year ones instead
    page.fill('input[name="opt.3.pricing"]', "savings_plan_ec2_1yr")
    page.fill('input[name="opt.4.pricing"]', "ri_1yr_convertible_no_upfront")
    page.click("#recalc")
    page.wait_for_selector("#answer")
    assert f"{jobs.EDIT_PATHS}" in page.locator("#mode").inner_text()  # the page says the paths are reduced
    shown = {r.get_attribute("data-option"): r.locator("td.tco").inner_text() for r in page.locator("#ranked tbody tr").all()}
    toml = _download(page, "#dl-toml", tmp_path / "seed_70b_h200.toml")
    inp = tco.load(toml)
    assert inp.scenario.scenario.horizon_months == 24 and inp.scenario.inference.users.ceiling_users == 12000
    res = tco.run(inp, analysis=False, plans=False)
    lib = {o.name: money(o.tco.deterministic, "pt-BR") for o in res.ranked()}  # feasible, within the constraints
    assert shown == lib
    page.close()


def test_bad_values_are_shown_beside_their_fields_and_nothing_is_saved(server, browser):
    page = browser.new_page()
    page.goto(server["url"])
    page.fill("#f-inference_tokens_per_second_per_user", "rápido")
    page.select_option("#f-training_method", "full")
    page.fill("#f-scenario_start", "2027/01")
    page.click("#recalc")
    page.wait_for_selector("#problems")
    speed = page.locator(".field", has=page.locator("#f-inference_tokens_per_second_per_user")).inner_text()
    start = page.locator(".field", has=page.locator("#f-scenario_start")).inner_text()
    assert "must be a number (got 'rápido')" in speed
    assert "start must be a month written 'YYYY-MM'" in start
    assert page.locator("#answer").count() == 0
    page.click("#dl-pdf")  # a download of a bad scenario gives the page with its problems, no file
    page.wait_for_selector("#problems")
    assert page.locator("#problems li").count() == 2
    page.close()


def test_the_page_lays_out_as_meant(server, browser, tmp_path):
    page = browser.new_page()
    page.goto(server["url"])
    shot = tmp_path / "desk.png"
    page.screenshot(path=str(shot), full_page=True)
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert width == 1280 and height > 3000  # the answer and nine sections of fields
    box = {sel: page.locator(sel).bounding_box() for sel in ("#answer", "#ranked", "#cumulative svg", "#desk",
                                                             "#g-client", "#g-terms", ".actions")}
    assert all(b is not None for b in box.values())
    assert box["#answer"]["y"] < box["#desk"]["y"]  # the answer first, the form under it
    assert box["#g-client"]["y"] < box["#g-terms"]["y"]
    assert box["#ranked"]["width"] > 800 and box["#cumulative svg"]["height"] > 150
    assert box["#answer"]["x"] + box["#answer"]["width"] <= 1280  # nothing wider than the window
    assert page.locator("[data-users='linear']").first.is_hidden()  # the seed's curve is logistic
    page.close()
