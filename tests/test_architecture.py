"""The rules a reviewer checks (docs/architecture.md, "Layers"), checked by a test instead.

- Every module belongs to the layer its path's first part is in (docs/architecture.md's
  layers table, read here), and imports only its own layer or the ones below:
  foundation < engine < services < library < adapters. No import cycle, anywhere.
  Imports inside functions and under `if TYPE_CHECKING:` count as well (issue #44).
- `semlith/` itself holds only the face; nothing inside the package imports the face
  (`semlith/__init__.py`), which re-exports the library above every other module.
- Adapters (the CLI, the MCP tools, the JSON API) import, at module level, only the
  library, the value types, the domain errors, `base.names` and their own package:
  every operation is one `Library` method, never assembled from engine parts.
- `library.py` is the protocol only: it imports nothing but the foundation.
- Only `semlith/store/` speaks SQL, and nothing above it asks which backend a store has.
- Every domain exception lives in errors.py; every module stays under 400 lines.
- Every package and module says what it is in its docstring, and docs/architecture.md's
  module map, generated from them, is current.
- A test module imports no other test module: shared helpers and fixtures live in
  tests/*_util.py, tests/*_fixtures.py and the conftest files (issue #20).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "semlith"
TESTS = Path(__file__).resolve().parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# The face (issue #44): what `semlith/` holds at its top, and nothing else.
FACE = {"__init__", "__main__", "library", "connect", "remote", "daemon_client", "errors",
        "wire"}
ADAPTERS = [*sorted((PACKAGE / "cli").glob("*.py")),
            *(PACKAGE / "server" / name for name in ("tools.py", "graph_tools.py", "api.py",
                                                     "registry.py", "mcp.py",
                                                     "answers.py", "jsonrpc.py")),
            PACKAGE / "server" / "portal" / "routes.py"]
# semlith.base.names: how a path prints on one line, a pure function every adapter uses;
# semlith.types.shown: the line a hit is shown by, which the searcher chose
ALLOWED = {"semlith.base.version", "semlith.library", "semlith.types", "semlith.types.graph",
           "semlith.types.grep", "semlith.types.info", "semlith.types.shown", "semlith.errors",
           "semlith.wire", "semlith.base.names"}
OWN = {"cli": ("semlith.cli",), "server": ("semlith.server.answers",
                                           "semlith.server.arguments",
                                           "semlith.server.jsonrpc",
                                           "semlith.server.graph_tools",
                                           "semlith.server.registry",
                                           "semlith.server.tools"),
        # the portal's routes are /api's endpoints behind its own session check
        "portal": ("semlith.server.portal.session", "semlith.server.api")}
SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET"
                 r"|CREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL))\b|\.execute(many)?\(", re.I)
MAX_LINES = 400  # every module, no exceptions (issue #20 split the last six)


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN_DOCS = _gen_docs()
# The layers, lowest first: (name, packages and modules), from docs/architecture.md's
# table, so that the page a reviewer reads is the one the test checks.
LAYERS: list[tuple[str, list[str]]] = GEN_DOCS.layers(ARCHITECTURE.read_text())


def _modules() -> dict[str, Path]:
    out = {"semlith.grammars": ROOT / "grammars" / "__init__.py"}  # shipped as semlith.grammars
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _top(module: str) -> str:
    """What decides a module's layer: its path's first part (`semlith.store.milvus.x`
    is `semlith.store`'s), or the root module itself (`semlith.errors`, `semlith`)."""
    return ".".join(module.split(".")[:2])


LAYER_OF = {top: index for index, (_, tops) in enumerate(LAYERS) for top in tops}


def _layer(module: str) -> int:
    return LAYER_OF.get(_top(module), -1)


def _imports(path: Path) -> set[str]:
    """The semlith modules `path` imports anywhere: in functions and under
    `if TYPE_CHECKING:` too (a type-only import is a dependency all the same)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from semlith import wire` imports semlith.wire; `from semlith.types import
            # Hit` imports semlith.types
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("semlith"):
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    # a module importing a package it is inside of (its __init__) is not an edge
    return {name: {d for d in _imports(path) if d != name and not name.startswith(d + ".")}
            for name, path in MODULES.items()}


GRAPH = _graph()


def test_the_layers_table_names_each_top_once() -> None:
    tops = [top for _, names in LAYERS for top in names]
    assert [name for _, name in LAYERS] != [] and len(tops) == len(set(tops))
    assert [top for top in tops if top not in MODULES or _top(top) != top] == []


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if _layer(m) < 0] == []


def test_the_root_holds_only_the_face() -> None:
    """`semlith/` holds the face (issue #44); everything else lives in a package."""
    found = {path.stem for path in PACKAGE.glob("*.py")}
    assert found == FACE and len(found) <= 10


def test_nothing_inside_imports_the_face() -> None:
    assert sorted(m for m, deps in GRAPH.items() if "semlith" in deps) == []


def test_imports_point_down_or_sideways() -> None:
    upward = [f"{m} ({LAYERS[_layer(m)][0]}) -> {d} ({LAYERS[_layer(d)][0]})"
              for m, deps in sorted(GRAPH.items()) for d in sorted(deps)
              if _layer(d) > _layer(m)]
    assert upward == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return cycles


def test_no_import_cycle() -> None:
    assert _cycles(GRAPH) == []


def test_a_type_only_circle_is_found(tmp_path: Path) -> None:
    """The checks themselves: an import under TYPE_CHECKING is an edge, and a circle of
    three modules is one component."""
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                     "    from semlith import wire\n    from semlith.types import Hit\n")
    assert _imports(probe) == {"semlith.wire", "semlith.types"}
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_package_and_module_says_what_it_is() -> None:
    """Its docstring's first sentence (a package's: first paragraph) is its row of the
    module map: more than a name (`server.` said nothing)."""
    mute = [name for name, path in sorted(MODULES.items())
            if len((ast.get_docstring(ast.parse(path.read_text())) or "").split()) < 4]
    assert mute == []


def test_the_module_map_is_current() -> None:
    current = ARCHITECTURE.read_text()
    assert GEN_DOCS.architecture(current) == current, "stale: run python scripts/gen_docs.py"


def test_the_protocol_imports_only_the_foundation() -> None:
    assert {d for d in _imports(PACKAGE / "library.py") if _layer(d) > 0} == set()


def _module_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    names = []
    for node in tree.body:  # module level only: a command may load its engine lazily
        if isinstance(node, ast.ImportFrom) and node.module:
            folder = PACKAGE.parent / node.module.replace(".", "/")
            # a submodule (or a name of the root package) by its own name, else the module
            names += [f"{node.module}.{a.name}" if (folder / f"{a.name}.py").is_file()
                      or (folder / a.name).is_dir() or node.module == "semlith"
                      else node.module for a in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return [n for n in names if n == "semlith" or n.startswith("semlith.")]


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_adapters_import_only_the_library_and_the_types(path: Path) -> None:
    own = OWN[path.parent.name]
    wrong = [name for name in _module_imports(path)
             if name not in ALLOWED and not name.startswith(own)]
    assert not wrong, f"{path.name} imports {wrong}; call a Library method instead"


def test_only_the_store_speaks_sql() -> None:
    offenders = [f"{path.relative_to(PACKAGE)}:{n}"
                 for path in sorted(PACKAGE.rglob("*.py")) if "store" not in path.parts
                 for n, line in enumerate(path.read_text().splitlines(), start=1)
                 if SQL.search(line)]
    assert not offenders, f"SQL outside semlith/store/: {offenders}"


def test_nothing_above_the_store_asks_for_its_backend() -> None:
    asks = re.compile(r"(?<!semlith)\.(remote|mirror|_remote|_mirror|_backend)\b")
    offenders = [f"{path.relative_to(PACKAGE)}:{n}"
                 for path in sorted(PACKAGE.rglob("*.py")) if "store" not in path.parts
                 for n, line in enumerate(path.read_text().splitlines(), start=1)
                 if asks.search(line.split("#")[0])]
    assert not offenders, f"ask the store's corpus instead: {offenders}"


def test_the_graph_reads_the_store_through_its_face() -> None:
    """graph/ asks its `GraphStore` (store/graph.py), never the catalog (issue #44)."""
    offenders = [f"{path.relative_to(PACKAGE)}:{n}"
                 for path in sorted((PACKAGE / "graph").glob("*.py"))
                 for n, line in enumerate(path.read_text().splitlines(), start=1)
                 if re.search(r"\.catalog\b|store\.catalog|corpus\.writable", line)]
    assert offenders == []


def test_the_graph_keeps_its_language_rules_in_one_table() -> None:
    """A language's rules are a row of graph/rules.py: no module of graph/ compares a
    language's name (`lang == "python"`, `lang in ("go", "java")`)."""
    compares = re.compile(r"""lang\)?\s*(==|!=|in|not in)\s*([("']|[A-Z_]{4,})""")
    offenders = [f"{path.relative_to(PACKAGE)}:{n}"
                 for path in sorted((PACKAGE / "graph").glob("*.py")) if path.name != "rules.py"
                 for n, line in enumerate(path.read_text().splitlines(), start=1)
                 if compares.search(line.split("#")[0])]
    assert offenders == []


def test_the_catalog_file_is_named_once() -> None:
    offenders = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
                 if '"store.db"' in path.read_text() and path.name != "catalog.py"]
    assert offenders == [], "use Store.exists (or CATALOG_NAME inside store/)"


def test_domain_exceptions_live_in_errors_py() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    ast.unparse(b).endswith("SemlithError") for b in node.bases):
                offenders.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert offenders == []


def test_modules_stay_under_400_lines() -> None:
    long = {name: n for name, path in sorted(MODULES.items())
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}, "split by concept (STYLE.md)"


def _test_module_imports(path: Path) -> list[str]:
    """The test modules (`test_*`) that `path` imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [module, *(f"{module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.rpartition(".")[2].startswith("test_")]
    return found


def test_no_test_module_imports_another() -> None:
    offenders = {str(path.relative_to(TESTS)): names for path in sorted(TESTS.rglob("*.py"))
                 if (names := _test_module_imports(path))}
    assert offenders == {}, "move the shared helper to a tests/*_util.py module"
