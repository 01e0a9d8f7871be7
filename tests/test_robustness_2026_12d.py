"""Regression tests for the red team of 2026-12-02 (d) on the surfaces changed since 2026-12c
(docs/robustness-2026-12d.md): `tco run` with the newer scenario keys and output folders, `tco calibrate`, the sales
desk, the workbook, the PDF and the JSON.

Each test is named after the finding it pins and fails on the code the red team attacked (main at 6827c4b). They call
the library or ``tco.cli.main`` in-process unless marked slow.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tco.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
"""The smallest shipped scenario (Llama 3.1 8B on L4s, fixed FX): a run in about a second."""


# ---------------------------------------------------------------------------------------------
# O1: a run never writes over a file it reads


def test_o1_run_into_the_scenarios_own_folder_never_replaces_it(tmp_path):
    """`run s.json -o .` (a scenario saved with a .json, .csv, .xlsx or .pdf name) replaced the scenario with the run's
    own JSON, exit 0: the user's input lost (run, batch and api.write all publish through tco.output)."""
    from tco import api
    from tco.errors import InputError

    made = set()
    for name, fmt in (("s.json", "json"), ("t.csv", "csv")):
        scen = tmp_path / name
        shutil.copy(SMALL, scen)
        before = scen.read_bytes()
        res = api.run(scen, analysis=False)
        with pytest.raises(InputError) as exc:
            api.write(res, tmp_path, (fmt,))
        assert f"[-o] would replace {scen}, which this run reads" in str(exc.value.problems[0])
        assert scen.read_bytes() == before
        made.add(name)
        assert {p.name for p in tmp_path.iterdir()} == made  # nothing else written either


def _with(tmp_path: Path, old: str, new: str, name: str = "s.toml", base: Path = SMALL) -> Path:
    text = base.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


def _problems(path: Path) -> list[str]:
    from tco import api
    from tco.errors import InputError

    with pytest.raises(InputError) as exc:
        api.check(path)
    return [str(p) for p in exc.value.problems]


# ---------------------------------------------------------------------------------------------
# Q1: a training sequence longer than the model's context window


def test_q1_a_training_sequence_past_the_context_window_is_refused(tmp_path):
    """[training] sequence_length = 1,048,576 on Llama 3.1 8B (context 131,072) ran, exit 0: 2,963 GPU-hours instead of
    174 (the attention FLOPs grow with the length), R$ 3.07 M instead of 0.42 M, where a request past the context is
    refused."""
    p = _with(tmp_path, "target_days = 3", "target_days = 3\nsequence_length = 1048576")
    (msg,) = _problems(p)
    assert msg.startswith(f"{p}:24: [training.sequence_length] 1,048,576 tokens per training sequence is longer than "
                          "the context window of 'llama-3.1-8b' (131,072 tokens"), msg
    ok = _with(tmp_path, "target_days = 3", "target_days = 3\nsequence_length = 131072", "ok.toml")
    from tco import api

    api.check(ok)  # the window itself is allowed
    none = _with(tmp_path, 'method = "lora"', 'method = "none"\nsequence_length = 1048576', "none.toml")
    api.check(none)  # nothing trained: the notice about unused keys, not an error


# ---------------------------------------------------------------------------------------------
# C18: a benchmark row's framework_version is an era of its own framework


