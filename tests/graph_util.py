"""A small project written from a dict and indexed, for the graph's tests."""

from __future__ import annotations

from pathlib import Path

from semlith.base.settings import Settings
from semlith.index.indexer import Indexer
from semlith.store import Store
from tests.conftest import HashEmbedder


def build(root: Path, files: dict[str, str]) -> Store:
    """`files` (path -> text) written under `root` and indexed with the test embedder."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    embedder = HashEmbedder()
    store = Store.create(root / ".semlith", model=embedder.name, dim=embedder.dim,
                         settings=Settings.load(home=root.parent / "home"), root=root)
    Indexer(store, root, lambda: embedder).run()
    return store
