"""What every ranking signal reads: the candidate lists, the chunks, the query, the weights."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from semlith.base.weights import Weights
from semlith.ranking.query import Query

Scores = dict[int, float]  # chunk id -> score; higher is better


class Placed(Protocol):
    """What the ranking reads of a candidate: where it is (a `ChunkPlace` or a whole
    `ChunkRecord`)."""

    @property
    def path(self) -> str: ...

    @property
    def start_line(self) -> int: ...

    @property
    def kind(self) -> str: ...  # `test` for test code in a source file


Places = Mapping[int, Placed]  # chunk id -> where it is


@dataclass(frozen=True, slots=True)
class Lists:
    """One store's candidate lists, best first."""

    dense: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, cosine)
    keyword: list[tuple[int, float]] = field(default_factory=list)  # (chunk id, bm25)
    symbol: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (name, kind)
    image: list[tuple[int, float]] = field(default_factory=list)  # image space: (id, cosine)
    whole: bool = False  # the dense list holds every chunk the search may answer
    # The indexed files the question names: an issue's frames and paths
    # (search/symbols.py, issue_files); ranking/named.py lifts their candidates.
    named_files: frozenset[str] = frozenset()

    def head(self, depth: int, records: Places | None = None,
             wanted: Callable[[int], bool] | None = None, reach: int = 0) -> Lists:
        """The first `depth` of each list: what the ranking of the top hits may see.

        With `wanted` (whether a chunk is of a kind the question may want), the dense
        and keyword lists are read on, up to `reach` entries, until they hold `depth`
        wanted ones; the others read on the way stay, at their own ranks. On a package
        indexed whole, tests and docs repeat the source's words and filled a keyword
        head of 50 before the module that answers (issue #21).

        With `records`, entries of equal score are put in the order of (path, first
        line), not of chunk id: copies of a file score alike, and their ids depend on
        the order a store was built in (a resumed store and a fresh one ranked them
        differently, issue #26). A corpus returns its lists in that order already and
        cuts them in it (store/ties.py, issue #47); this keeps any list so. The last run
        of a list cut by the head keeps the list's order, so a deeper fetch never
        reorders the head (the top k stays a prefix of the top k + n)."""
        def cut(entries: list[tuple[int, float]], read: bool = False) -> list[tuple[int, float]]:
            end = depth if wanted is None or not read else _extent(entries, depth, wanted,
                                                                   reach)
            part = entries[:end]
            return part if records is None else _settled(part, records, len(part) < end)
        return Lists(cut(self.dense, True), cut(self.keyword, True),
                     dict(list(self.symbol.items())[:depth]), cut(self.image),
                     self.whole, self.named_files)

    def agreed(self) -> frozenset[int]:
        """The chunk at the head of two or more of the dense, keyword and symbol lists,
        if there is one: two rankings agree on it (priors.py and files.py weigh it)."""
        heads = [entries[0][0] for entries in (self.dense, self.keyword) if entries]
        heads += list(self.symbol)[:1]
        return frozenset(cid for cid in heads if heads.count(cid) >= 2)

    def ids(self) -> list[int]:
        return list(dict.fromkeys([i for i, _ in self.dense] + [i for i, _ in self.keyword]
                                  + list(self.symbol) + [i for i, _ in self.image]))


@dataclass(frozen=True, slots=True)
class Context:
    query: Query
    lists: Lists
    records: Places
    weights: Weights


def _extent(entries: list[tuple[int, float]], depth: int, wanted: Callable[[int], bool],
            reach: int) -> int:
    """How many of `entries` it takes to hold `depth` wanted ones, `reach` at most."""
    reach = max(reach, depth)
    found = 0
    for position, (cid, _) in enumerate(entries[:reach]):
        found += wanted(cid)
        if found == depth:
            return position + 1
    return reach


def _settled(entries: list[tuple[int, float]], records: Places,
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


def _place(cid: int, records: Places) -> tuple[str, int]:
    rec = records.get(cid)
    return (rec.path, rec.start_line) if rec else ("\uffff", cid)
