"""Regression tests for the red team of 2026-12-02 (c) on the surfaces changed since 2026-12b
(docs/robustness-2026-12c.md): `tco calibrate` (plain CSV, vLLM JSON, --frameworks, -o/--report), the [inference]
keys, the sales desk's job limit, sweep/diff/plan.

Each test is named after the finding it pins (C = calibrate) and fails on the code the red team attacked (main at
d3586b5). They call the library or ``tco.cli.main`` in-process; none starts a process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tco.cli import main
from tco.errors import InputError
from tco.sizing import benchmarks

ROOT = Path(__file__).resolve().parents[1]

HEAD = ("id,model,gpu,gpu_count,tp,nodes,precision,kv_precision,input_tokens,output_tokens,concurrency,max_batch,"
        "output_tokens_per_second,itl_ms,ttft_ms,exclude,source")
GOOD = ["A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src",
        "B,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,2048,128,,2048,3556.73,,,,src",
        "C,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,27000,,,,src"]
"""Three rows of the public set (INF01, INF02 and a third at 128/128): they fit in about a second with --no-loo."""
META = {"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "gpu_count": 1, "tp": 1, "precision": "fp8"}


def _csv(tmp_path: Path, extra: str = "", name: str = "bench.csv", head: str = HEAD, rows=GOOD) -> Path:
    p = tmp_path / name
    p.write_text(head + "\n" + "\n".join(rows) + "\n" + extra, encoding="utf-8")
    return p


def _problems(path: Path, meta=None) -> list[str]:
    with pytest.raises(InputError) as exc:
        benchmarks.read(path, meta)
    return [str(p) for p in exc.value.problems]


def _calibrate(capsys, *argv) -> tuple[int, str]:
    rc = main(["calibrate", *map(str, argv), "--no-loo"])
    return rc, capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# C1: -o and --report never replace a file calibrate reads, nor each other


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_c1_o_naming_the_benchmark_file_is_refused_and_the_file_kept(tmp_path, capsys, how):
    """`calibrate bench.csv -o bench.csv` wrote the calibration over the benchmark (exit 0): the measurements lost."""
    bench = _csv(tmp_path)
    before = bench.read_bytes()
    target = bench
    if how != "same":
        target = tmp_path / "other.csv"
        (os.symlink if how == "symlink" else os.link)(bench, target)
    rc, err = _calibrate(capsys, bench, "-o", target)
    assert rc == 2 and "[-o] names the benchmark file" in err and "would replace it" in err, err
    assert bench.read_bytes() == before


def test_c1_report_naming_the_benchmark_or_the_calibration_is_refused(tmp_path, capsys):
    bench = _csv(tmp_path)
    before = bench.read_bytes()
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml", "--report", bench)
    assert rc == 2 and "[--report] names the benchmark file" in err and bench.read_bytes() == before
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml", "--report", tmp_path / "c.toml")
    assert rc == 2 and "[--report] names the same file as -o" in err, err  # the report replaced the calibration
    assert not (tmp_path / "c.toml").exists()


def test_c1_o_naming_the_frameworks_file_is_refused(tmp_path, capsys):
    bench = _csv(tmp_path)
    fw = _csv(tmp_path, name="fw.csv", head=HEAD + ",framework", rows=[g + ",vllm" for g in GOOD])
    before = fw.read_bytes()
    rc, err = _calibrate(capsys, bench, "-o", fw, "--frameworks", fw)
    assert rc == 2 and "[-o] names --frameworks" in err and fw.read_bytes() == before


def test_c1_distinct_files_still_write_both(tmp_path, capsys):
    bench = _csv(tmp_path)
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml", "--report", tmp_path / "c.md")
    assert rc == 0, err
    assert (tmp_path / "c.toml").read_text(encoding="utf-8").startswith("# Serving calibration written")
    assert (tmp_path / "c.md").read_text(encoding="utf-8").startswith("# Serving calibration: bench.csv")


# ---------------------------------------------------------------------------------------------
# C2: a kv_precision (or a meta format's precision) the tool has no format for


def test_c2_an_unknown_kv_precision_is_located_not_a_keyerror(tmp_path, capsys):
    """`kv_precision = int4` passed the reader and ended in KeyError: 'int4' in the fit (a traceback, exit 1)."""
    bench = _csv(tmp_path, "D,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,int4,128,128,,2048,20000,,,,src\n")
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:5: [kv_precision] 'int4': use bf16")
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml")
    assert rc == 2 and "[kv_precision]" in err and not (tmp_path / "c.toml").exists()


def test_c2_an_unknown_precision_is_said_once(tmp_path):
    """An unknown `precision` with no kv_precision (which then takes the weights') is one problem, not two."""
    bench = _csv(tmp_path, "D,llama-3.1-8b,H100-SXM-80GB,1,1,1,int4,,128,128,,2048,20000,,,,src\n")
    assert [p.split("] ")[0] for p in _problems(bench)] == [f"{bench}:5: [precision"]


@pytest.mark.parametrize("given, key", [({"kv_precision": "int4"}, "kv_precision"),  # KeyError in the fit
                                        ({"kv_precision": ["x"]}, "kv_precision"),  # KeyError "['x']"
                                        ({"precision": 5}, "precision"),  # costed as bf16 in silence
                                        ({"precision": "int4"}, "precision")])  # (--precision int4) bf16 too
def test_c2_a_vllm_result_with_an_unknown_format_is_refused(tmp_path, given, key):
    p = tmp_path / "v.json"
    p.write_text(json.dumps({"completed": 10, "total_input_tokens": 1000, "total_output_tokens": 1000,
                             "output_throughput": 100, **META, **given}), encoding="utf-8")
    (msg,) = _problems(p)
    assert msg.startswith(f"{p}: [{key}]") and "use bf16" in msg, msg


def test_c2_the_formats_benchmarks_name_still_read(tmp_path):
    p = tmp_path / "v.json"
    for prec, kv, want in (("fp8_e4m3", None, ("fp8", "fp8")), ("bfloat16", "fp8", ("bf16", "fp8")),
                           ("NVFP4", None, ("fp4", "fp4")), ("fp16", "fp16", ("bf16", "bf16"))):
        extra = {"kv_precision": kv} if kv else {}
        p.write_text(json.dumps({"completed": 10, "total_input_tokens": 1000, "total_output_tokens": 1000,
                                 "output_throughput": 100, **META, "precision": prec, **extra}), encoding="utf-8")
        (r,) = benchmarks.read(p)
        assert (r.precision, r.kv_precision) == want


# ---------------------------------------------------------------------------------------------
# C3: a --frameworks file that is not UTF-8


def test_c3_a_frameworks_file_with_a_latin1_byte_is_read_as_the_benchmark_reader_reads_it(tmp_path, capsys):
    """benchmarks.read replaces a byte that is not UTF-8; the version column's second read was strict UTF-8: a
    UnicodeDecodeError traceback after the main fit."""
    from tco.cli.calibrate_frameworks import _versions

    fw = tmp_path / "fw.csv"
    fw.write_bytes((HEAD + ",framework,framework_version\n" + "\n".join(
        g.replace(",src", ",s\xe9c") + ",vllm,vllm-0.6" for g in GOOD) + "\n").encode("latin-1"))
    assert _versions(str(fw)) == {"A": "vllm-0.6", "B": "vllm-0.6", "C": "vllm-0.6"}
    rc, err = _calibrate(capsys, _csv(tmp_path), "-o", tmp_path / "c.toml", "--frameworks", fw)
    assert rc == 0, err  # 3 vllm rows: listed as not fitted (at least 6 needed), the main calibration written


# ---------------------------------------------------------------------------------------------
# C4–C8: the plain CSV's shape


def test_c4_two_rows_of_one_id_are_refused(tmp_path):
    """The report's errors are keyed by id: the first 'A' showed the second's +18.2 % (its own is -3.6 %) and the
    median counted it twice (exit 0)."""
    bench = _csv(tmp_path, "A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,20000,,,,src\n")
    assert _problems(bench) == [f"{bench}:5: [id] 'A' is the id of line 2 too: give each row its own id"]


def test_c4_a_row_without_id_takes_its_line_and_may_not_clash(tmp_path):
    bench = _csv(tmp_path, "row6,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,20000,,,,src\n"
                 ",llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,64,,2048,20000,,,,src\n")
    assert _problems(bench) == [f"{bench}:6: [id] 'row6' is the id of line 5 too: give each row its own id"]


def test_c5_report_cells_are_markdown_text_not_html_or_new_cells(tmp_path, capsys):
    """An id `D|<img …>` and an exclude reason `<script>…| x` went into the report raw: HTML where the Markdown is
    rendered, and a pipe that split the row into more cells than the header."""
    from tco.cli.calibrate_frameworks import md_cell

    assert md_cell("a|<b>&\nc`") == "a\\|&lt;b&gt;&amp; c'"
    assert md_cell("D\x1b]0;PWNED\x07") == "D\\x1b]0;PWNED\\x07"  # written raw into the --report file
    bench = _csv(tmp_path, "D|<img src=x onerror=alert(1)>,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,"
                 "20000,,,<script>alert(1)</script> | x,src\n", name="<b>.csv")
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml", "--report", tmp_path / "c.md")
    assert rc == 0, err
    md = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert "<" not in md and ">" not in md and md.startswith("# Serving calibration: &lt;b&gt;.csv")
    (row,) = [ln for ln in md.splitlines() if ln.startswith("| D")]
    header = next(ln for ln in md.splitlines() if ln.startswith("| id |"))
    cells = lambda ln: len(ln.replace("\\|", "").split("|"))  # noqa: E731
    assert cells(row) == cells(header)


def test_c6_a_row_with_more_cells_than_the_header_is_refused(tmp_path):
    """An unquoted thousands separator (max_batch 2,048) shifted the row: 24 tokens/s measured, the fit then failed
    far from the row ('interconnect_share 4.1e-24 is below the minimum share') or fitted on it."""
    bench = _csv(tmp_path, "D,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2,048,20000,,,,src\n")
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:5: 18 cells where the header has 17") and '"2,048"' in p


def test_c7_a_column_twice_in_the_header_is_refused(tmp_path):
    """csv.DictReader keeps the last column of a name: every row's id became the second column's 'Z'."""
    bench = _csv(tmp_path, head=HEAD + ",id", rows=[g + ",Z" for g in GOOD])
    assert _problems(bench) == [f"{bench}:1: [id] this column appears more than once in the header; keep one"]


def test_c8_a_byte_order_mark_keeps_the_first_column(tmp_path):
    """A spreadsheet's "CSV UTF-8" starts with U+FEFF: the first column read as '\\ufeffid', every id lost (rows
    named row2, row3 …) or, with `model` first, 'unknown benchmark format'."""
    bench = tmp_path / "bom.csv"
    bench.write_text("\ufeff" + HEAD + "\n" + "\n".join(GOOD) + "\n", encoding="utf-8")
    assert [r.id for r in benchmarks.read(bench)] == ["A", "B", "C"]
    first = tmp_path / "model_first.csv"
    first.write_text("\ufeffmodel,gpu,gpu_count,input_tokens,output_tokens,output_tokens_per_second\n"
                     "llama-3.1-8b,H100-SXM-80GB,1,128,128,27000\n", encoding="utf-8")
    assert benchmarks.read(first)[0].model == "llama-3.1-8b"


def test_c9_an_unknown_mode_is_refused(tmp_path):
    """`mode = EPX` (or 'dep', 'pp') was read as tensor parallel in silence: only 'ep' changes the layout."""
    bench = _csv(tmp_path, head=HEAD + ",mode", rows=[g + "," for g in GOOD]
                 + ["D,llama-3.1-8b,H100-SXM-80GB,8,8,1,fp8,fp8,128,128,,2048,20000,,,,src,EPX"])
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:5: [mode] 'epx': use 'ep'")
    ok = _csv(tmp_path, name="ok.csv", head=HEAD + ",mode", rows=[g + ",tp" for g in GOOD]
              + ["D,llama-3.1-8b,H100-SXM-80GB,8,8,1,fp8,fp8,128,128,,2048,20000,,,,src,EP"])
    assert [r.mode for r in benchmarks.read(ok)] == ["tp", "tp", "tp", "ep"]


def test_c10_frameworks_rows_without_a_framework_are_located(tmp_path, capsys):
    """It said "unknown framework(s) ''" with no line."""
    fw = _csv(tmp_path, name="fw.csv", head=HEAD + ",framework", rows=[GOOD[0] + ",vllm", GOOD[1] + ","])
    rc, err = _calibrate(capsys, _csv(tmp_path), "-o", tmp_path / "c.toml", "--frameworks", fw)
    assert rc == 2 and f"{fw}:3: [framework] row B: no framework named" in err, err
    assert not (tmp_path / "c.toml").exists()


def test_c11_a_report_that_cannot_be_written_leaves_no_calibration(tmp_path, capsys):
    """`--report /proc/self/r.md` (a folder that exists, a file that cannot be made there): the calibration was
    written first, then exit 2 for the report: a new calibration file behind a failed command (or an old one
    replaced)."""
    rc, err = _calibrate(capsys, _csv(tmp_path), "-o", tmp_path / "c.toml", "--report", "/proc/self/r.md")
    assert rc == 2 and "/proc/self/r.md" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.csv"]


# ---------------------------------------------------------------------------------------------
# W7: the sales desk's pool, replaced once per stuck pool


class _Proc:
    def __init__(self):
        self.ended = False

    def terminate(self):
        self.ended = True


class _Pool:
    def __init__(self):
        self._processes = {1: _Proc(), 2: _Proc()}
        self.shut = None

    def shutdown(self, wait=True, cancel_futures=False):
        self.shut = (wait, cancel_futures)


def test_w7_a_second_job_stuck_on_a_replaced_pool_leaves_the_new_pool_alone():
    """Two jobs stuck on one pool (two tabs asking for the same large plan search): the first timeout replaced the
    pool; the second replaced the new one too, terminating its processes and the jobs other users had started
    there ('A process in the process pool was terminated abruptly')."""
    from tco.web import app as webapp

    old, made = _Pool(), []

    def renew():
        made.append(_Pool())
        return made[-1]

    desk = webapp.Desk({}, None, old, ("testserver",), renew=renew)
    webapp._replace_pool(desk, old)  # the first stuck job
    webapp._replace_pool(desk, old)  # the second one, on the same (old) pool
    assert len(made) == 1 and desk.pool is made[0] and not any(p.ended for p in made[0]._processes.values())
    assert all(p.ended for p in old._processes.values())


def test_w7_a_job_failing_on_a_pool_already_replaced_does_not_replace_the_new_one():
    """The other job on the stuck pool gets BrokenProcessPool: it renewed the pool again, dropping the pool the first
    timeout had just made (with any job running there) without shutting it down."""
    import asyncio
    from concurrent.futures.process import BrokenProcessPool

    from tco.web import app as webapp

    from concurrent.futures import Future

    pending: Future = Future()

    class Broken:
        def submit(self, fn, *args):
            return pending

    fresh = _Pool()
    desk = webapp.Desk({}, None, Broken(), ("testserver",), renew=lambda: _Pool())

    async def job():
        got = asyncio.ensure_future(webapp._in_worker(desk, len, "x"))
        await asyncio.sleep(0)  # the job is submitted to the (stuck, soon broken) pool
        desk.pool = fresh  # the first timeout's _replace_pool, while this job waits
        pending.set_exception(BrokenProcessPool("A process in the process pool was terminated abruptly"))
        return await got

    got = asyncio.run(job())
    assert "terminated abruptly" in got["problems"][0]["message"] and desk.pool is fresh


# ---------------------------------------------------------------------------------------------
# K3: a [framework.<name>] table of a calibration file with a misspelt parameter


def test_k3_a_misspelt_framework_parameter_is_an_error_not_the_main_fit(tmp_path, capsys):
    """`[framework.vllm] bandwith_share = 0.05` was dropped in silence: the run sized on the main fit and the JSON
    called it "…, vllm fit"."""
    from test_robustness import SMALL_TEXT, sub, write

    cal = (ROOT / "tco" / "catalog" / "data" / "calibration_default.toml").read_text(encoding="utf-8")
    main_part = cal[:cal.index("[framework.")]
    (tmp_path / "c.toml").write_text(main_part + "\n[framework.vllm]\nbandwith_share = 0.05\n", encoding="utf-8")
    s = write(tmp_path, sub(SMALL_TEXT, "storage_gb = 200\n",
                            'storage_gb = 200\ncalibration = "c.toml"\nframework = "vllm"\n'))
    assert main(["validate", str(s)]) == 2
    err = capsys.readouterr().err
    assert "[framework.vllm.bandwith_share] unknown key" in err and "c.toml" in err, err
    (tmp_path / "c.toml").write_text(main_part + "\n[framework.vllm]\nbandwidth_share = 0.5\nrows_fitted = 9\n"
                                     'versions = "vllm-0.6"\n', encoding="utf-8")
    assert main(["validate", str(s)]) == 0, capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# I1: speculative decoding keys without speculative decoding


def test_i1_speculative_keys_without_mtp_are_a_notice(tmp_path):
    """`speculative_draft_tokens = 4` and `speculative_acceptance_share = 1.0` without `speculative = "mtp"` validated
    and ran in silence, sized without speculative decoding (as fx history keys under another model are noticed)."""
    from test_robustness import SMALL_TEXT, sub, write

    from tco import api
    from tco.scenario import plausibility

    s = write(tmp_path, sub(SMALL_TEXT, "storage_gb = 200\n",
                            "storage_gb = 200\nspeculative_draft_tokens = 4\nspeculative_acceptance_share = 1.0\n"))
    got = [n for n in plausibility(api.load(s).scenario) if n.code == "speculative_keys_ignored"]
    assert [n.params for n in got] == [{"keys": "speculative_draft_tokens, speculative_acceptance_share"}]
    assert not [n for n in plausibility(api.load(write(tmp_path, SMALL_TEXT, "b.toml")).scenario)
                if n.code == "speculative_keys_ignored"]


def test_c12_a_catalog_dir_that_is_no_folder_names_the_option(tmp_path, capsys):
    """`calibrate … --catalog-dir bench.csv` said `[scenario.catalog_dir]`, a key of no scenario, after reading the
    catalog; it names --catalog-dir now, before anything is read."""
    bench = _csv(tmp_path)
    for where, says in ((bench, "not a folder"), (tmp_path / "none", "folder not found")):
        rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml", "--catalog-dir", where)
        assert rc == 2 and f"{where}: [--catalog-dir] {says}" in err, err


# ---------------------------------------------------------------------------------------------
# C13: MTP columns


MTP_HEAD = HEAD + ",draft_tokens,acceptance_share"
MTP_GOOD = [g + ",," for g in GOOD]


@pytest.mark.parametrize("cells, missing", [("3,", "acceptance_share"), (",0.8", "draft_tokens")])
def test_c13_an_mtp_row_needs_both_its_columns(tmp_path, cells, missing):
    """3 draft tokens without an acceptance share read as acceptance 0 (drafts paid for nothing); an acceptance share
    without draft tokens was dropped."""
    bench = _csv(tmp_path, f"D,deepseek-r1,H200-SXM-141GB,8,8,1,fp8,fp8,1024,2048,1,2048,158,,,,src,{cells}\n",
                 head=MTP_HEAD, rows=MTP_GOOD)
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:5: [{missing}] an MTP run needs both draft_tokens and acceptance_share"), p


def test_c13_mtp_rows_on_a_model_without_an_mtp_module_are_refused(tmp_path, capsys):
    """Draft tokens on Llama 3.1 8B (an EAGLE run, say) were fitted as MTP: a draft layer the model does not have and
    its accepted tokens credited (the calibration written, exit 0); a scenario refuses speculative = "mtp" there."""
    row = "D,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,20000,,,,src,3,0.8\n"
    bench = _csv(tmp_path, row, head=MTP_HEAD, rows=MTP_GOOD)
    rc, err = _calibrate(capsys, bench, "-o", tmp_path / "c.toml")
    assert rc == 2 and f"{bench}:5: [draft_tokens] row 'D': MTP draft tokens on 'llama-3.1-8b'" in err, err
    assert "deepseek-r1" in err and not (tmp_path / "c.toml").exists()
    fw = _csv(tmp_path, row.replace("src,3,0.8", "src,3,0.8,vllm"), name="fw.csv", head=MTP_HEAD + ",framework",
              rows=[g + ",vllm" for g in MTP_GOOD])
    rc, err = _calibrate(capsys, _csv(tmp_path, name="main.csv"), "-o", tmp_path / "c.toml", "--frameworks", fw)
    assert rc == 2 and f"{fw}:5: [draft_tokens]" in err, err


# ---------------------------------------------------------------------------------------------
# T1, T2: the training calibration's tables in a catalog overlay (defaults.toml [training.*])


DEFAULTS = (ROOT / "tco" / "catalog" / "data" / "defaults.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("old, new, key", [
    ("reference = ", "reference = 0", "training.width.reference"),  # mfu inf: exit 1 "internal error"
    ("k = ", "k = nan", "training.width.k"),  # gpu_hours nan: exit 1 "internal error"
    ("k = ", "k = 1e6", "training.width.k"),  # OverflowError traceback
    ("hopper = ", "hopper = 0", "training.generation_factor.hopper"),  # OverflowError traceback
    ("hopper = ", 'hopper = "x"', "training.generation_factor.hopper"),  # ValueError traceback
    ("fp8 = ", "fp8 = 5", "training.mfu_by_precision.fp8"),  # an MFU of 5: a fifth of the GPU-hours, exit 0
    ("share = ", "share = 2", "training.fp4.share"),
    ("a = ", "a = 0", "training.moe.a"),
    ("low_precision = ", "low_precision = -1", "training.moe.low_precision"),
    ("uncalibrated_generations = ", 'uncalibrated_generations = "ada"', "training.uncalibrated_generations"),
])
def test_t1_t2_a_training_table_of_an_overlay_is_checked_with_its_line(tmp_path, old, new, key):
    """`old` is the start of the key's line in the table `key` names (the shipped values move with each refit)."""
    from tco.catalog import load_catalog

    text, line = line_replaced(DEFAULTS, key, old, new)
    (tmp_path / "defaults.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_catalog(str(tmp_path))
    (p,) = exc.value.problems
    assert (p.key, p.line) == (key, line) and p.file.endswith("defaults.toml"), str(p)


def line_replaced(text: str, key: str, start: str, new: str) -> tuple[str, int]:
    """`text` with the first line starting with `start` inside the table of dotted `key` replaced by `new`, and that
    line's number (1-based)."""
    table = "[" + key.rsplit(".", 1)[0] + "]"
    lines = text.splitlines(keepends=True)
    inside = False
    for i, ln in enumerate(lines):
        if ln.startswith("["):
            inside = ln.strip() == table
        elif inside and ln.startswith(start):
            lines[i] = new + "\n"
            return "".join(lines), i + 1
    raise AssertionError(f"{start!r} not in {table}")


def test_t1_the_shipped_training_tables_pass(tmp_path):
    from tco.catalog import load_catalog

    (tmp_path / "defaults.toml").write_text(DEFAULTS, encoding="utf-8")
    assert load_catalog(str(tmp_path)).defaults["training"]["width"]["reference"] == 8192


def sub_once(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_t2_a_catalog_training_mfu_above_one_is_refused(tmp_path, capsys):
    """`[training.generation_factor] ada = 3` (within the factor bound): base bf16 × 3 (0.421 × 3 = 1.26 before the width
    factor when found) gave an MFU of 1.11 in the JSON (exit 0), fewer GPU-hours than the L4's peak allows."""
    from test_robustness import SMALL_TEXT, sub, write

    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "defaults.toml").write_text(sub_once(DEFAULTS, "ada = 1.0", "ada = 3"), encoding="utf-8")
    s = write(tmp_path, sub(SMALL_TEXT, 'locale = "pt-BR"', 'locale = "pt-BR"\ncatalog_dir = "cat"'))
    assert main(["validate", str(s)]) == 2
    err = capsys.readouterr().err
    import tomllib

    bf16 = tomllib.loads(DEFAULTS)["training"]["mfu"]  # the BF16 Hopper cell
    assert "[options[0].training_offer]" in err and f"training MFU for L4 at bf16 is {bf16 * 3:.2f}" in err, err
    assert "more than 1" in err


# ---------------------------------------------------------------------------------------------
# N1: interconnect.csv overlay: a server's scale-out network


@pytest.mark.parametrize("gbps", ["-5", "0", "1e-300", "1e300"])
def test_n1_a_scale_out_network_out_of_bounds_is_refused(tmp_path, gbps):
    """`scale_out_gbps = -5` for p5.48xlarge costed DeepSeek-R1 bf16 across servers at R$ 48.9 M instead of 43.6 M
    (exit 0); 1e-300 gave 0 tokens/s and a message about the users' speed; 0 read as 'no cluster network'. The bound is
    a benchmark row's network_gbps's: 1–100,000 Gb/s."""
    from tco.catalog import load_catalog

    (tmp_path / "interconnect.csv").write_text("key,scale_out_gbps,status,source,as_of\n"
                                               f"aws/*/p5.48xlarge,{gbps},listed,src,2026-01-01\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_catalog(str(tmp_path))
    (p,) = exc.value.problems
    assert (p.key, p.line) == ("scale_out_gbps", 2) and "≥ 1 and ≤ 100000" in p.message


def test_c14_a_plain_csv_quoting_trtllm_bench_is_read_as_a_plain_csv(tmp_path):
    """A `conditions` cell saying where the numbers came from ("the PERFORMANCE OVERVIEW section of trtllm-bench") made
    the file a trtllm-bench report: `[average input length (tokens)] missing line in the trtllm-bench report`."""
    bench = _csv(tmp_path, head=HEAD + ",conditions",
                 rows=[g + ',"from the PERFORMANCE OVERVIEW of trtllm-bench; Request Throughput (req/sec) 12"'
                       for g in GOOD])
    assert [r.id for r in benchmarks.read(bench)] == ["A", "B", "C"]


# ---------------------------------------------------------------------------------------------
# S9: a sweep axis naming a file


def test_s9_an_axis_file_name_is_read_from_the_base_scenarios_folder(tmp_path):
    """`[[axes]] key = "inference.calibration", values = ["cal.toml"]`, the base's own value: the base's was read from
    its folder (sub/cal.toml), the axis's from the folder the sweep ran in (a failed case, or another file of that
    name used in silence)."""
    from tco.sweep.case import Base, case_data

    base = Base({"inference": {"calibration": str(tmp_path / "sub" / "cal.toml")}}, None, str(tmp_path / "sub" / "b.toml"),
                (("inference", "calibration"),), ("inference.calibration",), ("tco",))
    assert case_data(base, ("cal.toml",))["inference"]["calibration"] == str((tmp_path / "sub" / "cal.toml").resolve())
    assert case_data(base, ("/etc/x.toml",))["inference"]["calibration"] == "/etc/x.toml"


# ---------------------------------------------------------------------------------------------
# W8: serve --port past the last port


def test_w8_a_port_past_65535_is_an_argument_error(capsys):
    """`tco serve --port 99999` started the pool, then `OverflowError: bind(): port must be 0-65535` (a traceback)."""
    assert main(["serve", "--port", "99999"]) == 2
    assert "argument --port: must be 65535 or less, got 99999" in capsys.readouterr().err


def test_c15_a_framework_version_is_bounded_like_an_id(tmp_path):
    """Twelve vLLM rows with 100,000-character `framework_version` cells: calibrate wrote a 1,200,781-byte calibration
    (exit 0), which every scenario naming it then refused (the limit is 1,000,000 bytes)."""
    bench = _csv(tmp_path, head=HEAD + ",framework,framework_version",
                 rows=[GOOD[0] + ",vllm," + "v" * 201, GOOD[1] + ",vllm,vllm-0.6"])
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:2: [framework_version] 201 characters: at most 200"), p


def test_c16_the_version_of_a_row_without_id_is_kept(tmp_path):
    """Rows without an id are named row<line> by the reader, but their versions were keyed '' (the last one's): the
    [framework.<name>] versions of a file without ids listed none."""
    from tco.cli.calibrate_frameworks import _versions

    f = tmp_path / "fw.csv"
    f.write_text("id,model,framework_version\n,m,vllm-0.6\nX,m,vllm-0.8\n,m,vllm-0.9\n", encoding="utf-8")
    assert _versions(str(f)) == {"row2": "vllm-0.6", "X": "vllm-0.8", "row4": "vllm-0.9"}


# ---------------------------------------------------------------------------------------------
# P2: "no plan fits" names the targets


def test_p2_no_plan_fits_names_the_time_to_first_token_it_could_not_meet(tmp_path):
    """Llama 3.1 405B on p5 with time_to_first_token_seconds = 0.05 (the quickest answers in 0.336 s): `tco plan` said
    "no offer … can serve the model at the per-user speed asked (see the skipped offers with `python -m tco plan`)":
    the wrong target, and the command that had just said it."""
    from test_robustness import SMALL_TEXT, sub

    from tco import api
    from tco.plan.precheck import no_fit

    text = sub(SMALL_TEXT, "storage_gb = 200\n", "storage_gb = 200\ntime_to_first_token_seconds = 0.05\n")
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    inp = api.load(tmp_path / "s.toml")
    p = no_fit(inp.scenario, str(tmp_path / "s.toml"), inp.key_lines)
    assert p.key == "plan" and "at 15 tokens/s per user and a first token within 0.05 s; lower the targets" in p.message
    assert "python -m tco plan" not in p.message


# ---------------------------------------------------------------------------------------------
# F1: a file name ending with a slash


def test_f1_a_target_ending_with_a_slash_names_a_folder(tmp_path, capsys):
    """`calibrate … -o newdir/` and `plan … --json newdir/` (a folder meant, none there yet) wrote a file named newdir:
    realpath and pathlib drop the slash."""
    from tco.files import target_problem

    assert "ends with a slash" in (target_problem(str(tmp_path / "newdir") + "/") or "")
    rc, err = _calibrate(capsys, _csv(tmp_path), "-o", str(tmp_path / "newdir") + "/")
    assert rc == 2 and "[-o] ends with a slash, so it names a folder" in err, err
    assert not (tmp_path / "newdir").exists()


def test_c17_a_network_on_a_one_server_row_is_refused(tmp_path):
    """`network_gbps = 800` on a row whose `nodes` was left at 1 was dropped in silence (the row then costed as one
    server: a forgotten `nodes = 2`)."""
    bench = _csv(tmp_path, head=HEAD + ",network_gbps", rows=[g + "," for g in GOOD]
                 + ["D,llama-3.1-8b,H100-SXM-80GB,2,1,,fp8,fp8,128,128,,2048,20000,,,,src,800"])
    (p,) = _problems(bench)
    assert p.startswith(f"{bench}:5: [network_gbps] is read only for a replica over several servers"), p
    ok = _csv(tmp_path, name="ok.csv", head=HEAD + ",network_gbps", rows=[g + "," for g in GOOD]
              + ["D,llama-3.1-8b,H100-SXM-80GB,2,1,2,fp8,fp8,128,128,,2048,20000,,,,src,800"])
    assert benchmarks.read(ok)[-1].network_gbps == 800
