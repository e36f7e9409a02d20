"""The code graph's first layer: edges extracted per file at index time (issue #22).

Calls, imports, inheritance, containment and typed locals are recorded as written;
what they refer to is resolved at query time, so an edit never leaves an edge stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from semlith.ingest.graph.records import (
    MODULE,
    Call,
    Contain,
    FileEdges,
    Import,
    ImportKind,
    Inherit,
    InheritKind,
    Local,
    LocalKind,
    QualifierKind,
)

if TYPE_CHECKING:
    from semlith.ingest.graph.extract import (
        EDGE_SECONDS,
        MAX_EDGES,
        edge_query,
        edges_fingerprint,
        edges_from_tree,
        extract_edges,
        has_edges,
    )

# The extractor's names are imported when first used (PEP 562): the store reads the
# records alone, and a grep or a search from a fresh CLI must not load the grammars'
# queries and the chunk planner (17 ms of a cold `search --exact`, issue #45).
_EXTRACT = frozenset({"EDGE_SECONDS", "MAX_EDGES", "edge_query", "edges_fingerprint",
                      "edges_from_tree", "extract_edges", "has_edges"})


def __getattr__(name: str) -> Any:
    if name in _EXTRACT:
        from semlith.ingest.graph import extract

        return getattr(extract, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["EDGE_SECONDS", "MAX_EDGES", "MODULE", "Call", "Contain", "FileEdges", "Import",
           "ImportKind", "Inherit", "InheritKind", "Local", "LocalKind", "QualifierKind",
           "edge_query", "edges_fingerprint", "edges_from_tree", "extract_edges", "has_edges"]
