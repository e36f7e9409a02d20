"""A disk cache of embeddings for the retrieval benchmark: ranking experiments in minutes.

Embedding the 28 development corpora (~78k chunks) takes about an hour on two cores.
Ranking changes do not change a single vector, and most chunking changes leave most
chunk texts as they were, so `benchmarks/retrieval.py --cache DIR` keeps

- one store per (corpus, model, chunking fingerprint) under `DIR/stores/`, reused as is
  while nothing that decides chunks changed (`ingest_fingerprint`), and
- one SQLite table per model of text hash -> vector (`DIR/vectors.db`), so a store built
  anew after a chunking change embeds only the chunk texts it has not seen before.

A cached vector is exactly the vector the model gave for that text, so cached and
uncached runs score the same.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

ROOT = Path(__file__).resolve().parents[1]


def ingest_fingerprint() -> str:
    """A hash of everything that decides how files become chunk texts."""
    digest = xxhash.xxh3_64()
    sources = sorted((ROOT / "semlith" / "ingest").rglob("*.py"))
    sources += [*sorted((ROOT / "grammars").glob("*.scm")),
                ROOT / "semlith" / "base" / "languages.py"]
    for path in sources:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class VectorCache:
    """text -> vector for one model, in SQLite (thread-safe; one connection per thread)."""

    def __init__(self, path: Path, model: str) -> None:
        self.path = path
        self.model = model
        self._local = threading.local()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db().execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key BLOB, "
                           "vector BLOB, PRIMARY KEY (model, key)) WITHOUT ROWID")

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            self._local.db = db
        return db

    @staticmethod
    def key(text: str) -> bytes:
        return xxhash.xxh3_128_digest(text.encode("utf-8", "surrogatepass"))

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        db = self._db()
        out: list[np.ndarray | None] = []
        for text in texts:
            row = db.execute("SELECT vector FROM vectors WHERE model=? AND key=?",
                             (self.model, self.key(text))).fetchone()
            out.append(None if row is None else np.frombuffer(row[0], np.float32))
        return out

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        db = self._db()
        db.execute("BEGIN")
        db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                       [(self.model, self.key(t), np.asarray(v, np.float32).tobytes())
                        for t, v in zip(texts, vectors, strict=True)])
        db.execute("COMMIT")


class CachedEmbedder:
    """An Embedder that answers from a VectorCache and embeds only what it misses."""

    def __init__(self, inner: object, cache: VectorCache) -> None:
        self.inner = inner
        self.cache = cache
        self.name: str = inner.name  # type: ignore[attr-defined]
        self.dim: int = inner.dim  # type: ignore[attr-defined]
        self.misses = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        found = self.cache.get(texts)
        missing = [i for i, v in enumerate(found) if v is None]
        if missing:
            fresh = self.inner.embed_documents([texts[i] for i in missing])  # type: ignore[attr-defined]
            self.cache.put([texts[i] for i in missing], fresh)
            for i, vector in zip(missing, fresh, strict=True):
                found[i] = vector
            self.misses += len(missing)
        return np.array(found, np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        (hit,) = self.cache.get(["\0query\0" + text])
        if hit is not None:
            return hit
        vector = self.inner.embed_query(text)  # type: ignore[attr-defined]
        self.cache.put(["\0query\0" + text], vector[None, :])
        return np.asarray(vector, np.float32)


def cached_models(cache: Path, name: str, settings: Any) -> tuple[Any, str]:
    """A model factory over `<cache>/vectors.db` for model `name`, and the store-name
    suffix of stores built with it (model, recipe version, ingest fingerprint).

    A recipe model's vectors change with its recipe version: they are cached apart."""
    from semlith.embed.models import load_embedder
    from semlith.embed.recipes import RECIPES

    recipe = RECIPES.get(name)
    keyed = f"{name}@recipe{recipe.version}" if recipe else name
    vectors = VectorCache(cache / "vectors.db", keyed)

    def factory(wanted: str) -> Any:
        return CachedEmbedder(load_embedder(wanted, home=settings.home,
                                            models_dir=settings.models_dir,
                                            threads=settings.embed_threads), vectors)
    return factory, f"-{keyed.replace('/', '_')}-{ingest_fingerprint()}"