def test_c18_a_version_era_of_another_framework_or_a_patch_version_is_refused(tmp_path):
    """An era the table lacks takes the framework's current engine: `vllm-0.6.0` (the version vLLM prints) was fitted
    as vLLM V1 (prompts inside the decode steps: 13.59 ms predicted where the 0.6 era gives 14.29 ms), and `sglang-0.3`
    on a TensorRT-LLM row as SGLang's prefill steps, in silence."""
    from tco.errors import InputError
    from tco.sizing import benchmarks

    head = "model,gpu,gpu_count,input_tokens,output_tokens,output_tokens_per_second,framework,framework_version\n"
    cases = [("vllm", "vllm-0.6.0", "the eras are named by major.minor version; use 'vllm-0.6'"),
             ("trtllm", "sglang-0.3", "'sglang-0.3' is not an era of this row's framework ('trtllm')"),
             ("", "vllm-0.6", "'vllm-0.6' is not an era of this row's framework ('')"),
             ("vllm", "0.6", "'0.6' is not an era of this row's framework ('vllm')")]
    f = tmp_path / "b.csv"
    f.write_text(head + "".join(f"llama-3.1-8b,A100-SXM-80GB,1,231,194.4,778,{fw},{era}\n" for fw, era, _ in cases),
                 encoding="utf-8")
    with pytest.raises(InputError) as exc:
        benchmarks.read(f)
    got = [str(p) for p in exc.value.problems]
    assert len(got) == len(cases)
    for line, (msg, (_, _, want)) in enumerate(zip(got, cases), start=2):
        assert msg.startswith(f"{f}:{line}: [framework_version] ") and want in msg, msg
    f.write_text(head + "llama-3.1-8b,A100-SXM-80GB,1,231,194.4,778,vllm,vllm-0.24-aiconfigurator\n"
                 "llama-3.1-8b,A100-SXM-80GB,1,231,194.4,778,sglang,SGLANG-0.3\n", encoding="utf-8")
    assert [r.framework_version for r in benchmarks.read(f)] == ["vllm-0.24-aiconfigurator", "sglang-0.3"]


# ---------------------------------------------------------------------------------------------
# C19, C20: a benchmark row's layout and MTP cells

HEAD = ("id,model,gpu,gpu_count,tp,nodes,precision,kv_precision,input_tokens,output_tokens,concurrency,max_batch,"
        "output_tokens_per_second,itl_ms,ttft_ms,exclude,source,mode,draft_tokens,acceptance_share")


