"""Hybrid retrieval: dense + keyword lists per store, fused by reciprocal rank fusion.

Filters become one SQL condition over `files` and apply before top-k in both lists:
the keyword list joins on it, the dense list scans an allowlist of the selected chunk
ids (or, when the filter selects most of the store, over-fetches and checks). Several
stores answer one query: one query embedding per distinct model, hits merged by score
and labelled by store.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from typing import Any

import numpy as np

from semlith.embed.pool import EmbedderPool
from semlith.errors import SemlithError
from semlith.ranking.context import Lists
from semlith.ranking.pipeline import DEPTH, rank
from semlith.ranking.query import Query, analyse
from semlith.ranking.weights import Weights
from semlith.store import Store
from semlith.store import query as q
from semlith.store.catalog import fts_query
from semlith.store.query import Selection
from semlith.symbols import symbol_list
from semlith.text import STOPWORDS, stem
from semlith.types import Filters, Hit

RRF_K = 60
MAX_DF = 0.5  # keyword terms in more than this share of the chunks are dropped
_TOKEN = re.compile(r"[^\W_]+")
# An allowlist is cheap to scan but costs a row per selected chunk to build; past this
# share of the store, over-fetch and check instead.
ALLOWLIST_MAX_SHARE = 0.15
ALLOWLIST_MAX_ROWS = 20_000



class NothingSelected(SemlithError):
    """The filters select no indexed file in any store."""


def keyword_query(text: str, doc_counts: Callable[[list[str]], dict[str, int]] | None = None,
                  total: int = 0) -> str:
    """The FTS5 query for user text: its words minus stopwords (all words if none left).

    With `doc_counts` (term -> chunks holding it) and the store's chunk count, words in
    more than MAX_DF of the chunks are dropped too: their idf is near zero, yet bm25 must
    score every chunk holding them (see docs/performance.md). Empty when nothing is left.
    """
    words = [w for w in fts_query(text).split(" OR ") if w.strip('"') not in STOPWORDS]
    words = words or [w for w in fts_query(text).split(" OR ") if w]
    if doc_counts is None or not total or not words:
        return " OR ".join(words)
    tokens = {w: _TOKEN.findall(w.strip('"').lower()) for w in words}
    # The index holds Porter stems; look a word up as typed and as (Snowball) stemmed,
    # which agree on nearly every word, and take the commoner.
    forms = {t: (t, stem(t)) for parts in tokens.values() for t in parts}
    counts = doc_counts(sorted({f for pair in forms.values() for f in pair}))
    limit = MAX_DF * total

    def count(token: str) -> int:
        return max(counts.get(form, 0) for form in forms[token])

    # A quoted word holding several tokens is a phrase: as rare as its rarest token.
    kept = [w for w, parts in tokens.items() if min(map(count, parts), default=0) <= limit]
    return " OR ".join(kept)


class Searcher:
    """Answers queries over one or more open stores, labelled by name.

    With an `executor`, each store's keyword list runs on a worker thread while the
    calling thread embeds the query and scans the vectors (SQLite, onnxruntime and
    turbovec release the GIL): on two cores that hides the keyword time.
    """

    def __init__(self, stores: Sequence[tuple[str, Store]], embedders: EmbedderPool,
                 weights: Weights | None = None, executor: Executor | None = None) -> None:
        self.stores = list(stores)
        self.embedders = embedders
        self.weights = weights or Weights()
        self.executor = executor

    def search(self, query: str, k: int = 10, filters: Filters | None = None) -> list[Hit]:
        """Top-`k` hits over every store. Raises NothingSelected when filters match nothing.

        The hits of k are a prefix of the hits of k + n (semlith/ranking/pipeline.py).
        """
        filters = filters or Filters()
        sel = Selection.of(filters)
        want = max(k, DEPTH)
        chosen = []
        for label, store in self.stores:
            selected = q.count_selected(store.catalog, sel) if filters else None
            if selected != 0:
                chosen.append((label, store, selected))
        if filters and not chosen:
            raise NothingSelected(f"the filters ({filters.describe()}) select no indexed file")
        keyword = [self._start(_keyword, store, query, want, sel) for _, store, _ in chosen]
        symbols = [symbol_list(store, query, want, sel) if self.weights.symbol
                   else {} for _, store, _ in chosen]
        analysed = analyse(query)
        vectors: dict[str, np.ndarray] = {}
        hits: list[Hit] = []
        for (label, store, selected), pending, named in zip(chosen, keyword, symbols,
                                                             strict=True):
            if store.model not in vectors and store.catalog.has_chunks():
                vectors[store.model] = self.embedders.embed_query(store.model, query)
            vector = vectors.get(store.model)
            dense = [] if vector is None else _dense(store, vector, want, sel, selected)
            lists = Lists(dense, pending.result(), named)
            hits.extend(self._hits(label, store, analysed, lists, k))
        hits.sort(key=lambda h: -h.score)
        return hits[:k]

    def _start(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        if self.executor is not None:
            return self.executor.submit(func, *args)
        done: Future[Any] = Future()
        done.set_result(func(*args))
        return done

    def _hits(self, label: str, store: Store, query: Query, lists: Lists, k: int) -> list[Hit]:
        """One store's hits. A chunk found by name is labelled with that definition."""
        records = store.catalog.chunks(lists.ids())
        hits = []
        for cid, score in rank(query, lists, records, self.weights)[:k]:
            rec = records[cid]
            symbol, kind = lists.symbol.get(cid, (rec.symbol, rec.kind))
            hits.append(Hit(label, rec.path, rec.start_line, rec.end_line, round(score, 6),
                            rec.text, symbol, kind))
        return hits


def _dense(store: Store, vector: np.ndarray, want: int, sel: Selection,
           selected: int | None) -> list[tuple[int, float]]:
    if selected is None:
        return store.dense_search(vector, want, live=False)
    total = store.catalog.chunk_count() or 1
    if selected <= ALLOWLIST_MAX_ROWS or selected <= ALLOWLIST_MAX_SHARE * total:
        allow = q.selected_ids(store.catalog, sel)
        return store.dense_search(vector, want, allowlist=allow, live=False)
    # Most of the store is selected: over-fetch, keep the selected, fall back if short.
    over = store.dense_search(vector, min(total, int(want * 2 * total / selected) + want),
                              live=False)  # the filter query below only keeps live chunks
    keep = q.keep_selected(store.catalog, [i for i, _ in over], sel)
    return [(i, score) for i, score in over if i in keep][:want]


def _keyword(store: Store, query: str, want: int, sel: Selection) -> list[tuple[int, float]]:
    catalog = store.catalog
    fts = keyword_query(query, catalog.document_counts, catalog.chunk_count())
    return q.keyword_ids(catalog, fts, want, sel) if fts else []
