"""The indexer's part of the code graph (issue #22): a changed file's edges, and the
edges of unchanged files extracted by an older (or no) extraction.

A changed file's edges are extracted right after it is chunked and written in the
transaction that writes its chunks (`cutting.py` calls `file_edges`, `embed_phase.py`
`write_file_edges`). After a complete run, `refresh_edges` extracts the edges of every
committed file whose edge fingerprint is not today's — a store from before migration 8,
an edge query that changed — reading those files again and embedding nothing; a no-op
run finds none stale (one query) and reads nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from semlith.base.languages import LANGUAGES, Language, language_of
from semlith.ingest.definitions import CodeFile
from semlith.ingest.document import read_document
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.graph import FileEdges, edges_fingerprint, extract_edges, has_edges
from semlith.ingest.reading import limit_for, read_file
from semlith.store import Store
from semlith.store.edges import copy_edges, stale_edge_files, write_edges

__all__ = ["copy_edges", "file_edges", "refresh_edges", "write_file_edges"]


def file_edges(text: str, language: Language | None,
               code: CodeFile | None = None) -> FileEdges | None:
    """The edges of a file's text (`code`: as the chunker read it); None when its
    language has none."""
    if language is None or not has_edges(language):
        return None
    return extract_edges(text, language, code)


def write_file_edges(db: sqlite3.Connection, file_id: int, rel: str,
                     edges: FileEdges | None) -> None:
    if edges is not None:
        write_edges(db, file_id, edges, edges_fingerprint(language_of(rel)))


def refresh_edges(store: Store, root: Path, scopes: list[str], done: set[str]) -> int:
    """Extract the edges of the committed files under `scopes` (relative folders or
    files; "" is the root) and not in `done` whose edges are not today's; how many.
    Bumps the store generation when any changed (cached resolutions then go)."""
    langs = [lang for lang in LANGUAGES if has_edges(lang)]
    current = {lang.name: edges_fingerprint(lang) for lang in langs}
    stale = [(file_id, path) for file_id, path in stale_edge_files(store.catalog, current)
             if path not in done
             and any(not s or path == s or path.startswith(s.rstrip("/") + "/")
                     for s in scopes)]
    for file_id, path in stale:
        _edges_only(store, root, file_id, path)
    if stale:
        with store.catalog.transaction() as db:
            store.catalog.bump_generation(db)
    return len(stale)


def _edges_only(store: Store, root: Path, file_id: int, rel: str) -> None:
    language = language_of(rel)
    if language is None:
        return
    try:
        document = read_document(rel, read_file(root / rel, limit_for(rel)))
        edges = extract_edges(document.text, language)
    except (Unreadable, OSError) as exc:  # the next content change re-indexes it
        edges = FileEdges(failed=f"unreadable: {exc}")
    with store.catalog.transaction() as db:
        write_edges(db, file_id, edges, edges_fingerprint(language))
