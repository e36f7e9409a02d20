"""Reciprocal rank fusion of the dense, keyword, symbol and image lists."""

from __future__ import annotations

from collections.abc import Sequence

from semlith.ranking.context import Context, Scores
from semlith.ranking.query import QueryKind


def rrf(lists: Sequence[Sequence[int]], weights: Sequence[float],
        ks: Sequence[float]) -> Scores:
    """sum over lists of weight / (k + rank), rank from 1."""
    fused: Scores = {}
    for ranked, weight, k in zip(lists, weights, ks, strict=True):
        if not weight:
            continue
        for rank, chunk_id in enumerate(ranked, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
    return fused


def fuse(ctx: Context) -> Scores:
    """RRF of the lists, with list weights set by the kind of query, plus (when
    `scores` is on) each list's own scores normalised to [0, 1] — a rank alone cannot
    tell a near-tie from a landslide."""
    w = ctx.weights
    lists = ctx.lists
    dense, keyword = w.dense, w.keyword
    if ctx.query.kind is QueryKind.IDENTIFIER:
        dense, keyword = dense * w.ident_dense, keyword * w.ident_keyword
    elif ctx.query.kind is QueryKind.PHRASE:
        dense *= w.phrase_dense
    spelled, cased = _by_spelling(ctx)
    fused = rrf([[i for i, _ in lists.dense], [i for i, _ in lists.keyword], spelled,
                 [i for i, _ in lists.image], cased],
                [dense, keyword, w.symbol, w.image, w.symbol_case],
                [w.rrf_k, w.rrf_k, w.symbol_k, w.rrf_k, w.rrf_k])
    if w.scores:
        for entries, weight in ((lists.dense, dense), (lists.keyword, keyword),
                                (lists.image, w.image)):
            for cid, norm in _normalised(entries).items():
                fused[cid] = fused.get(cid, 0.0) + w.scores * weight * norm / (w.rrf_k + 1)
    return fused


def _by_spelling(ctx: Context) -> tuple[list[int], list[int]]:
    """The symbol list split: definitions spelled as the query writes their name, and
    those that match it only in another case. A word with inner capitals in a question
    is often the name of a thing, not of code ("via LaTeX", "GitHub", "DocBook"), and a
    function `latex` it met case-insensitively took the first slot with the symbol
    list's whole weight (pandoc: `Citeproc/BibTeX.hs` for "PDF output via LaTeX");
    abseil's `absl::optional`, an alias there, met a demangler's `Optional`.

    A name a module binds by assignment (kind `variable`) counts as spelled only when the
    query is nothing but names (`g`): an issue naming a setting (`linkcheck_anchors`)
    put a test root's `conf.py` that binds it above the builder that reads it."""
    typed = {ident.name for ident in ctx.query.identifiers}
    spelled: list[int] = []
    cased: list[int] = []
    named = ctx.query.kind is QueryKind.IDENTIFIER
    for cid, (name, kind) in ctx.lists.symbol.items():
        (spelled if name in typed and (named or kind != "variable") else cased).append(cid)
    return spelled, cased


def _normalised(entries: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Scores of a list divided by its best (negative ones as 0): a near-tie stays a
    near-tie, which min-max scaling would stretch to 0 and 1."""
    if not entries:
        return {}
    top = max(s for _, s in entries)
    return {cid: max(s, 0.0) / top if top > 0 else 0.0 for cid, s in entries}
