"""`MilvusCorpus`: the corpus of a store whose text chunks are rows of a Milvus collection.

A Milvus-backed store keeps its catalog (walk, hashes, chunk text, symbols, crash order)
in its folder as any store does, so most reads are `LocalCorpus`'s; Milvus answers the
dense and the keyword list (BM25 over the text plus its split identifiers), with the
filters compiled to a Milvus expression instead of SQL.

A mirror (`semlith attach`) has a catalog of meta only: its records, a file's chunks and
its definitions (the chunks' symbols) come from the rows as well, it is never written
here, and filters are left to Milvus (it cannot count what they select).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from semlith.store import query as q
from semlith.store.corpus import TEXT, Candidates, KeywordText, LocalCorpus, StoreParts
from semlith.store.milvus.space import MilvusSpace
from semlith.store.query import EVERYTHING, Selection
from semlith.store.ties import by_place, settled
from semlith.types import ChunkPlace, ChunkRecord, Definition

# A `--path` selection of at most this share of the store's chunks (the catalog counts
# them first) goes to Milvus as `local_id in [...]`, a larger one as the `dirs` lookup.
# On milvus-lite 2.5.1 the list costs ~3 us an id to parse and the lookup ~0.17 us a row
# to scan; they cross near 1/18 (100k rows: 2,000 ids 8.0 ms, 4,096 ids 21.7, `dirs`
# 18.5; docs/performance.md, "`--path` as a `dirs` lookup").
ID_LIST_MAX_SHARE = 0.05


def _paths(sel: Selection) -> bool:
    return bool(sel.filters is not None and sel.filters.paths)


class MilvusCorpus(LocalCorpus):
    def __init__(self, store: StoreParts, space: MilvusSpace, *, mirror: bool) -> None:
        super().__init__(store)
        self.space = space
        self.mirror = mirror
        self.origin = str(space.target)
        self.writable = not mirror
        self.reads_files = not mirror
        self.indexes_definitions = not mirror

    def has_chunks(self) -> bool:
        return self.mirror or super().has_chunks()

    def selected(self, sel: Selection) -> int | None:
        return None if self.mirror else super().selected(sel)

    def dense(self, vector: np.ndarray, k: int, sel: Selection, selected: int | None,
              space: str = TEXT) -> Candidates:
        if space != TEXT:  # other spaces (images) stay local
            return super().dense(vector, k, sel, selected, space)
        ids = self._chosen(sel, selected)
        # Milvus breaks ties by its segments: equal scores by place, before the cut.
        if ids is not None:
            return settled(lambda n: self.space.search(vector, n, allowlist=ids), k,
                           by_place(self.places))
        return settled(lambda n: self.space.search(vector, n, filters=sel.filters), k,
                       by_place(self.places))

    def keyword(self, query: KeywordText, k: int, sel: Selection) -> Candidates:
        # Milvus's BM25 over the same words the catalog indexes
        text = f"{query.text}\n{query.split}"
        ids = self._chosen(sel, self.selected(sel) if _paths(sel) else None)
        if ids is not None:
            return settled(lambda n: self.space.keyword(text, n, allowlist=ids), k,
                           by_place(self.places))
        return settled(lambda n: self.space.keyword(text, n, sel.filters), k, by_place(self.places))

    def _chosen(self, sel: Selection, selected: int | None) -> np.ndarray | None:
        """The selection's chunk ids, when a `--path` selects few enough of them that
        Milvus is faster asked for them than for the `dirs` lookup (issue #25;
        docs/performance.md, "`--path` as a `dirs` lookup"); None otherwise."""
        if self.mirror or selected is None or not _paths(sel) or \
                selected > ID_LIST_MAX_SHARE * self.catalog.chunk_count():
            return None
        return q.selected_ids(self.catalog, sel)

    def definitions(self, name: str, sel: Selection = EVERYTHING, limit: int = 500
                    ) -> list[Definition]:
        if not self.mirror:
            return super().definitions(name, sel, limit)
        # A mirror's definitions table is on the indexer's machine: its chunks' symbols,
        # by place (the engine's order follows its segments).
        rows = sorted(self.space.definitions(name, limit, sel.filters),
                      key=lambda r: (r.path, r.start_line))
        return [Definition("", r.path, r.start_line, r.end_line, r.kind, r.symbol, r.symbol,
                           "", r.id) for r in rows]

    def file_definitions(self, path: str) -> list[Definition]:
        if not self.mirror:
            return super().file_definitions(path)
        return [Definition("", r.path, r.start_line, r.end_line, r.kind, r.symbol, r.symbol,
                           "", r.id) for r in self.space.file_records(path) if r.symbol]

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return self.space.records(ids) if self.mirror else super().records(ids)

    def definitions_around(self, ids: Sequence[int]) -> dict[int, list[Definition]]:
        # A mirror's definitions table is on the indexer's machine: its hits are its
        # chunks, named by their symbols, never widened (search/whole.py).
        return {} if self.mirror else super().definitions_around(ids)

    def places(self, ids: Sequence[int]) -> dict[int, ChunkPlace]:
        return self.space.places(ids) if self.mirror else super().places(ids)

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        if self.mirror:  # its catalog counts no chunks: the repo's rows are its chunks
            out["chunks"] = out["exact_records"]
        return out

    def file_records(self, path: str) -> list[ChunkRecord]:
        return self.space.file_records(path) if self.mirror else super().file_records(path)
