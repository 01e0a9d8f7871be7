"""Regression tests for the red team of 2026-12-02 on the surfaces added since the 2026-12 review
(docs/robustness-2026-12b.md): owned servers, [proposal] contract/constraints/brand, sweep, diff, render, the
config file and the sales desk.

Each test is named after the finding it pins (B = brand, W = web desk, S = sweep, D = diff/render, C = config,
K = constraints) and fails on the code the red team attacked (main at a9f0ce7). They call the library (api.load,
the modules' own functions) or ``tco.cli.main`` in-process; none starts a process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tco import api
from tco.cli import main
from tco.errors import InputError

from test_robustness import ROOT, SMALL, SMALL_TEXT, sub, write  # the 2026-11 file's helpers

THEME = (ROOT / "tco" / "templates" / "theme.toml").read_text(encoding="utf-8")


def _problems(exc: pytest.ExceptionInfo) -> list[str]:
    return [str(p) for p in exc.value.problems]


# ---------------------------------------------------------------------------------------------
# B1: a brand theme.toml of the wrong shape is a located input problem, not an AttributeError or TypeError


def _branded(tmp_path: Path, theme: str) -> Path:
    (tmp_path / "brand").mkdir()
    (tmp_path / "brand" / "theme.toml").write_text(theme, encoding="utf-8")
    return write(tmp_path, SMALL_TEXT + '\n[proposal]\ndate = "2027-02-01"\nbrand = "brand"\n')


@pytest.mark.parametrize("theme, key, says", [
    ('provider = "x"\n', "[theme]", "[provider] must be a table, got 'x'"),          # AttributeError in load_theme
    ('colors = "x"\n[provider]\nname = "A"\n', "[theme]", "[colors] must be a table"),  # AttributeError
    ('contact = [1, 2]\n[provider]\nname = "A"\n', "[theme]", "[contact] must be a table"),  # crashed the PDF
    ('[provider]\nname = 5\n', "[theme]", "provider.name = '5' must be text, in quotes"),  # TypeError in the PDF
    ('[provider]\nname = "A"\nexample = "yes"\n', "[theme]", "provider.example = 'yes' must be true or false"),
    ('[provider]\nname = "A"\n[contact]\nemail = { a = 1 }\n', "[theme]", "contact.email"),
])
def test_b1_a_brand_theme_of_the_wrong_shape_is_located(tmp_path, theme, key, says):
    from tco.report import brand

    path = _branded(tmp_path, theme)
    inp = api.load(path)
    found = [str(p) for p in brand.problems(inp.scenario, inp.path, inp.key_lines)]
    assert len(found) == 1 and found[0].startswith(str(tmp_path / "brand" / "theme.toml")), found
    assert key in found[0] and says in found[0], found


def test_b1_the_package_theme_and_a_copy_of_it_still_load(tmp_path):
    from tco.report import brand

    assert brand.load_theme()["provider"]["example"] is True
    inp = api.load(_branded(tmp_path, THEME))
    (tmp_path / "brand" / "logo.svg").write_bytes((ROOT / "tco" / "templates" / "logo.svg").read_bytes())
    assert brand.problems(inp.scenario, inp.path, inp.key_lines) == []


# ---------------------------------------------------------------------------------------------
# W1–W3: the sales desk


def test_w1_the_desk_refuses_a_scenario_naming_a_brand_folder(tmp_path):
    """`[proposal] brand` is a path on the server: an uploaded scenario could read any folder's theme.toml and
    logo into the PDF ("../../x", "/srv/other-seller"); the desk reads no file a scenario names."""
    from tco.web import jobs

    text = SMALL_TEXT + '\n[proposal]\nbrand = "/etc"\n'
    got = jobs.check(text, "x")
    assert [p["key"] for p in got["problems"]] == ["proposal.brand"]
    assert "reads no other file named in a scenario" in got["problems"][0]["message"]


@pytest.fixture()
def desk_client(tmp_path):
    from starlette.testclient import TestClient

    from tco.web import app as webapp
    from tco.web import store

    store.save(tmp_path / "data", "x", number="1", client="c", name="n", stem="s")
    desk = webapp.Desk({}, tmp_path / "data", None, ("testserver",))
    with TestClient(webapp.create_app(desk), raise_server_exceptions=False) as c:
        yield c


SAME = {"Origin": "http://testserver"}


def test_w2_a_chunked_body_past_the_cap_is_refused_as_it_arrives():
    """Without a Content-Length (a chunked body) the size check was skipped: the form parser spooled an upload of
    any size to disk (50 MB in the attack) before the handler saw it was too large. BodyLimit counts the body as
    the app reads it and answers 413 once it passes the cap, reading no further."""
    import asyncio

    from tco.web.app import MAX_BODY_BYTES
    from tco.web.guards import BodyLimit

    chunk, offered, read, sent = 1 << 20, 50, [], []

    async def receive():
        read.append(1)
        return {"type": "http.request", "body": b"#" * chunk, "more_body": len(read) < offered}

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):  # reads the whole body, as the form parser does
        while (await receive()).get("more_body"):
            pass
        raise AssertionError("the app read past the cap")

    asyncio.run(BodyLimit(app, MAX_BODY_BYTES)({"type": "http", "method": "POST", "headers": []}, receive, send))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 413
    assert len(read) == MAX_BODY_BYTES // chunk + 1  # 2 of the 50 chunks offered


@pytest.mark.parametrize("length", ["abc", "-1", "1e3"])
def test_w2_a_content_length_that_is_not_a_number_is_refused(desk_client, length):
    r = desk_client.post("/recalc", content=b"base=x", headers={**SAME, "Content-Length": length,
                                                                 "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413  # was 500 (int('abc')) or the form read for -1


def test_w3_a_proposal_id_past_sqlites_range_is_no_proposal(desk_client):
    huge = "99999999999999999999999"
    assert desk_client.get(f"/proposals/{huge}").status_code == 404  # was 500: OverflowError in sqlite3
    r = desk_client.post(f"/proposals/{huge}/status", data={"status": "sent"}, headers=SAME)
    assert r.status_code == 400


# ---------------------------------------------------------------------------------------------
# S1–S5: sweep


def _sweep(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "sw.toml"
    p.write_text(f'[sweep]\nbase = "{SMALL.as_posix()}"\n' + body, encoding="utf-8")
    return p


@pytest.mark.parametrize("rng", [
    "{ start = 1.0, stop = 1e12, step = 1.0 }",          # listed 1e12 values before counting: MemoryError
    "{ start = -1e308, stop = 1e308, step = 1e-300 }",   # (stop - start) / step = inf: OverflowError
    "{ start = -1e308, stop = 1e308, step = 1e308 }",    # stop - start overflows: OverflowError
])
def test_s1_s2_a_range_is_counted_before_it_is_listed(tmp_path, rng):
    from tco.sweep import spec

    with pytest.raises(InputError) as exc:
        spec.load(_sweep(tmp_path, f'[[axes]]\nkey = "fx.usdbrl"\nrange = {rng}\n'))
    (p,) = _problems(exc)
    assert ":5: [axes[0].range]" in p and "makes more than 100,000 values" in p


def test_s1_a_range_at_the_limit_still_loads(tmp_path):
    from tco.sweep import cases, spec

    sweep, _, _ = spec.load(_sweep(tmp_path, '[[axes]]\nkey = "fx.usdbrl"\nrange = { start = 0, stop = 99998, step = 1 }\n'))
    assert cases.count(sweep) == 99_999


@pytest.mark.parametrize("dist", ['{ kind = "uniform", low = -1e308, high = 1e308 }',
                                  '{ kind = "normal", mean = 0, sd = 1e308 }'])
def test_s3_an_integer_axis_drawing_infinity_is_located(tmp_path, dist):
    """int(round(inf)) raised OverflowError while the cases were listed."""
    from tco.sweep import plan

    with pytest.raises(InputError) as exc:
        plan.prepare(_sweep(tmp_path, f'[[axes]]\nkey = "scenario.horizon_months"\ndistribution = {dist}\n'))
    (p,) = _problems(exc)
    assert "[axes[0].distribution] scenario.horizon_months = " in p and "inf" in p


def test_s3_a_nan_draw_is_tried_not_skipped_by_min_and_max(tmp_path):
    """A triangular axis whose span overflows draws nan; min() and max() skip it, so it reached the cases."""
    from tco.sweep import plan

    body = '[[axes]]\nkey = "fx.usdbrl"\ndistribution = { kind = "triangular", low = -1e308, mode = 1e308, high = 1e308 }\n'
    with pytest.raises(InputError) as exc:
        plan.prepare(_sweep(tmp_path, body + "samples = 5\n"))
    assert "fx.usdbrl = nan" in _problems(exc)[0] or "fx.usdbrl = -inf" in _problems(exc)[0]


def test_s4_the_sweep_csv_writes_formula_looking_text_as_text():
    import pandas as pd

    from tco.sweep.driver import csv_safe

    df = pd.DataFrame({"case": [0, 1], "scenario.client": ['=HYPERLINK("http://x","y")', "@SUM(1)"],
                       "options[+cmd|x].pricing": ["-1+2", "on_demand"], "tco_brl": [-5.0, 7.0]})
    text = csv_safe(df).to_csv(index=False)
    assert text.splitlines() == ["case,scenario.client,options[+cmd|x].pricing,tco_brl",
                                 '0,"\'=HYPERLINK(""http://x"",""y"")",\'-1+2,-5.0', "1,'@SUM(1),on_demand,7.0"]


@pytest.fixture(scope="module")
def small_table():
    """A real sweep table of two cases of the small scenario (its rows, columns, axes and cases)."""
    from tco.sweep import plan
    from tco.sweep.case import row_columns, run_case
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        work = plan.prepare(_sweep(Path(tmp), '[[axes]]\nkey = "fx.usdbrl"\nvalues = [5.0, 6.0]\n'))
    rows = [r for i, values in enumerate(work.cases) for r in run_case(work.base, i, values)]
    return work, rows, row_columns(work.base)


def _mutated(small_table, fn):
    import pandas as pd

    work, rows, cols = small_table
    df = fn(pd.DataFrame(rows, columns=cols))
    return df, cols, work


@pytest.mark.parametrize("name, fn, says", [
    ("no case column", lambda d: d.drop(columns=["case"]), "its columns are not the ones this sweep writes"),
    ("an extra column", lambda d: d.assign(evil="=1"), "its columns are not the ones this sweep writes"),
    ("case 999", lambda d: d.assign(case=d["case"] + 999), "case numbers are not this sweep's"),  # "4 of 2 cases"
    ("fractional cases", lambda d: d.assign(case=d["case"] + 0.5), "case numbers are not this sweep's"),
    ("text cases", lambda d: d.assign(case=d["case"].astype(str) + "x"), "case numbers are not this sweep's"),
    ("rows twice", lambda d: __import__("pandas").concat([d, d]), "appears twice"),  # TypeError in the map
    ("other axis values", lambda d: d.assign(**{"fx.usdbrl": 9.0}), "'fx.usdbrl' values are not"),
    ("text amounts", lambda d: d.assign(tco_brl="abc"), "'tco_brl' holds text"),  # ValueError in the map
])
def test_s5_a_tampered_resume_table_is_refused(small_table, tmp_path, name, fn, says):
    from tco.sweep import table

    work, rows, cols = small_table
    df, cols, work = _mutated(small_table, fn)
    p = tmp_path / "t.parquet"
    table.write_parquet(df, p, work.sha256, len(work.cases))  # the hash copied with the file, as a tamperer would
    with pytest.raises(InputError) as exc:
        table.read_done(p, work.sha256, len(work.cases), cols, work.base.columns, work.cases)
    assert says in _problems(exc)[0], name


def test_s5_an_untouched_or_partial_table_resumes(small_table, tmp_path):
    import pandas as pd

    from tco.sweep import table

    work, rows, cols = small_table
    p = tmp_path / "t.parquet"
    for keep in (rows, [r for r in rows if r["case"] == 1]):
        table.write_parquet(table.frame(keep, cols), p, work.sha256, len(work.cases))
        got = table.read_done(p, work.sha256, len(work.cases), cols, work.base.columns, work.cases)
        assert len(got) == len(keep)
    assert pd.DataFrame(rows)["option"].nunique() == 4


# ---------------------------------------------------------------------------------------------
# D1: diff and render read a hostile or foreign JSON as bad input


GOOD = {"tool": {"name": "tco", "version": "0.1.0"}, "scenario": {"name": "s"}, "assumptions": {},
        "ranking": ["A"], "cheapest": "A",
        "options": [{"name": "A", "tco_brl": {"deterministic": 1.0, "p5": None}, "npv_brl": {"deterministic": 1.0},
                     "lines_brl": {"compute": 1.0}, "inference_offer": {"offer": "x"}}]}


def _doc(**change) -> dict:
    doc = json.loads(json.dumps(GOOD))
    for path, value in change.items():
        *head, last = path.split("__")
        obj = doc
        for k in head:
            obj = obj[int(k)] if isinstance(obj, list) else obj[k]
        if value is KeyError:
            del obj[last]
        else:
            obj[last] = value
    return doc


@pytest.mark.parametrize("doc, key", [
    (_doc(tool="x"), "tool"),                                       # AttributeError in diff
    (_doc(scenario="x"), "scenario"),                               # AttributeError in render and diff
    (_doc(assumptions=[]), "assumptions"),
    (_doc(ranking=[[1]]), "ranking"),                               # TypeError: unhashable
    (_doc(cheapest=[1]), "cheapest"),
    (_doc(options=[1, "a"]), "options[0]"),                         # TypeError / AttributeError
    (_doc(options__0__name=KeyError), "options[0]"),                # KeyError: 'name'
    (_doc(options__0__name=[1]), "options[0]"),
    (_doc(options__0__tco_brl=KeyError), "options[0].tco_brl"),      # KeyError: 'tco_brl'
    (_doc(options__0__tco_brl={"deterministic": "abc"}), "options[0].tco_brl"),  # ValueError in the format
    (_doc(options__0__npv_brl=None), "options[0].npv_brl"),
    (_doc(options__0__lines_brl={"x": "y"}), "options[0].lines_brl"),  # TypeError in the subtraction
    (_doc(options__0__inference_offer=[1]), "options[0].inference_offer"),
])
def test_d1_a_result_of_the_wrong_shape_is_located(tmp_path, capsys, doc, key):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["render", str(p)]) == 2
    assert main(["diff", str(p), str(p)]) == 2
    err = capsys.readouterr().err
    assert f"r.json: [{key}] not a JSON result of tco run" in err and "Traceback" not in err


@pytest.mark.parametrize("raw, says", [
    ('{"tool": {}, "options": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),  # RecursionError
    (json.dumps(GOOD).replace("\"deterministic\": 1.0", "\"deterministic\": NaN", 1), "NaN is not a number tco writes"),
    (json.dumps(GOOD).replace("\"deterministic\": 1.0", "\"deterministic\": Infinity", 1), "Infinity is not a number tco writes"),
])
def test_d1_a_deep_or_non_finite_json_is_refused(tmp_path, capsys, raw, says):
    p = tmp_path / "r.json"
    p.write_text(raw, encoding="utf-8")
    assert main(["render", str(p)]) == 2
    assert says in capsys.readouterr().err


def test_d1_a_sound_result_still_renders_and_diffs(tmp_path, capsys):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(GOOD), encoding="utf-8")
    assert main(["render", str(p), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"][0]["tco_brl"] == 1.0
    assert main(["diff", str(p), str(p), "--format", "json"]) == 0


# ---------------------------------------------------------------------------------------------
# C1: a config file that is not UTF-8


def test_c1_a_config_file_that_is_not_utf8_is_bad_input(tmp_path, monkeypatch, capsys):
    cfg = tmp_path / "config.toml"
    cfg.write_bytes(b'locale = "\xff"\n')
    monkeypatch.setenv("TCO_CONFIG", str(cfg))
    assert main(["validate", str(SMALL)]) == 2  # was a UnicodeDecodeError traceback, exit 1
    assert f"{cfg}: the config file is not UTF-8 text" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# K1: [proposal.constraints] providers must be the catalog's


def test_k1_a_misspelt_provider_is_located_not_silently_left_out(tmp_path):
    """providers = ["aws", "gpc"] validated, ran and recommended an AWS option: every GCP option was left out of the
    ranking by a typo the seller never saw."""
    text = SMALL_TEXT + '\n[proposal]\ndate = "2027-02-01"\n\n[proposal.constraints]\nproviders = ["aws", "gpc", "AWS"]\n'
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        api.check(path)
    line = text.splitlines().index('providers = ["aws", "gpc", "AWS"]') + 1
    assert _problems(exc) == [
        f"{path}:{line}: [proposal.constraints.providers[1]] unknown provider 'gpc'; did you mean 'gcp' or 'gcore'?",
        f"{path}:{line}: [proposal.constraints.providers[2]] unknown provider 'AWS'; valid names include 'aws'"]


def test_k1_the_plan_search_checks_them_too(tmp_path):
    from tco import plan

    text = SMALL_TEXT + '\n[proposal.constraints]\nproviders = ["gpc"]\n'
    inp = api.load(write(tmp_path, text))
    problems = plan.check(inp.scenario, inp.catalog, inp.path, inp.key_lines)
    assert [p.key for p in problems] == ["proposal.constraints.providers[0]"]


def test_k1_the_seed_constraints_still_pass():
    inp = api.load(ROOT / "scenarios" / "seed_70b_h200.toml")
    from tco.resolve import provider_problems

    assert inp.scenario.proposal.constraints.data_in_brazil == "both"
    assert provider_problems(inp.scenario, inp.catalog, inp.path, lambda *k: None) == []


def test_d2_the_markdown_diff_writes_names_as_text_not_html():
    """`diff --format markdown` is pasted into pull requests and wikis: an option named with markup came out as
    raw HTML (an <img onerror> where the Markdown renderer allows HTML), and a backtick closed the code span."""
    from tco.diff import render

    name = '<img src=x onerror=alert(1)> & `x`'
    d = {"a": "a`b.json", "b": "b.json", "inputs": [{"key": f"options[{name}].pricing", "a": "<b>", "b": None,
                                                      "unit": ""}],
         "options": [{"name": name, "tco_a": 1.0, "tco_b": 2.0, "delta": 1.0, "delta_share": 1.0, "rank_a": 1,
                      "rank_b": 1, "lines": []}],
         "ranking": {"a": [name], "b": [name], "changed": False}, "cheapest": {"a": name, "b": name, "changed": False}}
    md = render.markdown(d)
    assert "<" not in md and ">" not in md.replace("→", "")
    assert "| &lt;img src=x onerror=alert(1)&gt; &amp; 'x' |" in md
    assert "`a'b.json`" in md


# ---------------------------------------------------------------------------------------------
# O1: `run -o -` with other formats


def test_o1_run_to_stdout_refuses_formats_it_cannot_print(capsys):
    """`run -o - --formats xlsx` printed the JSON, exit 0, and wrote no workbook: the format asked for was dropped
    in silence."""
    assert main(["run", str(SMALL), "-o", "-", "--formats", "xlsx,pdf", "--quiet"]) == 2
    got = capsys.readouterr()
    assert got.out == "" and "-o - prints the JSON only; --formats xlsx,pdf needs an output folder" in got.err


@pytest.mark.slow
@pytest.mark.parametrize("address", ["tls://127.0.0.1:1", "ucx://127.0.0.1:1"])
def test_s6_a_scheduler_address_of_another_protocol_is_bad_input(tmp_path, address):
    """tls:// without certificates raised TypeError in dask's connector (a traceback, exit 1), as did ucx:// without
    UCX; a subprocess, because the half-made Client's finaliser waits 20 s at the interpreter's exit."""
    import subprocess
    import sys

    sw = _sweep(tmp_path, '[[axes]]\nkey = "fx.usdbrl"\nvalues = [5.0]\n')
    r = subprocess.run([sys.executable, "-m", "tco", "sweep", str(sw), "-o", str(tmp_path / "out"), "--scheduler",
                        address], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"--scheduler: {address}: no Dask scheduler answered" in r.stderr
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# P1: [options.owned] loan terms under payment = "cash"


OWNED = (ROOT / "scenarios" / "owned_70b_h200.toml").read_text(encoding="utf-8")


def test_p1_loan_terms_with_a_cash_payment_are_located(tmp_path):
    """payment = "cash" with financing_months and grace_months validated and costed a cash purchase: the terms the
    seller typed for a loan were dropped in silence."""
    from tco.resolve import resolve

    text = sub(OWNED, 'payment = "cash"\ncross_connects = 2', 'payment = "cash"\nfinancing_months = 36\ngrace_months = 6')
    inp = api.load(write(tmp_path, text))
    with pytest.raises(InputError) as exc:
        resolve(inp.scenario, inp.catalog, inp.path, inp.key_lines)
    line = text.splitlines().index("financing_months = 36") + 1
    assert _problems(exc) == [f"{inp.path}:{line}: [options[1].owned.financing_months] financing_months, grace_months "
                              "are terms of a loan, but payment = 'cash': name a financing line (payment = "
                              "'bndes_finame', 'bank_capex') or remove them"]


def test_p1_the_owned_example_still_resolves():
    from tco.resolve import resolve

    inp = api.load(ROOT / "scenarios" / "owned_70b_h200.toml")
    _, opts = resolve(inp.scenario, inp.catalog, inp.path, inp.key_lines)
    assert sum(o.owned is not None for o in opts) == 2


# ---------------------------------------------------------------------------------------------
# M1: a mixture-of-experts row routing more experts than it has


MODELS_HEAD = ("model,family,params_b,active_params_b,layers,hidden_size,attention_heads,kv_heads,head_dim,experts,"
               "experts_per_token,attention_head_dim,max_context_tokens,source,as_of\n")


@pytest.mark.parametrize("experts, per_token", [("8", "16"), ("8", "0"), ("8", ""), ("", "2")])
def test_m1_a_moe_row_routing_outside_its_experts_is_located(tmp_path, experts, per_token):
    """experts_per_token = 16 of 8 experts (or a router with no experts) loaded and was sized."""
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "models.csv").write_text(
        MODELS_HEAD + f"x-moe,x,8,2,32,4096,32,8,128,{experts},{per_token},,32768,src,2026-01-01\n", encoding="utf-8")
    text = sub(sub(SMALL_TEXT, "[scenario]\n", '[scenario]\ncatalog_dir = "cat"\n'), 'id = "llama-3.1-8b"', 'id = "x-moe"')
    with pytest.raises(InputError) as exc:
        api.load(write(tmp_path, text))
    (p,) = _problems(exc)
    assert p.startswith(f"{tmp_path / 'cat' / 'models.csv'}:2: [experts_per_token] a mixture of experts routes"), p


# ---------------------------------------------------------------------------------------------
# K2: SLA credit tiers that contradict each other


CREDITS = '\n[proposal]\ndate = "2027-02-01"\n' + "".join(
    f"\n[[proposal.contract.sla_credits]]\nbelow_share = {b}\ncredit_share = {c}\n" for b, c in (("{b1}", "{c1}"),
                                                                                                ("{b2}", "{c2}")))


@pytest.mark.parametrize("b1, c1, b2, c2, ok", [
    (0.999, 0.10, 0.99, 0.25, True),    # the seed's tiers
    (0.99, 0.25, 0.999, 0.10, True),    # the same, written in the other order
    (0.99, 0.10, 0.99, 0.50, False),    # the same availability with two credits: which applies?
    (0.999, 0.25, 0.99, 0.10, False),   # a worse month credited less than a better one
])
def test_k2_sla_credit_tiers_must_be_distinct_and_grow_as_availability_drops(tmp_path, b1, c1, b2, c2, ok):
    text = SMALL_TEXT + CREDITS.format(b1=b1, c1=c1, b2=b2, c2=c2)
    if ok:
        assert len(api.load(write(tmp_path, text)).scenario.proposal.contract.sla_credits) == 2
        return
    with pytest.raises(InputError) as exc:
        api.load(write(tmp_path, text))
    (p,) = _problems(exc)
    assert "[proposal.contract] sla_credits: below " in p and "each tier needs its own below_share" in p


# ---------------------------------------------------------------------------------------------
# V1: `validate --json` on a bad scenario


def test_v1_validate_json_prints_the_problems_on_stdout(tmp_path, capsys):
    """`validate --json` ("print the outcome ... as JSON") printed nothing on stdout for a bad scenario: a tool that
    parses stdout failed on an empty string instead of reading the problems."""
    path = write(tmp_path, sub(SMALL_TEXT, "horizon_months = 24", "horizon_months = 0"))
    assert main(["validate", str(path), "--json"]) == 2
    got = capsys.readouterr()
    doc = json.loads(got.out)
    line = SMALL_TEXT.splitlines().index("horizon_months = 24") + 1
    assert doc["ok"] is False and doc["file"] == str(path)
    assert [(p["key"], p["line"], p["file"]) for p in doc["problems"]] == [("scenario.horizon_months", line, str(path))]
    assert "scenario.horizon_months" in got.err  # the terminal message as before


# ---------------------------------------------------------------------------------------------
# L1: two options with the same label


def test_l1_two_options_with_labels_alike_are_located(tmp_path):
    """The proposal shows an option's label in place of its name: two options labelled alike (names unique)
    validated and read as one option twice in the client's comparison table."""
    text = sub(SMALL_TEXT, 'label = "AWS São Paulo g6, reservado 1 ano"', 'label = "aws são paulo G6  sob demanda"')
    with pytest.raises(InputError) as exc:
        api.load(write(tmp_path, text))
    line = text.splitlines().index('label = "aws são paulo G6  sob demanda"') + 1
    assert _problems(exc) == [f"{tmp_path / 's.toml'}:{line}: [options[2].label] option labels must be unique: "
                              "'aws são paulo G6  sob demanda' reads as the label of options[1] ('AWS São Paulo g6 "
                              "sob demanda'), and the proposal shows labels"]


