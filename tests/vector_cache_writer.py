"""A process writing the vector cache in batches, for the kill -9 and two-writer tests.

usage: python -m tests.vector_cache_writer FOLDER MAX_BYTES FIRST LAST BATCH [desc] [wait]
Writes the texts `text_of(i)` for i in FIRST..LAST-1 (descending with `desc`), BATCH at a
time, each with the vector `vector_of(text)`. Prints "ready" once started (then, with
`wait`, waits for a line on stdin), "writing N" before and "wrote N" after the Nth batch,
and "done ERRORS" (the cache's failed operations) at the end.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np

from semlith.store.vector_cache import VectorCache, entry_key

DIM = 384
IDENTITY = "writer-model@1"


def text_of(i: int) -> str:
    return f"def handler_{i}(request):\n    return respond(request, code={i})\n"


def vector_of(text: str) -> np.ndarray:
    """The one right vector of `text` (a checker recomputes it)."""
    vector = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(DIM)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def key_of(i: int) -> bytes:
    return entry_key(IDENTITY, text_of(i))


def main() -> None:
    folder, max_bytes, first, last, batch = (sys.argv[1], *map(int, sys.argv[2:6]))
    flags = set(sys.argv[6:])
    cache = VectorCache(Path(folder), max_bytes)
    order = list(range(first, last))
    if "desc" in flags:
        order.reverse()
    print("ready", flush=True)
    if "wait" in flags:
        sys.stdin.readline()
    for n, start in enumerate(range(0, len(order), batch)):
        part = order[start:start + batch]
        keys, vectors = [key_of(i) for i in part], np.stack([vector_of(text_of(i))
                                                            for i in part])
        print(f"writing {n}", flush=True)  # what follows is the cache's write alone
        cache.put(IDENTITY, keys, vectors)
        print(f"wrote {n}", flush=True)
    print(f"done {cache.errors}", flush=True)
    cache.close()


if __name__ == "__main__":
    main()
