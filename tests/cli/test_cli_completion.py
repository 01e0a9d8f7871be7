"""Shell completion: the bash script made from the parser completes commands and a command's options when bash
runs it; the zsh script is the same through bashcompinit."""

import shutil
import subprocess

import pytest

from tco.cli import _parser, completion, main


def _complete(script: str, words: list[str]) -> list[str]:
    prog = f"{script}\nCOMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; _tco; echo \"${{COMPREPLY[@]}}\""
    return subprocess.run(["bash", "-c", prog], capture_output=True, text=True, check=True).stdout.split()


def test_the_commands_come_from_the_parser():
    cmds = completion.commands(_parser())
    assert {"run", "validate", "sweep", "diff", "render", "batch", "completion"} <= set(cmds)
    assert "--scheduler" in cmds["sweep"] and "-o" in cmds["run"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_commands_and_options():
    script = completion.bash(_parser())
    assert _complete(script, ["tco", "sw"]) == ["sweep"]
    assert _complete(script, ["tco", "sweep", "x.toml", "--sch"]) == ["--scheduler"]
    assert set(_complete(script, ["tco", "diff", "--f"])) == {"--format"}


def test_the_command_prints_the_script(capsys):
    assert main(["completion", "zsh"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# zsh completion") and "bashcompinit" in out and "complete -o filenames -F _tco tco" in out
