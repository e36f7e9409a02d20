"""`Corpus`: every read a search, a symbol lookup or a read needs from one store.

A store is a whole corpus, not only vectors: besides dense candidates it answers keyword
candidates, definitions by name, chunk records, a file's record and chunks, and counts.
`LocalCorpus` answers from the catalog (SQLite) and the store's vector spaces;
`MilvusCorpus` (store/milvus_corpus.py) from a Milvus collection's rows where they hold
the answer (the dense and keyword lists; for a mirror, everything). Which one a store
has is chosen once, from its backend URI's scheme (store/backends.py); code above
`store/` asks the corpus and never which backend it has. What differs in kind is a
capability the corpus states: whether it can be written here (`writable`), whether a
passage is read from the file (`reads_files`) or from the chunks, and whether it holds
a definitions table (`indexes_definitions`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from semlith.store import query as q
from semlith.store.catalog import FORMAT_VERSION
from semlith.store.keywords import prune
from semlith.store.query import EVERYTHING, Selection
from semlith.store.rows import FileRecord, SkipRecord
from semlith.store.ties import settled
from semlith.types import ChunkPlace, ChunkRecord, Definition

if TYPE_CHECKING:
    import numpy as np

    from semlith.store.catalog import Catalog
    from semlith.store.vectors import VectorSpace

TEXT = "text"
# An allowlist is cheap to scan but costs a row per selected chunk to build; past this
# share of the store, over-fetch and check instead.
ALLOWLIST_MAX_SHARE = 0.15
ALLOWLIST_MAX_ROWS = 20_000
# (chunk id, score: higher is better), best first, equal scores in (path, first line)
# order and cut in it: same content, same lists (store/ties.py).
Candidates = list[tuple[int, float]]


class KeywordText(Protocol):
    """A query as the keyword list reads it (semlith.ranking.query.Query is one)."""

    @property
    def text(self) -> str: ...  # as typed: an engine with its own analyser reads this

    @property
    def terms(self) -> tuple[str, ...]: ...  # quoted FTS5 words (store/keywords.py)

    @property
    def split(self) -> str: ...  # the identifiers' parts: `parseHTTP` -> "parse http"


class Corpus(Protocol):
    """The reads of one store. Scores are higher-is-better; ids are chunk ids."""

    writable: bool  # False: a mirror, indexed by another machine
    reads_files: bool  # True: a passage is read from the file; False: from its chunks
    # False: definitions are the chunks' symbols (their chunk's lines, the name matched
    # as written), unranked
    indexes_definitions: bool
    origin: str  # where the chunks come from, for messages

    def has_chunks(self) -> bool:
        """Whether a search has anything to embed the query for."""
        ...

    def selected(self, sel: Selection) -> int | None:
        """Committed chunks the selection keeps; None when the engine filters itself."""
        ...

    def dense(self, vector: np.ndarray, k: int, sel: Selection, selected: int | None,
              space: str = TEXT) -> Candidates:
        """The top `k` chunks by cosine within the selection, in `space`."""
        ...

    def keyword(self, query: KeywordText, k: int, sel: Selection) -> Candidates:
        """The bm25 top `k` within the selection."""
        ...

    def definitions(self, name: str, sel: Selection = EVERYTHING, limit: int = 500
                    ) -> list[Definition]:
        """Definitions named `name` (case-insensitive where `indexes_definitions`),
        `store` left empty."""
        ...

    def file_definitions(self, path: str) -> list[Definition]:
        """The definitions (and document sections) of one file, in line order."""
        ...

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        """The chunks among `ids` that exist."""
        ...

    def definitions_around(self, ids: Sequence[int]) -> dict[int, list[Definition]]:
        """For each chunk among `ids`, its file's definitions that overlap it, in line
        order (`store` left empty); none where the corpus has no definitions table."""
        ...

    def span_records(self, spans: Sequence[tuple[str, int, int]]) -> list[ChunkRecord]:
        """The chunks overlapping any of the (path, first line, last line) spans, in
        (path, line) order."""
        ...

    def places(self, ids: Sequence[int]) -> dict[int, ChunkPlace]:
        """Where the chunks among `ids` that exist are: what ranking reads."""
        ...

    def file(self, path: str) -> FileRecord | None:
        """The indexed file at `path` (relative to the root), if any."""
        ...

    def file_records(self, path: str) -> list[ChunkRecord]:
        """The chunks of one file, in line order."""
        ...

    def files(self) -> Iterator[FileRecord]:
        ...

    def file_paths(self, sel: Selection) -> list[str]:
        """The paths of the files the selection keeps, in order (what `grep` reads)."""
        ...

    def stats(self) -> dict[str, Any]:
        """The store's counts and make-up, as `semlith stats` shows them."""
        ...

    def skipped(self) -> dict[str, SkipRecord]:
        ...

    def cut_as_text(self) -> dict[str, str]:
        """Files indexed as line windows instead of at their definitions, with why."""
        ...


