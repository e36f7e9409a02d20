"""An index run on a slow machine that a test kills -9 inside a checkpoint (test_crash.py).

usage: python -m tests.crash_indexer ROOT BLOCK_AT
Indexes ROOT (store ROOT/.semlith) with a deterministic embedder on a fake clock that runs
at 2 chunks/s, as a busy machine would. Before each checkpoint that commits files it
prints "commit N"; inside the BLOCK_AT-th (0: none), after the vectors are flushed and
within the catalog transaction, it prints "blocked" and waits for the kill. Prints "done"
at the end of the run.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from semlith.base.settings import Settings
from semlith.index.indexer import Indexer
from semlith.store import Store
from semlith.store.catalog import Catalog
from tests.conftest import HashEmbedder

RATE = 2.0  # chunks per second of the fake clock


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class Slow(HashEmbedder):
    def __init__(self, clock: Clock) -> None:
        super().__init__("crash-hash")
        self.clock = clock

    def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.clock.now += len(texts) / RATE
        return super().embed_documents(texts)


def main() -> None:
    root, block_at = Path(sys.argv[1]), int(sys.argv[2])
    commits = 0
    real_commit = Catalog.commit_hashes

    def commit(self: Catalog, db: object, done: Iterable[tuple[int, str]]) -> None:
        nonlocal commits
        done = list(done)
        if done:
            commits += 1
            print(f"commit {len(done)}", flush=True)
            if commits == block_at:
                print("blocked", flush=True)
                sys.stdin.readline()  # the test kills us here
        real_commit(self, db, done)  # type: ignore[arg-type]

    Catalog.commit_hashes = commit  # type: ignore[method-assign]
    settings = Settings.load()
    folder = root / ".semlith"
    store = (Store.open(folder, settings=settings, writable=True) if folder.exists()
             else Store.create(folder, model="crash-hash", dim=64, settings=settings))
    clock = Clock()
    report = Indexer(store, root, lambda: Slow(clock), clock=clock).run()
    store.close()
    print("done" if report.complete else "incomplete", flush=True)


if __name__ == "__main__":
    main()
