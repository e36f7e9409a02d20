"""Ties broken by place, before any cut: same content, same answers (issue #47).

Chunk ids follow the order a store was built in, and an engine breaks ties its own way
(SQLite's FTS5 and turbovec by id, Milvus by its segments). A killed-and-resumed store
and a fresh one of identical content gave different top-10s for 12 of 20 questions: tied
keyword scores were ordered by id and cut before fusion. So every candidate list a corpus
returns is in (score, path, first line) order, and the chunks that make a cut are the
first in that order: what is returned depends on the content alone.

The keyword list does this in SQL (store/query.py); the dense lists and Milvus's lists
here, around an engine that can only be asked for its top n.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from semlith.types import ChunkPlace

Candidates = list[tuple[int, float]]  # (chunk id, score: higher is better), best first
# Chunk ids -> their ranks in (path, first line) order (store/query.py's `place_order`
# in SQL; `by_place` from a corpus's places). An id without one sorts last in its run.
Order = Callable[[Sequence[int]], Mapping[int, int]]
# How deep an engine is asked while the run of equal scores at a cut goes on (each time
# four times deeper). Past it the engine's own order decides among the rest of that run:
# 4,096 copies of one chunk tied at a cut (a vendored file copied thousands of times).
REACH = 4096


def settled(fetch: Callable[[int], Candidates], k: int, order: Order,
            reach: int = REACH) -> Candidates:
    """The top `k` of `fetch(n)` (an engine's top n, best first, ties its own way) with
    each run of equal scores in place order and the chunks of the run at the cut chosen
    by place. Asks for one more than `k`; deeper only while the run at the cut goes on."""
    if k <= 0:
        return []
    depth = k + 1
    entries = fetch(depth)
    while len(entries) >= depth and entries[k - 1][1] == entries[-1][1] and depth < reach:
        depth = min(depth * 4, reach)
        entries = fetch(depth)
    return in_place(entries, order)[:k]


def in_place(entries: Candidates, order: Order) -> Candidates:
    """`entries` (best first) with each run of equal scores in place order; only the
    tied entries are looked up (in a list of unique scores, none)."""
    tied = [cid for n, (cid, score) in enumerate(entries)
            if (n and entries[n - 1][1] == score)
            or (n + 1 < len(entries) and entries[n + 1][1] == score)]
    if not tied:
        return entries
    rank = order(tied)
    return sorted(entries, key=lambda e: (-e[1], rank.get(e[0], len(entries)), e[0]))


def by_place(places: Callable[[Sequence[int]], Mapping[int, ChunkPlace]]) -> Order:
    """An `Order` from a reader of places (a corpus's `places`)."""
    def order(ids: Sequence[int]) -> dict[int, int]:
        found = places(ids)
        ranked = sorted(found, key=lambda cid: (found[cid].path, found[cid].start_line))
        return {cid: n for n, cid in enumerate(ranked)}
    return order
