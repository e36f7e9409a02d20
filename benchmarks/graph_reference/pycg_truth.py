"""The PyCG micro-benchmark's ground truth as a reference (see reference.py).

    python benchmarks/graph_reference/pycg_truth.py fixtures/pycg-micro/snippets OUT.json

Each folder holding a ``callgraph.json`` is one small program; PyCG's file maps the
qualified name of every function (and module) to the qualified names it calls, with no
call sites. Call sites come from parsing the program with ``ast``:

- A module ``pkg/mod.py`` is ``pkg.mod`` (``pkg/__init__.py`` is ``pkg``), relative to
  the program's folder; a function is ``module.Class.method``; the n-th lambda of a
  scope is ``scope.<lambdaN>``. A scope's call sites are the calls in its body, not in
  a nested ``def``, ``lambda`` or ``class`` body (a class body belongs to the scope
  around it, as PyCG has it); decorators and defaults belong to the scope around too.
- A callee is placed at the caller's call sites whose callee name is its last
  component (``f`` for ``main.A.f``); ``C.__init__`` also at the sites named ``C``.
- A callee no call site names (``self.child()`` calling ``B.func2``) is placed by
  elimination: when exactly one call site of the caller names none of its callees, the
  callees left over are placed there. Otherwise it cannot be mapped and is counted.
- Not edges (counted in ``meta.unmapped``): implicit calls with no call expression (a
  bare decorator, ``__iter__``/``__next__`` of a ``for``, ``__enter__``); lambdas, which
  are not definitions in this format; callees outside the program (``<builtin>.len``).
- Conventions shared with the oracles: a call to a class is an edge to the ``class``
  line, so ``main.A.__init__`` at a site ``B(...)`` becomes the line of class ``B`` (the
  one class of that name; ``A`` when the name is not unique), and at a site
  ``super().__init__()`` the ``def __init__`` line. PyCG lists no edge for a call to a
  class without ``__init__``, where the oracles have one: such a site (named after a
  class of the program, with no callee placed) is listed as unresolved ("class without
  __init__"), so that neither convention is scored wrong there.

Call sites that could not be given their callees are listed as unresolved
("unmapped"), so that a candidate's edge there is not judged.
"""

from __future__ import annotations

import ast
import json
import runpy
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from reference import Edge, Reference, Unresolved, dump

IMPLICIT = {
    "__iter__",
    "__next__",
    "__enter__",
    "__exit__",
    "__call__",
    "__getattr__",
    "__setattr__",
    "__getitem__",
    "__setitem__",
    "__add__",
    "__del__",
    "__str__",
}


@dataclass(frozen=True, slots=True)
class Site:
    """A call in a scope: its file, line (reference.py's rule) and callee name."""

    path: str
    line: int
    name: str


@dataclass(frozen=True, slots=True)
class Definition:
    path: str
    line: int
    kind: str  # "def", "class", "lambda"


@dataclass(slots=True)
class Program:
    """The definitions, call sites and bare decorators of one program, by qualified name."""

    definitions: dict[str, Definition] = field(default_factory=dict)
    sites: dict[str, list[Site]] = field(default_factory=dict)
    decorators: dict[str, set[str]] = field(default_factory=dict)
    # (path, line, end line, column, end column) of each ast.Call -> its scope and site
    positions: dict[tuple[str, int, int, int, int], tuple[str, Site]] = field(default_factory=dict)


