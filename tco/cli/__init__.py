"""Command line: a thin ``main(argv) -> int`` over the library.

Exit codes: 0 success, 2 bad input (scenario, catalog or arguments), 1 unexpected failure.
Only this module prints. Outputs are written by ``tco.output`` (temporary names in the output folder,
renamed into place only when all of them were written), so a failure leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tco.cli.args import MAX_PATHS, MAX_SEED  # noqa: F401  (the limits, as tests and callers name them)
from tco.cli.args import OWN_COMMANDS, parser, stem_problem

if TYPE_CHECKING:
    from tco.results import Results


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; given one of OWN_COMMANDS, without the calibrate and batch subcommands, whose modules
    (and their imports) that command does not need: it parses its arguments, and says its errors, the same."""
    p, sub = parser()
    if command in OWN_COMMANDS:
        return p
    from tco.cli import batch
    from tco.cli.calibrate import add_parser as add_calibrate

    add_calibrate(sub)
    batch.add_parser(sub)
    _add_issue25(sub)
    return p


def _run_issue25(args, parser) -> int:
    """The sweep, diff, render and completion commands (issue 25)."""
    from tco.cli import compare, completion, sweep

    if args.command == "completion":
        return completion.command(args, parser)
    return {"sweep": sweep.command, "diff": compare.diff_command, "render": compare.render_command}[args.command](args)


def _add_issue25(sub) -> None:
    """The sweep, diff, render and completion commands (issue 25), declared in their own modules."""
    from tco.cli import compare, completion, sweep

    sweep.add_parser(sub)
    compare.add_parsers(sub)
    completion.add_parser(sub)


def _err(msg: str) -> None:
    _out(msg, sys.stderr)


def _out(msg: str, file=None) -> None:
    """Print a line that may hold user text (file names, keys, values): control characters shown, never sent (M7)."""
    from tco.errors import printable

    print(printable(msg), file=file or sys.stdout)


PLUGINS_OFF = ("__all__", "1", "true")
"""The values of PYDANTIC_DISABLE_PLUGINS for which pydantic's ``get_plugins()`` returns () at once."""


def _no_plugin_discovery() -> None:
    """With pydantic's plugins switched off, spare the import of the module that would discover them.

    ``pydantic.plugin._loader`` imports ``importlib.metadata`` (email, zipfile, socket, …: 2.5 % of a `validate`'s
    instructions) at its top, only for the entry-point scan that ``get_plugins()`` skips when
    PYDANTIC_DISABLE_PLUGINS is one of PLUGINS_OFF. Pydantic imports that module by name, when it builds the
    first schema validator; a module of that name whose ``get_plugins()`` returns () is then what pydantic's own
    would return. Nothing is done when the variable allows plugins, or when pydantic has loaded its module."""
    import types

    name = "pydantic.plugin._loader"
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in PLUGINS_OFF and name not in sys.modules:
        stub = types.ModuleType(name, "pydantic's plugin loader with plugins disabled (tco.cli._no_plugin_discovery)")
        stub.get_plugins = tuple  # type: ignore[attr-defined]  # () : no plugins
        sys.modules[name] = stub


def cmd_validate(args) -> int:
    # a check, not a simulation: no BLAS thread pool, no scan of installed packages for pydantic plugins
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _no_plugin_discovery()
    with _no_collections():
        return _validate(args)


@contextlib.contextmanager
def _no_collections():
    """The cyclic garbage collector paused (and then restored as it was) for a bounded job.

    A check imports the schema, the catalog and the engine (about 10^5 long-lived objects) and costs every option
    once; its garbage is a few MB at most (a scenario file is at most 1 MB), while each young collection of the
    start-up objects costs CPU for nothing: about 2 % of a `validate` (peak memory the same, 51 MB)."""
    import gc

    from tco.plain import plain

    if plain("gc"):  # TCO_PLAIN: the collector as Python sets it (tco.plain)
        yield
        return
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _validate(args) -> int:
    from tco import api
    from tco.report import notices
    from tco.report.i18n import t
    from tco.report.terminal import literal

    inputs = api.with_locale(api.load(args.scenario), args.locale)
    res = api.check(inputs)
    loc = inputs.scenario.scenario.locale
    if getattr(args, "json", False):  # for tools: the outcome and the notices (their English lines), on stdout
        import json

        print(json.dumps({"file": args.scenario, "ok": True, "options": len(inputs.scenario.options),
                          "horizon_months": inputs.scenario.scenario.horizon_months,
                          "notices": [notices.line(n, "en") for n in res.notices]}, ensure_ascii=False))
        return 0
    if getattr(args, "quiet", False):
        return 0
    for n in res.notices:  # printed by print, not rich: literal text, nothing to escape but control characters
        _err(f"{t('term_warning', loc)} {literal(notices.line(n, loc))}")
    _out(f"{args.scenario}: ok ({len(inputs.scenario.options)} options, "
          f"{inputs.scenario.scenario.horizon_months} months)")
    return 0


