"""The CLI's arguments: the parser of `python -m tco`, and the argument types `run` and `batch` share (whole
numbers with a minimum, the --seed and --paths bounds of the schema's fx.seed and fx.paths, --formats)."""

from __future__ import annotations

import argparse

from tco import __version__

EPILOG = """\
examples:
  python -m tco run scenarios/seed_70b_h200.toml            # writes output/seed_70b_h200.{json,csv,xlsx,pdf}
  python -m tco run scenarios/seed_70b_h200.toml -o /tmp/x --seed 7 --paths 50000
  python -m tco validate scenarios/seed_70b_h200.toml       # check only, write nothing
  python -m tco init my_scenario.toml                       # a commented starter scenario
  python -m tco offers --gpu H200                           # list catalog offers
  python -m tco calibrate my_vllm_run.json --model llama-3.1-70b --gpu H100-SXM-80GB \\
      --gpu-count 8 --tp 8 --precision fp8
  python -m tco batch scenarios/*.toml -o output/batch      # many scenarios on all cores, with a summary
  python -m tco plan scenarios/seed_70b_h200.toml           # each provider's best plan, the hybrid, the best
  python -m tco run scenarios/seed_70b_h200.toml -o - --paths 1000 | jq .cheapest   # the JSON on stdout
  python -m tco sweep scenarios/sweeps/seed_fx_users.toml    # many cases on Dask: a table and a decision map
  python -m tco diff scenarios/seed_70b_h200.toml my_copy.toml   # what changed: inputs, TCO by option, ranking

exit codes: 0 ok, 2 bad input (file, line and key named on stderr), 1 unexpected error
(batch: 0 all ok, 2 if any scenario had bad input and none crashed, 1 if any crashed).
"""


def stem_problem(scenario_path: str) -> str | None:
    """A message if a scenario file's name cannot name its outputs (``..toml``, ``.toml``), else None."""
    from pathlib import Path

    stem = Path(scenario_path).stem
    if not stem or stem.startswith("."):
        return (f"{scenario_path}: the output files are named after the scenario file, and {stem!r} would make "
                "hidden or odd names; rename the file (e.g. my_scenario.toml)")
    return None


def at_least(minimum: int, maximum: int | None = None):
    """An argparse type: a whole number ≥ minimum (and ≤ maximum when given)."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:  # also a number of more than 4,300 digits (Python's limit on int(text))
            shown = text if len(text) <= 40 else f"{text[:40]}… ({len(text):,} characters)"
            raise argparse.ArgumentTypeError(f"not a whole number: {shown!r}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {v}")
        if maximum is not None and v > maximum:
            raise argparse.ArgumentTypeError(f"must be {maximum} or less, got {v}")
        return v

    return parse


MAX_PATHS = 10_000_000
"""Same cap as the schema's ``fx.paths``."""
MAX_SEED = 2**63 - 1
"""Same cap as the schema's ``fx.seed`` (numpy seeds a generator with any integer; the schema keeps it to 64 bits)."""


def seed(text: str) -> int:
    v = at_least(0)(text)
    if v > MAX_SEED:
        raise argparse.ArgumentTypeError(f"at most 2^63 − 1 = {MAX_SEED:,} (the limit of fx.seed), got {v:.3g}")
    return v


def paths(text: str) -> int:
    v = at_least(1)(text)
    if v > MAX_PATHS:
        raise argparse.ArgumentTypeError(f"at most {MAX_PATHS:,} paths (the limit of fx.paths), got {v:,}")
    return v


def formats(text: str) -> list[str]:
    from tco.output import FORMATS

    formats = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown format(s) {', '.join(bad)}; choose from {', '.join(FORMATS)}")
    if not formats:
        raise argparse.ArgumentTypeError(f"no format given; choose from {', '.join(FORMATS)}")
    return list(dict.fromkeys(formats))


OWN_COMMANDS = ("run", "validate", "sensitivity", "plan", "init", "offers", "serve")
"""The commands whose arguments this module declares (calibrate and batch declare theirs in their modules)."""


def parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The CLI's parser with OWN_COMMANDS, and its subcommands' group (tco.cli adds calibrate and batch, whose
    modules declare their own arguments)."""
    from tco.report.i18n import LOCALES

    p = argparse.ArgumentParser(prog="python -m tco", description="Lifecycle TCO of an AI model: dedicated GPU "
                                "servers billed in BRL vs public cloud billed in USD.", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tco {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="size, cost and compare; write JSON, CSV ledger, workbook and proposal",
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    run.add_argument("scenario", help="scenario TOML file")
    run.add_argument("-o", "--output", default="output", metavar="DIR", help="output folder (default: output/); "
                     "'-' prints the JSON on standard output and writes nothing")
    run.add_argument("--seed", type=seed, metavar="N", help="override [fx] seed (0 to 2^63 − 1)")
    run.add_argument("--paths", type=paths, metavar="N", help="override [fx] paths (Monte Carlo, 1 to 10,000,000)")
    run.add_argument("--formats", default=["json", "csv", "xlsx", "pdf"], type=formats,
                     help="comma-separated outputs to write (default: json,csv,xlsx,pdf)")
    run.add_argument("--quiet", action="store_true", help="no terminal summary")
    run.add_argument("--no-sensitivity", action="store_true", help="skip the tornado (faster)")
    val = sub.add_parser("validate", help="check a scenario against the schema and the catalog; write nothing")
    val.add_argument("scenario")
    val.add_argument("--quiet", action="store_true", help="print nothing; the exit code tells (0 ok, 2 bad input)")
    val.add_argument("--json", action="store_true", help="print the outcome and the notices as JSON")
    sens = sub.add_parser("sensitivity", help="tornado: the TCO difference between the two leading options as "
                          "each input moves over its range; writes nothing")
    sens.add_argument("scenario")
    pl = sub.add_parser("plan", help="search each provider's best plan (GPU, region, pricing, committed baseline, "
                        "fleets, hybrids) and print it; writes nothing unless --json")
    pl.add_argument("scenario")
    pl.add_argument("--json", metavar="FILE", help="also write the search result as JSON to FILE")
    pl.add_argument("--show-skipped", action="store_true", help="list every skipped offer and pricing under its "
                    "reason (by default: the three most frequent reasons, with counts)")
    for cmd in (run, val, pl):
        cmd.add_argument("--locale", choices=LOCALES, help="override [scenario] locale: the language and number "
                         "format of the terminal, the workbook and the proposal (the JSON's keys never change)")
    init = sub.add_parser("init", help="write a commented starter scenario")
    init.add_argument("path", help="where to write it (refuses to overwrite)")
    offers = sub.add_parser("offers", help="list the catalog's offers and prices")
    offers.add_argument("--gpu", help="filter on GPU name (substring)")
    offers.add_argument("--catalog-dir", help="overlay catalog folder")
    serve = sub.add_parser("serve", help="the sales desk: a local web page to build, check and download a proposal "
                           "(needs the 'web' extra)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this computer "
                       "only; another address prints a warning: the page has no login)")
    serve.add_argument("--port", type=at_least(1, 65_535), default=8000, help="port (default: 8000)")
    serve.add_argument("--scenarios", metavar="DIR", help="folder of example scenarios to start from (default: "
                       "./scenarios when it exists)")
    serve.add_argument("--data", metavar="DIR", help="folder of the saved proposals (SQLite); absent: none saved")
    serve.add_argument("--workers", type=at_least(1), default=2, help="processes that run scenarios (default: 2; at "
                       "most the cores, or 2 where fewer)")
    return p, sub
