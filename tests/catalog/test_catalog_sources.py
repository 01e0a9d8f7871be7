"""Sources cite public documents (issue 22, item 8): no catalog file, docstring or comment of `tco`, nor a page of
`docs/` or the README, cites a path of the machine where the reference notes were read (`shared/reference/...`,
`/work/...`, `../shared`, a bare `reference/...`) or the notes and reviews by their file names. A figure's source is
the law, price list, page or paper it came from: publisher, document, date, URL or article."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tco" / "catalog" / "data"

# A machine path, or a private note or review named by its file.
MACHINE = re.compile(
    r"shared/(?:reference|reviews)\b"
    r"|/work/"
    r"|\.\./shared"
    r"|(?<![/\w.-])reference/"
    r"|\b(?:brazil_fx_tax|cloud_prices_specs|\d{4}-\d{2}-prices-and-taxes)\.md"
    r"|\b(?:gpu_specs|cloud_gpu_prices|selic_monthly_sgs4189|usdbrl_monthly_eom_2015_2026)\.csv"
)


def hits(text: str) -> list[str]:
    return [text[max(0, m.start() - 40):m.end() + 40] for m in MACHINE.finditer(text)]


def docstrings_and_comments(path: Path) -> list[tuple[int, str]]:
    """Every docstring (module, class, function) and every comment of one module, with its line."""
    src = path.read_text(encoding="utf-8")
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((getattr(node, "lineno", 1), doc))
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    return out


def test_the_pattern_catches_machine_paths_and_passes_public_citations():
    bad = ["PUE 1.3-1.5 (shared/reference/brazil_fx_tax.md §4.3)",
           "via shared/reviews/2026-11-prices-and-taxes.md §2 1a",
           "read from /work/shared/reference/README.md",
           "see ../shared/usdbrl_monthly_fred_exbzus.csv",
           "not in reference/gpu_specs.csv",
           "fx.brl_rate and fx.usd_rate (brazil_fx_tax.md §2.4)",
           "no vendor spec in gpu_specs.csv"]
    good = ["Lambda pricing page (https://lambda.ai/pricing), 2026-09-20",
            "Azure Retail Prices API (https://prices.azure.com/api/retail/prices), East US",
            "https://learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices",
            "https://docs.example.com/api/reference/prices (a public URL with a reference path segment)",
            "Lei 10.865/2004 art. 8; RICMS/SP art. 54 V; BCB SGS 3698",
            "CBS reference rate (LC 214/2025 art. 353)"]
    assert all(hits(t) for t in bad), [t for t in bad if not hits(t)]
    assert not any(hits(t) for t in good), [t for t in good if hits(t)]


@pytest.mark.parametrize("path", sorted(p for p in DATA.iterdir() if p.suffix in (".csv", ".toml", ".md")),
                         ids=lambda p: p.name)
def test_no_catalog_file_cites_a_machine_path(path):
    found = [(n, h) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) for h in hits(line)]
    assert not found, f"{path.name} cites a machine path or a private note: {found[:5]}"


def test_no_docstring_or_comment_cites_a_machine_path():
    found = [(str(p.relative_to(ROOT)), line, h)
             for p in sorted((ROOT / "tco").rglob("*.py"))
             for line, text in docstrings_and_comments(p) for h in hits(text)]
    assert not found, found[:10]


def test_no_page_of_the_docs_cites_a_machine_path():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [(str(p.relative_to(ROOT)), n, h) for p in pages
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) for h in hits(line)]
    assert not found, found[:10]
