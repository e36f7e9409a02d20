"""One index run of a store, written once for the CLI, `/api`, watchers and the daemon."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from semlith.embed.pool import EmbedderPool
from semlith.indexer import Indexer
from semlith.ingest.walk import Skipped
from semlith.library import OnProgress
from semlith.store import Store
from semlith.types import IndexReport


def run_index(store: Store, pool: EmbedderPool, paths: Sequence[Path] = (), *,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: Callable[[Skipped], None] | None = None) -> IndexReport:
    """Bring `store` up to date with `paths` (its whole root when none, or when one is
    the root itself), loading the model only if a chunk needs embedding. The run that
    fills a new store ends its first-load phase, however it ends."""
    root = store.root
    scoped = [p for p in paths if p.resolve() != root.resolve()]
    indexer = Indexer(store, root, lambda: pool.get(store.model), on_progress=on_progress,
                      on_skip=on_skip, model_ready=lambda: pool.has(store.model))
    try:
        return indexer.run(scoped, time_budget=time_budget)
    finally:
        store.end_first_load()
