"""File-level evidence: a file that answers with several chunks is likelier the answer.

An architecture question ("how are routes registered") is answered by a whole module;
one strong chunk in a small file used to beat several good chunks of that module. Each
file's best candidate gains `files` times the best candidate's score, times the file's
candidates' summed scores over the largest such sum of any file: the module that holds
the most evidence gains the most, and only its best chunk moves (the order within a
file stays). Measured against counting a file's next three chunks above a quantile of
all candidates (the rule before): docs/performance.md, "Ranking".
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores


def apply(scores: Scores, ctx: Context) -> Scores:
    weight = ctx.weights.files
    if not weight or not scores:
        return scores
    sums: dict[str, float] = {}
    best: dict[str, int] = {}
    for cid, score in scores.items():
        record = ctx.records.get(cid)
        if record is None:
            continue
        sums[record.path] = sums.get(record.path, 0.0) + score
        if record.path not in best or score > scores[best[record.path]]:
            best[record.path] = cid
    most = max(sums.values(), default=0.0)
    if most <= 0:
        return scores
    unit = weight * max(scores.values())
    out = dict(scores)
    for path, cid in best.items():
        out[cid] += unit * sums[path] / most
    return out