def _bench(tmp_path: Path, *rows: str) -> Path:
    p = tmp_path / "bench.csv"
    p.write_text(HEAD + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return p


def test_c19_mode_ep_on_a_dense_model_is_refused(tmp_path):
    """`mode = ep` on Llama 3.1 70B (no experts) was fitted as eight copies of the whole model, one per GPU (18.7
    tokens/s predicted with the shipped calibration where the same row in tp predicts 3,300), exit 0 and a calibration
    written."""
    from tco.catalog import load_catalog
    from tco.errors import InputError
    from tco.sizing import benchmarks
    from tco.sizing.calibrate import check_rows

    f = _bench(tmp_path, "G,llama-3.1-70b,H100-SXM-80GB,8,8,1,fp8,fp8,128,128,,2048,2700,,,,src,ep,,",
               "R,deepseek-r1,H200-SXM-141GB,8,8,1,fp8,fp8,128,128,,2048,2700,,,,src,ep,,")
    with pytest.raises(InputError) as exc:
        check_rows(benchmarks.read(f), load_catalog())
    assert [str(p) for p in exc.value.problems] == [
        f"{f}:2: [mode] row G: mode 'ep' splits a mixture of experts' experts over the GPUs; 'llama-3.1-70b' has none "
        "(models.csv experts): leave mode empty or 'tp'"]  # DeepSeek-R1 (256 experts) in ep is a layout


def test_c20_a_refused_mtp_cell_is_said_once(tmp_path):
    """`draft_tokens = nan` (or 5, or 1.5) with `acceptance_share = 0.8` gave its own problem and a second, false one:
    "an MTP run needs both draft_tokens and acceptance_share; acceptance_share is given, draft_tokens is not"."""
    from tco.errors import InputError
    from tco.sizing import benchmarks

    for draft, acc, key in (("nan", "0.8", "draft_tokens"), ("5", "0.8", "draft_tokens"), ("2", "2", "acceptance_share")):
        f = _bench(tmp_path, f"G,deepseek-r1,H200-SXM-141GB,8,8,1,fp8,fp8,128,128,,2048,2700,,,,src,,{draft},{acc}")
        with pytest.raises(InputError) as exc:
            benchmarks.read(f)
        (p,) = exc.value.problems
        assert p.key == key and "needs both" not in p.message, p
    f = _bench(tmp_path, "G,deepseek-r1,H200-SXM-141GB,8,8,1,fp8,fp8,128,128,,2048,2700,,,,src,,3,")
    with pytest.raises(InputError) as exc:
        benchmarks.read(f)
    assert "needs both draft_tokens and acceptance_share; draft_tokens is given" in str(exc.value.problems[0])


# ---------------------------------------------------------------------------------------------
# F2: init names a file


def test_f2_init_of_a_name_ending_with_a_slash_writes_no_file(tmp_path, capsys, monkeypatch):
    """`init newdir/` (a folder meant, none there yet) wrote the starter into a file named `newdir`, exit 0, as
    `calibrate -o newdir/` did before 2026-12c F1; `init ""` said ".: exists already"."""
    monkeypatch.chdir(tmp_path)
    assert main(["init", "newdir/"]) == 2
    assert "newdir/: ends with a slash, so it names a folder" in capsys.readouterr().err
    assert main(["init", ""]) == 2
    assert ": the file name is empty" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert main(["init", "s.toml"]) == 0 and (tmp_path / "s.toml").is_file()


def test_o2_a_sweep_never_writes_over_its_sweep_file_or_base(tmp_path):
    """`sweep s.csv -o . --csv` (a sweep file saved with a .csv name) replaced the sweep file with its table, exit 0."""
    from tco.errors import InputError
    from tco.sweep import driver, plan

    shutil.copy(SMALL, tmp_path / "small.toml")
    sweep = tmp_path / "sw.csv"
    sweep.write_text('[sweep]\nbase = "small.toml"\ndesign = "grid"\nkeep = ["tco"]\n\n[[axes]]\nkey = "fx.usdbrl"\n'
                     "values = [5.0, 6.0]\n", encoding="utf-8")
    work = plan.prepare(str(sweep), plan.MAX_CASES)
    with pytest.raises(InputError) as exc:
        driver.check_inputs(work, tmp_path, csv=True)
    assert [str(p) for p in exc.value.problems] == [
        f"{sweep}: [-o] would replace {sweep}, which this sweep reads; write the output to another folder (-o) or "
        "rename the input"]
    driver.check_inputs(work, tmp_path, csv=False)  # no CSV asked: sw.parquet and the map land beside it
    driver.check_inputs(work, tmp_path / "out", csv=True)


def test_o3_plan_json_never_replaces_a_file_the_run_reads(tmp_path, capsys):
    """`plan s.toml --json s.toml` (or --json a link to it, or a catalog overlay's file) replaced the scenario with the
    plan's JSON, exit 0 (a typo for --json s.json loses the scenario)."""
    scen = tmp_path / "s.toml"
    shutil.copy(SMALL, scen)
    before = scen.read_bytes()
    (tmp_path / "link.json").symlink_to(scen)
    for target in (scen, tmp_path / "link.json"):
        assert main(["plan", str(scen), "--json", str(target)]) == 2
        err = capsys.readouterr().err
        assert f"--json {target}: would replace {scen}, which this run reads" in err, err
        assert scen.read_bytes() == before


def test_c21_calibrate_never_writes_over_its_catalog_overlay(tmp_path, capsys):
    """`calibrate bench.csv --catalog-dir cat -o cat/models.csv` (or --report there) replaced the overlay's models.csv
    with the calibration, exit 0 (2026-12c C1 guarded the benchmark and --frameworks files only)."""
    cat = tmp_path / "cat"
    cat.mkdir()
    shutil.copy(ROOT / "tco" / "catalog" / "data" / "models.csv", cat / "models.csv")
    before = (cat / "models.csv").read_bytes()
    bench = tmp_path / "bench.csv"
    bench.write_text(HEAD + "\nA,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src,,,\n",
                     encoding="utf-8")
    for opt in (["-o", str(cat / "models.csv")], ["-o", str(tmp_path / "c.toml"), "--report", str(cat / "models.csv")]):
        rc = main(["calibrate", str(bench), "--catalog-dir", str(cat), *opt, "--no-loo"])
        err = capsys.readouterr().err
        assert rc == 2 and f"names the catalog file '{cat / 'models.csv'}', which calibrate reads" in err, err
        assert (cat / "models.csv").read_bytes() == before and not (tmp_path / "c.toml").exists()


# ---------------------------------------------------------------------------------------------
# T3, W9: an integer past Python's 4,300 digits

BIG = "9" * 5000


def test_t3_a_5000_digit_integer_in_a_toml_file_is_a_located_problem(tmp_path, capsys, monkeypatch):
    """tomllib raises ValueError (not TOMLDecodeError) for an integer past 4,300 digits: `validate`/`run` of such a
    scenario, a sweep file, a calibration file and the config file ended in a traceback (exit 1)."""
    p = _with(tmp_path, "storage_gb = 200", f"storage_gb = {BIG}")
    (msg,) = _problems(p)
    assert msg == (f"{p}:36: [inference.storage_gb] an integer of more than 4,300 digits: too long to read; write the "
                   "number in scientific notation (1.5e9) or check the value")
    opt = _with(tmp_path, 'fleet = "shared"', f'fleet = "shared"\nsetup_fee_brl = {BIG}', "opt.toml")
    (msg,) = _problems(opt)
    assert msg.startswith(f"{opt}:49: [options[0].setup_fee_brl] an integer of more than 4,300 digits"), msg
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"x = {BIG}\n", encoding="utf-8")
    monkeypatch.setenv("TCO_CONFIG", str(cfg))
    assert main(["validate", str(SMALL)]) == 2
    assert "config.toml: an integer of more than 4,300 digits" in capsys.readouterr().err


