"""The README's Layout block names every module and sub-package of tco/ (so it matches the folders)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_layout_names_every_module():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    named = set(re.findall(r"[\w/]+\.py|tco/[\w/]+/", block))
    words = set(re.findall(r"[\w.]+", block))
    missing = []
    for path in sorted((ROOT / "tco").glob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        if f"tco/{path.name}" not in named and path.name not in words and path.stem not in words:
            missing.append(f"tco/{path.name}")
    for pkg in sorted(p for p in (ROOT / "tco").iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        if f"tco/{pkg.name}/" not in named:
            missing.append(f"tco/{pkg.name}/")
    assert missing == []
