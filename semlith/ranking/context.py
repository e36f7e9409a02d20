"""What every ranking signal reads: the candidate lists, the chunks, the query, the weights."""

from __future__ import annotations

from dataclasses import dataclass, field

from semlith.ranking.query import Query
from semlith.types import ChunkRecord
from semlith.weights import Weights

Scores = dict[int, float]  # chunk id -> score; higher is better


@dataclass(frozen=True, slots=True)
class Lists:
    """One store's candidate lists, best first."""

    dense: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, cosine)
    keyword: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, bm25)
    symbol: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (name, kind)
    image: list[tuple[int, float]] = field(default_factory=list)  # image space: (id, cosine)
    whole: bool = False  # the dense list holds every chunk the search may answer

    def head(self, depth: int, records: dict[int, ChunkRecord] | None = None) -> Lists:
        """The first `depth` of each list: what the ranking of the top hits may see.

        With `records`, entries of equal score are put in the order of (path, first
        line), not of chunk id: copies of a file score alike, and their ids depend on
        the order a store was built in (a resumed store and a fresh one ranked them
        differently, issue #26). A list that fills the head may hold more entries of its
        last score than it returned; those keep the store's order, so a deeper fetch
        never reorders the head (the top k stays a prefix of the top k + n)."""
        def cut(entries: list[tuple[int, float]]) -> list[tuple[int, float]]:
            part = entries[:depth]
            return part if records is None else _settled(part, records, len(part) < depth)
        return Lists(cut(self.dense), cut(self.keyword),
                     dict(list(self.symbol.items())[:depth]), cut(self.image),
                     self.whole)

    def ids(self) -> list[int]:
        return list(dict.fromkeys([i for i, _ in self.dense] + [i for i, _ in self.keyword]
                                  + list(self.symbol) + [i for i, _ in self.image]))


@dataclass(frozen=True, slots=True)
class Context:
    query: Query
    lists: Lists
    records: dict[int, ChunkRecord]
    weights: Weights


def _settled(entries: list[tuple[int, float]], records: dict[int, ChunkRecord],
             complete: bool) -> list[tuple[int, float]]:
    """Each run of equal scores in (path, first line) order; the last run too only when
    the list is `complete` (the store had no more entries to give)."""
    out: list[tuple[int, float]] = []
    start = 0
    while start < len(entries):
        end = start
        while end < len(entries) and entries[end][1] == entries[start][1]:
            end += 1
        run = entries[start:end]
        if end < len(entries) or complete:
            run = sorted(run, key=lambda e: _place(e[0], records))
        out += run
        start = end
    return out


def _place(cid: int, records: dict[int, ChunkRecord]) -> tuple[str, int]:
    rec = records.get(cid)
    return (rec.path, rec.start_line) if rec else ("\uffff", cid)
