"""Synthetic seeded stores for benchmarks: clustered unit vectors (not uniform noise).

Real embeddings cluster by topic; uniform noise would flatter quantisation and make
every neighbour equally far. Stores are built once per (size, dim) in the work folder
and reused across scenarios and runs.
"""

from __future__ import annotations

import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from semlith.base.settings import Settings
from semlith.ingest.chunk import line_windows
from semlith.store import ChunkRow, Store

DIM = 384
CHUNKS_PER_FILE = 20
BLOCK = 65536
DATA_VERSION = "v2"  # bump when Clusters changes, so cached stores are rebuilt


class Clusters:
    """A seeded two-level mixture: topics, subtopics within them, noise around each.

    Neighbours form a continuum (same subtopic, then same topic) as real embeddings do;
    a flat mixture with ~50 vectors per cluster made every method score recall 1.0 at
    100k (measured by the usearch comparison), which tells nothing. With these values
    the top-1 cosine averages ~0.65 and the 10th ~0.46, and the raw 4-bit top-10 recall
    is ~0.92 at 100k.
    """

    def __init__(self, dim: int = DIM, topics: int = 200, subtopics: int = 20_000,
                 sub_weight: float = 0.8, spread: float = 1.0, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.dim = dim
        self.sub_weight = sub_weight
        self.spread = spread
        self.topics = _unit(rng.standard_normal((topics, dim)))
        self.subtopics = _unit(rng.standard_normal((subtopics, dim)))
        self.topic_of = rng.integers(0, topics, subtopics)

    def sample(self, n: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        sub = rng.integers(0, len(self.subtopics), n)
        noise = rng.standard_normal((n, self.dim)).astype(np.float32) / np.sqrt(self.dim)
        vecs = self.topics[self.topic_of[sub]] + self.sub_weight * self.subtopics[sub]
        return _unit(vecs + self.spread * noise)

    def block(self, index: int) -> np.ndarray:
        """The `index`-th block of store vectors (stable across runs)."""
        return self.sample(BLOCK, seed=1000 + index)

    def span(self, start: int, stop: int) -> np.ndarray:
        """Store vectors number `start` to `stop` (the store's chunk ids minus one)."""
        parts = []
        for b in range(start // BLOCK, (stop - 1) // BLOCK + 1):
            lo, hi = max(start, b * BLOCK), min(stop, (b + 1) * BLOCK)
            parts.append(self.block(b)[lo - b * BLOCK : hi - b * BLOCK])
        return np.concatenate(parts)

    def all_vectors(self, n: int) -> np.ndarray:
        return self.span(0, n)

    def queries(self, n: int) -> np.ndarray:
        return self.sample(n, seed=99)


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = vectors.astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def stdlib_chunks() -> Iterator[str]:
    """Real code for keyword timings: the running Python's standard library in line
    windows, repeated as often as needed (the same bytes for the same Python version)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)
    while True:
        for path in files:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            yield from (c.text for c in line_windows(text))


def build_store(workdir: Path, size: int, dim: int = DIM, log: object = print,
                words: bool = False, model: str = "synthetic",
                backend: str | None = None) -> Path:
    """An on-disk store of `size` chunks (20 per file), built once and reused.

    `words` gives chunks real code text from the standard library (for keyword search
    timings); otherwise a short line each (enough for vector-only scenarios, and smaller).
    With `backend` (a Milvus target) the store is built again every time: its rows live
    in an engine this folder does not outlive.
    """
    tag = ("-stdlib" if words else "") + ("" if model == "synthetic" else f"-{model}")
    tag += "-milvus" if backend else ""
    folder = workdir / f"store-{size}-{dim}-{DATA_VERSION}{tag}"
    if (folder / "done").exists() and not backend:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    if callable(log):
        log(f"building a synthetic store of {size:,} chunks in {folder}")
    clusters = Clusters(dim)
    store = Store.create(folder, model=model, dim=dim, settings=Settings.load(),
                         command="bench", backend=backend)
    files = size // CHUNKS_PER_FILE
    per_batch = BLOCK // CHUNKS_PER_FILE
    texts = stdlib_chunks()
    for first in range(0, files, per_batch):
        done, ids = [], []
        with store.catalog.transaction() as db:
            for f in range(first, min(files, first + per_batch)):
                file_id = store.catalog.put_file(db, f"src/mod{f // 100}/file{f}.py", size=1,
                                                 mtime_ns=1, ext=".py", lang="python")
                rows = [ChunkRow(i * 10 + 1, i * 10 + 10, next(texts) if words
                                 else f"def function_{f}_{i}(): return {f * i} # synthetic")
                        for i in range(CHUNKS_PER_FILE)]
                ids.extend(store.catalog.replace_chunks(db, file_id, rows))
                done.append((file_id, "synthetic"))
        store.add_vectors(ids, clusters.span(ids[0] - 1, ids[-1]))
        store.checkpoint(done)
    store.close()
    (folder / "done").write_text("ok\n")
    return folder
