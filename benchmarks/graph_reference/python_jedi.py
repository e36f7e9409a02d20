"""Python call edges from jedi: the reference for the code graph's Python edges (#22).

    python benchmarks/graph_reference/python_jedi.py CORPUS_ROOT OUT.json
        [--under src/requests] [--project-marker callgraph.json] [--corpus NAME]

Every ``.py`` file under ``CORPUS_ROOT/UNDER`` is parsed with ``ast``; each ``ast.Call``
is a call site. jedi is asked ``Script.goto(line, column, follow_imports=True)`` at the
start of the callee's name (the identifier in ``f()``, the attribute in ``a.b.f()``),
and ``Script.infer`` at the same place when goto finds no ``def`` or ``class``. A result
becomes an edge when it is a function or a class defined in one of the analysed files.

Rules (see reference.py for the format):

- A call to a class is an edge to the ``class`` line, not to its ``__init__``; with
  ``--constructors`` (an LSP call hierarchy's convention, issue #45) it is an edge to the
  ``__init__`` the call runs: the class's own, else the first its bases in the corpus
  define (depth first, bases resolved by jedi), else the ``class`` line.
- ``callee_start_line`` is the line of ``def``/``class`` (``ast``'s ``lineno``);
  decorators above it are not part of the definition. jedi reports the line of the
  definition's name, which is checked to be such a line: a result that is not (a
  ``lambda``, a ``functools.partial`` assigned to a name, a callable instance) is
  dropped, and the call site is listed as unresolved ("non-definition").
- Bare decorators (``@dec`` without parentheses) are not call sites; ``@dec(...)`` is.
- Calls with no name to ask about (``f()()``, ``handlers[k]()``) are listed as
  unresolved ("no-name").
- jedi's answer at a handful of sites varies between runs (starlette: 414 or 415 edges,
  httpx: 167 or 168 unresolved sites; a fixed PYTHONHASHSEED does not remove it): a
  rerun may differ from the stored reference by such a site.
- A site where jedi raises (0.20.1, at one or two starlette sites) is "jedi-error".
- jedi runs on the interpreter it is installed in, with the corpora's dependencies
  from requirements.txt: a call into a dependency that is not installed would be
  "unresolved" (fastapi without annotated-doc: 1,062 unresolved sites, not 156) where
  it is judged external; the edges do not change.

The import root (``sys.path`` entry) of the corpus is the folder above the topmost
package containing ``UNDER`` (``src`` for ``src/requests``). With ``--project-marker
FILE``, every folder holding FILE is its own project and import root (the PyCG
micro-benchmark, one small program per folder).
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jedi
from python_sites import call_sites, definition_lines
from reference import Edge, Reference, Unresolved, dump


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = args.corpus_root.resolve()
    started = time.perf_counter()
    scope = root / args.under if args.under else root
    files = sorted(path for path in scope.rglob("*.py") if path.is_file())
    edges: list[Edge] = []
    unresolved: list[Unresolved] = []
    for project_root, project_files in _projects(scope, files, args.project_marker):
        found, missed = project_edges(root, project_root, project_files, args.constructors)
        edges += found
        unresolved += missed
    meta = {
        "corpus": args.corpus or root.name,
        "language": "python",
        "oracle": "python_jedi.py" + (" --constructors" if args.constructors else ""),
        "tools": {"jedi": jedi.__version__, "python": sys.version.split()[0]},
        "under": args.under or ".",
        "seconds": round(time.perf_counter() - started, 1),
    }
    relative = [path.relative_to(root).as_posix() for path in files]
    dump(Reference(meta, relative, edges, unresolved), args.out)
    print(
        f"{meta['corpus']}: {len(set(edges))} edges, {len(set(unresolved))} unresolved "
        f"sites, {len(files)} files, {meta['seconds']} s"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus_root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--under", help="analyse only this sub-folder of the corpus root")
    parser.add_argument("--project-marker", help="each folder holding this file is a project")
    parser.add_argument("--corpus", help="corpus name for the meta block")
    parser.add_argument("--constructors", action="store_true",
                        help="a call to a class is an edge to the __init__ it runs")
    return parser


def _projects(
    scope: Path, files: list[Path], marker: str | None
) -> Iterator[tuple[Path, list[Path]]]:
    if not marker:
        yield import_root(scope), files
        return
    for folder in sorted(path.parent for path in scope.rglob(marker)):
        yield folder, [path for path in files if folder in path.parents]


def import_root(scope: Path) -> Path:
    """The folder above the topmost package that contains ``scope``."""
    folder = scope if scope.is_dir() else scope.parent
    while (folder / "__init__.py").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def project_edges(
    root: Path, import_from: Path, files: list[Path], constructors: bool = False
) -> tuple[list[Edge], list[Unresolved]]:
    """Edges and unresolved sites of ``files``, imports resolved from ``import_from``;
    with ``constructors`` a class's edge goes to the ``__init__`` the call runs."""
    environment = jedi.InterpreterEnvironment()
    sys_path = [str(import_from), *environment.get_sys_path()]
    project = jedi.Project(import_from, sys_path=sys_path, smart_sys_path=False)
    definitions = {path.resolve(): definition_lines(path) for path in files}
    edges: list[Edge] = []
    unresolved: list[Unresolved] = []
    inits = _Constructors(project, environment, set(definitions)) if constructors else None
    for path in files:
        caller = path.relative_to(root).as_posix()
        script = jedi.Script(
            path.read_text(encoding="utf-8"), path=path, project=project, environment=environment
        )
        for line, column, name in call_sites(path):
            if column < 0:
                unresolved.append(Unresolved(caller, line, name, "no-name"))
                continue
            try:
                targets, reason = _resolve(script, line, column, definitions)
            except _JEDI_BUGS as error:  # jedi 0.20.1 fails on a few sites in starlette
                print(f"{caller}:{line}: jedi: {error!r}", file=sys.stderr)
                targets, reason = set(), "jedi-error"
            if inits is not None:
                targets = {inits.of(p, n) for p, n in targets}
            for target_path, target_line in targets:
                callee = target_path.relative_to(root).as_posix()
                edges.append(Edge(caller, line, callee, target_line, name))
            if reason:
                unresolved.append(Unresolved(caller, line, name, reason))
    return edges, unresolved


