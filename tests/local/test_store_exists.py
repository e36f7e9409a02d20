"""A store exists once its catalog records its model (`Store.exists`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.store.catalog import CATALOG_NAME, Catalog
from semlith.types import Scope
from tests.conftest import HashEmbedder

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"


def _half_made(folder: Path) -> None:
    """What a first run leaves when it fails before the store's meta is written (a
    Milvus engine down while the new store claims its repo, a full disk)."""
    folder.mkdir(parents=True)
    Catalog.open(folder / CATALOG_NAME, create=True).close()


def test_a_half_made_store_does_not_exist(tmp_path: Path) -> None:
    assert not Store.exists(tmp_path / "none")
    _half_made(tmp_path / "half")
    assert (tmp_path / "half" / CATALOG_NAME).is_file() and not Store.exists(tmp_path / "half")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / CATALOG_NAME).write_bytes(b"not a database, but let open say so" * 99)
    assert Store.exists(tmp_path / "junk")


def test_the_next_index_creates_a_half_made_store(tmp_path: Path, settings: Settings) -> None:
    proj = tmp_path / "proj"
    shutil.copytree(SAMPLE, proj, ignore=shutil.ignore_patterns(".semlith"))
    _half_made(proj / ".semlith")
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    report = library.index([str(proj)])
    assert report.created and report.indexed > 0
    assert Store.exists(proj / ".semlith")
    assert library.search("retry backoff", scope=Scope((str(proj),))).hits
