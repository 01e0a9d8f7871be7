"""Many scenarios at once: ``python -m tco batch SCENARIOS… [-o DIR] [--jobs N]``.

Each scenario runs in a worker process of a pool (``--jobs``, default: the cores this process may use)
exactly as ``python -m tco run`` would run it, writing its outputs into DIR from inside the worker (only a
small `Outcome` travels back, never the results). A worker keeps its imports and its catalogs (cached by
``catalog_dir``) from one scenario to the next, which is where a batch saves time even on one core.

Failures are isolated: a scenario with bad input or one that crashes is reported in the summary and the
others go on; a worker process that dies takes no other scenario with it (they are run again, one per
process). Exit code: 0 all ok; 2 if some had bad input (and none crashed); 1 if any crashed.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tco.machine import usable_cores as default_jobs

OK, BAD_INPUT, CRASHED, INTERRUPTED = "ok", "bad input", "crashed", "interrupted"
EPILOG = """\
examples:
  python -m tco batch scenarios/*.toml -o output/batch            # all cores
  python -m tco batch a.toml b.toml --jobs 1 --formats json,csv    # one at a time, two outputs each

Each scenario's outputs go to DIR/<stem>.{json,csv,xlsx,pdf} as with `run`; two scenarios with the same
file name are refused (the second would overwrite the first; the same file given twice runs once). A summary
table follows, one row per scenario.

exit codes: 0 all ok, 2 if any scenario had bad input (and none crashed), 1 if any crashed;
the summary's last line says how many failed.
"""


@dataclass(frozen=True)
class Outcome:
    """What a worker reports about one scenario."""

    scenario: str
    status: str
    """OK, BAD_INPUT, CRASHED or INTERRUPTED (not run, or stopped: nothing of it written)."""
    message: str = ""
    """The error (every problem of a bad input, one per line), empty when ok."""
    seconds: float = 0.0
    outputs: tuple[str, ...] = ()
    best: str = ""
    """The option with the lowest deterministic TCO."""
    best_tco_brl: float | None = None


class Interrupted(KeyboardInterrupt):
    """A SIGINT or SIGTERM stopped the batch; `outcomes` has every scenario, INTERRUPTED where it did not finish."""

    def __init__(self, outcomes: list[Outcome]):
        super().__init__("interrupted")
        self.outcomes = outcomes


def add_parser(sub) -> None:
    """The `batch` subcommand's arguments (called by the CLI's parser)."""
    import argparse

    from tco.cli.args import at_least, paths, seed

    p = sub.add_parser("batch", help="run many scenarios in parallel processes, with a summary table",
                       description=__doc__.split("\n\n")[1].replace("``", "").replace("`", ""), epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO", help="scenario TOML files")
    p.add_argument("-o", "--output", default="output", metavar="DIR", help="output folder (default: output/)")
    p.add_argument("--jobs", type=at_least(1), default=None, metavar="N",
                   help="worker processes (default: the number of usable cores)")
    p.add_argument("--formats", default="json,csv,xlsx,pdf", help="comma-separated outputs (default: all four)")
    p.add_argument("--seed", type=seed, metavar="N", help="override every scenario's [fx] seed (0 to 2^63 − 1)")
    p.add_argument("--paths", type=paths, metavar="N",
                   help="override every scenario's [fx] paths (Monte Carlo, 1 to 10,000,000)")
    p.add_argument("--no-sensitivity", action="store_true", help="skip the tornado (faster)")
    p.add_argument("--quiet", action="store_true", help="no summary table (the exit code still tells)")


# ---------------------------------------------------------------------------------------------
# In the worker

_CATALOGS: dict = {}
"""Catalogs loaded by this process, by resolved catalog_dir (None: the shipped one)."""


def _inputs(path: str):
    """The scenario as ``tco.load`` reads it, with the catalog cached per catalog_dir in this worker."""
    from tco.api import Inputs
    from tco.catalog import load_catalog
    from tco.scenario import load

    scenario, sha, lines = load(path)
    cat_dir = (Path(path).parent / scenario.scenario.catalog_dir).resolve() if scenario.scenario.catalog_dir else None
    if cat_dir not in _CATALOGS:
        _CATALOGS[cat_dir] = load_catalog(cat_dir, (path, lines.get(("scenario", "catalog_dir"))))
    return Inputs(scenario, _CATALOGS[cat_dir], path, sha, lines)


def _write(res, sha: str, scenario_path: str, out_dir: Path, formats: list[str]) -> list[Path]:
    """Write one scenario's outputs, as `run` does (the one place the batch touches the writers)."""
    from tco import api

    return api.write(res, out_dir, formats)


def run_one(path: str, out_dir: str, formats: tuple[str, ...], seed: int | None = None, paths: int | None = None,
            sensitivity: bool = True) -> Outcome:
    """Load, run, analyse and write one scenario; never raises (the failure is the Outcome)."""
    t0 = time.perf_counter()
    try:
        from tco import api
        from tco.engine import rankable

        res = api.run(_inputs(path), paths=paths, seed=seed, sensitivity=sensitivity)
        written = _write(res, res.source_sha256, path, Path(out_dir), list(formats))
        best = min(rankable(res.options), key=lambda o: o.tco.deterministic)
        return Outcome(path, OK, seconds=time.perf_counter() - t0, outputs=tuple(str(p) for p in written),
                       best=best.name, best_tco_brl=float(best.tco.deterministic))
    except Exception as exc:  # noqa: BLE001  (isolation: every failure becomes a row of the summary)
        from tco.errors import InputError

        if isinstance(exc, InputError):
            return Outcome(path, BAD_INPUT, "\n".join(str(p) for p in exc.problems), time.perf_counter() - t0)
        if isinstance(exc, OSError):  # as `run`: an output folder that cannot be written is bad input
            return Outcome(path, BAD_INPUT, f"{exc.filename or out_dir}: {exc.strerror or exc}",
                           time.perf_counter() - t0)
        return Outcome(path, CRASHED, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# In the parent


def _duplicates(paths: list[str]) -> dict[int, str]:
    """{position: message} for every scenario whose file name an earlier one already has (the earlier one runs)."""
    seen: dict[str, str] = {}
    out = {}
    for i, p in enumerate(paths):
        stem = Path(p).stem
        if stem not in seen:
            seen[stem] = p
        elif Path(seen[stem]).resolve() == Path(p).resolve():
            out[i] = f"given twice (as {seen[stem]}): it runs once"
        else:
            out[i] = (f"same file name as {seen[stem]}: its outputs would overwrite that scenario's "
                      f"(rename one of them)")
    return out


def run_batch(paths: list[str], out_dir: str, formats: tuple[str, ...], *, jobs: int | None = None,
              seed: int | None = None, n_paths: int | None = None, sensitivity: bool = True,
              progress=None) -> list[Outcome]:
    """Run every scenario (in `jobs` worker processes; 1 = in this process) and return their outcomes in
    the order given. `progress(outcome)` is called as each one finishes."""
    from tco.cli.args import stem_problem

    dup = _duplicates(paths) | {i: why for i, p in enumerate(paths) if (why := stem_problem(p))}  # L3: `..toml`
    done: dict[int, Outcome] = {i: Outcome(paths[i], BAD_INPUT, why) for i, why in sorted(dup.items())}
    for o in done.values():
        if progress is not None:
            progress(o)
    todo = [i for i in range(len(paths)) if i not in done]
    args = {i: (paths[i], out_dir, formats, seed, n_paths, sensitivity) for i in todo}
    jobs = max(1, min(jobs or default_jobs(), len(todo) or 1))
    # the folder is made here, once: no worker ever counts it as its own to remove after a failure
    out = Path(out_dir)
    created = bool(todo) and not out.exists()
    if created:
        out.mkdir(parents=True)
    try:
        if jobs == 1:
            for i in todo:
                done[i] = run_one(*args[i])
                if progress is not None:
                    progress(done[i])
        else:
            lost = _pool(todo, args, jobs, done, progress)
            for i in lost:  # a worker died: each unfinished scenario again, alone in a fresh process
                _pool([i], args, 1, done, progress, last_try=True)
    except KeyboardInterrupt:  # SIGINT, or SIGTERM (workers.stop_signals): what finished, and what did not
        raise Interrupted([done.get(i) or Outcome(paths[i], INTERRUPTED, "not finished: the batch was stopped")
                           for i in range(len(paths))]) from None
    finally:
        if created and not any(out.iterdir()):
            out.rmdir()  # nothing was written: leave no empty folder behind
    return [done[i] for i in range(len(paths))]


def _pool(todo: list[int], args: dict, jobs: int, done: dict, progress, last_try: bool = False) -> list[int]:
    """Run `todo` in a pool of `jobs` processes; the indices whose worker died are returned (or, on the
    last try, reported as crashed). On KeyboardInterrupt the workers are stopped (tco.cli.workers.stop) before
    it goes on, and the scenarios they ended are in `done` as INTERRUPTED."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    from tco.cli import workers

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    lost = []
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=workers.init, initargs=(os.getpid(),))
    futures: dict = {}
    try:
        futures = {pool.submit(workers.guarded, run_one, *args[i]): i for i in todo}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                done[i] = _outcome(fut.result(), args[i][0])
            except BrokenProcessPool:
                if not last_try:
                    lost.append(i)
                    continue
                done[i] = Outcome(args[i][0], CRASHED, "the worker process died (killed or out of memory)")
            if progress is not None:
                progress(done[i])
    except BaseException:
        workers.stop(pool, futures)  # not `with`: its exit waits for every queued scenario to run
        for fut, i in futures.items():
            if i not in done and fut.done() and not fut.cancelled() and fut.exception() is None:
                done[i] = _outcome(fut.result(), args[i][0])
        raise
    pool.shutdown(wait=True)
    return sorted(lost)


def _outcome(got: tuple, path: str) -> Outcome:
    """The Outcome of what workers.guarded returned."""
    kind, value = got
    if kind == "done":
        return value
    return Outcome(path, INTERRUPTED, "stopped while running: nothing half-written" if value
                   else "not run: the batch was stopped")


def exit_code(outcomes: list[Outcome]) -> int:
    """0 all ok; 1 if any crashed; else 2 if any had bad input."""
    if any(o.status == CRASHED for o in outcomes):
        return 1
    return 2 if any(o.status == BAD_INPUT for o in outcomes) else 0


def summary_table(outcomes: list[Outcome]):
    """A rich Table, one row per scenario; every name and message is plain text (never markup)."""
    from rich.table import Table
    from rich.text import Text

    from tco.errors import printable

    failed = sum(o.status != OK for o in outcomes)
    t = Table(title=f"{len(outcomes)} scenarios: {len(outcomes) - failed} ok, {failed} failed")
    for c in ("#", "scenario", "status", "best option", "TCO (BRL)", "seconds", "error / outputs"):
        t.add_column(c, justify="right" if c in ("#", "TCO (BRL)", "seconds") else "left",
                     overflow="fold")
    styles = {OK: "green", BAD_INPUT: "yellow", CRASHED: "red", INTERRUPTED: "magenta"}
    for i, o in enumerate(outcomes, 1):
        detail = o.message.splitlines()[0] if o.status != OK and o.message else f"{len(o.outputs)} files"
        t.add_row(str(i), Text(printable(o.scenario)), Text(o.status, style=styles[o.status]), Text(printable(o.best)),
                  "" if o.best_tco_brl is None else f"{o.best_tco_brl:,.0f}", f"{o.seconds:.1f}",
                  Text(printable(detail)))
    return t


def command(args) -> int:
    """`python -m tco batch`: run, show progress on a terminal, print the summary, return the exit code."""
    formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
    bad = [f for f in formats if f not in ("json", "csv", "xlsx", "pdf")]
    if bad:
        print(f"--formats: unknown format(s) {', '.join(bad)}; choose from json, csv, xlsx, pdf", file=sys.stderr)
        return 2
    from tco.cli import workers
    from tco.errors import printable
    from tco.output import check_output_dir

    if problem := check_output_dir(args.output):  # L2: an empty -o is refused, as `run` refuses it
        print(printable(f"error: {problem}"), file=sys.stderr)
        return 2
    jobs = args.jobs
    if jobs is not None and jobs > (cores := default_jobs()):  # L4: more workers than cores only adds memory
        print(f"--jobs {jobs}: more than the {cores} usable cores; running {cores} at a time", file=sys.stderr)
        jobs = cores
    bar = None if args.quiet or not sys.stderr.isatty() else _progress_bar(len(args.scenarios))
    code = None
    from tco.output.interrupts import catch_sigint

    with workers.stop_signals() as got, catch_sigint():  # the interrupt flag starts clear, as for `run`
        try:
            outcomes = run_batch(list(args.scenarios), args.output, formats, jobs=jobs, seed=args.seed,
                                 n_paths=args.paths, sensitivity=not args.no_sensitivity,
                                 progress=None if bar is None else (lambda _o: bar.advance(bar.task_ids[0])))
        except Interrupted as exc:  # M6: 130 for SIGINT, 143 for SIGTERM, with what finished
            outcomes, code = exc.outcomes, 128 + int(got["signal"] or 2)
        finally:
            if bar is not None:
                bar.stop()
    if not args.quiet:
        _print_summary(outcomes)
    if code is not None:
        n = sum(o.status != INTERRUPTED for o in outcomes)
        print(f"interrupted ({'SIGTERM' if code == 143 else 'Ctrl-C'}): {n} of {len(outcomes)} scenarios finished, "
              "the others were not written", file=sys.stderr)
        return code
    return exit_code(outcomes)


def _progress_bar(total: int):
    """A started rich progress bar on stderr counting scenarios (its one task is the batch)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("scenarios"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(file=sys.stderr, emoji=False), transient=True)
    bar.add_task("batch", total=total)
    bar.start()
    return bar


def _print_summary(outcomes) -> None:
    """The summary table on stdout, then each failure in full, unwrapped: file names and messages as they are."""
    from rich.console import Console
    from rich.text import Text

    from tco.errors import printable

    console = Console(file=sys.stdout, emoji=False)
    console.width = max(console.width, 150)
    console.print(summary_table(outcomes))
    for o in outcomes:
        if o.status != OK:
            console.print(Text(printable(f"{o.scenario}: {o.status}: {o.message}")), soft_wrap=True)