def test_s7_no_max_cases_lets_a_sweep_list_a_billion_cases(tmp_path):
    """`--max-cases 1000000000` on a 1000 × 1000 × 1000 grid listed the cases until a MemoryError traceback (3 GB
    in 15 s under a memory limit; the machine's swap without one)."""
    from tco.sweep import plan

    axes = "".join(f'[[axes]]\nkey = "{k}"\nrange = {{ start = 1, stop = 1000, step = 1 }}\n'
                   for k in ("fx.usdbrl", "inference.storage_gb", "inference.egress_kb_per_request"))
    with pytest.raises(InputError) as exc:
        plan.prepare(_sweep(tmp_path, axes), max_cases=1_000_000_000)
    (p,) = _problems(exc)
    assert "the sweep makes 1,000,000,000 cases, more than 1,000,000; check the ranges and samples, or split it" in p


def test_w4_the_desk_on_ipv6_loopback_answers_and_still_refuses_other_hosts():
    """`tco serve --host ::1`: every request was 400, Starlette's TrustedHostMiddleware reading '[::1]:8000' as
    '['."""
    from starlette.testclient import TestClient

    from tco.web import app as webapp
    from tco.web.serve import hosts_for

    desk = webapp.Desk({}, None, None, hosts_for("::1", 8000))
    with TestClient(webapp.create_app(desk), base_url="http://[::1]:8000") as c:
        assert c.get("/static/desk.css").status_code == 200
        assert c.get("/static/desk.css", headers={"Host": "evil.example:8000"}).status_code == 400
        assert c.get("/static/desk.css", headers={"Host": "[::2]:8000"}).status_code == 400


