"""What every ranking signal reads: the candidate lists, the chunks, the query, the weights."""

from __future__ import annotations

from dataclasses import dataclass, field

from semlith.ranking.query import Query
from semlith.ranking.weights import Weights
from semlith.store.catalog import ChunkRecord

Scores = dict[int, float]  # chunk id -> score; higher is better


@dataclass(frozen=True, slots=True)
class Lists:
    """One store's candidate lists, best first."""

    dense: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, cosine)
    keyword: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, bm25)
    symbol: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (name, kind)
    image: list[tuple[int, float]] = field(default_factory=list)  # image space: (id, cosine)

    def head(self, depth: int) -> Lists:
        """The first `depth` of each list: what the ranking of the top hits may see."""
        return Lists(self.dense[:depth], self.keyword[:depth],
                     dict(list(self.symbol.items())[:depth]), self.image[:depth])

    def ids(self) -> list[int]:
        return list(dict.fromkeys([i for i, _ in self.dense] + [i for i, _ in self.keyword]
                                  + list(self.symbol) + [i for i, _ in self.image]))


@dataclass(frozen=True, slots=True)
class Context:
    query: Query
    lists: Lists
    records: dict[int, ChunkRecord]
    weights: Weights