def test_w9_the_desk_answers_a_5000_digit_number_with_a_page(tmp_path):
    """A 5,000-digit number typed into a numeric field of the sales desk (int() past 4,300 digits), or in an uploaded
    scenario (tomllib), was a 500 Internal Server Error with a ValueError traceback in the server's terminal."""
    from concurrent.futures import ThreadPoolExecutor

    from starlette.testclient import TestClient

    from tco.web import app as webapp
    from tco.web import fields as F

    assert F.typed(BIG, "int") == float("inf")  # refused by the schema, which names the field
    text = SMALL.read_text(encoding="utf-8")
    with ThreadPoolExecutor(1) as pool:
        desk = webapp.Desk({}, None, pool, ("testserver",))
        with TestClient(webapp.create_app(desk), raise_server_exceptions=False) as c:
            same = {"Origin": "http://testserver"}
            r = c.post("/recalc", data={"base": text, "training.tokens": BIG}, headers=same)
            assert r.status_code == 422 and "training.tokens" in r.text
            big = text.replace("storage_gb = 200", f"storage_gb = {BIG}")
            r = c.post("/upload", files={"scenario": ("big.toml", big.encode())}, headers=same)
            assert r.status_code == 422 and "4,300 digits" in r.text


def test_c22_tp_past_the_largest_server_is_refused(tmp_path):
    """tp 16 (or 64 L4s, or 1,024 H100s) with nodes empty was fitted as one NVLink domain of that many GPUs in one
    server, no network (1,504 tokens/s predicted for 405B on 16 H100s): a forgotten `nodes = 2` fitted in silence."""
    from tco.catalog import load_catalog
    from tco.errors import InputError
    from tco.sizing import benchmarks
    from tco.sizing.calibrate import check_rows

    f = _bench(tmp_path, "X,llama-3.1-405b,H100-SXM-80GB,16,16,1,fp8,fp8,1024,1024,64,2048,2700,,,,src,,,",
               "Y,llama-3.1-405b,H100-SXM-80GB,16,8,2,fp8,fp8,1024,1024,64,2048,2700,,,,src,,,")
    with pytest.raises(InputError) as exc:
        check_rows(benchmarks.read(f), load_catalog())
    assert [str(p) for p in exc.value.problems] == [
        f"{f}:2: [tp] row X: tp 16 in one server, but no H100-SXM-80GB server holds more than 8 GPUs; for a replica "
        "over several servers give tp per server and nodes (e.g. tp 8, nodes 2)"]  # Y, over two servers, is a layout


# ---------------------------------------------------------------------------------------------
# Q2: [training] keys that gpu_hours makes inert


