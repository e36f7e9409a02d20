"""Many registered stores (#25): a call reads only the catalogs of the stores it reads,
and a registered store that is gone or half made is skipped or reported, never a crash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.errors import StoreNotFound
from semlith.local import LocalLibrary
from semlith.store import locate
from semlith.store.catalog import CATALOG_NAME, Catalog
from semlith.types import Scope
from tests.conftest import HashEmbedder


def _project(root: Path, word: str) -> Path:
    root.mkdir(parents=True)
    (root / f"{word}.py").write_text(f"def {word}():\n    return '{word}'\n")
    return root


@pytest.fixture
def library(settings: Settings) -> LocalLibrary:
    return LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))


def test_reading_one_store_reads_no_other_catalog(tmp_path: Path, library: LocalLibrary,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(12):
        library.index([str(_project(tmp_path / f"p{n}", f"word{n}"))])
    seen: list[Path] = []
    records = locate._records_model
    monkeypatch.setattr(locate, "_records_model", lambda c: seen.append(c) or records(c))
    assert library.read("p3:word3.py").lines[0] == "def word3():"
    assert library.read("word5.py", scope=Scope(near=(str(tmp_path / "p5"),))).lines
    assert {c.parent.parent.name for c in seen} <= {"p3", "p5"}


def test_a_registered_store_that_is_gone_is_skipped(tmp_path: Path,
                                                    library: LocalLibrary) -> None:
    library.index([str(_project(tmp_path / "kept", "kept"))])
    library.index([str(_project(tmp_path / "gone", "gone"))])
    shutil.rmtree(tmp_path / "gone" / ".semlith")
    answer = library.search("kept", scope=Scope(("*",)))
    assert answer.stores == ("kept",) and not answer.failed
    assert [s.exists for s in library.stores()] == [True, False]


def test_a_registered_half_made_store_is_reported_and_the_rest_answer(
        tmp_path: Path, library: LocalLibrary) -> None:
    library.index([str(_project(tmp_path / "kept", "kept"))])
    library.index([str(_project(tmp_path / "half", "half"))])
    # its folder deleted, then a first run that failed before writing the store's meta
    shutil.rmtree(tmp_path / "half" / ".semlith")
    (tmp_path / "half" / ".semlith").mkdir()
    Catalog.open(tmp_path / "half" / ".semlith" / CATALOG_NAME, create=True).close()
    answer = library.search("kept", scope=Scope(("*",)))
    assert answer.stores == ("kept",) and answer.hits
    assert len(answer.failed) == 1 and answer.failed[0].startswith("half: ")
    assert "never finished" in answer.failed[0]
    with pytest.raises(StoreNotFound, match="never finished"):
        library.read("half:half.py")


def test_the_daemons_poll_reads_no_catalog_and_drops_a_deleted_store(
        tmp_path: Path, library: LocalLibrary, settings: Settings,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from semlith.base.home import registered_stores
    from semlith.local import Engine
    from semlith.local.fleet import Fleet

    for n in range(6):
        library.index([str(_project(tmp_path / f"p{n}", f"word{n}"))])
    engine = Engine(settings, lambda n: HashEmbedder(n))
    fleet = Fleet(engine)
    try:
        fleet.open([Path(e.folder) for e in registered_stores(settings.home)])
        assert len(fleet.held) == 6
        seen: list[Path] = []
        records = locate._records_model
        monkeypatch.setattr(locate, "_records_model", lambda c: seen.append(c) or records(c))
        fleet.refresh()  # twice a second in the daemon
        assert seen == []
        shutil.rmtree(tmp_path / "p2" / ".semlith")
        fleet.refresh()
        assert sorted(fleet.held) == ["p0", "p1", "p3", "p4", "p5"] and seen == []
    finally:
        fleet.close()
        engine.close()
