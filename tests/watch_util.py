"""A store under the real watcher, and polling instead of sleeping, for tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from semlith.base.settings import Settings
from semlith.embed.pool import EmbedderPool
from semlith.index.indexer import Indexer
from semlith.index.watch import StoreWatcher
from semlith.search.searcher import Searcher
from semlith.store import Store
from semlith.types import IndexReport
from tests.conftest import HashEmbedder

WAIT = 30.0


def eventually(check: Callable[[], bool], timeout: float = WAIT) -> None:
    """Poll `check` until it holds (bounded); never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not true after {timeout} s: {check.__doc__ or check}")


class Watched:
    """A store under a live watcher, with a counting embedder."""

    def __init__(self, root: Path, folder: Path | None, settings: Settings) -> None:
        self.embedded = 0
        outer = self

        class Counting(HashEmbedder):
            def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
                outer.embedded += len(texts)
                return super().embed_documents(texts)

        model = Counting("test-hash")
        self.root = root
        folder = folder or root / ".semlith"
        self.store = Store.create(folder, model=model.name, dim=model.dim, settings=settings,
                                  root=root)
        self.indexer = Indexer(self.store, root, lambda: model)
        self.searcher = Searcher([("t", self.store)], EmbedderPool(lambda n: model))
        self.watcher = StoreWatcher(root, self.store.folder, self.batch, debounce=0.1,
                                    cooldown=0.3, observer_factory=self.observer_factory)
        self.reports: list[IndexReport] = []

    observer_factory: Callable[[], object] | None = None

    def batch(self, rels: list[str] | None) -> IndexReport:
        report = self.indexer.run([self.root / r for r in rels] if rels is not None else [])
        self.reports.append(report)
        return report

    def paths(self, query: str, k: int = 20) -> list[str]:
        return [h.path for h in self.searcher.search(query, k)]

    def holding(self, word: str) -> list[str]:
        """Paths of the hits whose text holds `word` (dense search returns everything)."""
        return [h.path for h in self.searcher.search(word, 50) if word in h.text]

    def has(self, rel: str) -> bool:
        return self.store.catalog.file(rel) is not None and bool(
            self.store.catalog.file(rel).hash)  # type: ignore[union-attr]

    def gone(self, rel: str) -> bool:
        return self.store.catalog.file(rel) is None

    def close(self) -> None:
        self.watcher.stop()
        self.store.close()