def test_q2_mfu_and_sequence_length_beside_gpu_hours_get_a_notice(tmp_path):
    """With `gpu_hours` the GPU-hours are given, not sized from 6·N·D: `mfu = 0.2` or `0.6` and `sequence_length =
    65536` changed nothing (every option's TCO equal: R$ 696,726 / 282,882 / 188,342 / 146,153) and nothing said so;
    the JSON showed the sequence length beside the given hours as if it had sized them."""
    from tco import api
    from tco.scenario import plausibility

    p = _with(tmp_path, "target_days = 3", "target_days = 3\ngpu_hours = 500\nmfu = 0.2\nsequence_length = 65536")
    got = [n for n in plausibility(api.load(p).scenario) if n.code == "training_hours_keys_ignored"]
    assert [n.params for n in got] == [{"keys": "mfu, sequence_length"}]
    plain = _with(tmp_path, "target_days = 3", "target_days = 3\nmfu = 0.2\nsequence_length = 65536", "plain.toml")
    assert not [n for n in plausibility(api.load(plain).scenario) if n.code == "training_hours_keys_ignored"]


def test_o1_a_catalog_folder_beside_the_outputs_guards_only_its_catalog_files(tmp_path):
    """`catalog_dir = "."` with `-o .`: a second run replaces its own earlier outputs (not files the run reads), but
    a scenario named like a catalog file (models.toml, --formats csv) would replace the overlay's models.csv."""
    from tco import api
    from tco.errors import InputError

    scen = _with(tmp_path, 'locale = "pt-BR"', 'locale = "pt-BR"\ncatalog_dir = "."')
    shutil.copy(ROOT / "tco" / "catalog" / "data" / "models.csv", tmp_path / "models.csv")
    res = api.run(scen, analysis=False)
    for _ in range(2):
        api.write(res, tmp_path, ("json", "csv"))
    shutil.copy(scen, tmp_path / "models.toml")
    with pytest.raises(InputError) as exc:
        api.write(api.run(tmp_path / "models.toml", analysis=False), tmp_path, ("csv",))
    assert "models.csv, which this run reads" in str(exc.value.problems[0])


# ---------------------------------------------------------------------------------------------
# K4: a contract term past the horizon


def test_k4_a_contract_or_minimum_term_past_the_horizon_gets_a_notice(tmp_path):
    """The seed with `[proposal.contract] duration_months = 240` (horizon 36): validated and ran without a word, the
    PDF offering a 20-year contract whose TCO and totals cover 3 years."""
    from tco import api
    from tco.report.notices import text
    from tco.scenario import plausibility

    seed = ROOT / "scenarios" / "seed_70b_h200.toml"
    p = _with(tmp_path, "duration_months = 36", "duration_months = 240", base=seed)
    got = [n for n in plausibility(api.load(p).scenario) if n.code == "proposal_term_beyond_horizon"]
    assert [n.params for n in got] == [{"name": "proposal.contract.duration_months", "term": 240, "months": 36}]
    assert text(got[0], "en") == ("proposal.contract.duration_months = 240 months is longer than the 36-month horizon: "
                                  "the client commits to months the TCO and the proposal's totals do not cost; "
                                  "lengthen scenario.horizon_months or shorten the term.")
    assert not [n for n in plausibility(api.load(seed).scenario) if n.code == "proposal_term_beyond_horizon"]


def test_c23_a_throughput_past_the_hardwares_roofline_is_refused(tmp_path):
    """A fourth row of 9,000,000 tokens/s on one H100 (Llama 3.1 8B, 128/128; a unit or a digit slip) was fitted: every
    share pushed to its bound, the row at -99.4 %, the median error 68.7 %, exit 0 and the calibration written."""
    from tco.catalog import load_catalog
    from tco.cli.calibrate import check_fits
    from tco.errors import InputError
    from tco.sizing import benchmarks

    f = _bench(tmp_path, "A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src,,,",
               "D,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,9000000,,,,src,,,",
               "E,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,9000000,,,excluded: a typo,src,,,")
    with pytest.raises(InputError) as exc:
        check_fits(benchmarks.read(f), load_catalog())
    (p,) = exc.value.problems  # E is excluded: listed, not fitted
    assert str(p).startswith(f"{f}:3: [output_tokens_per_second] row D: 9,000,000 tokens/s is more than 2 × what 1 × "
                             "H100-SXM-80GB reach at their full bandwidth and peak with no overhead ("), p
    for shipped in ("calibration_public.csv", "calibration_frameworks.csv"):  # every fitted public row passes
        check_fits([r for r in benchmarks.read(ROOT / "tco" / "catalog" / "data" / shipped) if not r.exclude],
                   load_catalog())


