"""File-level evidence: a file that answers with several chunks is likelier the answer.

An architecture question ("how are routes registered") is answered by a whole module;
one strong chunk in a small file used to beat several good chunks of that module. Each
file's best candidate gains `files` times the best candidate's score, times the file's
candidates' summed scores over the largest such sum of any file: the module that holds
the most evidence gains the most, and only its best chunk moves (the order within a
file stays). Measured against counting a file's next three chunks above a quantile of
all candidates (the rule before): docs/performance.md, "Ranking".

A chunk at the head of two lists counts its file's evidence twice (AGREED), up to the
largest file's: a small file whose one chunk both the dense and the keyword ranking put
first lost to a long module of many middling chunks (pandoc's `Writers/CommonMark.hs`,
first in both, to `Writers/Markdown.hs`), as a prior once vetoed such a chunk.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores

# When the candidates are the whole store (a small project: the dense list came back
# shorter than asked, so every chunk is a candidate and most barely match), a file of
# many weak chunks outweighed one strong answer (the sample's SQL schema lost to a Go
# file of four chunks). Then only the part of a chunk's score above this quantile of all
# candidates' scores counts. Applied to every store it cost 0.004 on the development
# set's repository trees (0.851 -> 0.847); to stores of at most 300 chunks, 0.002
# (docs/performance.md, "Ranking").
FLOOR_QUANTILE = 0.75
# Trees / packages / roots NDCG@10 0.8842 / 0.8790 / 0.8905 at 1 (none); 2: 0.8855 /
# 0.8803 / 0.8921; the largest file's share outright: 0.8863 / 0.8816 / 0.8941, but the
# trees' confirm half lost (docs/performance.md, "Two rankings agreeing").
AGREED = 2.0


def _quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(int(q * len(values)), len(values) - 1)]


def apply(scores: Scores, ctx: Context) -> Scores:
    weight = ctx.weights.files
    if not weight or not scores:
        return scores
    floor = _quantile(list(scores.values()), FLOOR_QUANTILE) if ctx.lists.whole else 0.0
    sums: dict[str, float] = {}
    best: dict[str, int] = {}
    for cid, score in scores.items():
        record = ctx.records.get(cid)
        if record is None:
            continue
        sums[record.path] = sums.get(record.path, 0.0) + max(score - floor, 0.0)
        if record.path not in best or score > scores[best[record.path]]:
            best[record.path] = cid
    most = max(sums.values(), default=0.0)
    if most <= 0:
        return scores
    unit = weight * max(scores.values())
    out = dict(scores)
    agreed = ctx.lists.agreed()
    for path, cid in best.items():
        share = sums[path] / most
        out[cid] += unit * (min(1.0, AGREED * share) if cid in agreed else share)
    return out
