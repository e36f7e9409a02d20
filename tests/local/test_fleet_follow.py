"""The daemon's fleet follows the registry by its events and looks at its stores without
touching them: an idle daemon wakes for nothing (issue #25)."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.index.watch import watch_file
from semlith.local import Engine, LocalLibrary
from semlith.local import fleet as fleet_module
from tests.conftest import HashEmbedder

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not true after {timeout} s"
        time.sleep(0.05)


def _project(tmp_path: Path, name: str, settings: Settings) -> Path:
    root = tmp_path / name
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n)).index([str(root)])
    return root


@pytest.fixture
def fleet(settings: Settings, monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[fleet_module.Fleet]:
    # An hour between the follower's slow looks: only an event can wake it in a test.
    monkeypatch.setattr(fleet_module, "FOLLOW_SECONDS", 3600.0)
    settings.home.mkdir(parents=True, exist_ok=True)
    engine = Engine(settings, lambda n: HashEmbedder(n))
    fleet = fleet_module.Fleet(engine)
    yield fleet
    fleet.close()
    engine.close()


def test_a_store_registered_later_is_served_on_the_registrys_event(
        tmp_path: Path, settings: Settings, fleet: fleet_module.Fleet) -> None:
    fleet.follow()
    root = _project(tmp_path, "late", settings)  # registers it in stores.json
    eventually(lambda: any(h.store.root == root for h in fleet.held.values()))


def test_a_look_at_held_stores_touches_none_of_their_files(
        tmp_path: Path, settings: Settings, fleet: fleet_module.Fleet) -> None:
    """The look used to open each catalog twice a second; under a watched root that
    opened and closed its WAL, an event the store's watcher woke for every time."""
    root = _project(tmp_path, "proj", settings)
    fleet.open([root / ".semlith"])
    seen: list[str] = []
    changed = threading.Event()

    class Recorder:
        def dispatch(self, event: object) -> None:
            if event.is_directory:  # type: ignore[attr-defined]
                return  # the folder's own mtime, moved by the sentinel
            seen.append(f"{event.event_type} {event.src_path}")  # type: ignore[attr-defined]
            if str(event.src_path).endswith("sentinel"):  # type: ignore[attr-defined]
                changed.set()

    from watchdog.observers import Observer

    observer = Observer()
    observer.schedule(Recorder(), str(root / ".semlith"), recursive=False)
    observer.start()
    try:
        for _ in range(3):
            fleet.refresh()
        (root / ".semlith" / "sentinel").write_text("flush")  # events arrive in order
        assert changed.wait(30)
    finally:
        observer.stop()
        observer.join()
    assert [e for e in seen if not e.endswith("sentinel")] == []


def test_watch_file_calls_back_for_a_replace_and_not_for_a_neighbour(
        tmp_path: Path) -> None:
    called = threading.Event()
    observer = watch_file(tmp_path / "stores.json", called.set)
    assert observer is not None
    try:
        (tmp_path / "other.json").write_text("{}")
        (tmp_path / "stores.json.tmp").write_text("{}")
        assert not called.wait(0.5)
        (tmp_path / "stores.json.tmp").replace(tmp_path / "stores.json")
        assert called.wait(30)
    finally:
        observer.stop()
        observer.join()
    assert watch_file(tmp_path / "missing" / "stores.json", called.set) is None
