"""File-level evidence: a file that answers with several chunks is likelier the answer.

An architecture question ("how are routes registered") is answered by a whole module;
one strong chunk in a small file used to beat several good chunks of that module. Each
chunk gains `files` times the scores of the next best chunks of its file (at most
TOP_OTHERS of them), so the module's best chunk rises; the order within a file stays.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores

TOP_OTHERS = 3


def apply(scores: Scores, ctx: Context) -> Scores:
    weight = ctx.weights.files
    if not weight:
        return scores
    by_file: dict[str, list[float]] = {}
    for cid, score in scores.items():
        record = ctx.records.get(cid)
        if record is not None:
            by_file.setdefault(record.path, []).append(score)
    extra: dict[str, float] = {}
    for path, found in by_file.items():
        found.sort(reverse=True)
        extra[path] = weight * sum(found[1:1 + TOP_OTHERS])
    return {cid: score + extra.get(ctx.records[cid].path, 0.0) if cid in ctx.records
            else score for cid, score in scores.items()}