# ---------------------------------------------------------------------------------------------
# F1: a benchmark row's framework


BENCH_HEAD = ("id,model,gpu,gpu_count,tp,nodes,precision,kv_precision,input_tokens,output_tokens,concurrency,"
              "max_batch,output_tokens_per_second,itl_ms,ttft_ms,exclude,source,framework\n")


def test_f1_a_benchmark_framework_outside_the_known_ones_is_located(tmp_path, capsys):
    """A row's framework went into the calibration's [fit] frameworks as written, joined by commas: "trtllm,vllm" on
    TensorRT-LLM runs made the file cover vllm, so `[inference] framework = "vllm"` ran on a calibration of
    another framework; "vlm" covered nothing and the scenario's error came later, far from the typo."""
    rows = ['A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src,"trtllm,vllm"',
            "B,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,2048,128,,2048,3556.73,,,,src,VLM",
            "C,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,27000,,,,src, TRTLLM "]
    csv_path = tmp_path / "bench.csv"
    csv_path.write_text(BENCH_HEAD + "\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "cal.toml"
    assert main(["calibrate", str(csv_path), "-o", str(out), "--no-loo"]) == 2
    err = capsys.readouterr().err
    assert f"{csv_path}:2: [framework] 'trtllm,vllm': use one of trtllm, vllm, sglang (or leave it empty)" in err
    assert f"{csv_path}:3: [framework] 'vlm'" in err and ":4:" not in err  # ' TRTLLM ' is trtllm
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# W5: a desk job that overruns or whose worker died


def _desk(pool):
    from starlette.testclient import TestClient

    from tco.web import app as webapp

    desk = webapp.Desk({"small": SMALL}, None, pool, ("testserver",))
    return TestClient(webapp.create_app(desk), raise_server_exceptions=False)


def test_w5_a_job_past_its_time_is_said_on_the_page(monkeypatch):
    """A job past JOB_SECONDS ("longest a job may take before the page says so") was a 500 Internal Server Error
    with asyncio's TimeoutError traceback in the server's terminal."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    from tco.web import jobs

    monkeypatch.setattr(jobs, "JOB_SECONDS", 0.05)
    monkeypatch.setattr(jobs, "STUCK_SECONDS", 0.0)  # a thread pool: `jobs.timed` cannot stop it, the server's deadline does
    monkeypatch.setattr(jobs, "check", lambda *a: time.sleep(0.5) or {"answer": None})
    with ThreadPoolExecutor(1) as pool, _desk(pool) as c:
        r = c.get("/?example=small")
    assert r.status_code == 422 and "internal error: the job took longer than 0.05 s" in r.text


def test_w5_a_broken_worker_pool_is_said_on_the_page():
    """A worker killed (out of memory) breaks the process pool: every job then raised BrokenProcessPool, a 500."""
    from concurrent.futures import Executor
    from concurrent.futures.process import BrokenProcessPool

    class Broken(Executor):
        def submit(self, fn, /, *args, **kwargs):
            raise BrokenProcessPool("A child process terminated abruptly")

    with _desk(Broken()) as c:
        r = c.get("/?example=small")
    assert r.status_code == 422 and "internal error: A child process terminated abruptly" in r.text


def test_w5_the_desk_renews_a_broken_pool(monkeypatch):
    """Once broken, a process pool refuses every job: the desk answered nothing until it was restarted."""
    from concurrent.futures import Executor, ThreadPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from starlette.testclient import TestClient

    from tco.web import app as webapp
    from tco.web import jobs

    class Broken(Executor):
        def submit(self, fn, /, *args, **kwargs):
            raise BrokenProcessPool("A child process terminated abruptly")

    monkeypatch.setattr(jobs, "check", lambda *a: {"problems": [jobs._internal(RuntimeError("ran"))]})
    fresh = ThreadPoolExecutor(1)
    desk = webapp.Desk({"small": SMALL}, None, Broken(), ("testserver",), renew=lambda: fresh)
    with fresh, TestClient(webapp.create_app(desk), raise_server_exceptions=False) as c:
        assert "terminated abruptly" in c.get("/?example=small").text
        assert desk.pool is fresh
        assert "internal error: ran" in c.get("/?example=small").text  # the next job ran on the new pool


# ---------------------------------------------------------------------------------------------
# N1: thousands of options


def test_n1_a_scenario_compares_at_most_max_options(tmp_path):
    """3,000 options (a 414 kB file, within the 1 MB limit) validated in 14 s, and `run` ran 235 s to 2.5 GB
    before it was stopped, dropping options past 255 from the workbook's chart (XlsxWriter's warning); on the
    desk a download of such an upload held a worker for longer than JOB_SECONDS."""
    from tco.scenario import MAX_OPTIONS

    head = SMALL_TEXT[:SMALL_TEXT.index("[[options]]")]
    one = ('[[options]]\nname = "o{i}"\ntraining_offer = "aws/sa-east-1/g6.12xlarge"\n'
           'inference_offer = "aws/sa-east-1/g6.xlarge"\npricing = "on_demand"\n')
    text = head + "".join(one.format(i=i) for i in range(MAX_OPTIONS + 1))
    with pytest.raises(InputError) as exc:
        api.load(write(tmp_path, text))
    (p,) = _problems(exc)
    assert f"[options] List should have at most {MAX_OPTIONS} items after validation, not {MAX_OPTIONS + 1}" in p
    assert MAX_OPTIONS == 100


def test_x3_render_says_when_the_result_is_of_another_version(tmp_path, capsys):
    from tco import __version__

    p = tmp_path / "r.json"
    p.write_text(json.dumps(_doc(tool={"name": "tco", "version": "0.0.1"})), encoding="utf-8")
    assert main(["render", str(p), "--json"]) == 0
    got = capsys.readouterr()
    assert f"note: {p} was written by tco 0.0.1, this is tco {__version__}" in got.err
    assert json.loads(got.out)["options"][0]["name"] == "A"
    p.write_text(json.dumps(_doc(tool={"name": "tco", "version": __version__})), encoding="utf-8")
    assert main(["render", str(p), "--json"]) == 0 and capsys.readouterr().err == ""


def test_x4_a_brand_without_contact_shows_no_empty_contact_line(tmp_path):
    """A seller's theme.toml with an empty [contact] printed "Contato:" followed by nothing on the cover."""
    from tco.report import brand
    from tco.report.i18n import t
    from tco.report.proposal import TEMPLATES, context, render_html

    res = api.check(SMALL)
    label = t("cover_contact", "pt-BR")
    theme = brand.load_theme(TEMPLATES / "theme.toml")
    assert f"{label}:" in render_html(context(res, [], theme))
    theme["contact"] = {}
    html = render_html(context(res, [], theme))
    assert f"{label}:" not in html and 'class="contact"' not in html