# ---------------------------------------------------------------------------------------------
# S10: sweep --workers


def test_s10_sweep_starts_no_more_local_workers_than_cases(tmp_path, monkeypatch):
    """`sweep --workers 1000` on a 4-case sweep started 1,000 Dask worker processes on the two-core machine and had not
    finished after 300 s (1.7 s with one worker); batch caps --jobs at its scenarios."""
    from tco.errors import InputError, Problem
    from tco.sweep import runner

    asked = []

    def connect(scheduler, workers):  # records what the command asks for, starts nothing
        asked.append((scheduler, workers))
        raise InputError([Problem("--scheduler", "", "not started in this test")])

    monkeypatch.setattr(runner, "connect", connect)
    shutil.copy(SMALL, tmp_path / "small.toml")
    sweep = tmp_path / "sw.toml"
    sweep.write_text('[sweep]\nbase = "small.toml"\ndesign = "grid"\nkeep = ["tco"]\n\n[[axes]]\nkey = "fx.usdbrl"\n'
                     "values = [4.0, 5.0, 6.0, 7.0]\n", encoding="utf-8")
    assert main(["sweep", str(sweep), "-o", str(tmp_path / "out"), "--workers", "1000"]) == 2
    assert main(["sweep", str(sweep), "-o", str(tmp_path / "out"), "--workers", "2"]) == 2
    assert asked == [(None, 4), (None, 2)]


def test_c24_a_frameworks_file_that_is_not_a_plain_csv_with_frameworks_is_refused_first(tmp_path, capsys):
    """`--frameworks run.json` (a vLLM benchmark_serving JSON) said "row run: no framework named …", a trtllm-bench
    report "this format does not say the hardware: give --model …" (options of the main file), both after the main
    fit; a plain CSV without a `framework` column a problem per row."""
    bench = _bench(tmp_path, "A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src,,,")
    for name in ("vllm_benchmark_serving.json", "trtllm_bench_report.txt"):
        fw = tmp_path / name
        shutil.copy(ROOT / "tests" / "data" / "benchmarks" / name, fw)
        rc = main(["calibrate", str(bench), "--frameworks", str(fw), "-o", str(tmp_path / "c.toml"), "--no-loo"])
        out, err = capsys.readouterr()
        assert rc == 2 and f"{fw}:1: [--frameworks] reads a plain CSV whose header has the columns model" in err, err
        assert out == "" and not (tmp_path / "c.toml").exists()  # refused before the main fit printed its report


def test_s11_a_sweep_base_that_is_a_folder_or_a_device_is_named_so(tmp_path):
    """`base = "d"` (a folder) or `"/dev/zero"` said "base scenario … not found": the user looks for a missing file."""
    from tco.errors import InputError
    from tco.sweep import plan

    (tmp_path / "d").mkdir()
    for base, what in (("d", "is a folder"), ("/dev/zero", "is not a regular file"), ("none.toml", "not found")):
        sweep = tmp_path / "sw.toml"
        sweep.write_text(f'[sweep]\nbase = "{base}"\ndesign = "grid"\nkeep = ["tco"]\n\n[[axes]]\nkey = "fx.usdbrl"\n'
                         "values = [5.0]\n", encoding="utf-8")
        with pytest.raises(InputError) as exc:
            plan.prepare(str(sweep), plan.MAX_CASES)
        (p,) = exc.value.problems
        assert p.key == "sweep.base" and p.line == 2 and what in p.message, p


