"""Command line: a thin ``main(argv) -> int`` over the library.

Exit codes: 0 success, 2 bad input (scenario, catalog or arguments), 1 unexpected failure.
Only this module prints. Outputs are written to a temporary folder inside the output folder and
moved into place only when all of them were written, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tco import __version__

EPILOG = """\
examples:
  python -m tco run scenarios/seed_70b_h200.toml            # writes output/seed_70b_h200.{json,csv,xlsx,pdf}
  python -m tco run scenarios/seed_70b_h200.toml -o /tmp/x --seed 7 --paths 50000
  python -m tco validate scenarios/seed_70b_h200.toml       # check only, write nothing
  python -m tco init my_scenario.toml                       # a commented starter scenario
  python -m tco offers --gpu H200                           # list catalog offers
  python -m tco plan scenarios/seed_70b_h200.toml           # each provider's best plan, the hybrid, the best

exit codes: 0 ok, 2 bad input (file, line and key named on stderr), 1 unexpected error.
"""


def _non_negative(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {v}")
    return v


def _positive(text: str) -> int:
    v = _non_negative(text)
    if v < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return v


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tco", description="Lifecycle TCO of an AI model: dedicated GPU "
                                "servers billed in BRL vs public cloud billed in USD.", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tco {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="size, cost and compare; write JSON, CSV ledger, workbook and proposal",
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    run.add_argument("scenario", help="scenario TOML file")
    run.add_argument("-o", "--output", default="output", metavar="DIR", help="output folder (default: output/)")
    run.add_argument("--seed", type=_non_negative, metavar="N", help="override [fx] seed (0 or more)")
    run.add_argument("--paths", type=_positive, metavar="N", help="override [fx] paths (Monte Carlo, 1 or more)")
    run.add_argument("--formats", default="json,csv,xlsx,pdf",
                     help="comma-separated outputs to write (default: json,csv,xlsx,pdf)")
    run.add_argument("--quiet", action="store_true", help="no terminal summary")
    run.add_argument("--no-sensitivity", action="store_true", help="skip the tornado (faster)")
    val = sub.add_parser("validate", help="check a scenario against the schema and the catalog; write nothing")
    val.add_argument("scenario")
    sens = sub.add_parser("sensitivity", help="tornado: the TCO difference between the two leading options as "
                          "each input moves over its range; writes nothing")
    sens.add_argument("scenario")
    pl = sub.add_parser("plan", help="search each provider's best plan (GPU, region, pricing, committed baseline, "
                        "fleets, hybrids) and print it; writes nothing unless --json")
    pl.add_argument("scenario")
    pl.add_argument("--json", metavar="FILE", help="also write the search result as JSON to FILE")
    init = sub.add_parser("init", help="write a commented starter scenario")
    init.add_argument("path", help="where to write it (refuses to overwrite)")
    offers = sub.add_parser("offers", help="list the catalog's offers and prices")
    offers.add_argument("--gpu", help="filter on GPU name (substring)")
    offers.add_argument("--catalog-dir", help="overlay catalog folder")
    return p


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _load(path: str):
    from tco.catalog import load_catalog
    from tco.scenario import load

    scenario, sha, lines = load(path)
    cat_dir = None
    if scenario.scenario.catalog_dir:
        cat_dir = (Path(path).parent / scenario.scenario.catalog_dir).resolve()
    return scenario, sha, lines, load_catalog(cat_dir)


def cmd_validate(args) -> int:
    from tco.engine import run_scenario

    scenario, sha, lines, cat = _load(args.scenario)
    run_scenario(scenario, cat, file=args.scenario, lines=lines, simulate=False, plans=True)  # [plan] too
    print(f"{args.scenario}: ok ({len(scenario.options)} options, {scenario.scenario.horizon_months} months)")
    return 0


def _write_outputs(res, sha: str, scenario_path: str, out_dir: Path, formats: list[str]) -> list[Path]:
    from tco.report import json_out, ledger_csv

    stem = Path(scenario_path).stem
    created = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tco-", dir=out_dir))
    written = []
    ok = False
    try:
        doc = json_out.build(res, sha, scenario_path)
        if "json" in formats:
            (tmp / f"{stem}.json").write_text(json_out.dumps(doc), encoding="utf-8")
        if "csv" in formats:
            (tmp / f"{stem}.csv").write_text(ledger_csv.render(res), encoding="utf-8")
        if "xlsx" in formats:
            try:
                from tco.report import workbook
            except ImportError:
                workbook = None
            if workbook is not None:
                workbook.write(res, doc, tmp / f"{stem}.xlsx")
        if "pdf" in formats:
            try:
                from tco.report import proposal
            except ImportError:
                proposal = None
            if proposal is not None:
                attachments = [Path(scenario_path)] + ([tmp / f"{stem}.xlsx"] if (tmp / f"{stem}.xlsx").exists() else [])
                proposal.write(res, doc, tmp / f"{stem}.pdf", attachments=attachments)
        for f in sorted(tmp.iterdir()):
            dest = out_dir / f.name
            os.replace(f, dest)
            written.append(dest)
        ok = True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not ok and created:
            shutil.rmtree(out_dir, ignore_errors=True)  # leave no empty folder behind either
    return written


def cmd_run(args) -> int:
    from tco.engine import run_scenario

    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in formats if f not in ("json", "csv", "xlsx", "pdf")]
    if bad:
        _err(f"--formats: unknown format(s) {', '.join(bad)}; choose from json, csv, xlsx, pdf")
        return 2
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        _err(f"-o {out}: exists and is not a folder")
        return 2
    scenario, sha, lines, cat = _load(args.scenario)
    progress = None
    if not args.quiet and sys.stderr.isatty():
        from tco.report.terminal import progress_bar
        progress = progress_bar()
    res = run_scenario(scenario, cat, file=args.scenario, lines=lines, paths=args.paths, seed=args.seed,
                       progress=progress, plans=True)
    from tco import analysis

    if progress is not None:
        from tco.report.terminal import status

        with status("Break-evens, sensitivity and fleet separation…"):
            res = analysis.enrich(res, sensitivity=not args.no_sensitivity)
    else:
        res = analysis.enrich(res, sensitivity=not args.no_sensitivity)
    if progress is not None:
        from tco.report.terminal import status

        with status(f"Writing {', '.join(formats)}…"):
            written = _write_outputs(res, sha, args.scenario, Path(args.output), formats)
    else:
        written = _write_outputs(res, sha, args.scenario, Path(args.output), formats)
    if not args.quiet:
        from tco.report.terminal import summary

        summary(res, written)
        vs = res.meta.get("plans", {}).get("vs_options")
        if vs:
            from tco.report import fmt

            loc = scenario.scenario.locale
            print(f"best plan found: {vs['best_plan']} — {fmt.money(vs['best_plan_tco_brl'], loc, False)} "
                  f"(cheapest option written: {fmt.money(vs['cheapest_option_tco_brl'], loc, False)}); "
                  f"every provider's best: python -m tco plan {args.scenario}")
    return 0


def cmd_plan(args) -> int:
    from tco import plan
    from tco.report.plan_table import plan_table

    scenario, sha, lines, cat = _load(args.scenario)
    res = plan.search(scenario, cat, file=args.scenario, lines=lines)
    plan_table(res, scenario.scenario.locale)
    if args.json:
        from tco.report.json_out import _clean, dumps

        Path(args.json).write_text(dumps(_clean(res)), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


def cmd_init(args) -> int:
    from tco.starter import STARTER

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
    from tco import analysis
    from tco.engine import run_scenario
    from tco.report.terminal import tornado_table

    scenario, sha, lines, cat = _load(args.scenario)
    res = run_scenario(scenario, cat, file=args.scenario, lines=lines)
    tornado_table(analysis.tornado(res))
    pair = analysis.kind_pair(res)
    if pair is not None:
        tornado_table(analysis.tornado(res, pair=pair))
    return 0


def main(argv: list[str] | None = None) -> int:
    from tco.errors import InputError

    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad arguments, 0 on --help
        return int(exc.code or 0)
    try:
        return {"run": cmd_run, "validate": cmd_validate, "init": cmd_init, "offers": cmd_offers, "plan": cmd_plan,
                "sensitivity": cmd_sensitivity}[args.command](args)
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
        _err("interrupted")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
