"""Query words in a file's path: the candidates whose path (folders and file name) names
a word of the query, in fused order, count as one more list.

Both sides are Snowball-stemmed, so `dependency` meets `dependencies/`.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores
from semlith.ranking.fusion import rrf
from semlith.text import path_words


def apply(scores: Scores, ctx: Context) -> Scores:
    if not ctx.weights.path or not ctx.query.stems:
        return scores
    records = ctx.records
    candidates = [cid for cid in scores if cid in records]
    order = sorted(candidates, key=lambda cid: (-scores[cid], records[cid].path,
                                                records[cid].start_line))
    named = [cid for cid in order if ctx.query.stems & path_words(records[cid].path)]
    extra = rrf([named], [ctx.weights.path], [ctx.weights.rrf_k])
    return {cid: score + extra.get(cid, 0.0) for cid, score in scores.items()}