class StoreParts(Protocol):
    """What a corpus reads of its store (`Store` is one): its parts, so that the corpora
    and the backends do not import the store that opens them (issue #44: no circle)."""

    catalog: Catalog
    folder: Path
    model: str
    dim: int
    recovered: dict[str, int]

    @property
    def vectors(self) -> VectorSpace: ...

    @property
    def spaces(self) -> dict[str, VectorSpace]: ...

    @property
    def name(self) -> str: ...

    @property
    def root(self) -> Path: ...

    def dense_search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
                     rescore: int = ..., live: bool = True,
                     space: str = TEXT) -> list[tuple[int, float]]: ...


class LocalCorpus:
    """A store's own catalog and vector spaces."""

    writable = True
    reads_files = True
    indexes_definitions = True

    def __init__(self, store: StoreParts) -> None:
        self.store = store
        self.catalog = store.catalog
        self.origin = str(store.folder)

    def has_chunks(self) -> bool:
        return self.catalog.has_chunks()

    def selected(self, sel: Selection) -> int | None:
        return q.count_selected(self.catalog, sel)

    def dense(self, vector: np.ndarray, k: int, sel: Selection, selected: int | None,
              space: str = TEXT) -> Candidates:
        # Copies of a chunk score alike: equal scores by place, before the cut (ties.py).
        return settled(lambda n: self._dense(vector, n, sel, selected, space), k,
                       lambda ids: q.place_order(self.catalog, ids))

    def _dense(self, vector: np.ndarray, k: int, sel: Selection, selected: int | None,
               space: str) -> Candidates:
        store = self.store
        if selected is None:
            return store.dense_search(vector, k, live=False, space=space)
        total = self.catalog.chunk_count() or 1
        if selected <= ALLOWLIST_MAX_ROWS or selected <= ALLOWLIST_MAX_SHARE * total:
            allow = q.selected_ids(self.catalog, sel)
            return store.dense_search(vector, k, allowlist=allow, live=False, space=space)
        # Most of the store is selected: over-fetch, keep the selected, fall back if short.
        over = store.dense_search(vector, min(total, int(k * 2 * total / selected) + k),
                                  live=False, space=space)  # the filter keeps live chunks
        keep = q.keep_selected(self.catalog, [i for i, _ in over], sel)
        return [(i, score) for i, score in over if i in keep][:k]

    def keyword(self, query: KeywordText, k: int, sel: Selection) -> Candidates:
        catalog = self.catalog
        fts = prune(query.terms, catalog.document_counts, catalog.chunk_count())
        return q.keyword_ids(catalog, fts, k, sel) if fts else []

    def definitions(self, name: str, sel: Selection = EVERYTHING, limit: int = 500
                    ) -> list[Definition]:
        return q.definitions(self.catalog, name, sel, limit)

    def file_definitions(self, path: str) -> list[Definition]:
        return q.file_definitions(self.catalog, path)

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return self.catalog.chunks(ids)

    def definitions_around(self, ids: Sequence[int]) -> dict[int, list[Definition]]:
        return q.overlapping_definitions(self.catalog, ids)

    def span_records(self, spans: Sequence[tuple[str, int, int]]) -> list[ChunkRecord]:
        return q.span_chunks(self.catalog, spans)

    def places(self, ids: Sequence[int]) -> dict[int, ChunkPlace]:
        return self.catalog.places(ids)

    def file(self, path: str) -> FileRecord | None:
        return self.catalog.file(path)

    def file_records(self, path: str) -> list[ChunkRecord]:
        return q.file_chunks(self.catalog, path)

    def files(self) -> Iterator[FileRecord]:
        return self.catalog.files()

    def file_paths(self, sel: Selection) -> list[str]:
        return q.selected_paths(self.catalog, sel)

    def skipped(self) -> dict[str, SkipRecord]:
        return self.catalog.skipped()

    def cut_as_text(self) -> dict[str, str]:
        return self.catalog.cut_as_text()

    def stats(self) -> dict[str, Any]:
        store, catalog = self.store, self.catalog
        vectors = store.vectors.stats()
        return {
            "name": store.name, "folder": str(store.folder), "root": str(store.root),
            "format_version": FORMAT_VERSION, "model": store.model, "dim": store.dim,
            "generation": catalog.generation(),
            **catalog.counts(),
            "withheld": catalog.withheld(),
            "exact_records": vectors.pop("exact_records"),
            "chunked_by": catalog.chunkers(),
            "shards": vectors,
            "spaces": {r.name: {"model": r.model, "dim": r.dim,
                                "vectors": store.spaces[r.name].stats()["exact_records"]}
                       for r in catalog.spaces().values() if r.name in store.spaces},
            "recovered": dict(store.recovered),
        }