class _Indexer(ast.NodeVisitor):
    def __init__(self, program: Program, path: str, module: str) -> None:
        self.program, self.path, self.scopes = program, path, [module]
        self.qualnames = [module]  # scopes hold calls; classes only lengthen names
        self.lambdas: Counter[str] = Counter()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._outer(node.decorator_list, node.args)
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Name | ast.Attribute):
                name = decorator.id if isinstance(decorator, ast.Name) else decorator.attr
                self.program.decorators.setdefault(self.scopes[-1], set()).add(name)
        self._enter(node.name, node.lineno, "def", node.body, scope=True)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._outer(node.decorator_list, node.bases, node.keywords)
        self._enter(node.name, node.lineno, "class", node.body, scope=False)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._outer(node.args)
        self.lambdas[self.qualnames[-1]] += 1
        name = f"<lambda{self.lambdas[self.qualnames[-1]]}>"
        self._enter(name, node.lineno, "lambda", [node.body], scope=True)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        site = Site(self.path, func.end_lineno or func.lineno, name)
        self.program.sites.setdefault(self.scopes[-1], []).append(site)
        key = (
            self.path,
            node.lineno,
            node.end_lineno or node.lineno,
            node.col_offset,
            node.end_col_offset or 0,
        )
        self.program.positions[key] = (self.scopes[-1], site)
        self.generic_visit(node)

    def _outer(self, *parts: object) -> None:
        for part in parts:
            for node in part if isinstance(part, list) else [part]:
                self.visit(node)  # type: ignore[arg-type]

    def _enter(self, name: str, line: int, kind: str, body: Sequence[ast.AST], scope: bool) -> None:
        qualname = f"{self.qualnames[-1]}.{name}"
        self.program.definitions[qualname] = Definition(self.path, line, kind)
        self.qualnames.append(qualname)
        if scope:
            self.scopes.append(qualname)
        for node in body:
            self.visit(node)
        self.qualnames.pop()
        if scope:
            self.scopes.pop()


def index_program(folder: Path, root: Path) -> Program:
    """Parse every ``.py`` file of the program in ``folder``; paths relative to ``root``."""
    program = Program()
    for path in sorted(folder.rglob("*.py")):
        module = _module(path.relative_to(folder))
        indexer = _Indexer(program, path.relative_to(root).as_posix(), module)
        indexer.visit(ast.parse(path.read_bytes(), filename=str(path)))
    return program


def program_edges(
    program: Program, truth: dict[str, list[str]], traced: Traced, unmapped: Counter[str]
) -> tuple[list[Edge], list[Unresolved]]:
    """Place each caller's callees at its call sites; count what cannot be placed."""
    edges: list[Edge] = []
    unresolved: list[Unresolved] = []
    for caller, callees in truth.items():
        sites = program.sites.get(caller, [])
        placed, left = _by_name(sites, callees)
        for callee in left:
            seen = [site for site in sites if (site, callee) in traced]
            placed += [(site, callee) for site in seen]
            if not seen and not _implicit(program, caller, callee, unmapped):
                unmapped["no call site names it or was seen calling it"] += 1
                busy = {site for site, _ in placed}
                unresolved += [
                    Unresolved(site.path, site.line, site.name, "unmapped")
                    for site in sites
                    if site not in busy
                ]
        for site, callee in placed:
            edge = _edge(program, site, callee, unmapped)
            if edge:
                edges.append(edge)
        unresolved += _class_calls(program, sites, {site for site, _ in placed})
    return edges, unresolved


def _class_calls(program: Program, sites: list[Site], placed: set[Site]) -> list[Unresolved]:
    """Sites ``C()`` of a class with no ``__init__``: PyCG has no edge, the oracles do."""
    classes = {q.rsplit(".", 1)[-1] for q, d in program.definitions.items() if d.kind == "class"}
    return [
        Unresolved(site.path, site.line, site.name, "class without __init__")
        for site in sites
        if site not in placed and site.name in classes
    ]


def _by_name(sites: list[Site], callees: list[str]) -> tuple[list[tuple[Site, str]], list[str]]:
    placed = [(site, callee) for callee in callees for site in sites if _names(site, callee)]
    named = {callee for _, callee in placed}
    return placed, [callee for callee in callees if callee not in named]


def _names(site: Site, callee: str) -> bool:
    parts = callee.split(".")
    if site.name == parts[-1]:
        return True
    return parts[-1] == "__init__" and len(parts) > 1 and site.name == parts[-2]


def _implicit(program: Program, caller: str, callee: str, unmapped: Counter[str]) -> bool:
    name = callee.rsplit(".", 1)[-1]
    if name.startswith("<lambda"):
        unmapped["lambda callee"] += 1
        return True
    if callee not in program.definitions:
        unmapped["callee outside the program"] += 1
        return True
    if name in program.decorators.get(caller, set()):
        unmapped["implicit: bare decorator"] += 1
        return True
    if name in IMPLICIT:
        unmapped[f"implicit: {name}"] += 1
        return True
    return False


