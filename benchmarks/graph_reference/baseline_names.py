"""A floor for the Python code graph: call edges by callee name alone, with statuses.

    python benchmarks/graph_reference/baseline_names.py CORPUS_ROOT OUT.json [--under DIR]

For each call site (python_sites.py), the ``def``s and ``class``es of the same name in
the analysed files are its candidates: one in the caller's own file is "extracted";
else one in the corpus is "resolved"; several are one "ambiguous" claim listing them
all. No types, no imports, no scopes: what a graph that reads only names would claim.
It writes a candidate file for score.py, and is how score.py's statuses are exercised.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from python_sites import call_sites


def definitions(root: Path, files: list[Path]) -> dict[str, list[tuple[str, int]]]:
    """Every ``def``/``class`` name -> [(path, line)], paths relative to ``root``."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    found: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path in files:
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, kinds):
                found[node.name].append((relative, node.lineno))
    return found


def claims(root: Path, files: list[Path]) -> list[dict[str, Any]]:
    """One claim per named call site that has candidates."""
    named = definitions(root, files)
    rows = []
    for path in files:
        caller = path.relative_to(root).as_posix()
        for line, _, name in call_sites(path):
            candidates = sorted(set(named.get(name, [])))
            local = [c for c in candidates if c[0] == caller]
            if len(local) == 1:
                rows.append(_row(caller, line, "extracted", local))
            elif len(candidates) == 1:
                rows.append(_row(caller, line, "resolved", candidates))
            elif candidates:
                rows.append(_row(caller, line, "ambiguous", candidates))
    return rows


def _row(caller: str, line: int, status: str, callees: list[tuple[str, int]]) -> dict[str, Any]:
    row: dict[str, Any] = {"caller_path": caller, "call_line": line, "status": status}
    if status == "ambiguous":
        row["candidates"] = [{"callee_path": p, "callee_start_line": n} for p, n in callees]
    else:
        row["callee_path"], row["callee_start_line"] = callees[0]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus_root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--under", help="analyse only this sub-folder of the corpus root")
    args = parser.parse_args(argv)
    root = args.corpus_root.resolve()
    scope = root / args.under if args.under else root
    files = sorted(path for path in scope.rglob("*.py") if path.is_file())
    rows = claims(root, files)
    args.out.write_text(
        "[\n" + ",\n".join(json.dumps(row) for row in rows) + "\n]\n", encoding="utf-8"
    )
    print(f"{len(rows)} claims from {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
