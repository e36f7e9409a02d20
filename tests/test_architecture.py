"""The rules a reviewer checks (docs/architecture.md), checked by a test instead.

- Adapters (the CLI, the MCP tools, the JSON API) import, at module level, only the
  library, the value types, the domain errors and their own package: every operation
  is one `Library` method, never assembled from engine parts.
- Only `semlith/store/` speaks SQL.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "semlith"
ADAPTERS = [*sorted((PACKAGE / "cli").glob("*.py")), PACKAGE / "server" / "tools.py",
            PACKAGE / "server" / "api.py"]
# semlith.ingest.names: how a path prints on one line, a pure function every adapter uses
ALLOWED = {"semlith.__version__", "semlith.library", "semlith.types", "semlith.errors",
           "semlith.ingest.names"}
OWN = {"cli": ("semlith.cli",), "server": ("semlith.server.answers",
                                           "semlith.server.jsonrpc")}
SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET"
                 r"|CREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL))\b|\.execute(many)?\(", re.I)


def _module_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    names = []
    for node in tree.body:  # module level only: a command may load its engine lazily
        if isinstance(node, ast.ImportFrom) and node.module:
            package = (PACKAGE.parent / node.module.replace(".", "/")).is_dir()
            names += [f"{node.module}.{a.name}" for a in node.names] if package \
                else [node.module]
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
