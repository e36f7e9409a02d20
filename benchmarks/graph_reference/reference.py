"""The reference file format shared by the oracles, the PyCG adapter and the scorer.

A reference is one JSON object (gzipped when the path ends in ``.gz``)::

    {
      "meta": {"corpus", "language", "oracle", "tools": {...}, "revision", "seconds", ...},
      "files": ["src/requests/api.py", ...],          # the files analysed, the scope
      "edges": [{"caller_path", "call_line", "callee_path", "callee_start_line",
                 "callee_name"}, ...],
      "unresolved": [{"caller_path", "call_line", "callee_name", "reason"}, ...]
    }

Paths are relative to the corpus root, with "/" separators. ``call_line`` is the 1-based
line on which the call's callee expression ends, just before the opening parenthesis:
the line of the name token ``bar`` in ``foo.bar()`` or ``foo\\n  .bar()``, of ``Foo`` in
``new Foo()``, of ``]`` in ``handlers[k]()``. ``callee_start_line`` is the first line
of the definition itself: its keyword (``def``, ``class``, ``function``, ``func``) or,
for a method, its modifiers or name; decorators, comments and doc comments are not part
of it (each oracle's docstring has the details). An edge exists only when the callee is
defined in one of ``files``.

``unresolved`` lists the call sites the oracle could not answer at all (no name to ask
about, nothing found, or only a declaration without a body). A call site that the
oracle resolved outside the corpus (standard library, a dependency, a builtin) is in
neither list: it is judged, and has no in-corpus callee.

A bare list of edges is also accepted by ``load``; it has no scope and no unresolved
sites.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Edge:
    """One call edge: a call site and the definition it calls."""

    caller_path: str
    call_line: int
    callee_path: str
    callee_start_line: int
    callee_name: str


@dataclass(frozen=True, slots=True, order=True)
class Unresolved:
    """A call site the oracle could not answer, with the reason."""

    caller_path: str
    call_line: int
    callee_name: str
    reason: str


@dataclass(slots=True)
class Reference:
    """Everything an oracle says about one corpus."""

    meta: dict[str, Any]
    files: list[str]
    edges: list[Edge]
    unresolved: list[Unresolved]


def dump(reference: Reference, path: Path) -> None:
    """Write ``reference`` sorted, one edge per line, gzipped when ``path`` ends in .gz."""
    lines = [
        "{",
        f'"meta": {json.dumps(reference.meta, sort_keys=True, separators=(",", ":"))},',
        f'"files": {json.dumps(sorted(set(reference.files)), separators=(",", ":"))},',
        '"edges": [',
        _rows(asdict(edge) for edge in sorted(set(reference.edges))),
        "],",
        '"unresolved": [',
        _rows(asdict(site) for site in sorted(set(reference.unresolved))),
        "]",
        "}",
    ]
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")


def _rows(rows: Any) -> str:
    return ",\n".join(json.dumps(row, separators=(",", ":")) for row in rows)


def load(path: Path) -> Reference:
    """Read a reference (or a bare list of edges) written by ``dump``."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if isinstance(data, list):
        return Reference({}, [], [_edge(row) for row in data], [])
    return Reference(
        meta=data.get("meta", {}),
        files=list(data.get("files", [])),
        edges=[_edge(row) for row in data["edges"]],
        unresolved=[Unresolved(**row) for row in data.get("unresolved", [])],
    )


def _edge(row: dict[str, Any]) -> Edge:
    return Edge(
        row["caller_path"],
        int(row["call_line"]),
        row["callee_path"],
        int(row["callee_start_line"]),
        row.get("callee_name", ""),
    )