def test_x1_a_config_file_named_by_tco_config_must_exist(tmp_path, monkeypatch, capsys):
    """TCO_CONFIG naming a missing file (a typo) fell back to the defaults in silence."""
    import os

    missing = tmp_path / "tco-confg.toml"
    monkeypatch.setenv("TCO_CONFIG", str(missing))
    assert main(["validate", str(SMALL), "--quiet"]) == 2
    assert f"{missing}: [TCO_CONFIG] the config file TCO_CONFIG names is not a file" in capsys.readouterr().err
    monkeypatch.setenv("TCO_CONFIG", os.devnull)  # the way to say: no config file
    assert main(["validate", str(SMALL), "--quiet"]) == 0


def test_x2_a_purchase_paid_all_down_needs_no_balloon(tmp_path):
    """down_payment_share = 1 borrows nothing, yet a 60-month line past the 36-month horizon asked for balloon."""
    from tco.resolve import resolve

    text = sub(OWNED, 'payment = "bndes_finame"\ndown_payment_share = 0.2\nballoon = true',
               'payment = "bndes_finame"\ndown_payment_share = 1.0')
    inp = api.load(write(tmp_path, text))
    _, opts = resolve(inp.scenario, inp.catalog, inp.path, inp.key_lines)
    own = [o.owned for o in opts if o.owned is not None and o.owned.payment == "bndes_finame"]
    assert len(own) == 1 and own[0].inputs["o.own_cash"] == 1.0
    text = sub(text, "down_payment_share = 1.0", "down_payment_share = 0.99")  # a little borrowed: the balloon again
    with pytest.raises(InputError) as exc:
        resolve(*(lambda i: (i.scenario, i.catalog, i.path, i.key_lines))(api.load(write(tmp_path, text))))
    assert "set balloon = true" in _problems(exc)[0]


