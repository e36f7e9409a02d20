"""The final order: each file's best chunks first, then the chunks held back.

A file contributes `per_file` hits before any file contributes more (one hit per file
was the largest single gain measured, docs/performance.md). When the files run out
before `k`, the held-back chunks follow, scored below every file's first, so a small
project still gets `k` answers. The order never depends on `k`: the top k is always a
prefix of the top k + n.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores


def order(scores: Scores, ctx: Context) -> list[tuple[int, float]]:
    records = ctx.records
    ranked = sorted(((cid, s) for cid, s in scores.items() if cid in records),
                    key=lambda kv: (-kv[1], records[kv[0]].path, records[kv[0]].start_line))
    limit = int(ctx.weights.per_file)
    if not limit:
        return ranked
    taken: dict[str, int] = {}
    chosen: list[tuple[int, float]] = []
    held_back: list[tuple[int, float]] = []
    for cid, score in ranked:
        path = ctx.records[cid].path
        taken[path] = taken.get(path, 0) + 1
        (held_back if taken[path] > limit else chosen).append((cid, score))
    if held_back and held_back[0][1] > 0:
        floor = 0.99 * (chosen[-1][1] if chosen else held_back[0][1]) / held_back[0][1]
        held_back = [(cid, score * floor) for cid, score in held_back]
    return chosen + held_back
