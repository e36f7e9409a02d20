"""A writer that a test kills with SIGKILL at random moments (see test_crash.py).

usage: python -m tests.crash_writer STORE SEED ROUNDS
Finishes pending files first (as a resumed index run would), then rewrites and deletes
random files from a pool, checkpointing every few files. Prints "ready" once the store
is open, "done" at the end.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np

from semlith.base.settings import Settings
from semlith.store import ChunkRow, Store

DIM = 32
POOL = [f"src/file{i:02d}.py" for i in range(40)]


def vectors_for(path: str, version: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(f"{path}:{version}".encode()))
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def write_file(store: Store, path: str, version: int, n: int) -> tuple[int, str]:
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, path, size=n, mtime_ns=version)
        ids = store.catalog.replace_chunks(
            db, file_id, [ChunkRow(i, i, f"{path} v{version} chunk {i}") for i in range(n)])
    store.add_vectors(ids, vectors_for(path, version, n))
    return file_id, f"v{version}"


def main() -> None:
    folder, seed, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    settings = Settings.load()
    if (folder / "store.db").exists():
        store = Store.open(folder, settings=settings, writable=True, command="crash_writer")
    else:
        store = Store.create(folder, model="crash", dim=DIM, settings=settings,
                             command="crash_writer")
    print("ready", flush=True)
    rng = np.random.default_rng(seed)
    pending = [f for f in store.catalog.files() if not f.hash]
    done = [write_file(store, f.path, seed, int(rng.integers(1, 30))) for f in pending]
    store.checkpoint(done)
    for _ in range(rounds):
        done = []
        for _ in range(int(rng.integers(1, 6))):
            path = POOL[int(rng.integers(len(POOL)))]
            if rng.random() < 0.15:
                with store.catalog.transaction() as db:
                    store.catalog.delete_files(db, [path])
            else:
                done.append(write_file(store, path, int(rng.integers(1 << 30)),
                                       int(rng.integers(1, 60))))
        store.checkpoint(done)
    store.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