def _resolve(
    script: jedi.Script, line: int, column: int, definitions: dict[Path, set[int]]
) -> tuple[set[tuple[Path, int]], str]:
    """The in-corpus definitions at a callee name, and why there are none if so."""
    named = script.goto(line, column, follow_imports=True)
    found = [name for name in named if name.type in _DEFINITIONS]
    if not found:
        found = [name for name in script.infer(line, column) if name.type in _DEFINITIONS]
    if not found and not named:
        return set(), "unresolved"
    targets = set()
    for name in found:
        path = _module_path(name)
        if path in definitions and name.line in definitions[path]:
            targets.add((path, name.line))
    if targets or not any(_module_path(name) in definitions for name in found or named):
        return targets, ""  # an edge, or a callee outside the corpus
    return targets, "non-definition"


_DEFINITIONS = ("function", "class")
_JEDI_BUGS = (
    AttributeError,
    AssertionError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
    RecursionError,
    NotImplementedError,
)


class _Constructors:
    """The ``__init__`` a call of a class runs: (path, line) of its ``def``, or the
    class's own (path, line) when no class of the corpus on its way defines one."""

    def __init__(self, project: jedi.Project, environment: Any, corpus: set[Path]) -> None:
        self.project, self.environment, self.corpus = project, environment, corpus
        self.trees: dict[Path, ast.Module] = {}
        self.scripts: dict[Path, jedi.Script] = {}

    def of(self, path: Path, line: int, depth: int = 0) -> tuple[Path, int]:
        found = self._init(path, line, depth)
        return found or (path, line)

    def _init(self, path: Path, line: int, depth: int) -> tuple[Path, int] | None:
        node = self._class_at(path, line) if path in self.corpus else None
        if node is None or depth > 8:
            return None
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    item.name == "__init__":
                return path, item.lineno
        for base in node.bases:
            while isinstance(base, ast.Subscript):  # Generic[T]
                base = base.value
            if isinstance(base, ast.Name):
                at = (base.lineno, base.col_offset)
            elif isinstance(base, ast.Attribute) and base.end_col_offset is not None:
                at = (base.end_lineno or base.lineno, base.end_col_offset - len(base.attr))
            else:
                continue
            for name in self._script(path).goto(*at, follow_imports=True):
                where = _module_path(name)
                if name.type == "class" and where is not None:
                    found = self._init(where, name.line, depth + 1)
                    if found is not None:
                        return found
        return None

    def _class_at(self, path: Path, line: int) -> ast.ClassDef | None:
        if path not in self.trees:
            self.trees[path] = ast.parse(path.read_bytes())
        return next((n for n in ast.walk(self.trees[path])
                     if isinstance(n, ast.ClassDef) and n.lineno == line), None)

    def _script(self, path: Path) -> jedi.Script:
        if path not in self.scripts:
            self.scripts[path] = jedi.Script(path.read_text(encoding="utf-8"), path=path,
                                             project=self.project,
                                             environment=self.environment)
        return self.scripts[path]


def _module_path(name: jedi.api.classes.Name) -> Path | None:
    return name.module_path.resolve() if name.module_path else None


if __name__ == "__main__":
    sys.exit(main())