def _edge(program: Program, site: Site, callee: str, unmapped: Counter[str]) -> Edge | None:
    definition = program.definitions.get(callee)
    if definition is None:
        unmapped["callee outside the program"] += 1
        return None
    if definition.kind == "lambda":
        unmapped["lambda callee"] += 1
        return None
    if callee.endswith(".__init__") and site.name != "__init__":
        definition = _instantiated(program, site.name, callee.removesuffix(".__init__"))
    return Edge(site.path, site.line, definition.path, definition.line, site.name)


def _instantiated(program: Program, name: str, owner: str) -> Definition:
    """The class a site ``name(...)`` makes, when PyCG lists ``owner.__init__`` there.

    ``B()`` may run the ``__init__`` of a base class ``A``: the edge goes to ``B``.
    """
    classes = [
        d
        for q, d in program.definitions.items()
        if d.kind == "class" and q.rsplit(".", 1)[-1] == name
    ]
    return classes[0] if len(classes) == 1 else program.definitions[owner]


Traced = set[tuple[Site, str]]  # (call site, qualified name of a callee seen there)


def trace_program(program: Program, folder: Path, root: Path) -> Traced:
    """Run ``main.py`` of the program in a child process and map the calls it made."""
    done = subprocess.run(
        [sys.executable, __file__, "--trace", str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    traced: Traced = set()
    for file, line, end_line, column, end_column, callee_file, qualname in json.loads(
        done.stdout or "[]"
    ):
        key = (Path(file).relative_to(root).as_posix(), line, end_line, column, end_column)
        if key in program.positions and Path(callee_file).is_relative_to(folder):
            module = _module(Path(callee_file).relative_to(folder))
            callee = f"{module}.{qualname.replace('.<locals>', '')}".removesuffix(".<module>")
            traced.add((program.positions[key][1], callee))
    return traced


def _trace_child(folder: Path) -> None:
    """Run the program, print the calls made from its files (a program may raise)."""
    calls: set[tuple[object, ...]] = set()

    def profile(frame: FrameType, event: str, _: object) -> None:
        caller = frame.f_back
        if event != "call" or caller is None:
            return
        if Path(caller.f_code.co_filename).is_relative_to(folder):
            position = list(caller.f_code.co_positions())[caller.f_lasti // 2]
            calls.add(
                (
                    caller.f_code.co_filename,
                    *position,
                    frame.f_code.co_filename,
                    frame.f_code.co_qualname,
                )
            )

    sys.dont_write_bytecode = True  # the programs live under fixtures/
    sys.path.insert(0, str(folder))
    sys.setprofile(profile)
    try:
        runpy.run_path(str(folder / "main.py"), run_name="__main__")
    finally:
        sys.setprofile(None)
        print(json.dumps(sorted(calls, key=str)))


def _module(relative: Path) -> str:
    parts = relative.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--trace":
        _trace_child(Path(args[1]).resolve())
        return 0
    if len(args) != 2:
        print("usage: pycg_truth.py SNIPPETS_DIR OUT.json", file=sys.stderr)
        return 2
    root, out = Path(args[0]).resolve(), Path(args[1])
    started = time.perf_counter()
    edges: list[Edge] = []
    unresolved: list[Unresolved] = []
    unmapped: Counter[str] = Counter()
    for truth_file in sorted(root.rglob("callgraph.json")):
        program = index_program(truth_file.parent, root)
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        traced = trace_program(program, truth_file.parent, root)
        found, missed = program_edges(program, truth, traced, unmapped)
        edges += found
        unresolved += missed
    files = [path.relative_to(root).as_posix() for path in sorted(root.rglob("*.py"))]
    meta = {
        "corpus": "pycg-micro",
        "language": "python",
        "oracle": "pycg_truth.py",
        "unmapped": dict(sorted(unmapped.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }
    dump(Reference(meta, files, edges, unresolved), out)
    print(f"pycg-micro: {len(set(edges))} edges, unmapped callees {dict(unmapped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
