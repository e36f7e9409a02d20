"""The code graph's first layer: edges extracted per file at index time (issue #22).

Calls, imports, inheritance, containment and typed locals are recorded as written;
what they refer to is resolved at query time, so an edit never leaves an edge stale.
"""

from semlith.ingest.graph.extract import (
    EDGE_SECONDS,
    MAX_EDGES,
    edge_query,
    edges_fingerprint,
    edges_from_tree,
    extract_edges,
    has_edges,
)
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

__all__ = ["EDGE_SECONDS", "MAX_EDGES", "MODULE", "Call", "Contain", "FileEdges", "Import",
           "ImportKind", "Inherit", "InheritKind", "Local", "LocalKind", "QualifierKind",
           "edge_query", "edges_fingerprint", "edges_from_tree", "extract_edges", "has_edges"]
