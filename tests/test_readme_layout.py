"""The README's Layout block names every stage folder of tco/; docs/layout.md lists every module with the first
line of its docstring, generated (``python tests/test_readme_layout.py`` rewrites it) and checked for staleness."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "tco"
PAGE = ROOT / "docs" / "layout.md"
HEAD = """# Layout, module by module

Generated from each module's docstring by `python tests/test_readme_layout.py` (a test fails when it is stale).
The folders are the stages, bottom to top; the README's Layout says what each folder is for.
"""


def _first_line(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def layout_page() -> str:
    out = [HEAD]
    folders = sorted({p.parent for p in PKG.rglob("*.py")}, key=lambda p: p.relative_to(ROOT).as_posix())
    for folder in folders:
        out.append(f"\n## `{folder.relative_to(ROOT).as_posix()}/`\n")
        for path in sorted(folder.glob("*.py")):
            if path.name == "__main__.py":
                continue
            out.append(f"- `{path.name}`: {_first_line(path) or '(no docstring)'}")
    return "\n".join(out) + "\n"


def test_readme_names_every_folder():
    block = (ROOT / "README.md").read_text(encoding="utf-8").split("## Layout", 1)[1].split("```", 2)[1]
    folders = sorted(f"tco/{p.relative_to(PKG).as_posix()}/" for p in PKG.iterdir()
                     if p.is_dir() and (p / "__init__.py").exists())
    assert [f for f in folders if f not in block] == []


def test_layout_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == layout_page(), "run: python tests/test_readme_layout.py"



def test_readme_test_command_is_what_ci_runs():
    """The README's test command (the fenced block after "run the tests") is a line of `.ci/run`, which then adds the
    slow set, so the two stay in step."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("run the tests", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci and "--durations=20" in command
    assert ".venv/bin/python -m pytest -m slow --durations=20" in ci


if __name__ == "__main__":
    PAGE.write_text(layout_page(), encoding="utf-8")
    sys.stdout.write(f"wrote {PAGE}\n")
