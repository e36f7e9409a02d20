"""One index run of a store, written once for the CLI, `/api`, watchers and the daemon."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from semlith.embed.pool import EmbedderPool
from semlith.index.indexer import Indexer
from semlith.index.runs import Tracked
from semlith.ingest.walk import Skipped
from semlith.library import OnProgress
from semlith.store import Store
from semlith.types import IndexReport, Progress, Watched

if TYPE_CHECKING:
    from semlith.local.engine import Engine


def run_index(store: Store, pool: EmbedderPool, paths: Sequence[Path] = (), *,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: Callable[[Skipped], None] | None = None,
              track: Tracked | None = None) -> IndexReport:
    """Bring `store` up to date with `paths` (its whole root when none, or when one is
    the root itself), loading the model only if a chunk needs embedding. The run that
    fills a new store ends its first-load phase, however it ends. `track`: the run on
    the engine's RunBoard (Library.runs), fed its progress and its end, and stopped by
    its stop event (Library.stop_run)."""
    root = store.root
    scoped = [p for p in paths if p.resolve() != root.resolve()]

    def progress(p: Progress) -> None:
        if track is not None:
            track.progress(p)
        if on_progress is not None:
            on_progress(p)

    indexer = Indexer(store, root, lambda: pool.get(store.model), on_progress=progress,
                      on_skip=on_skip,
                      stopped=(lambda: False) if track is None else track.stop.is_set,
                      model_ready=lambda: pool.has(store.model))
    try:
        report = indexer.run(scoped, time_budget=time_budget)
    except BaseException as exc:
        if track is not None:
            track.fail(exc)
        raise
    finally:
        store.end_first_load()
    if track is not None:
        track.finish(report)
    return report


def watch_here(store: Store, label: str, engine: Engine, paths: Sequence[Path], *,
               debounce: float, say: Callable[[str], None], stop: threading.Event
               ) -> Watched:
    """Watch `store`'s root in this process until `stop` is set (the CLI's `watch` when
    no daemon runs), indexing each batch of changes and saying what each did."""
    from semlith.index.watch import StoreWatcher

    def batch(rels: list[str] | None) -> IndexReport:
        targets = [store.root / r for r in rels] if rels is not None else paths
        return run_index(store, engine.pool, targets,
                         track=engine.runs.start(label, str(store.root), "watch"))

    watcher = StoreWatcher(store.root, store.folder, batch, debounce=debounce)
    watcher.on_batch = lambda report: say(report.summary())
    try:
        watcher.start(catch_up=True)
        say(f"watching {store.root} (Ctrl-C stops)")
        while not stop.wait(1.0):
            if watcher.state.last_error:
                say(f"error: {watcher.state.last_error}")
                watcher.state.last_error = None
    finally:
        watcher.stop()
    return Watched(label, str(store.root), 0, watcher.state.batches)