def test_q1_the_catalogs_default_length_past_a_models_context_is_refused_too(tmp_path):
    """A models.csv overlay of a 2,048-token model: training at the default 4,096 tokens ran in silence."""
    cat = tmp_path / "cat"
    cat.mkdir()
    rows = (ROOT / "tco" / "catalog" / "data" / "models.csv").read_text(encoding="utf-8").splitlines()
    row = next(r for r in rows if r.startswith("llama-3.1-8b,"))
    (cat / "models.csv").write_text(rows[0] + "\n" + row.replace("llama-3.1-8b,", "short-8b,", 1).replace(
        ",131072,", ",2048,") + "\n", encoding="utf-8")
    p = _with(tmp_path, 'locale = "pt-BR"', 'locale = "pt-BR"\ncatalog_dir = "cat"')
    p.write_text(p.read_text(encoding="utf-8").replace('id = "llama-3.1-8b"', 'id = "short-8b"').replace(
        "input_tokens_per_request = 1200", "input_tokens_per_request = 1000"), encoding="utf-8")
    (msg,) = _problems(p)
    assert ("[training.sequence_length] 4,096 tokens per training sequence (the catalog's default, defaults.toml "
            "[training]) is longer than the context window of 'short-8b' (2,048 tokens") in msg, msg


# ---------------------------------------------------------------------------------------------
# Left by the round (second pass): F3, T4, Q3, W10, K5, C25


def _branded(tmp_path: Path, theme: str | None) -> Path:
    """small.toml with `[proposal] brand = "brand"`; the brand's theme.toml holds `theme` (None: a link to
    /proc/self/mem, whose read fails with EIO)."""
    (tmp_path / "brand").mkdir()
    th = tmp_path / "brand" / "theme.toml"
    if theme is None:
        th.symlink_to("/proc/self/mem")
    else:
        th.write_text(theme, encoding="utf-8")
    p = tmp_path / "s.toml"
    p.write_text(SMALL.read_text(encoding="utf-8") + '\n[proposal]\ndate = "2027-02-01"\nbrand = "brand"\n',
                 encoding="utf-8")
    return p


@pytest.mark.skipif(not Path("/proc/self/mem").is_file(), reason="needs Linux's /proc/self/mem (EIO on read)")
def test_f3_a_config_or_theme_file_that_fails_to_read_is_named(tmp_path, capsys, monkeypatch):
    """A config file (TCO_CONFIG) or a brand theme.toml whose read fails with EIO said `error: : Input/output error`
    (exit 1): the OSError of read() has no file name, so the user could not tell which file."""
    from tco import api
    from tco.report import brand

    monkeypatch.setenv("TCO_CONFIG", "/proc/self/mem")
    assert main(["validate", str(SMALL)]) == 2
    err = capsys.readouterr().err
    assert "/proc/self/mem: cannot read the config file: Input/output error" in err, err
    monkeypatch.delenv("TCO_CONFIG")
    inp = api.load(_branded(tmp_path, None))
    assert [str(p) for p in brand.problems(inp.scenario, inp.path, inp.key_lines)] == [
        f"{tmp_path / 'brand' / 'theme.toml'}: [theme] cannot read the brand's theme.toml: Input/output error"]


def test_t4_a_5000_digit_number_in_a_brand_theme_is_located_at_its_key(tmp_path):
    """A brand theme.toml with a 5,000-digit number was refused in Python's words ("Exceeds the limit (4300 digits)
    for integer string conversion … use sys.set_int_max_str_digits()"): T3 reworded every other TOML file."""
    from tco import api
    from tco.report import brand

    inp = api.load(_branded(tmp_path, f'[provider]\nname = "A"\n\n[contact]\nphone = {BIG}\n'))
    assert [str(p) for p in brand.problems(inp.scenario, inp.path, inp.key_lines)] == [
        f"{tmp_path / 'brand' / 'theme.toml'}:5: [contact.phone] an integer of more than 4,300 digits: too long to "
        "read; write the number in scientific notation (1.5e9) or check the value"]


