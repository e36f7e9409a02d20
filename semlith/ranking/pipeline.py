"""The ranking of one store's candidates: fusion, then each signal in turn, then the
final order. A new signal is one module with `apply(scores, ctx) -> scores` and one
line in SIGNALS."""

from __future__ import annotations

from collections.abc import Callable

from semlith.ranking import files, paths, priors
from semlith.ranking.context import Context, Lists, Scores
from semlith.ranking.fusion import fuse
from semlith.ranking.query import Query
from semlith.ranking.select import order
from semlith.types import ChunkRecord
from semlith.weights import Weights

Signal = Callable[[Scores, Context], Scores]
SIGNALS: list[Signal] = [paths.apply, priors.apply, files.apply]
# List entries the ranking of the top hits sees: 50 gave NDCG@10 0.861/0.899 (tune/confirm)
# against 0.856/0.897 at 30 with the file-name and file-sum signals (docs/performance.md).
DEPTH = 50


def stages(head: Context) -> list[Scores]:
    """The scores after fusion and after each signal in turn."""
    steps = [fuse(head)]
    for signal in SIGNALS:
        steps.append(signal(steps[-1], head))
    return steps


def rank(query: Query, lists: Lists, records: dict[int, ChunkRecord],
         weights: Weights) -> list[tuple[int, float]]:
    """(chunk id, score), best first, for every candidate of `lists` that has a record.

    The head — what the first DEPTH entries of each list hold — is ranked by every
    signal. Entries deeper in the lists (fetched when k > DEPTH) follow it by their best
    rank in any list, which deeper fetching never changes. So the top k is a prefix of
    the top k + n for every k, whatever depth each k fetched.
    """
    head = Context(query, lists.head(DEPTH, records), records, weights)
    steps = stages(head)
    ranked = order(steps[-1], head)
    seen = {cid for cid, _ in ranked}
    best: dict[int, int] = {}
    for entries in ([i for i, _ in lists.dense], [i for i, _ in lists.keyword],
                    list(lists.symbol), [i for i, _ in lists.image]):
        for position, cid in enumerate(entries):
            if cid not in seen and cid in records:
                best[cid] = min(best.get(cid, position), position)
    if not best:
        return ranked
    last = ranked[-1][1] if ranked else 1.0
    tail = sorted(best, key=lambda cid: (best[cid], records[cid].path,
                                         records[cid].start_line))
    return ranked + [(cid, last * 0.99 / (n + 1)) for n, cid in enumerate(tail)]
