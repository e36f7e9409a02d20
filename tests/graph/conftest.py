"""Stores of the graph fixtures (fixtures/graph/<language>), indexed once per module
with the deterministic embedder."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.index.indexer import Indexer
from semlith.store import Store
from tests.conftest import HashEmbedder

GRAPH = Path(__file__).resolve().parent.parent.parent / "fixtures" / "graph"


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Store]]:
    opened: dict[str, Store] = {}

    def make(language: str) -> Store:
        if language not in opened:
            root = tmp_path_factory.mktemp("graph") / language
            shutil.copytree(GRAPH / language, root,
                            ignore=shutil.ignore_patterns("expected.json"))
            settings = Settings.load(home=root.parent / "home")
            embedder = HashEmbedder()
            store = Store.create(root / ".semlith", model=embedder.name, dim=embedder.dim,
                                 settings=settings, root=root)
            Indexer(store, root, lambda: embedder).run()
            opened[language] = store
        return opened[language]

    yield make
    for store in opened.values():
        store.close()
