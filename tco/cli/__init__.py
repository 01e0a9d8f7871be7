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

from tco.cli.args import MAX_PATHS, MAX_SEED  # noqa: F401  (the limits, as tests and callers name them)
from tco.cli.args import OWN_COMMANDS, parser

def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; given one of OWN_COMMANDS, without the calibrate and batch subcommands, whose modules
    (and their imports) that command does not need: it parses its arguments, and says its errors, the same."""
    p, sub = parser()
    if command in OWN_COMMANDS:
        return p
    from tco.cli import batch
    from tco.sizing.calibrate_report import add_parser as add_calibrate

    add_calibrate(sub)
    batch.add_parser(sub)
    return p


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


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
    for n in res.notices:  # printed by print, not rich: literal text, nothing to escape but control characters
        _err(f"{t('term_warning', loc)} {literal(notices.line(n, loc))}")
    print(f"{args.scenario}: ok ({len(inputs.scenario.options)} options, "
          f"{inputs.scenario.scenario.horizon_months} months)")
    return 0


def _stem_problem(scenario_path: str) -> str | None:
    stem = Path(scenario_path).stem
    if not stem or stem.startswith("."):
        return (f"{scenario_path}: the output files are named after the scenario file, and {stem!r} would make "
                "hidden or odd names; rename the file (e.g. my_scenario.toml)")
    return None


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

    for problem in (check_output_dir(args.output), _stem_problem(args.scenario)):
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


def _write(res, args, on_terminal: bool, loc: str) -> list:
    """The run's files (api.write), under a "writing …" status line when a progress bar is showing."""
    from tco import api

    if not on_terminal:
        return api.write(res, args.output, args.formats)
    from tco.report.i18n import t
    from tco.report.terminal import status

    with status(t("term_writing", loc, formats=", ".join(args.formats))):
        return api.write(res, args.output, args.formats)


def _best_plan_line(res, scenario_path: str) -> None:
    """The closing line when the run searched plans: the best plan found (named in the run's locale) against
    the scenario's cheapest option."""
    vs = res.meta.get("plans", {}).get("vs_options")
    if not vs:
        return
    from tco.report import fmt, i18n
    from tco.report.plan_names import plan_label

    loc = res.scenario.scenario.locale
    best = plan_label(res.meta["plans"]["overall"]["best"], loc)  # vs["best_plan"] in the run's locale
    print(i18n.t("cli_best_plan", loc, plan=best, tco=fmt.money(vs["best_plan_tco_brl"], loc, False),
                 cheapest=fmt.money(vs["cheapest_option_tco_brl"], loc, False), file=scenario_path))


def cmd_plan(args) -> int:
    from tco import plan
    from tco.report.plan_table import plan_table

    from tco import api

    if args.json is not None and (problem := _json_target_problem(args.json)):
        _err(problem)  # before the search, which may take seconds
        return 2
    inputs = api.with_locale(api.load(args.scenario), args.locale)
    res = plan.search(inputs.scenario, inputs.catalog, file=inputs.path, lines=inputs.key_lines)
    plan_table(res, inputs.scenario.scenario.locale, show_skipped=args.show_skipped)
    if args.json:
        from tco.report.i18n import t
        from tco.report.json_out import _clean, dumps

        _write_whole(Path(args.json), dumps(_clean(res)))
        print(t("term_wrote", inputs.scenario.scenario.locale, path=args.json))
    return 0


def _json_target_problem(name: str) -> str | None:
    """A message if `plan --json` cannot name a file to write, else None."""
    p = Path(name)
    if not name.strip():
        return "--json: the file name is empty; give a file, e.g. --json plan.json"
    if p.is_dir():
        return f"--json {name}: is a folder; give a file name, e.g. --json {p / 'plan.json'}"
    if not p.parent.is_dir():
        return f"--json {name}: the folder {p.parent} does not exist"
    return None


def _write_whole(path: Path, text: str) -> None:
    """`text` into `path` whole or not at all: written beside it under a temporary name, then renamed over it."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_init(args) -> int:
    from tco.scenario.starter import STARTER

    path = Path(args.path)
    if path.exists():
        _err(f"{path}: exists already; choose another name")
        return 2
    path.write_text(STARTER, encoding="utf-8")
    print(f"wrote {path}; edit it, then: python -m tco validate {path}")
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


def _calibrate(args) -> int:
    from tco.sizing.calibrate_report import run

    return run(args, print)


def main(argv: list[str] | None = None) -> int:
    from tco.errors import InputError, InternalError

    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad arguments, 0 on --help
        return int(exc.code or 0)
    try:
        if args.command == "batch":
            from tco.cli import batch

            return batch.command(args)
        return {"run": cmd_run, "validate": cmd_validate, "init": cmd_init, "offers": cmd_offers,
                "sensitivity": cmd_sensitivity, "calibrate": _calibrate, "plan": cmd_plan}[args.command](args)
    except InputError as exc:
        n = len(exc.problems)
        _err(f"error: {n} problem{'s' if n != 1 else ''} in the input:")
        for p in exc.problems:
            _err(f"  {p}")
        return 2
    except OSError as exc:  # an output folder that cannot be written, a starter path in a missing folder, …
        where = exc.filename or getattr(args, "output", "") or ""
        _err(f"error: {where}: {exc.strerror or exc}")
        return 2
    except KeyboardInterrupt:
        _err("interrupted (Ctrl-C)")
        return 130
    except InternalError as exc:
        _err(f"internal error: {exc}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
