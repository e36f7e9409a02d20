"""File-level evidence: a file that answers with several chunks is likelier the answer.

An architecture question ("how are routes registered") is answered by a whole module;
one strong chunk in a small file used to beat several good chunks of that module. Each
chunk gains `files` times the scores of the next best chunks of its file (at most
TOP_OTHERS of them, each only by what it scores above the FLOOR_QUANTILE of all
candidates), so the module's best chunk rises; the order within a file stays.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores

TOP_OTHERS = 3
# Only the part of a chunk's score above this quantile of all candidates' scores counts as
# evidence: in a small project every chunk is a candidate, and a file of many weak ones
# outweighed one strong answer (0.5: the sample's SQL schema lost to a Go file; 0.75 and
# 0.9 measured, docs/performance.md).
FLOOR_QUANTILE = 0.75


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(int(q * len(values)), len(values) - 1)]


def apply(scores: Scores, ctx: Context) -> Scores:
    weight = ctx.weights.files
    if not weight:
        return scores
    by_file: dict[str, list[float]] = {}
    for cid, score in scores.items():
        record = ctx.records.get(cid)
        if record is not None:
            by_file.setdefault(record.path, []).append(score)
    floor = _quantile(list(scores.values()), FLOOR_QUANTILE)
    extra: dict[str, float] = {}
    for path, found in by_file.items():
        found.sort(reverse=True)
        extra[path] = weight * sum(max(s - floor, 0.0) for s in found[1:1 + TOP_OTHERS])
    return {cid: score + extra.get(ctx.records[cid].path, 0.0) if cid in ctx.records
            else score for cid, score in scores.items()}