def _analyse(res, args, progress, loc: str):
    from tco import analysis

    if progress is None:
        return analysis.enrich(res, sensitivity=not args.no_sensitivity)
    from tco.report.i18n import t
    from tco.report.terminal import status

    with status(t("term_analysing", loc)):
        return analysis.enrich(res, sensitivity=not args.no_sensitivity)


def cmd_run(args) -> int:
    from tco import api
    from tco.output.interrupts import catch_sigint, interrupted
    from tco.output import check_output_dir

    if args.output == "-":  # `-o -`: the JSON on standard output, no folder named '-'
        asked = [f for f in args.formats if f != "json"]
        if asked and args.formats != ["json", "csv", "xlsx", "pdf"]:  # --formats given, not only json
            _err(f"error: -o - prints the JSON only; --formats {','.join(asked)} needs an output folder (-o DIR)")
            return 2
        return _run_to_stdout(args)
    for problem in (check_output_dir(args.output), stem_problem(args.scenario)):
        if problem:
            _err(f"error: {problem}")
            return 2
    with catch_sigint():
        inputs = api.with_locale(api.load(args.scenario), args.locale)
        loc = inputs.scenario.scenario.locale
        progress = None
        if not args.quiet and sys.stderr.isatty():
            from tco.report.terminal import progress_bar
            progress = progress_bar(loc)
        res = api.run(inputs, paths=args.paths, seed=args.seed, progress=progress, analysis=False)
        res = _analyse(res, args, progress, loc)
        written = _write(res, args, progress is not None, loc)
        if interrupted():  # a SIGINT that Python swallowed somewhere: never report success
            raise KeyboardInterrupt
    if not args.quiet:
        from tco.report.terminal import summary

        summary(res, written)
        _best_plan_line(res, args.scenario)
    return 0


def _run_to_stdout(args) -> int:
    """`run -o -`: the run's JSON document (as `DIR/<stem>.json` would hold it) on standard output, nothing else
    written; the terminal summary is left out so the output can be piped."""
    from tco import api
    from tco.output.interrupts import catch_sigint
    from tco.report.json_out import build, dumps

    with catch_sigint():
        inputs = api.with_locale(api.load(args.scenario), args.locale)
        res = api.run(inputs, paths=args.paths, seed=args.seed, sensitivity=not args.no_sensitivity)
        text = dumps(build(res, res.source_sha256, args.scenario))
    sys.stdout.write(text)
    return 0


def _write(res, args, on_terminal: bool, loc: str) -> list:
    """The run's files (api.write), under a "writing …" status line when a progress bar is showing."""
    from tco import api

    if not on_terminal:
        return api.write(res, args.output, args.formats)
    from tco.report.i18n import t
    from tco.report.terminal import status

    with status(t("term_writing", loc, formats=", ".join(args.formats))):
        return api.write(res, args.output, args.formats)


def _best_plan_line(res: Results, scenario_path: str) -> None:
    """The closing line when the run searched plans: the best plan found (named in the run's locale) against
    the scenario's cheapest option."""
    found = res.analysis.plans
    vs = found.vs_options if found is not None else None
    if vs is None or found is None:
        return
    from tco.report import fmt, i18n
    from tco.report.plan_names import plan_label

    loc = res.scenario.scenario.locale
    best = plan_label(found.overall.best, loc)  # vs.best_plan in the run's locale
    _out(i18n.t("cli_best_plan", loc, plan=best, tco=fmt.money(vs.best_plan_tco_brl, loc, False),
                 cheapest=fmt.money(vs.cheapest_option_tco_brl, loc, False), file=scenario_path))


def cmd_plan(args) -> int:
    from tco import plan
    from tco.report.plan_table import plan_table

    from tco import api

    if args.json is not None and (problem := _json_target_problem(args.json)):
        _err(problem)  # before the search, which may take seconds
        return 2
    inputs = api.with_locale(api.load(args.scenario), args.locale)
    if args.json is not None and (problem := _reads_problem(args.json, inputs)):
        _err(problem)  # `plan s.toml --json s.toml` replaced the scenario with the plan (2026-12d O3)
        return 2
    res = plan.search(inputs.scenario, inputs.catalog, file=inputs.path, lines=inputs.key_lines)
    plan_table(res, inputs.scenario.scenario.locale, show_skipped=args.show_skipped)
    if args.json:
        from tco.report.i18n import t
        from tco.report.json_out import _clean, dumps

        from tco.files import write_whole

        write_whole(args.json, dumps(_clean(res.as_dict())))
        _out(t("term_wrote", inputs.scenario.scenario.locale, path=args.json))
    return 0