@pytest.mark.slow
def test_r1_long_cover_facts_stay_clear_of_the_contact_line(tmp_path):
    """Cover facts within their limits (a 150-character client, a client contact, a long proposal number) ran from
    170 mm down into the contact line: "Preparado por" printed over it. They now end above it (anchored at the
    bottom, growing upwards into the space under the title)."""
    import re
    import shutil
    import subprocess

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed")
    from tco.report.proposal import render

    long = ("Indústria Exemplo de Componentes Eletrônicos e Sistemas Embarcados Sociedade Anônima — Unidade de "
            "Pesquisa Aplicada, Engenharia de Produto e Inovação Aberta do Vale do Paraíba")
    text = sub(SMALL_TEXT, 'client = "Indústria Exemplo Ltda."', f'client = "{long}"')
    text += ('\n[proposal]\ndate = "2027-02-01"\nnumber = "NE-2027-0001"\nclient_cnpj = "11.222.333/0001-81"\n'
             f'client_contact = {{ name = "Maria da Silva Albuquerque de Souza", role = "Diretora da '
             f'{long}", email = "maria.albuquerque@industria-exemplo.com.br", '
             'phone = "+55 11 99999-0000" }\n')
    pdf = tmp_path / "p.pdf"
    pdf.write_bytes(render(api.run(write(tmp_path, text), paths=50, analysis=False)))
    html = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-bbox", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    words = [(w, float(y0), float(y1)) for y0, y1, w in
             re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', html)]
    contact = next(y0 for w, y0, _ in words if w.startswith("Contato"))
    above = [(w, y1) for w, y0, y1 in words if y0 < contact - 1]
    assert above and all(y1 <= contact for _, y1 in above), [(w, y1) for w, y1 in above if y1 > contact]


