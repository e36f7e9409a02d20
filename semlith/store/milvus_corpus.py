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
from typing import TYPE_CHECKING, Any

import numpy as np

from semlith.store.corpus import TEXT, Candidates, KeywordText, LocalCorpus
from semlith.store.milvus import MilvusSpace
from semlith.store.query import EVERYTHING, Selection
from semlith.types import ChunkRecord, Definition

if TYPE_CHECKING:
    from semlith.store.store import Store


class MilvusCorpus(LocalCorpus):
    def __init__(self, store: Store, space: MilvusSpace, *, mirror: bool) -> None:
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
        return self.space.search(vector, k, filters=sel.filters)

    def keyword(self, query: KeywordText, k: int, sel: Selection) -> Candidates:
        # Milvus's BM25 over the same words the catalog indexes
        return self.space.keyword(f"{query.text}\n{query.split}", k, sel.filters)

    def definitions(self, name: str, sel: Selection = EVERYTHING, limit: int = 500
                    ) -> list[Definition]:
        if not self.mirror:
            return super().definitions(name, sel, limit)
        # A mirror's definitions table is on the indexer's machine: its chunks' symbols.
        return [Definition("", r.path, r.start_line, r.end_line, r.kind, r.symbol, r.symbol,
                           "", r.id)
                for r in self.space.definitions(name, limit, sel.filters)]

    def file_definitions(self, path: str) -> list[Definition]:
        if not self.mirror:
            return super().file_definitions(path)
        return [Definition("", r.path, r.start_line, r.end_line, r.kind, r.symbol, r.symbol,
                           "", r.id) for r in self.space.file_records(path) if r.symbol]

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return self.space.records(ids) if self.mirror else super().records(ids)

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        if self.mirror:  # its catalog counts no chunks: the repo's rows are its chunks
            out["chunks"] = out["exact_records"]
        return out

    def file_records(self, path: str) -> list[ChunkRecord]:
        return self.space.file_records(path) if self.mirror else super().file_records(path)