def _json_target_problem(name: str) -> str | None:
    """A message if `plan --json` cannot name a file to write, else None."""
    from tco.files import target_problem

    p = Path(name)
    if not name.strip():
        return "--json: the file name is empty; give a file, e.g. --json plan.json"
    if p.is_dir():
        return f"--json {name}: is a folder; give a file name, e.g. --json {p / 'plan.json'}"
    problem = target_problem(name)
    return None if problem is None else f"--json {name}: {problem}"


def _reads_problem(name: str, inputs) -> str | None:
    """A message if `--json` names a file the run reads (through a symbolic link too: the file it names is replaced)."""
    from tco.files import input_files

    target = os.path.realpath(name)
    hit = next((f for f in input_files(inputs.scenario, inputs.path) if os.path.realpath(f) == target), None)
    return None if hit is None else (f"--json {name}: would replace {hit}, which this run reads; give another file "
                                     "name, e.g. --json plan.json")


def cmd_init(args) -> int:
    from tco.scenario.starter import STARTER

    from tco.files import target_problem, write_whole

    if not args.path.strip() or args.path.endswith(("/", os.sep)):  # `init newdir/` wrote a file named newdir (2026-12d F2)
        _err(f"{args.path}: {target_problem(args.path)}")
        return 2
    path = Path(args.path)
    if path.exists() or path.is_symlink():  # a dangling symlink too: init never writes through one (H1)
        _err(f"{path}: exists already; choose another name")
        return 2
    write_whole(path, STARTER)
    _out(f"wrote {path}; edit it, then: python -m tco validate {path}")
    return 0


def cmd_offers(args) -> int:
    from tco.catalog import load_catalog
    from tco.report.terminal import offers_table

    if args.catalog_dir and not Path(args.catalog_dir).is_dir():
        _err(f"--catalog-dir {args.catalog_dir}: folder not found")
        return 2
    offers_table(load_catalog(args.catalog_dir), args.gpu)
    return 0


def cmd_sensitivity(args) -> int:
    from tco import analysis, api
    from tco.report.terminal import tornado_table

    res = api.run(args.scenario, analysis=False)
    loc = res.scenario.scenario.locale
    tornado_table(analysis.tornado(res), loc)
    pair = analysis.kind_pair(res)
    if pair is not None:
        tornado_table(analysis.tornado(res, pair=pair), loc)
    return 0


def cmd_serve(args) -> int:
    from tco.web.serve import main as serve

    return serve(args)


def _calibrate(args) -> int:
    from tco.cli.calibrate import run

    return run(args, _out)


def main(argv: list[str] | None = None) -> int:
    from tco.errors import InputError, InternalError

    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad arguments, 0 on --help
        return int(exc.code or 0)
    try:
        from tco.cli import config

        config.apply(args, argv)  # the user's defaults (locale, output folder); a flag given wins
        if args.command in ("sweep", "diff", "render", "completion"):
            return _run_issue25(args, parser)
        if args.command == "batch":
            from tco.cli import batch

            return batch.command(args)
        return {"run": cmd_run, "validate": cmd_validate, "init": cmd_init, "offers": cmd_offers,
                "sensitivity": cmd_sensitivity, "calibrate": _calibrate, "plan": cmd_plan,
                "serve": cmd_serve}[args.command](args)
    except InputError as exc:
        if args.command == "validate" and getattr(args, "json", False):  # a tool reads the outcome on stdout
            import json

            print(json.dumps({"file": args.scenario, "ok": False, "problems": [
                {"file": p.file, "line": p.line, "key": p.key, "message": p.message} for p in exc.problems]},
                ensure_ascii=False))
        n = len(exc.problems)
        _err(f"error: {n} problem{'s' if n != 1 else ''} in the input:")
        for p in exc.problems:
            _err(f"  {p}")
        return 2
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not bad input, nothing to say
        with contextlib.suppress(OSError, ValueError):  # stdout to /dev/null: Python's flush at exit would fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a program killed by the signal
    except OSError as exc:  # an output folder that cannot be written, a starter path in a missing folder, …
        from tco.files import MACHINE_ERRNOS

        where = exc.filename or getattr(args, "output", "") or ""
        _err(f"error: {where}: {exc.strerror or exc}")
        return 1 if exc.errno in MACHINE_ERRNOS else 2  # a full disk is not bad input (M8)
    except KeyboardInterrupt:
        _err("interrupted (Ctrl-C)")
        return 130
    except InternalError as exc:
        _err(f"internal error: {exc}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
