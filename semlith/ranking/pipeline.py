"""The ranking of one store's candidates: fusion, then each signal in turn, then the
final order. A new signal is one module with `apply(scores, ctx) -> scores` and one
line in SIGNALS."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from semlith.base.weights import Weights
from semlith.ranking import files, named, paths, priors
from semlith.ranking.context import Context, Lists, Places, Scores
from semlith.ranking.fusion import fuse
from semlith.ranking.query import Query
from semlith.ranking.select import order

Signal = Callable[[Scores, Context], Scores]
SIGNALS: list[Signal] = [named.apply, paths.apply, priors.apply, files.apply]
# List entries the ranking of the top hits sees: 50 gave NDCG@10 0.861/0.899 (tune/confirm)
# against 0.856/0.897 at 30 with the file-name and file-sum signals (docs/performance.md).
DEPTH = 50
# How deep the dense and keyword lists are read to find DEPTH entries of the roles a
# question may want (tests and docs read on the way stay in the head at their ranks).
# Packages indexed whole: 0.8732 NDCG@10 at 50 (no reading on), 0.8790 at 100, 0.8789 at
# 150, 0.8786 at 300 (docs/performance.md, "A head of the files a question wants").
REACH = 100


def places(query: Query, lists: Lists, read: Callable[[Sequence[int]], Places],
           weights: Weights, k: int) -> Places:
    """The places `rank` reads for the top `k`, from `read` (a corpus's `places`): those
    of the first DEPTH entries of each list, then of the entries down to REACH of a list
    whose first DEPTH hold a role the question may not want. A store of source alone
    reads no deeper than before; for k > DEPTH, every candidate's (the tail may show)."""
    if k > DEPTH:
        return read(lists.ids())
    found = dict(read(lists.head(DEPTH).ids()))
    wanted = priors.wanted(query, found, weights.priors)
    if wanted is None:
        return found
    deeper = [cid for entries in (lists.dense, lists.keyword)
              if not all(wanted(cid) for cid, _ in entries[:DEPTH])
              for cid, _ in entries[DEPTH:REACH] if cid not in found]
    if deeper:
        found.update(read(deeper))
    return found


def head(query: Query, lists: Lists, records: Places, weights: Weights) -> Context:
    """What every signal ranks: the head of the lists (Lists.head), DEPTH entries of
    the roles the question may want in each, read up to REACH deep."""
    return Context(query, lists.head(DEPTH, records, priors.wanted(query, records,
                                                                   weights.priors), REACH),
                   records, weights)


def stages(head: Context) -> list[Scores]:
    """The scores after fusion and after each signal in turn."""
    steps = [fuse(head)]
    for signal in SIGNALS:
        steps.append(signal(steps[-1], head))
    return steps


def rank(query: Query, lists: Lists, records: Places,
         weights: Weights) -> list[tuple[int, float]]:
    """(chunk id, score), best first, for every candidate of `lists` that has a record.

    The head (`head`: what the first REACH entries of each list decide) is ranked by
    every signal. Entries deeper in the lists (fetched when k > REACH) follow it by their
    best rank in any list, which deeper fetching never changes. So the top k is a prefix
    of the top k + n for every k, whatever depth each k fetched.
    """
    context = head(query, lists, records, weights)
    steps = stages(context)
    ranked = order(steps[-1], context)
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
