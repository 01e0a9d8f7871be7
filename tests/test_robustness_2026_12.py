"""Regression tests for the robustness review of 2026-12-01 (reviews/2026-12-robustness.md: H1, M1–M8, L1–L14).

Each test is named after the defect it pins and fails on the code the review ran (commit 0f48d84). The commands run
in-process through ``tco.cli.main``; only the signal tests start real processes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from tco.cli import main

from test_robustness import ROOT, SMALL, SMALL_TEXT, sub, write  # the 2026-11 file's helpers

FAST = ["--quiet", "--formats", "json", "--no-sensitivity", "--paths", "200"]


# ---------------------------------------------------------------------------------------------
# H1: `plan --json PATH` writes only regular files, keeps the mode of the one it replaces


@pytest.fixture
def no_search(monkeypatch):
    """The plan search replaced by a failure: a refused target must stop the command before it."""
    from tco import plan

    def refuse(*a, **k):
        raise AssertionError("the search ran before the --json target was checked")

    monkeypatch.setattr(plan, "search", refuse)


def test_h1_plan_json_refuses_a_fifo(tmp_path, capsys, no_search):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    assert main(["plan", str(SMALL), "--json", str(fifo)]) == 2
    assert "a FIFO (named pipe), not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO


def test_h1_plan_json_refuses_a_symlink_to_a_device(tmp_path, capsys, no_search):
    """`--json /dev/stdout` is a symlink to /proc/self/fd/1; under pytest fd 1 is a capture file, so /dev/null
    stands for the device it names on a terminal."""
    link = tmp_path / "out.json"
    link.symlink_to("/dev/null")
    assert main(["plan", str(SMALL), "--json", str(link)]) == 2
    assert "a character device (/dev/null), not a regular file" in capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == "/dev/null"


def test_h1_plan_json_refuses_a_device_node(tmp_path, capsys, no_search):
    dev = tmp_path / "nulldev"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    assert main(["plan", str(SMALL), "--json", str(dev)]) == 2
    assert "a character device, not a regular file" in capsys.readouterr().err
    assert stat.S_ISCHR(dev.lstat().st_mode)


def test_h1_plan_json_keeps_the_mode_of_the_file_it_replaces_and_follows_a_file_symlink(tmp_path, capsys):
    js = tmp_path / "plan.json"
    js.write_text("old", encoding="utf-8")
    js.chmod(0o644)
    link = tmp_path / "latest.json"
    link.symlink_to(js.name)
    assert main(["plan", str(SMALL), "--json", str(link)]) == 0
    assert stat.S_IMODE(js.stat().st_mode) == 0o644  # mkstemp's 0600 was kept before
    assert link.is_symlink() and js.read_text(encoding="utf-8").startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "plan.json"]


def test_h1_a_new_file_gets_the_umask_mode(tmp_path):
    from tco.files import write_whole

    old = os.umask(0o027)
    try:
        write_whole(tmp_path / "new.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~0o027  # 0640


def test_h1_run_refuses_a_fifo_where_an_output_file_goes(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "assistant_8b_l4.json")
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 2
    assert "a FIFO (named pipe), not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO((out / "assistant_8b_l4.json").lstat().st_mode)
    assert [p.name for p in out.iterdir()] == ["assistant_8b_l4.json"]


def test_h1_run_keeps_the_mode_of_the_files_it_replaces(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    (out / "assistant_8b_l4.json").chmod(0o640)
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 0
    assert stat.S_IMODE((out / "assistant_8b_l4.json").stat().st_mode) == 0o640


# ---------------------------------------------------------------------------------------------
# M8: a full disk while a writer runs is one line naming the path and the cause, exit 1, nothing half-written


def _full_disk(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_m8_full_disk_in_the_workbook_is_exit_1_with_the_folder_and_the_cause(tmp_path, capsys, monkeypatch):
    import xlsxwriter.workbook

    def full(self, *a, **k):
        from xlsxwriter.exceptions import FileCreateError

        raise FileCreateError(OSError(errno.ENOSPC, "No space left on device", str(self.filename)))

    monkeypatch.setattr(xlsxwriter.workbook.Workbook, "close", full)
    out = tmp_path / "out"
    args = ["run", str(SMALL), "-o", str(out), "--quiet", "--formats", "json,xlsx", "--no-sensitivity", "--paths", "200"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err == f"error: {out}: No space left on device\n"
    assert not out.exists()  # the folder this run made is removed again: nothing half-written


def test_m8_full_disk_in_plan_json_is_exit_1_and_the_old_file_stays(tmp_path, capsys, monkeypatch):
    js = tmp_path / "plan.json"
    js.write_text("old", encoding="utf-8")
    monkeypatch.setattr(os, "replace", _full_disk)
    assert main(["plan", str(SMALL), "--json", str(js)]) == 1
    assert capsys.readouterr().err.endswith(f"error: {js}: No space left on device\n")
    assert js.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == ["plan.json"]


# ---------------------------------------------------------------------------------------------
# L5: every OSError of the output folder names -o (or the --json file), never a hidden temporary name


@pytest.mark.parametrize("case", ["dangling", "loop"])
def test_l5_symlink_output_folder_errors_name_the_folder_not_the_temp_folder(tmp_path, capsys, case):
    target = tmp_path / "o"
    if case == "dangling":
        target.symlink_to(tmp_path / "missing")
    else:
        (tmp_path / "loop2").symlink_to(target)
        target.symlink_to(tmp_path / "loop2")
    assert main(["run", str(SMALL), "-o", str(target)] + FAST) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {target}: ") and ".tco-" not in err


def test_l5_read_only_file_system_names_the_output_folder(tmp_path, capsys, monkeypatch):
    from tco import output

    def erofs(prefix, dir):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(dir) / f"{prefix}abcd"))

    monkeypatch.setattr(output.tempfile, "mkdtemp", erofs)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["run", str(SMALL), "-o", str(out)] + FAST) == 2
    assert capsys.readouterr().err == f"error: {out}: Read-only file system\n"


def test_l5_plan_json_in_an_unwritable_folder_names_the_file(tmp_path, capsys, monkeypatch):
    import tempfile

    def erofs(prefix, suffix, dir):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(dir) / f"{prefix}xyz{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", erofs)
    js = tmp_path / "x.json"
    assert main(["plan", str(SMALL), "--json", str(js)]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"error: {js}: Read-only file system\n") and ".tmp" not in err


# ---------------------------------------------------------------------------------------------
# M7: escape sequences in keys, [plan] keys and file names never reach the terminal raw

ESC = "\x1b]0;PWNED\x07\x1b[2J"
ESC_TOML = "\\u001b]0;PWNED\\u0007\\u001b[2J"


def _no_raw_escape(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;PWNED\\x07\\x1b[2J" in text


def test_m7_an_unknown_key_with_escapes_is_shown_not_sent(tmp_path, capsys):
    f = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", f'[scenario]\n"{ESC_TOML}" = 1\n'))
    assert main(["validate", str(f)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_a_plan_storage_key_with_escapes_is_shown_not_sent(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT + f'\n[plan]\nstorage_usd_per_gb_month = {{ "{ESC_TOML}" = 0.02 }}\n')
    assert main(["validate", str(f)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_a_file_name_with_escapes_is_shown_not_sent_by_validate_and_errors(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT, f"f{ESC}.toml")
    assert main(["validate", str(f)]) == 0
    _no_raw_escape(capsys.readouterr().out)
    g = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", "[scenario]\nnope = 1\n"), f"g{ESC}.toml")
    assert main(["validate", str(g)]) == 2
    _no_raw_escape(capsys.readouterr().err)


def test_m7_the_batch_summary_shows_escapes_in_file_names(tmp_path, capsys):
    g = write(tmp_path, sub(SMALL_TEXT, "[scenario]\n", "[scenario]\nnope = 1\n"), f"g{ESC}.toml")
    assert main(["batch", str(g), "-o", str(tmp_path / "out"), "--jobs", "1", "--formats", "json"]) == 2
    _no_raw_escape(capsys.readouterr().out)


def test_m7_printable_shows_bidi_overrides_and_keeps_tabs_newlines_and_accents():
    from tco.errors import printable

    assert printable("a\u202eb\tç\nd\x9be") == "a\\u202eb\tç\nd\\x9be"


# ---------------------------------------------------------------------------------------------
# M1–M3, L7, L8: calibrate's input edge

M = ["--model", "llama-3.1-8b", "--gpu", "H100-SXM-80GB", "--gpu-count", "1", "--tp", "1", "--precision", "fp8"]
CSV_HEAD = ("id,model,gpu,gpu_count,tp,nodes,precision,kv_precision,input_tokens,output_tokens,concurrency,max_batch,"
            "output_tokens_per_second,itl_ms,ttft_ms,exclude,source\n")
GOOD_ROWS = ("A,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src\n"
             "B,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,2048,128,,2048,3556.73,,,,src\n"
             "C,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,128,,2048,27000,,,,src\n")
G = "G,llama-3.1-8b,H100-SXM-80GB,1,1,1,fp8,fp8,128,2048,,2048,21109.38,,,,src\n"
COLS = CSV_HEAD.strip().split(",")


def row_g(**changes) -> str:
    vals = dict(zip(COLS, G.strip().split(","), strict=True)) | changes
    return ",".join(str(vals[c]) for c in COLS) + "\n"


def calibrate(tmp_path, capsys, name: str, text: str | bytes, *extra: str) -> tuple[int, str]:
    f = tmp_path / name
    f.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    code = main(["calibrate", str(f), "--no-loo", "-o", str(tmp_path / "cal.toml"), *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("name,text,key", [
    ("deep.json", "[" * 100_000 + "]" * 100_000, ""),
    ("bigint.json", '{"completed": ' + "9" * 5000 + ', "total_input_tokens": 1, "total_output_tokens": 1, '
     '"output_throughput": 1}', "completed"),
    ("z.json", '{"completed": 0, "total_input_tokens": 100, "total_output_tokens": 100, "output_throughput": 100}',
     "completed"),
    ("s.json", '{"completed": 10, "total_input_tokens": "100", "total_output_tokens": "x", "output_throughput": 100}',
     "total_output_tokens"),
    ("n.json", "42", ""),
    ("null.json", "null", ""),
])
def test_m1_calibrate_hostile_json_is_a_located_exit_2(tmp_path, capsys, name, text, key):
    code, err = calibrate(tmp_path, capsys, name, text, *M)
    assert code == 2 and f"{tmp_path / name}:" in err
    assert (f"[{key}]" in err) if key else "not valid JSON" in err or "not a vLLM" in err


@pytest.mark.parametrize("key,value", [("gpu_count", "inf"), ("gpu_count", "nan"), ("nodes", "0.5"),
                                       ("id", "x" * 200_000)])
def test_m1_calibrate_hostile_csv_rows_are_a_located_exit_2(tmp_path, capsys, key, value):
    code, err = calibrate(tmp_path, capsys, "b.csv", CSV_HEAD + GOOD_ROWS + row_g(**{key: value}))
    assert code == 2 and "b.csv:5:" in err and (key == "id" or f"[{key}]" in err)
    assert not (tmp_path / "cal.toml").exists()


@pytest.mark.parametrize("changes", [{"output_tokens_per_second": "nan"}, {"output_tokens_per_second": "inf"},
                                     {"input_tokens": "inf"}, {"input_tokens": "nan", "output_tokens": "nan"},
                                     {"gpu_count": "-8", "tp": "8"}])
def test_m2_calibrate_refuses_nan_inf_and_negatives_at_read_time_in_well_under_a_second(tmp_path, capsys, changes):
    import time

    t0 = time.perf_counter()
    code, err = calibrate(tmp_path, capsys, "nan.csv", CSV_HEAD + GOOD_ROWS + row_g(**changes))
    assert code == 2 and time.perf_counter() - t0 < 5.0  # was 74–129 s of Nelder–Mead before "did not converge"
    assert "nan.csv:5:" in err and any(f"[{k}]" in err for k in changes)


def test_m2_calibrate_vllm_1e999_is_refused(tmp_path, capsys):
    text = '{"completed": 10, "total_input_tokens": 1e999, "total_output_tokens": 100, "output_throughput": 100}'
    code, err = calibrate(tmp_path, capsys, "v.json", text, *M)
    assert code == 2 and "[total_input_tokens] must be a finite number" in err


def test_m2_the_fit_is_bounded_in_time(tmp_path, capsys, monkeypatch):
    from tco.cli import calibrate as calibrate_report

    monkeypatch.setattr(calibrate_report, "MAX_FIT_SECONDS", 0.01)
    code, err = calibrate(tmp_path, capsys, "b.csv", CSV_HEAD + GOOD_ROWS)
    assert code == 2 and "the fit did not finish in 0.01 s" in err
    assert not (tmp_path / "cal.toml").exists()


def test_m3_calibrate_refuses_a_file_over_the_size_cap_before_reading_it(tmp_path, capsys, monkeypatch):
    from tco.sizing import benchmarks

    monkeypatch.setattr(benchmarks, "MAX_BENCHMARK_BYTES", 10_000)
    code, err = calibrate(tmp_path, capsys, "big.csv", CSV_HEAD + G * 200)
    assert code == 2 and "the limit is 10,000" in err


def test_m3_calibrate_refuses_more_rows_than_the_cap_with_the_line(tmp_path, capsys):
    from tco.sizing import benchmarks

    n = benchmarks.MAX_BENCHMARK_ROWS
    code, err = calibrate(tmp_path, capsys, "many.csv", CSV_HEAD + G * (n + 1))
    assert code == 2 and f"many.csv:{n + 2}:" in err and f"more than {n:,} benchmark rows" in err


def test_l7_calibrate_refuses_absurd_rows(tmp_path, capsys):
    absurd = row_g(gpu_count="1e15", tp="1e15", input_tokens="1e15", output_tokens=128, output_tokens_per_second=5000)
    code, err = calibrate(tmp_path, capsys, "b.csv", CSV_HEAD + GOOD_ROWS + absurd)
    assert code == 2 and "[gpu_count] must be at most 65,536" in err and "[tp] must be at most 1,024" in err
    assert "[input_tokens] must be positive and at most 10,000,000" in err
    assert not (tmp_path / "cal.toml").exists()


def test_l7_calibrate_refuses_a_row_past_the_context_window(tmp_path, capsys):
    code, err = calibrate(tmp_path, capsys, "b.csv", CSV_HEAD + GOOD_ROWS + row_g(input_tokens=200_000))
    assert code == 2 and "b.csv:5: [input_tokens] row G: 200,000 + 2,048 tokens are more than the context window" in err


def test_l7_calibrate_refuses_a_row_whose_model_cannot_fit(tmp_path, capsys):
    big = row_g(model="llama-3.1-405b", precision="bf16", kv_precision="bf16")
    code, err = calibrate(tmp_path, capsys, "b.csv", CSV_HEAD + GOOD_ROWS + big)
    assert code == 2 and "b.csv:5: [tp] row G: 'llama-3.1-405b' does not fit in the memory of tp 1" in err


@pytest.mark.slow
def test_l8_calibrate_writes_file_names_with_toml_escaping(tmp_path, capsys):
    import tomllib

    for name in ('q"uote.csv', "nl\nbandwidth_share = 1.0\n#.csv"):
        f = tmp_path / name
        f.write_text((ROOT / "tests" / "data" / "benchmarks" / "plain.csv").read_text(encoding="utf-8"),
                     encoding="utf-8")
        out = tmp_path / "c.toml"
        assert main(["calibrate", str(f), "--no-loo", "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        d = tomllib.loads(text)  # was invalid TOML for the quote
        assert d["name"] == Path(name).stem and d["fit"]["file"] == name
        assert "\nbandwidth_share = 1.0\n#" not in text  # the newline did not add a line
    capsys.readouterr()


# ---------------------------------------------------------------------------------------------
# Done-when: random bytes and random mutations of real benchmark files at `calibrate`: exit 0 or a located exit 2,
# never a traceback, each within a time bound

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

BENCH_FILES = [ROOT / "tests" / "data" / "benchmarks" / n for n in
               ("plain.csv", "vllm_benchmark_serving.json", "genai_perf_profile_export.csv",
                "trtllm_bench_report.txt")] + [ROOT / "tco" / "catalog" / "data" / "calibration_public.csv"]
HOSTILE = [b"nan", b"inf", b"-inf", b"1e999", b"-8", b"0", b"0.5", b"", b"x", b"9" * 5000, b"1e15", b"\x1b[2J",
           b'"', b"\n", b",", b"[[[[", b"{", b"\x00", b"\xff\xfe", b"null", b"true", b"-0"]
SECONDS_PER_CASE = 30.0
"""The time bound of one case: a good file fits in 1–4 s on an idle core (without leave-one-out); the machine's
2 cores are shared."""


@st.composite
def mutated(draw):
    src = draw(st.sampled_from(BENCH_FILES))
    data = bytearray(src.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["number", "byte", "cut", "insert", "line"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "number":  # a number token replaced by a hostile value
            import re

            spans = [m.span() for m in re.finditer(rb"-?\d+(\.\d+)?", bytes(data))]
            if spans:
                a, b = draw(st.sampled_from(spans))
                data[a:b] = draw(st.sampled_from(HOSTILE))
        elif kind == "byte":
            data[at:at + 1] = bytes([draw(st.integers(0, 255))])
        elif kind == "cut":
            del data[at:at + draw(st.integers(1, 200))]
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from(HOSTILE)) or draw(st.binary(max_size=20))
        else:  # a line repeated
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            data = bytearray(b"\n".join(lines[:i + 1] + [lines[i]] * draw(st.integers(1, 5)) + lines[i + 1:]))
    return src.suffix, bytes(data)


def _assert_clean_calibrate(suffix: str, data: bytes) -> None:
    import contextlib
    import io
    import tempfile
    import time

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / f"bench{suffix}"
        f.write_bytes(data)
        err, out = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(["calibrate", str(f), "--no-loo", "-o", str(Path(d) / "c.toml"), *M])
        took = time.perf_counter() - t0
    text = err.getvalue()
    assert took < SECONDS_PER_CASE, took
    assert code in (0, 2), text
    assert "Traceback" not in text and "\x1b" not in text + out.getvalue()
    if code == 2:  # located: every problem names the file (with its line or key where it has them)
        problems = [ln for ln in text.splitlines() if ln.startswith("  ")]
        assert problems and all(ln.startswith(f"  {f}") for ln in problems), text


@pytest.mark.slow  # a PDF read back, a whole search, or a property over whole calibrations
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=4000), suffix=st.sampled_from([".csv", ".json", ".txt"]))
def test_calibrate_random_bytes_exit_0_or_a_located_2(data, suffix):
    _assert_clean_calibrate(suffix, data)


@pytest.mark.slow  # a PDF read back, a whole search, or a property over whole calibrations
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_calibrate_mutated_benchmark_files_exit_0_or_a_located_2(case):
    _assert_clean_calibrate(*case)


# ---------------------------------------------------------------------------------------------
# L2–L4: batch's arguments


def test_l2_batch_refuses_an_empty_output_folder_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["batch", str(SMALL), "-o", "", "--formats", "json"]) == 2
    assert "the output folder name is empty" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_l3_batch_reports_a_dot_dot_toml_as_bad_input(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT, "..toml")
    assert main(["batch", str(f), "-o", str(tmp_path / "out"), "--jobs", "1", "--formats", "json"]) == 2
    out = capsys.readouterr().out
    assert "bad input" in out and "rename the file" in out and "crashed" not in out


def test_l4_batch_caps_jobs_at_the_usable_cores(tmp_path, capsys, monkeypatch):
    from tco.cli import batch

    seen = {}

    def run_batch(paths, out_dir, formats, *, jobs=None, **kw):
        seen["jobs"] = jobs
        return []

    monkeypatch.setattr(batch, "run_batch", run_batch)
    monkeypatch.setattr(batch, "default_jobs", lambda: 2)
    assert main(["batch", str(SMALL), "-o", str(tmp_path / "o"), "--jobs", "1000", "--quiet"]) == 0
    assert seen["jobs"] == 2 and "--jobs 1000: more than the 2 usable cores" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# M5, L9: [proposal] dates inside the calendar, and a word when they are far from the service


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "2201-01-01", "1989-12-31"])
def test_m5_a_proposal_date_outside_1990_2200_is_a_located_exit_2(tmp_path, capsys, day):
    text = SMALL_TEXT + f"\n[proposal]\ndate = {day}\n"
    f = write(tmp_path, text)
    assert main(["validate", str(f)]) == 2  # was ok, and `run` crashed in the PDF (date + 30 days)
    err = capsys.readouterr().err
    line = len(text.splitlines())
    assert f"s.toml:{line}: [proposal.date]" in err


@pytest.mark.slow  # a PDF read back, a whole search, or a property over whole calibrations
def test_m5_the_last_allowed_date_renders(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT + "\n[proposal]\ndate = 2200-12-31\n")
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "pdf", "--no-sensitivity",
                 "--paths", "200"]) == 0
    assert (out / "s.pdf").is_file()


def test_l9_a_proposal_dated_decades_before_the_service_gets_a_notice(tmp_path, capsys):
    f = write(tmp_path, SMALL_TEXT + "\n[proposal]\ndate = 1990-01-01\nvalid_until = 1990-01-31\n")
    assert main(["run", str(f), "-o", str(tmp_path / "out")] + ["--formats", "json", "--no-sensitivity",
                                                               "--paths", "200"]) == 0
    out = capsys.readouterr().out
    assert "a proposta tem data de 01/01/1990, mais de dois anos antes do início do serviço" in out  # pt-BR


def test_l9_a_proposal_dated_just_before_the_start_gets_none():
    import datetime as dt
    from types import SimpleNamespace

    from tco.report.offer_checks import date_notices

    s = SimpleNamespace(scenario=SimpleNamespace(start="2027-01", horizon_months=24))
    assert date_notices(s, dt.date(2026, 11, 30)) == []  # two months before: the usual case
    assert date_notices(s, dt.date(2024, 12, 31))  # 25 months before the start month
    assert date_notices(s, dt.date(2025, 1, 1)) == []  # 24 months: allowed
    assert date_notices(s, dt.date(2029, 1, 1))  # the month after the 24th (2028-12)


# ---------------------------------------------------------------------------------------------
# M4: the plan search's memory is bounded by construction (the ladder in chunks); its figures: bench_plan_memory.py


def test_m4_best_levels_in_chunks_equal_one_argmin_over_all_levels(monkeypatch):
    import numpy as np

    from tco.plan import costing

    months = 6
    rng = np.random.default_rng(3)
    table = rng.integers(0, 5, size=(23, months)).astype(float)  # small integers: many ties between levels
    blocks, tops = [slice(0, 3), slice(3, 6)], [22, 9]

    def cost(levels):
        return table[levels.astype(int)]

    whole = [int(np.argmin(table[:top + 1, b].sum(axis=1))) for b, top in zip(blocks, tops)]
    for chunk in (1, 2, 5, 7, 23, 100):
        monkeypatch.setattr(costing, "LADDER_CHUNK", chunk)
        assert costing._best_levels(cost, blocks, tops) == whole, chunk


@pytest.mark.slow  # a PDF read back, a whole search, or a property over whole calibrations
def test_m4_the_plan_search_costs_the_ladder_in_bounded_chunks_with_the_same_result(tmp_path, monkeypatch):
    from tco import plan
    from tco.catalog import load_catalog
    from tco.plan import costing
    from tco.scenario import load

    text = sub(SMALL_TEXT, 'users = { model = "linear", start_users = 300, end_users = 1500 }',
               'users = { model = "compound", start_users = 1000, monthly_growth_rate = 0.45 }')
    s, _, _ = load(write(tmp_path, text))
    cat = load_catalog()
    rows = []
    real = costing.committed_levels

    def recording(opt, oc, committed):
        rows.append(len(committed))
        return real(opt, oc, committed)

    monkeypatch.setattr(costing, "committed_levels", recording)
    monkeypatch.setattr(costing, "LADDER_CHUNK", 500)
    chunked = plan.search(s, cat)
    assert max(rows) <= 500 and rows.count(500) >= 2  # the ladder (1,602 levels at most here) in chunks
    monkeypatch.setattr(costing, "LADDER_CHUNK", 10**9)
    rows.clear()
    whole = plan.search(s, cat)
    assert max(rows) > 500 and chunked == whole


# ---------------------------------------------------------------------------------------------
# L1: messages name both the line and the key


def _validate_err(tmp_path, capsys, text: str) -> str:
    f = write(tmp_path, text)
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_l1_an_unclosed_string_names_its_key(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, sub(SMALL_TEXT, 'prepared_by = "TI corporativa"', 'prepared_by = "TI'))
    assert "s.toml:7: [scenario.prepared_by] TOML syntax error" in err


def test_l1_a_key_written_twice_names_its_key(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, sub(SMALL_TEXT, "horizon_months = 24\n",
                                              "horizon_months = 24\nhorizon_months = 24\n"))
    assert "s.toml:10: [scenario.horizon_months] TOML syntax error" in err


def test_l1_a_syntax_error_in_an_options_table_names_its_index(tmp_path, capsys):
    text = SMALL_TEXT.replace("[[options]]\n", "[[options]]\n", 1)
    i = text.index("[[options]]", text.index("[[options]]") + 1)  # the second option
    j = text.index("\n", i) + 1
    err = _validate_err(tmp_path, capsys, text[:j] + 'name = "x\n' + text[j:])
    line = text[:j].count("\n") + 1
    assert f"s.toml:{line}: [options[1].name] TOML syntax error" in err


def _overlay(tmp_path, name: str, body: str) -> str:
    cat = tmp_path / "cat"
    cat.mkdir(exist_ok=True)
    (cat / name).write_text(body, encoding="utf-8")
    return sub(SMALL_TEXT, "[scenario]\n", '[scenario]\ncatalog_dir = "cat"\n')


def test_l1_a_bad_rate_in_an_overlay_tax_profile_names_its_line(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, _overlay(tmp_path, "tax_profiles.toml",
                                                   '# overlay\n[profiles.none]\nmethod = "none"\nirrf_rate = "quinze"\n'))
    assert "tax_profiles.toml:4: [profiles.none.irrf_rate] rate must be a fraction" in err


def test_l1_a_stray_key_in_an_overlay_defaults_names_its_line(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, _overlay(tmp_path, "defaults.toml", "x = 1\n"))
    assert "defaults.toml:1: [x]" in err


@pytest.mark.parametrize("folder,why", [("/nonexistent/cat", "not found"), ("/etc/passwd", "is not a folder")])
def test_l1_a_missing_catalog_dir_names_the_scenario_and_its_line(tmp_path, capsys, folder, why):
    err = _validate_err(tmp_path, capsys, sub(SMALL_TEXT, "[scenario]\n", f'[scenario]\ncatalog_dir = "{folder}"\n'))
    assert f"s.toml:5: [scenario.catalog_dir] catalog folder '{folder}' {why}" in err


# ---------------------------------------------------------------------------------------------
# L6, L11: [plan] names bounded and echoed short; contradictory pricing filters refused


def test_l6_a_huge_plan_gpu_name_is_refused_and_not_echoed_in_full(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, SMALL_TEXT + '\n[plan]\ngpus = ["' + "G" * 900_000 + '"]\n')
    assert "[plan.gpus" in err and len(err) < 2_000  # was 900,146 characters


def test_l6_fifty_thousand_unknown_gpus_are_one_problem(tmp_path, capsys):
    names = ", ".join(f'"G{i}"' for i in range(50_000))
    err = _validate_err(tmp_path, capsys, SMALL_TEXT + f"\n[plan]\ngpus = [{names}]\n")
    assert "[plan.gpus]" in err and "at most 100" in err and len(err) < 2_000  # was 7 MB


def test_l6_unknown_plan_names_are_echoed_shortened():
    from tco.catalog import load_catalog
    from tco.plan.check import _unknown_names
    from tco.scenario.options import Plan

    long = "X" * 199
    got = _unknown_names(Plan(gpus=[long]), load_catalog(), ["aws"], "s.toml", lambda *k: None)
    assert len(got) == 1 and "… (199 characters)" in got[0].message and long not in got[0].message


def test_l11_a_pricing_both_included_and_excluded_is_a_located_error(tmp_path, capsys):
    text = SMALL_TEXT + '\n[plan]\ninclude_pricings = ["on_demand"]\nexclude_pricings = ["on_demand"]\n'
    err = _validate_err(tmp_path, capsys, text)
    line = len(text.splitlines())
    assert f"s.toml:{line}: [plan.exclude_pricings[0]] 'on_demand' is in include_pricings too" in err


# ---------------------------------------------------------------------------------------------
# L13: one bad rate in an FX history is one problem, not a second, false gap


def test_l13_an_inf_rate_in_the_fx_history_is_one_problem():
    from tco.fx.history import _read_history

    text = "month,usdbrl\n2010-03,1.78\n2010-04,inf\n2010-05,1.81\n2010-06,1.80\n"
    months, rates, problems = _read_history("hist.csv", text)
    assert [(p.line, p.key) for p in problems] == [(3, "usdbrl")]  # was also line 4: "2010-05 follows 2010-03"
    assert months == ["2010-03", "2010-05", "2010-06"]


def test_l13_a_real_gap_next_to_a_bad_rate_is_still_found():
    from tco.fx.history import _read_history

    text = "month,usdbrl\n2010-03,1.78\n2010-04,nan\n2010-06,1.80\n"
    _, _, problems = _read_history("hist.csv", text)
    assert [(p.line, p.key) for p in problems] == [(3, "usdbrl"), (4, "month")]
    assert "2010-06 follows 2010-04 (expected 2010-05)" in problems[1].message


# ---------------------------------------------------------------------------------------------
# L14: the PDF attaches the scenario as it was read and costed


@pytest.mark.parametrize("edit", [b'# edited during the run\n', b"\xff\xfe not utf-8\n"])
def test_l14_a_scenario_edited_during_the_run_is_refused_not_attached(tmp_path, edit):
    import tco
    from tco.errors import InputError

    f = write(tmp_path, SMALL_TEXT)
    res = tco.run(tco.load(f), paths=200, analysis=False)
    f.write_bytes(edit + SMALL_TEXT.encode("utf-8"))  # an editor saving it while the run was writing
    out = tmp_path / "out"
    with pytest.raises(InputError, match="the scenario file changed while the run read and costed it"):
        tco.write(res, out, ["json", "pdf"])
    assert not out.exists()


def test_l14_the_attached_scenario_is_a_copy_of_the_bytes_read(tmp_path):
    import hashlib

    from tco.output import _as_costed

    f = write(tmp_path, SMALL_TEXT)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    copy = _as_costed(tmp, str(f), hashlib.sha256(f.read_bytes()).hexdigest())
    f.write_text("changed after the copy", encoding="utf-8")
    assert copy.name == "s.toml" and copy.read_text(encoding="utf-8") == SMALL_TEXT


# ---------------------------------------------------------------------------------------------
# L12: the catalog agrees with itself about offers whose GPU has no spec (B300)


def test_l12_offers_without_a_gpu_spec_are_listed_as_not_usable(capsys):
    assert main(["offers", "--gpu", "B300"]) == 0
    out = capsys.readouterr().out
    assert "p6-b300.48xlarge" in out and "no GPU spec: not usable" in out and "list price" not in out


def test_l12_the_hint_lists_only_gpus_a_scenario_can_use(capsys):
    assert main(["offers", "--gpu", "TPUv5"]) == 0
    out = capsys.readouterr().out
    assert "H200-SXM-141GB" in out and "B300" not in out


def test_l12_a_plan_naming_b300_says_why_it_cannot_be_used(tmp_path, capsys):
    err = _validate_err(tmp_path, capsys, SMALL_TEXT + '\n[plan]\ngpus = ["B300"]\n')
    assert "GPU 'B300' has offers in the catalog but no gpus.csv row (no vendor spec yet)" in err


# ---------------------------------------------------------------------------------------------
# L10: long unbroken text breaks inside the page


def _words_past_the_edge(pdf: Path) -> list[str]:
    """Words of the PDF whose box ends past the page's right edge (pdftotext -bbox), with the page width."""
    import re
    import subprocess

    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    out = []
    for page in re.finditer(r'<page width="([\d.]+)"[^>]*>(.*?)</page>', html, re.S):
        width = float(page.group(1))
        for w in re.finditer(r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)</word>', page.group(2)):
            if float(w.group(1)) > width + 0.5:
                out.append(w.group(2)[:20])
    return out


@pytest.mark.slow  # a PDF read back, a whole search, or a property over whole calibrations
def test_l10_a_5000_character_word_and_a_200_character_option_name_stay_on_the_page(tmp_path, capsys):
    text = sub(SMALL_TEXT, 'name = "Dedicado BR — 4x L4"', 'name = "' + "W" * 200 + '"')
    text += '\n[proposal]\nclient_need = "' + "x" * 5000 + '"\n'
    f = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["run", str(f), "-o", str(out), "--quiet", "--formats", "pdf", "--no-sensitivity",
                 "--paths", "200"]) == 0
    assert _words_past_the_edge(out / "s.pdf") == []


def test_h1_init_never_writes_through_a_dangling_symlink(tmp_path, capsys):
    link = tmp_path / "new.toml"
    link.symlink_to(tmp_path / "elsewhere.toml")
    assert main(["init", str(link)]) == 2
    assert "exists already" in capsys.readouterr().err and not (tmp_path / "elsewhere.toml").exists()


def test_m7_render_shows_escapes_in_a_file_name(tmp_path, capsys):
    assert main(["render", str(tmp_path / f"r{ESC}.txt")]) == 2
    _no_raw_escape(capsys.readouterr().err)
