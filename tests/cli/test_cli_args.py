"""tco.cli.args: whole numbers with a minimum, --seed and --paths bounded as the schema's fx, --formats."""

import argparse

import pytest

from tco.cli.args import MAX_PATHS, MAX_SEED, at_least, formats, parser, paths, seed


def test_at_least_reads_whole_numbers_from_its_minimum():
    assert at_least(1)("3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="must be 1 or more, got 0"):
        at_least(1)("0")
    with pytest.raises(argparse.ArgumentTypeError, match="not a whole number: '2.5'"):
        at_least(0)("2.5")
    with pytest.raises(argparse.ArgumentTypeError, match=r"\(5,000 characters\)"):
        at_least(0)("9" * 5000)  # past Python's 4,300-digit limit on int(text): a clear error, not a traceback


def test_seed_and_paths_stop_at_the_schemas_bounds():
    assert seed("0") == 0 and seed(str(MAX_SEED)) == 2**63 - 1
    with pytest.raises(argparse.ArgumentTypeError, match="at most 2"):
        seed(str(MAX_SEED + 1))
    assert paths("1") == 1 and paths(str(MAX_PATHS)) == 10_000_000
    with pytest.raises(argparse.ArgumentTypeError, match="at most 10,000,000 paths"):
        paths(str(MAX_PATHS + 1))


def test_formats_keep_their_order_once_each():
    assert formats("pdf, json,pdf") == ["pdf", "json"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown format"):
        formats("json,docx")


def test_the_parser_has_the_own_commands_and_leaves_batch_and_calibrate_to_the_cli():
    from tco.cli import _parser
    from tco.cli.args import OWN_COMMANDS

    p, sub = parser()
    assert set(sub.choices) == set(OWN_COMMANDS)
    assert p.parse_args(["run", "s.toml", "--seed", "7"]).seed == 7
    assert {"batch", "calibrate"} <= set(_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
