"""Hybrid retrieval: dense + keyword lists per store, fused by reciprocal rank fusion.

The query is analysed once (`ranking.query.analyse`: its words, FTS terms, identifiers)
and that `Query` is what every list and signal reads. Each store answers through its
`Corpus` (semlith/store/corpus.py): filters compiled once into a `Selection` apply
before top-k in every list. Several stores answer one query: one query embedding per
distinct model, hits merged by score and labelled by store.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, wait
from typing import Any, Protocol

import numpy as np

from semlith.base.weights import Weights
from semlith.embed.pool import EmbedderPool
from semlith.embed.recipes import relevance_floor
from semlith.errors import ModelError, NothingSelected, SemlithError
from semlith.index.images import IMAGE_SPACE
from semlith.ranking.context import Lists
from semlith.ranking.pipeline import REACH, places, rank
from semlith.ranking.query import Query, analyse
from semlith.ranking.relevance import merged, relevances, standings
from semlith.search.symbols import issue_files, symbol_list
from semlith.search.whole import answers
from semlith.store import Store
from semlith.store.query import Selection
from semlith.types import Filters, Hit
from semlith.types.shown import choose_line, question_words

RRF_K = 60
log = logging.getLogger(__name__)


class ImageQueries(Protocol):
    """What search needs from the image model (`semlith.embed.clip.ClipEmbedder`)."""

    sha256: str

    def embed_text(self, text: str) -> np.ndarray: ...



class Searcher:
    """Answers queries over one or more open stores, labelled by name.

    With an `executor`, each store's keyword list runs on a worker thread while the
    calling thread embeds the query and scans the vectors (SQLite, onnxruntime and
    turbovec release the GIL): on two cores that hides the keyword time.
    """

    def __init__(self, stores: Sequence[tuple[str, Store]], embedders: EmbedderPool,
                 weights: Weights | None = None, executor: Executor | None = None,
                 images: Callable[[], ImageQueries] | None = None) -> None:
        self.stores = list(stores)
        self.embedders = embedders
        self.weights = weights or Weights()
        self.executor = executor
        self._images = images  # loaded only for a store that has an image space
        self._image_query: np.ndarray | None = None
        self.failed: list[tuple[str, str]] = []  # (store, why) of the last search
        self._errors: list[Exception] = []

    def search(self, query: str, k: int = 10, filters: Filters | None = None, *,
               image: np.ndarray | None = None) -> list[Hit]:
        """Top-`k` hits over every store. Raises NothingSelected when filters match nothing.

        A store that fails (a Milvus engine down, a damaged catalog) is left out and
        named in `failed` with its error; when every store fails, the first error is
        raised. With `image` (an image's unit vector from the image model), only the
        image spaces are searched, by that vector: image -> image. The hits of k are a
        prefix of the hits of k + n (semlith/ranking/pipeline.py).
        """
        if image is not None:
            self._image_query = image
        filters = filters or Filters()
        sel = Selection.of(filters)
        want = max(k, REACH)
        self.failed, self._errors = [], []
        chosen = []
        for label, store in self.stores:
            with self._isolated(label):  # a corpus that filters itself counts None
                selected = store.corpus.selected(sel) if filters else None
                if selected != 0:
                    chosen.append((label, store, selected))
        if filters and not chosen and not self.failed:
            raise NothingSelected(f"the filters ({filters.describe()}) select no indexed file")
        text = image is None
        analysed = analyse(query)
        keyword = [self._start(store.corpus.keyword, analysed, want, sel) if text else None
                   for _, store, _ in chosen]
        try:
            hits = self._stores(query, k, sel, want, analysed, chosen, keyword, text)
        finally:
            _settle(keyword)
        if self.failed and len(self.failed) == len(self.stores):
            raise self._errors[0]
        return merged(hits, k)

    def _stores(self, query: str, k: int, sel: Selection, want: int, analysed: Query,
                chosen: list[tuple[str, Store, int | None]],
                keyword: list[Future[Any] | None], text: bool) -> list[list[tuple[float, Hit]]]:
        """Each chosen store's hits, its keyword list taken from `keyword` (a text
        query's; an image query has none)."""
        vectors: dict[str, np.ndarray] = {}
        hits: list[list[tuple[float, Hit]]] = []
        for (label, store, selected), pending in zip(chosen, keyword, strict=True):
            corpus = store.corpus
            with self._isolated(label):  # (a store whose count failed is not chosen)
                located = issue_files(corpus, analysed.evidence) if text else {}
                named = symbol_list(corpus, analysed.identifiers, want, sel, located) \
                    if self.weights.symbol and text else {}
                if text and store.model not in vectors and corpus.has_chunks():
                    vectors[store.model] = self._query_vector(store.model, query, analysed)
                vector = vectors.get(store.model)
                dense = [] if vector is None else corpus.dense(vector, want, sel, selected)
                pictures = self._image_list(store, query, want, sel, selected)
                # A dense list shorter than asked holds every chunk of the selection.
                lists = Lists(dense, pending.result() if pending else [], named, pictures,
                              whole=vector is not None and len(dense) < want,
                              named_files=frozenset(located))
                if text and not _evidence(lists, relevance_floor(store.model)):
                    continue  # nothing in this store is about the query
                hits.append(self._hits(label, store, analysed, lists, k))
        return hits

    def _query_vector(self, model: str, query: str, analysed: Query) -> np.ndarray:
        """The query's vector; an issue's (`analysed.evidence`) is its prose's first
        piece's, short enough for the model to read whole (ranking/evidence.py)."""
        pieces = analysed.evidence.prose if analysed.evidence is not None else ()
        return self.embedders.embed_query(model, pieces[0] if pieces else query)

    @contextlib.contextmanager
    def _isolated(self, label: str) -> Iterator[None]:
        """Run one store's part of a query; its failure is recorded, not raised."""
        try:
            yield
        except (SemlithError, sqlite3.Error, OSError) as exc:
            log.warning("%s: not searched: %s", label, exc)
            self.failed.append((label, str(exc)))
            self._errors.append(exc)

    def _image_list(self, store: Store, query: str, want: int, sel: Selection,
                    selected: int | None) -> list[tuple[int, float]]:
        """The image space's list: the query embedded once by the image model. A store
        without images never loads it."""
        space = store.space(IMAGE_SPACE) if IMAGE_SPACE in store.spaces else None
        if space is None or not self.weights.image or self._images is None:
            return []
        try:
            model = self._images()
        except ModelError as exc:
            log.warning("%s: images not searched: %s", store.name, exc)
            return []
        if model.sha256 != space.weights_sha256:
            log.warning("%s: images not searched: its image space was built with other "
                        "weights than the loaded ones", store.name)
            return []
        if self._image_query is None:
            self._image_query = model.embed_text(query)
        return store.corpus.dense(self._image_query, want, sel, selected, IMAGE_SPACE)

    def _start(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        if self.executor is not None:
            return self.executor.submit(func, *args)
        done: Future[Any] = Future()
        try:  # raised when the store's part of the query runs, as with an executor
            done.set_result(func(*args))
        except Exception as exc:  # noqa: BLE001 - re-raised by .result() in _isolated
            done.set_exception(exc)
        return done

    def _hits(self, label: str, store: Store, query: Query, lists: Lists, k: int
              ) -> list[tuple[float, Hit]]:
        """One store's hits, each with its standing across stores (`merged`). The
        candidates' places are read for the ranking; its top `k` are shown as whole
        definitions where they fit, fragments of one merged (search/whole.py), named by
        their definition (a chunk found by name, by that one). A chunk removed in
        between (a writer committed) is left out."""
        corpus = store.corpus
        found = places(query, lists, corpus.places, self.weights, k)
        shown = answers(corpus, rank(query, lists, found, self.weights), k, lists.symbol,
                        widen=bool(self.weights.whole))
        nearest = lists.dense or lists.image  # an image search has only the image list
        cosine = nearest[0][1] if nearest else None
        floor = relevance_floor(store.model) if lists.dense else None
        scores = [s.score for s in shown]
        readable = relevances(scores, cosine, floor)
        hits = []
        asked = question_words(query.text)
        changed = _changed(store, {s.record.path for s in shown})
        for s, relevance, standing in zip(shown, readable, standings(scores, cosine, floor),
                                          strict=True):
            line = choose_line(s.text, s.start_line, s.name, asked)  # after ranking
            hits.append((standing, Hit(label, s.record.path, s.start_line, s.end_line,
                                       round(s.score, 6), s.text, s.symbol, s.kind,
                                       relevance, line, s.record.path in changed,
                                       s.definition, s.found)))
        return hits


def _changed(store: Store, paths: set[str]) -> set[str]:
    """Which of the hits' files changed on disk since they were indexed (a stat each, by
    size and mtime): the watcher has not caught up, or nobody watches. A store whose
    files are on another machine (a mirror) cannot tell."""
    if not store.corpus.reads_files:
        return set()
    out = set()
    for path in paths:
        record = store.corpus.file(path)
        try:
            st = os.stat(store.root / path)
        except OSError:  # deleted or unreadable since: not what was indexed
            out.add(path)
            continue
        if record is not None and (st.st_size, st.st_mtime_ns) != (record.size,
                                                                   record.mtime_ns):
            out.add(path)
    return out


def _settle(pending: Sequence[Future[Any] | None]) -> None:
    """Wait for every keyword list still running on a worker. A search that failed (the
    model could not embed, a store raised) left them reading a store that its caller
    then closed: SQLite then crashed the process (`semlith` in one process, without a
    daemon, exited 139 in about one run of six)."""
    running = [f for f in pending if f is not None and not f.cancel()]
    if running:
        wait(running)


def _evidence(lists: Lists, floor: float | None) -> bool:
    """Whether a store holds anything about a text query: a chunk holding one of its
    words, a definition it names, or a nearest chunk at least as close as the model's
    calibrated floor. Without it the store answers nothing, instead of its least
    unrelated chunks (`semlith search zzqqxxyy` listed three files and exited 0)."""
    if lists.keyword or lists.symbol or lists.image:
        return True
    return bool(lists.dense) and (floor is None or lists.dense[0][1] >= floor)