def test_q3_an_empty_calibration_path_is_refused(tmp_path):
    """`calibration = ""` ran on the catalog's calibration in silence: the scenario contract (docs/scenario.md) says
    the catalog's is the default when the key is unset, and an empty path names no file."""
    from tco import api

    for value in ('""', '"  "'):
        p = _with(tmp_path, "[inference]\n", f"[inference]\ncalibration = {value}\n")
        (msg,) = _problems(p)
        assert msg.startswith(f"{p}:26: [inference.calibration] the calibration file's path is empty; name the file "
                              "`python -m tco calibrate` wrote (relative to the scenario), or leave calibration out "
                              "for the catalog's"), msg
    api.check(SMALL)  # unset: the catalog's calibration, as before


def test_w10_serve_starts_no_more_workers_than_the_cores(monkeypatch, tmp_path, capsys):
    """`serve --workers 1000` had no bound: the desk's pool starts a process for each job in flight, up to the number
    given, whatever the cores (sweep caps its workers since S10)."""
    import uvicorn

    from tco.web import jobs, serve

    asked = []

    class NoPool:
        def shutdown(self, **kw):
            pass

    monkeypatch.setattr(jobs, "pool", lambda n: asked.append(n) or NoPool())
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr(serve, "cores", lambda: 4)
    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--workers", "1000"]) == 0
    assert "notice: --workers 1,000 is more than the 4 cores this computer gives tco; the desk starts at most 4" in (
        capsys.readouterr().err)
    assert main(["serve", "--workers", "3"]) == 0 and main(["serve"]) == 0
    monkeypatch.setattr(serve, "cores", lambda: 1)  # one core: the default 2 still stands, without a notice
    assert main(["serve"]) == 0 and main(["serve", "--workers", "5"]) == 0
    assert asked == [4, 3, 2, 2, 2]
    assert capsys.readouterr().err.count("notice") == 1


def test_k5_an_sla_credit_tier_above_the_promised_sla_is_refused(tmp_path):
    """A [[proposal.contract.sla_credits]] tier with below_share 0.9995 beside [proposal.included] sla_share = 0.999
    was accepted: the proposal offered a credit for months that meet the promised availability."""
    from tco import scenario
    from tco.errors import InputError

    seed = ROOT / "scenarios" / "seed_70b_h200.toml"
    p = _with(tmp_path, "below_share = 0.999\n", "below_share = 0.9995\n", base=seed)
    with pytest.raises(InputError) as exc:
        scenario.load(p)
    assert [str(q) for q in exc.value.problems] == [
        f"{p}:137: [proposal] contract.sla_credits[0].below_share = 0.9995 is above included.sla_share = 0.999: the "
        "credit would be owed in months that meet the promised availability; give each tier a below_share at most "
        "the SLA, or raise sla_share"]
    scenario.load(seed)  # a tier at the SLA itself (below 0.999 with an SLA of 0.999) is the SLA's own breach
    scenario.load(_with(tmp_path, "sla_share = 0.999\n", "", "no_sla.toml", base=seed))  # no SLA promised: no check


def test_c25_underscores_and_full_width_digits_in_a_benchmark_number_are_refused(tmp_path):
    """Python's float() reads '1_28', '１２８' (full-width) and '١٢٨' (Arabic-Indic) as 128: a benchmark cell with a
    stray underscore or pasted from a full-width text was fitted as that number, where '0x1' or '12a' are refused."""
    from tco.errors import InputError
    from tco.sizing import benchmarks

    good = "A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src,,,"
    assert benchmarks.read(_bench(tmp_path, good))[0].input_tokens == 128
    for cell in ("1_28", "１２８", "١٢٨"):
        f = _bench(tmp_path, good, good.replace("A,", "B,", 1).replace(",128,", f",{cell},"))
        with pytest.raises(InputError) as exc:
            benchmarks.read(f)
        assert [str(p) for p in exc.value.problems] == [
            f"{f}:3: [input_tokens] not a number: {cell!r}; write plain digits 0-9 (no _ between them, no full-width "
            "or other scripts' digits)"]
    f = _bench(tmp_path, good.replace(",21109.38,", ",21_109.38,"))
    with pytest.raises(InputError) as exc:
        benchmarks.read(f)
    assert exc.value.problems[0].key == "output_tokens_per_second" and exc.value.problems[0].line == 2
