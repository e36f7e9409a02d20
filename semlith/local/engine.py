"""What one process shares between its libraries: settings, models, query threads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from semlith.base.settings import Settings
from semlith.index.runs import RunBoard
from semlith.local.grep import GrepGate

if TYPE_CHECKING:
    from semlith.embed.clip import ClipEmbedder
    from semlith.embed.pool import EmbedderPool
    from semlith.embed.text import Embedder
    from semlith.store.vector_cache import VectorCache


class Engine:
    """What a process shares: settings, one embedder pool, the query worker threads, the
    grep gate."""

    def __init__(self, settings: Settings,
                 embedder_factory: Callable[[str], Embedder] | None = None) -> None:
        self.settings = settings
        self._factory = embedder_factory
        self._pool: EmbedderPool | None = None
        self._vector_cache: VectorCache | None = None
        self._pool_lock = threading.Lock()
        # Keyword lists run beside the query embedding (docs/performance.md, "query").
        self.executor = (ThreadPoolExecutor(2, thread_name_prefix="semlith-query")
                         if settings.perf else None)
        self._image: ClipEmbedder | None = None
        self._image_lock = threading.Lock()
        self.runs = RunBoard()  # every index run of this process (Library.runs)
        self.greps = GrepGate()  # one grep searching at a time (local/grep.py)

    @property
    def pool(self) -> EmbedderPool:
        """The embedder pool, made on first use: a grep or a read never imports the
        model's modules (numpy's, onnxruntime's...; issue #45)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool, self._vector_cache = _pool(self.settings, self._factory)
            return self._pool

    @property
    def vector_cache(self) -> VectorCache | None:
        """The machine-wide vector cache the pool embeds through (None for a given model)."""
        self.pool  # noqa: B018 - makes the pool, and with it the cache
        return self._vector_cache

    def image_model(self) -> ClipEmbedder:
        """The image model, loaded once on first use (only a store with images asks).

        Raises ModelError when the extra or the weights are missing."""
        with self._image_lock:
            if self._image is None:
                from semlith.embed.clip import ClipEmbedder

                self._image = ClipEmbedder.load(self.settings.models_dir,
                                                 self.settings.clip_weights)
            return self._image

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def _pool(settings: Settings, factory: Callable[[str], Embedder] | None
          ) -> tuple[EmbedderPool, VectorCache | None]:
    from semlith.embed.cached import CachedModels, with_vector_cache
    from semlith.embed.pool import EmbedderPool

    if factory is not None:  # given: the caller's, through the vector cache or not
        cache = factory.cache if isinstance(factory, CachedModels) else None
        return EmbedderPool(factory, cache=settings.perf), cache
    cached = with_vector_cache(_fastembed(settings), settings)
    pool = EmbedderPool(cached, cache=settings.perf,
                        query_factory=_fastembed(settings, threads=1) if settings.perf else None)
    return pool, cached.cache if isinstance(cached, CachedModels) else None


def _fastembed(settings: Settings, threads: int | None = None) -> Callable[[str], Embedder]:
    """Loads a model by name: a recipe (built offline from its package) or fastembed's."""
    from semlith.embed.models import load_embedder

    def load(name: str) -> Embedder:
        return load_embedder(name, home=settings.home, models_dir=settings.models_dir,
                             threads=threads or settings.embed_threads)
    return load
