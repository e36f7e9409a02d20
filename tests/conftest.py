"""Shared fixtures: every test gets its own SEMLITH_HOME and real on-disk stores."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.store import ChunkRow, Store
from tests.milvus_util import MilvusServer


@pytest.fixture(scope="session", autouse=True)
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One models folder for the whole session: each recipe model is built once.

    Set for the session (not per test) so module-scoped daemons and subprocesses, which
    start before per-test fixtures, share it too.
    """
    folder = tmp_path_factory.mktemp("models")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SEMLITH_MODELS", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def semlith_home(tmp_path_factory: pytest.TempPathFactory, models_dir: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SEMLITH_HOME", str(home))
    monkeypatch.setenv("SEMLITH_MODELS", str(models_dir))
    for name in ("SEMLITH_INDEX_MEMORY", "SEMLITH_PERF", "SEMLITH_STORE", "SEMLITH_PORT"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusServer]:
    """The real Milvus engine (milvus-lite's server on a free loopback port), started by
    the first test that asks for it and stopped by pid at the end of the session."""
    if sys.platform == "win32":  # the extra leaves milvus-lite out there: no Windows build
        pytest.skip("milvus-lite 2.5 has no Windows build; the Milvus tests run on Linux/macOS")
    server = MilvusServer(tmp_path_factory.mktemp("milvus")).start()
    yield server
    server.stop()


@pytest.fixture
def settings(semlith_home: Path) -> Settings:
    return Settings.load()


def unit_vectors(n: int, dim: int, seed: int = 0) -> np.ndarray:
    """Clustered unit vectors (real embeddings cluster; uniform noise flatters quantisation)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 50), dim)).astype(np.float32)
    vectors = centres[rng.integers(0, len(centres), n)] + 0.6 * rng.standard_normal(
        (n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def add_file(store: Store, path: str, vectors: np.ndarray, texts: list[str] | None = None,
             digest: str = "h") -> list[int]:
    """Write one file with a chunk per vector, embed it, commit it; returns the chunk ids."""
    texts = texts or [f"chunk {i} of {path}" for i in range(len(vectors))]
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, path, size=1, mtime_ns=1)
        ids = store.catalog.replace_chunks(
            db, file_id, [ChunkRow(i + 1, i + 1, t) for i, t in enumerate(texts)])
    store.add_vectors(ids, vectors)
    store.checkpoint([(file_id, digest)])
    return ids


@pytest.fixture
def make_store(tmp_path: Path, settings: Settings) -> Iterator[Callable[..., Store]]:
    opened: list[Store] = []

    def make(name: str = "store", dim: int = 32, **kwargs: object) -> Store:
        store = Store.create(tmp_path / name, model="test-model", dim=dim,
                             settings=Settings.load(**kwargs) if kwargs else settings)
        opened.append(store)
        return store

    yield make
    for store in opened:
        if store.writable:
            store.close()


class HashEmbedder:
    """Deterministic bag-of-words embedder for tests where the model is irrelevant."""

    def __init__(self, name: str = "test-hash", dim: int = 64) -> None:
        self.name = name
        self.dim = dim
        self.calls = 0

    def _one(self, text: str) -> np.ndarray:
        import re
        import zlib

        vec = np.zeros(self.dim, np.float32)
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[zlib.crc32(word.encode()) % self.dim] += 1.0
        vec[0] += 1e-3  # never the zero vector
        return vec / np.linalg.norm(vec)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.array([self._one(t) for t in texts], np.float32).reshape(-1, self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)


class RecordingFactory:
    """An embedder factory that counts model loads and keeps every text it embedded."""

    def __init__(self) -> None:
        self.loads = 0
        self.texts: list[str] = []

    @property
    def chunks(self) -> int:
        return len(self.texts)

    def __call__(self, name: str) -> HashEmbedder:
        self.loads += 1
        outer = self

        class Recorded(HashEmbedder):
            def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
                outer.texts += texts
                return super().embed_documents(texts)

        return Recorded(name)
