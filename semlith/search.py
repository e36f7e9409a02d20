"""Hybrid retrieval: dense + keyword lists per store, fused by reciprocal rank fusion.

Filters become one SQL condition over `files` and apply before top-k in both lists:
the keyword list joins on it, the dense list scans an allowlist of the selected chunk
ids (or, when the filter selects most of the store, over-fetches and checks). Several
stores answer one query: one query embedding per distinct model, hits merged by score
and labelled by store.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

import numpy as np
from py_rust_stemmers import SnowballStemmer

from semlith.embed.pool import EmbedderPool
from semlith.errors import SemlithError
from semlith.ingest.chunk import CAMEL as _CAMEL
from semlith.store import Store
from semlith.store import query as q
from semlith.store.catalog import fts_query
from semlith.store.query import Selection
from semlith.symbols import symbol_list
from semlith.types import Filters, Hit

RRF_K = 60
MAX_DF = 0.5  # keyword terms in more than this share of the chunks are dropped
_TOKEN = re.compile(r"[^\W_]+")
CANDIDATES = 30  # per list, before fusion (50: NDCG 0.819, 30: 0.821 and 0.45 ms less)
# An allowlist is cheap to scan but costs a row per selected chunk to build; past this
# share of the store, over-fetch and check instead.
ALLOWLIST_MAX_SHARE = 0.15
ALLOWLIST_MAX_ROWS = 20_000
_STOPWORDS = frozenset("""
    a an and are as at be by does do for from how i in is it of on or that the this to was
    what when where which who why will with""".split())


class NothingSelected(SemlithError):
    """The filters select no indexed file in any store."""


def keyword_query(text: str, doc_counts: Callable[[list[str]], dict[str, int]] | None = None,
                  total: int = 0) -> str:
    """The FTS5 query for user text: its words minus stopwords (all words if none left).

    With `doc_counts` (term -> chunks holding it) and the store's chunk count, words in
    more than MAX_DF of the chunks are dropped too: their idf is near zero, yet bm25 must
    score every chunk holding them (see docs/performance.md). Empty when nothing is left.
    """
    words = [w for w in fts_query(text).split(" OR ") if w.strip('"') not in _STOPWORDS]
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


def _rrf(lists: Sequence[Sequence[int]], weights: Sequence[float],
         ks: Sequence[int] | None = None) -> dict[int, float]:
    fused: dict[int, float] = {}
    for n, (ranked, weight) in enumerate(zip(lists, weights, strict=True)):
        k = ks[n] if ks else RRF_K
        for rank, chunk_id in enumerate(ranked):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank + 1)
    return fused


@dataclass(frozen=True, slots=True)
class Ranking:
    """The fusion knobs. Defaults are the best measured on the development set
    (docs/performance.md); change them only with a before and after from
    benchmarks/retrieval.py."""

    dense_weight: float = 1.0
    keyword_weight: float = 1.0
    path_weight: float = 1.0  # a list of the candidates whose path names a query word
    symbol_weight: float = 2.0  # a list of the definitions an identifier in the query names
    symbol_k: int = 10  # its RRF constant: smaller makes its first entries dominate
    max_per_file: int = 1  # 0: no limit


_STEMMER = SnowballStemmer("english")


def stem(word: str) -> str:
    """The English (Snowball) stem of a lowercase word, for matching query words against
    path words: `dependency` and `dependencies` are both `depend`."""
    stemmed: str = _STEMMER.stem_word(word)
    return stemmed


@functools.lru_cache(maxsize=65536)
def path_words(path: str) -> frozenset[str]:
    """Stemmed words of a path ("auth/SessionTokens.go" -> auth, session, token)."""
    return frozenset(stem(w.lower()) for part in re.split(r"[/._\\-]+", path)
                     for w in _CAMEL.findall(part) if len(w) >= 3)


class Searcher:
    """Answers queries over one or more open stores, labelled by name.

    With an `executor`, each store's keyword list runs on a worker thread while the
    calling thread embeds the query and scans the vectors (SQLite, onnxruntime and
    turbovec release the GIL): on two cores that hides the keyword time.
    """

    def __init__(self, stores: Sequence[tuple[str, Store]], embedders: EmbedderPool,
                 ranking: Ranking | None = None, executor: Executor | None = None) -> None:
        self.stores = list(stores)
        self.embedders = embedders
        self.ranking = ranking or Ranking()
        self.executor = executor

    def search(self, query: str, k: int = 10, filters: Filters | None = None) -> list[Hit]:
        """Top-`k` hits over every store. Raises NothingSelected when filters match nothing."""
        filters = filters or Filters()
        sel = Selection.of(filters)
        want = max(k, CANDIDATES)
        chosen = []
        for label, store in self.stores:
            selected = q.count_selected(store.catalog, sel) if filters else None
            if selected != 0:
                chosen.append((label, store, selected))
        if filters and not chosen:
            raise NothingSelected(f"the filters ({filters.describe()}) select no indexed file")
        keyword = [self._start(_keyword, store, query, want, sel) for _, store, _ in chosen]
        symbols = [symbol_list(store, query, want, sel) if self.ranking.symbol_weight
                   else {} for _, store, _ in chosen]
        vectors: dict[str, np.ndarray] = {}
        hits: list[Hit] = []
        for (label, store, selected), pending, named in zip(chosen, keyword, symbols,
                                                             strict=True):
            if store.model not in vectors and store.catalog.has_chunks():
                vectors[store.model] = self.embedders.embed_query(store.model, query)
            vector = vectors.get(store.model)
            dense = [] if vector is None else _dense(store, vector, want, sel, selected)
            hits.extend(self._fuse(label, store, query, dense, pending.result(), named, k))
        hits.sort(key=lambda h: -h.score)
        return hits[:k]

    def _start(self, func: Callable[..., list[int]], *args: Any) -> Future[list[int]]:
        if self.executor is not None:
            return self.executor.submit(func, *args)
        done: Future[list[int]] = Future()
        done.set_result(func(*args))
        return done

    def _fuse(self, label: str, store: Store, query: str, dense: list[int],
              keyword: list[int], named: dict[int, tuple[str, str]], k: int) -> list[Hit]:
        """One store's hits. A chunk found by name is labelled with that definition."""
        rank = self.ranking
        records = store.catalog.chunks(list(dict.fromkeys(dense + keyword + list(named))))
        lists, weights = [dense, keyword], [rank.dense_weight, rank.keyword_weight]
        ks = [RRF_K, RRF_K]
        if named:
            lists.append(list(named))
            weights.append(rank.symbol_weight)
            ks.append(rank.symbol_k)
        if rank.path_weight:
            words = {stem(w) for w in keyword_query(query).replace('"', "").split(" OR ")}
            fused_order = sorted(_rrf(lists, weights, ks).items(), key=lambda kv: -kv[1])
            lists.append([cid for cid, _ in fused_order
                          if cid in records and words & path_words(records[cid].path)])
            weights.append(rank.path_weight)
            ks.append(RRF_K)
        fused = [(cid, score) for cid, score in
                 sorted(_rrf(lists, weights, ks).items(), key=lambda kv: -kv[1])
                 if cid in records]
        per_file: dict[str, int] = {}
        chosen, held_back = [], []
        for cid, score in fused:
            path = records[cid].path
            per_file[path] = per_file.get(path, 0) + 1
            if rank.max_per_file and per_file[path] > rank.max_per_file:
                held_back.append((cid, score))
            else:
                chosen.append((cid, score))
        # Fewer files than hits asked for: the best of the held-back chunks follow, scored
        # below every file's first (a small project still gets k answers).
        if len(chosen) < k and held_back:
            top = held_back[0][1]
            floor = 0.99 * (chosen[-1][1] if chosen else top) / top if top > 0 else 0.0
            chosen += [(cid, score * floor) for cid, score in held_back[: k - len(chosen)]]
        chosen = chosen[:k]
        hits = []
        for cid, score in chosen:
            rec = records[cid]
            symbol, kind = named.get(cid, (rec.symbol, rec.kind))
            hits.append(Hit(label, rec.path, rec.start_line, rec.end_line, round(score, 6),
                            rec.text, symbol, kind))
        return hits


def _dense(store: Store, vector: np.ndarray, want: int, sel: Selection,
           selected: int | None) -> list[int]:
    if selected is None:
        return [i for i, _ in store.dense_search(vector, want, live=False)]
    total = store.catalog.chunk_count() or 1
    if selected <= ALLOWLIST_MAX_ROWS or selected <= ALLOWLIST_MAX_SHARE * total:
        allow = q.selected_ids(store.catalog, sel)
        return [i for i, _ in store.dense_search(vector, want, allowlist=allow, live=False)]
    # Most of the store is selected: over-fetch, keep the selected, fall back if short.
    over = store.dense_search(vector, min(total, int(want * 2 * total / selected) + want),
                              live=False)  # the filter query below only keeps live chunks
    ids = [i for i, _ in over]
    keep = q.keep_selected(store.catalog, ids, sel)
    return [i for i in ids if i in keep][:want]


def _keyword(store: Store, query: str, want: int, sel: Selection) -> list[int]:
    catalog = store.catalog
    fts = keyword_query(query, catalog.document_counts, catalog.chunk_count())
    return q.keyword_ids(catalog, fts, want, sel) if fts else []
