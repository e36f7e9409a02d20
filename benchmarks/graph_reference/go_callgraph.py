"""Go call edges from x/tools' callgraph: the reference for the code graph's Go edges (#22).

    python benchmarks/graph_reference/go_callgraph.py MODULE_ROOT OUT.json [--corpus NAME]

Runs ``callgraph -algo=static`` (Debian's golang-golang-x-tools, with golang-go) on
``./...`` of the Go module at MODULE_ROOT, offline (GOFLAGS=-mod=mod, GOPROXY=off): the
module must have no dependencies outside the standard library, or vendor them. Test
files are not loaded (callgraph without ``-test``).

Rules (see reference.py for the format):

- An edge is a static call (a function, a method on a concrete type, a closure called
  in place) whose callee's declaration is in one of the module's files (``go list``'s
  GoFiles and CgoFiles).
- ``call_line`` is the line of the call's opening parenthesis (callgraph's position for
  a call); for ``go`` and ``defer`` statements it is the line of the keyword.
- ``callee_start_line`` is the line of the ``func`` keyword of the declaration or the
  function literal (``ssa.Function.Syntax().Pos()``).
- Calls through an interface or a function value are not static: the call sites that
  ``callgraph -algo=cha`` finds dynamic are listed as unresolved ("dynamic"). Builtins
  and conversions are not calls at all.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from reference import Edge, Reference, Unresolved, dump

# One tab-separated row per edge: call site, static or dynamic, callee name, and the
# position of the callee's `func` keyword (empty for synthetic functions).
FORMAT = (
    "{{.Filename}}\t{{.Line}}\t{{.Dynamic}}\t{{.Callee.Name}}\t"
    "{{with .Callee.Syntax}}{{$.Callee.Prog.Fset.Position .Pos}}{{end}}"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module_root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpus", help="corpus name for the meta block")
    args = parser.parse_args(argv)
    root = args.module_root.resolve()
    started = time.perf_counter()
    files = module_files(root)
    edges = static_edges(root, files)
    unresolved = dynamic_sites(root, files)
    meta = {
        "corpus": args.corpus or root.name,
        "language": "go",
        "oracle": "go_callgraph.py",
        "tools": {"go": _go("version").split()[2], "callgraph": "-algo=static, -algo=cha"},
        "seconds": round(time.perf_counter() - started, 1),
    }
    dump(Reference(meta, sorted(files), edges, unresolved), args.out)
    print(
        f"{meta['corpus']}: {len(set(edges))} edges, {len(set(unresolved))} dynamic sites, "
        f"{len(files)} files, {meta['seconds']} s"
    )
    return 0


def module_files(root: Path) -> set[str]:
    """The module's non-test Go files, relative to ``root``."""
    listing = _go(
        "list",
        "-f",
        "{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}\n{{end}}"
        "{{range .CgoFiles}}{{$d}}/{{.}}\n{{end}}",
        "./...",
        cwd=root,
    )
    return {Path(line).relative_to(root).as_posix() for line in listing.splitlines() if line}


def static_edges(root: Path, files: set[str]) -> list[Edge]:
    """The static calls from the module's files to functions declared in them."""
    edges = []
    for row in _callgraph(root, "static"):
        caller, line, _, name, definition = row
        callee = _position(root, definition)
        site = _relative(root, caller)
        if site in files and callee and callee[0] in files:
            edges.append(Edge(site, int(line), callee[0], callee[1], name))
    return edges


def dynamic_sites(root: Path, files: set[str]) -> list[Unresolved]:
    """Call sites through an interface or a function value, by class hierarchy analysis.

    The name is the method's for an interface call; a call of a function value has as
    many possible callees as signatures match, and no name.
    """
    names: dict[tuple[str, int], set[str]] = {}
    for caller, line, dynamic, name, _ in _callgraph(root, "cha"):
        site = _relative(root, caller)
        if dynamic == "dynamic" and site in files:
            names.setdefault((site, int(line)), set()).add(name)
    return [
        Unresolved(path, line, min(found) if len(found) == 1 else "", "dynamic")
        for (path, line), found in names.items()
    ]


def _callgraph(root: Path, algo: str) -> list[list[str]]:
    output = _run(["callgraph", f"-algo={algo}", f"-format={FORMAT}", "./..."], root)
    return [line.split("\t") for line in output.splitlines() if line.count("\t") == 4]


def _position(root: Path, position: str) -> tuple[str, int] | None:
    """``(path, line)`` of a ``file:line:column`` position inside ``root``, else None."""
    if not position:
        return None
    file, line, _ = position.rsplit(":", 2)
    return _relative(root, file), int(line)


def _relative(root: Path, file: str) -> str:
    path = Path(file)
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else ""


def _go(*args: str, cwd: Path | None = None) -> str:
    return _run(["go", *args], cwd)


def _run(command: list[str], cwd: Path | None) -> str:
    env = {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOWORK": "off",
    }
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:2])} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout


if __name__ == "__main__":
    sys.exit(main())
