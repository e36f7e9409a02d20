"""One loaded model per name for the whole process, and an LRU of query vectors."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from semlith.embed.text import Embedder

QUERY_CACHE_SIZE = 512


class EmbedderPool:
    """Loads each model once (thread-safe) and caches query embeddings.

    Queries may use their own instance (`query_factory`): one intra-op thread embeds a
    query nearly as fast as two, and leaves the other core to the keyword search that
    runs beside it (docs/performance.md, "query"). Without one, queries share `factory`'s.
    """

    def __init__(self, factory: Callable[[str], Embedder], *,
                 query_factory: Callable[[str], Embedder] | None = None,
                 cache: bool = True) -> None:
        self._factory = factory
        self._query_factory = query_factory
        self._models: dict[str, Embedder] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_on = cache

    def get(self, name: str) -> Embedder:
        """The model that embeds documents."""
        return self._load(name, self._factory)

    def for_queries(self, name: str) -> Embedder:
        """The model that embeds queries (the documents' model unless one was given)."""
        query_factory = self._query_factory
        if query_factory is None:
            return self.get(name)
        return self._load(f"{name}\0query", lambda _: query_factory(name))

    def _load(self, key: str, factory: Callable[[str], Embedder]) -> Embedder:
        with self._guard:
            model = self._models.get(key)
            if model is not None:
                return model
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one load per model, even when many threads ask at once
            if key not in self._models:
                loaded = factory(key)
                with self._guard:
                    self._models[key] = loaded
            return self._models[key]

    def has(self, name: str) -> bool:
        """Whether `get(name)` returns at once (the document model is loaded)."""
        with self._guard:
            return name in self._models

    def loaded(self) -> list[str]:
        with self._guard:
            return [key.replace("\0", " for ") for key in self._models]

    def embed_query(self, name: str, text: str) -> np.ndarray:
        key = (name, text)
        with self._guard:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        vector = self.for_queries(name).embed_query(text)
        if self._cache_on:
            with self._guard:
                self._cache[key] = vector
                if len(self._cache) > QUERY_CACHE_SIZE:
                    self._cache.popitem(last=False)
        return vector
