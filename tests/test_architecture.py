"""The shape of the package: no import circle (module level or inside functions), a vocabulary module
that imports nothing from tco, and a library API under the CLI."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "tco"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@functools.lru_cache(maxsize=1)
def _modules() -> dict[str, Path]:
    """Module name → file (read once per session; callers do not change it)."""
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Every tco module ``name`` imports, at module level or in a function body, leaving out imports
    under ``if TYPE_CHECKING:`` (they never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("tco")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if not base.startswith("tco"):
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


@functools.lru_cache(maxsize=1)
def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    graph = {name: _imports(path, name, known) for name, path in mods.items()}
    # importing a submodule runs its package's __init__ too, but the package itself is not a cycle member
    # unless its __init__ imports back; keep edges as written.
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_lazy_imports():
    """The checker itself: a function-level import counts (the old engine ⇄ risk circle was one)."""
    graph = _graph()
    assert "tco.fx.risk" in graph["tco.engine"]  # engine imports risk inside apply_fx_risk
    assert "tco.domain" in graph["tco.costs"]


def test_no_import_circle():
    graph = _graph()
    # the package __init__ re-exports the API; edges into "tco" itself are the package, not a module cycle
    graph = {k: {m for m in v if m != "tco"} for k, v in graph.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_domain_imports_nothing_from_tco():
    graph = _graph()
    assert graph["tco.domain"] == set()


def test_library_api_is_exported():
    import tco

    assert callable(tco.run) and callable(tco.write) and callable(tco.load) and callable(tco.check)


# --- a test module per package module (issue 8, part 6; folders since issue 22) ------------------------------

# Every module of tco/ has its own test module in the mirrored folder: tco/<folders>/<stem>.py is tested by
# tests/<folders>/test_<folders>_<stem>.py (the folder words joined, "report" left out: tco/report/workbook/cells.py
# by tests/report/workbook/test_workbook_cells.py); a package's __init__ holding code by test_<folders>.py in its
# folder. The names are unique by construction, so test modules need no packages. A module split off another may
# be named in NO_OWN_TEST_YET until it gets its own, with a comment saying which test module exercises it meanwhile.
NO_OWN_TEST_YET: frozenset[str] = frozenset({
    "tco.catalog",  # load_catalog and its errors: tests/catalog/test_catalog_*.py and test_engine.py
})
"""Modules of tco/ without their own test module, each named on purpose (see the comment)."""

TESTS = Path(__file__).resolve().parent


def _has_code(path: Path) -> bool:
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)) for n in body)


def _expected_tests() -> dict[str, Path]:
    """Module name → the test module the rule above names for it."""
    out = {}
    for name, path in _modules().items():
        parts = name.split(".")[1:]
        if not parts or path.name == "__main__.py" or (path.name == "__init__.py" and not _has_code(path)):
            continue
        folders = parts if path.name == "__init__.py" else parts[:-1]
        words = parts[1:] if parts[0] == "report" and len(parts) > 1 else parts
        out[name] = TESTS.joinpath(*folders) / ("test_" + "_".join(words) + ".py")
    return out


def test_every_module_has_its_own_test_module():
    missing = sorted(str(t.relative_to(TESTS.parent)) for m, t in _expected_tests().items()
                     if not t.is_file() and m not in NO_OWN_TEST_YET)
    assert missing == [], f"modules of tco/ without their test module: {missing}"


def test_the_list_of_modules_without_tests_is_not_stale():
    expected = _expected_tests()
    stale = sorted(m for m in NO_OWN_TEST_YET if m not in expected or expected[m].is_file())
    assert stale == [], f"remove from NO_OWN_TEST_YET (tested now, or no such module): {stale}"


def test_test_module_names_are_unique():
    """Test folders are not packages, so two test files of one name would collide on import."""
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


# --- folders are the stages (issue 22) --------------------------------------------------------------------------

def _folder(module: str) -> str:
    """The folder a module lives in: tco.costs.taxes → tco.costs, tco.report.workbook.cells → tco.report.workbook,
    a top-level module (tco.engine) → tco."""
    path = _modules()[module]
    parts = module.split(".")
    return ".".join(parts if path.name == "__init__.py" else parts[:-1])


def _folder_graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, bs in _graph().items():
        for b in bs:
            fa, fb = _folder(a), _folder(b)
            # a folder's parent package is not a circle when only its __init__ is imported (tco's API)
            if fa != fb and fb != "tco" and fa != "tco":
                out.setdefault(fa, set()).add(fb)
    return out


def test_no_circle_between_folders():
    """The stage folders form a ladder: no folder imports one that imports it back (directly or around)."""
    assert _cycles(_folder_graph()) == []


def test_the_stages_are_folders():
    for stage in ("scenario", "catalog", "timeline", "sizing", "resolve", "costs", "fx", "analysis", "plan", "output",
                  "cli", "report/workbook", "report/proposal"):
        assert (PKG / stage / "__init__.py").is_file(), stage


def test_no_module_over_400_lines():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400 and p.name != "weasy_ffi.py"}
    assert long == {}


# --- one input for every renderer (issue 22, item 3) ------------------------------------------------------------------

RENDERERS = ("tco.report.workbook", "tco.report.proposal", "tco.report.terminal", "tco.web", "tco.report.view",
             "tco.report.view_catalog", "tco.report.plan_table", "tco.report.offer_checks", "tco.report.owned")
"""The modules that render a run (workbook, proposal, terminal, web desk) and the view they read."""

JSON_ONLY_KEYS = frozenset({"catalog_rows", "ranking", "infeasible", "assumptions", "warnings", "demand"})
"""Top-level keys of the JSON document that no typed value has: a renderer subscripting one reads the JSON dict."""


def _renderer_modules() -> dict[str, Path]:
    return {m: p for m, p in _modules().items() if any(m == r or m.startswith(r + ".") for r in RENDERERS)}


def _reads_the_json_dict(path: Path, name: str) -> list[str]:
    """What in module `name` reads the JSON document: an import of its builder (tco.report.json_out), a parameter
    named ``doc`` (the document's name wherever it was passed), a subscript by a key only the document has."""
    out = [f"{name} imports tco.report.json_out"] if "tco.report.json_out" in _graph()[name] else []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            out += [f"{name}:{node.lineno} takes `doc`" for a in args.posonlyargs + args.args + args.kwonlyargs
                    if a.arg == "doc"]
        elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
              and node.slice.value in JSON_ONLY_KEYS):
            out.append(f"{name}:{node.lineno} reads [{node.slice.value!r}]")
    return out


def test_no_renderer_reads_the_json_dict():
    """The workbook, the proposal, the terminal and the web desk read the typed results and the view
    (tco.report.view), never the JSON document: the JSON writer is one renderer among them."""
    mods = _renderer_modules()
    assert "tco.report.workbook.catalog" in mods and "tco.web.answer" in mods and "tco.report.terminal" in mods
    assert [x for m, p in sorted(mods.items()) for x in _reads_the_json_dict(p, m)] == []


def test_the_json_dict_scan_finds_a_reader(tmp_path):
    """The scan itself: a parameter `doc`, a JSON-only key and an import of the builder are each found."""
    f = tmp_path / "m.py"
    f.write_text("def write(book, doc):\n    return doc['catalog_rows']\n", encoding="utf-8")
    _graph()["tco.fake_renderer"] = {"tco.report.json_out"}
    try:
        found = _reads_the_json_dict(f, "tco.fake_renderer")
    finally:
        del _graph()["tco.fake_renderer"]
    assert found == ["tco.fake_renderer imports tco.report.json_out", "tco.fake_renderer:1 takes `doc`",
                     "tco.fake_renderer:2 reads ['catalog_rows']"]