def test_s8_resumed_cases_that_ran_are_not_counted_failed(small_table, tmp_path):
    """A resumed table with one failed case read its other cases' missing `error` as NaN (truthy): `--resume` then
    counted every case failed ("4 of 4 cases (4 failed)", exit 1, `failed: 4` in --json) where 2 had."""
    from tco.sweep import table

    work, rows, cols = small_table
    failed = [{c: {"case": 0, "fx.usdbrl": 5.0, "error": "[x] refused"}.get(c) for c in cols}]
    mixed = failed + [r for r in rows if r["case"] == 1]
    p = tmp_path / "t.parquet"
    table.write_parquet(table.frame(mixed, cols), p, work.sha256, len(work.cases))
    got = table.read_done(p, work.sha256, len(work.cases), cols, work.base.columns, work.cases)
    assert len({int(r["case"]) for r in got if r.get("error")}) == 1  # the driver's count of failed cases
    assert [r["error"] for r in got if r["case"] == 1] == [None] * 4 and got[0]["error"] == "[x] refused"


def test_d3_terminal_escapes_and_rich_markup_from_a_json_never_reach_the_terminal(tmp_path, capsys):
    """An option named with ESC ] 8 (a terminal hyperlink) or BEL went to the terminal as it was (render, diff, the
    Markdown); a cost line named "[link=http://evil]x[/link]" was read as Rich markup in the diff table."""
    from tco.diff import render

    p = tmp_path / "r.json"
    p.write_text(json.dumps(_doc(options__0__name="\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\\x07")), encoding="utf-8")
    assert main(["render", str(p)]) == 2
    assert "[options[0].name] not a JSON result of tco run: it holds a control character" in capsys.readouterr().err
    q = tmp_path / "q.json"
    q.write_text(json.dumps(_doc(scenario={"name": "s", "x": ["ok\tok\n", {"k\x1b": 1}]})), encoding="utf-8")
    assert main(["render", str(q)]) == 2
    assert "q.json: [scenario.x[1].k\\x1b] not a JSON result" in capsys.readouterr().err  # the key shown escaped
    d = {"a": "a", "b": "b", "inputs": [], "ranking": {"a": [], "b": [], "changed": False},
         "cheapest": {"a": None, "b": None, "changed": False},
         "options": [{"name": "A", "tco_a": 1.0, "tco_b": 2.0, "delta": 1.0, "delta_share": 1.0, "rank_a": 1,
                      "rank_b": 1, "lines": [{"line": "[link=http://evil]x[/link] <b>", "a": 0.0, "b": 1.0,
                                              "delta": 1.0}]}]}
    from rich.console import Console

    console = Console(record=True, width=200, force_terminal=True)
    for t in render.tables(d, 200):
        console.print(t)
    shown = console.export_text(styles=True)
    assert "\x1b]8" not in shown and "│ [link=http://evil]x[/link] <b> │" in shown  # the text, not a hyperlink
    assert "| [link=http://evil]x[/link] &lt;b&gt; |" in render.markdown(d)


def test_e1_a_closed_pipe_is_not_bad_input(tmp_path, capsys, monkeypatch):
    """`tco render r.json --json | head -c 100` printed "error: : Broken pipe" and exited 2 (bad input) when head had
    read enough; now nothing is said and the exit is 141 (128 + SIGPIPE), as a program the signal stops."""
    from tco.cli import compare

    p = tmp_path / "r.json"
    p.write_text(json.dumps(GOOD), encoding="utf-8")

    def closed(*a, **k):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(compare, "summary", closed)
    assert main(["render", str(p), "--json"]) == 141
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("make", ["file", "junk-db"])
def test_w6_serve_refuses_a_data_folder_it_cannot_keep_proposals_in(tmp_path, capsys, monkeypatch, make):
    """`serve --data` naming a file, or a folder whose proposals.sqlite is not a database, started: every download
    then failed after generating the files, and /proposals was a 500 (FileExistsError, sqlite3.DatabaseError)."""
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("served"))
    data = tmp_path / "data"
    if make == "file":
        data.write_text("x", encoding="utf-8")
    else:
        data.mkdir()
        (data / "proposals.sqlite").write_text("not a database at all, just text" * 4, encoding="utf-8")
    assert main(["serve", "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert f"error: --data {data}: cannot keep the proposals there (" in err
    assert ("File exists" if make == "file" else "file is not a database") in err


def test_w6_a_new_data_folder_is_fine(tmp_path):
    from tco.web import store

    assert store.unusable(tmp_path / "new") is None and (tmp_path / "new" / "proposals.sqlite").is_file()
