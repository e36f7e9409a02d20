"""Where a library's stores come from: `StoreSource`, and the stores opened for one call.

`OnDemand` opens them for the call and closes them after (the CLI when no daemon runs);
the daemon's `Fleet` (semlith/local/fleet.py) holds them writable and watched. Both
label stores the same way (`label_stores`), open or create a store to write it the same
way (`open_for_writing`), and register what they write in SEMLITH_HOME.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

import xxhash

from semlith.base.home import RegisteredStore, register_store, registered_stores
from semlith.base.settings import Settings
from semlith.errors import DaemonNotRunning, SemlithError, StoreNotFound
from semlith.local.scope import Known, label_stores
from semlith.store import Store
from semlith.store.locate import store_present
from semlith.types import Status, StoreEntry

_SAFE = re.compile(r"[^A-Za-z0-9._-]")  # a repo name as a folder name
# What opening or reading one store of several may raise without failing the call.
STORE_ERRORS = (SemlithError, OSError, sqlite3.Error)


class Opened(list[tuple[str, Store]]):
    """The (label, store) pairs a call reads, and the stores of its scope that could not
    be opened: `failed` holds (label, why), and the call answers from the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.failed: list[tuple[str, str]] = []


def open_or_note(opened: Opened, known: Known, of: int, open: Callable[[], Store]
                 ) -> Store | None:
    """`open()` the store `known`; when it fails and it is one of several (`of`), note
    why in `opened.failed` and return None instead of failing the whole call."""
    try:
        return open()
    except STORE_ERRORS as exc:
        if of <= 1:
            raise
        opened.failed.append((known.name, str(exc)))
        return None


def register(home: Path, store: Store) -> None:
    """Record the store in SEMLITH_HOME so `semlith serve` (and agents) find it, under a
    name no other store on the machine has (a writable store whose name another holds
    is renamed: `app-2`; issue #23), chosen under the registry's lock (issue #47)."""
    register_store(home, RegisteredStore(str(store.folder.resolve()),
                                         str(store.root.resolve()), store.model, store.name),
                   store.rename if store.writable else None)


def renamed(home: Path, store: Store, was: str | None) -> tuple[str, str]:
    """(the name it wanted, the folder holding it) when registering it this run renamed
    the store (`was`: its registered name before); ('', '') otherwise."""
    wanted = store.root.name
    if store.name == was or not store.name.startswith(f"{wanted}-"):
        return "", ""
    holder = next((e.folder for e in registered_stores(home) if e.name == wanted), "")
    return (wanted, holder) if holder else ("", "")


def open_for_writing(settings: Settings, folder: Path, create: Callable[[], Store] | None,
                     command: str | None = None) -> Store:
    """The store at `folder` opened writable, or made by `create` when none exists there
    (`Store.exists`), and registered either way. Without `create` a missing store is
    StoreNotFound."""
    if Store.exists(folder) or create is None:
        store = Store.open(folder, settings=settings, writable=True, command=command)
    else:
        store = create()
    try:
        register(settings.home, store)
    except BaseException:
        store.close()
        raise
    return store


def registered_known(settings: Settings, only: Callable[[RegisteredStore], bool] | None = None
                     ) -> list[Known]:
    """The registered stores whose catalog is there (and pass `only`), labelled.

    Only a stat per store: reading each catalog (`Store.exists`) took 1.8 s of every
    call with 1,365 registered stores (#25). `open_to_read` tells a half-made store
    apart, for the stores a call reads."""
    entries = [(e.name, Path(e.folder), Path(e.root) if e.root else None)
               for e in registered_stores(settings.home) if only is None or only(e)]
    return label_stores([entry for entry in entries if store_present(entry[1])])


def open_to_read(folder: Path, settings: Settings) -> Store:
    """The store at `folder` opened to read; StoreNotFound when its creation did not
    finish (its catalog records no model, as `Store.exists` tells: checked on the open
    catalog, not by opening it twice)."""
    store = Store.open(folder, settings=settings)
    if not store.model:
        store.close()
        raise StoreNotFound(f"the store at {str(folder)!r} was never finished (its first "
                            "index run failed); `semlith index` its folder again")
    return store


class StoreSource(Protocol):
    """Where a library's stores come from."""

    served_by: int  # the daemon's pid when it holds the stores, else 0

    def known(self) -> list[Known]:
        """Every store that may be addressed, labelled."""
        ...

    def reading(self, chosen: Sequence[Known]) -> contextlib.AbstractContextManager[Opened]:
        ...

    def writing(self, folder: Path, create: Callable[[], Store] | None
                ) -> contextlib.AbstractContextManager[tuple[str, Store]]:
        """The store at `folder` for writing (created by `create` when it does not exist)."""
        ...

    def ready(self) -> None:
        """Wait until the stores' models can embed queries (or raise why they cannot)."""
        ...

    def describe(self, name: str) -> tuple[bool, dict[str, object] | None]:
        """(an index run is in progress, the watcher's state) of a store."""
        ...

    def status(self) -> Status:
        """The daemon holding the stores; DaemonNotRunning when none does."""
        ...


class OnDemand:
    """Stores opened for one call and closed after it (the CLI when no daemon runs)."""

    served_by = 0

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def known(self) -> list[Known]:
        return registered_known(self.settings)

    @contextlib.contextmanager
    def reading(self, chosen: Sequence[Known]) -> Iterator[Opened]:
        stores: list[Store] = []
        result = Opened()
        try:
            for known in chosen:
                store = open_or_note(result, known, len(chosen), functools.partial(
                    open_to_read, known.folder, self.settings))
                if store is not None:
                    stores.append(store)
            labels = label_stores([(s.name, s.folder, s.root) for s in stores])
            result.extend((k.name, s) for k, s in zip(labels, stores, strict=True))
            yield result
        finally:
            for store in stores:
                store.close()

    @contextlib.contextmanager
    def writing(self, folder: Path, create: Callable[[], Store] | None
                ) -> Iterator[tuple[str, Store]]:
        store = open_for_writing(self.settings, folder, create)
        try:
            yield store.name, store
        finally:
            store.close()

    def ready(self) -> None:
        pass

    def describe(self, name: str) -> tuple[bool, dict[str, object] | None]:
        return False, None

    def status(self) -> Status:
        raise DaemonNotRunning("no semlith daemon is running; start one with `semlith serve`")


def attach_mirror(settings: Settings, backend: str) -> StoreEntry:
    """Register a mirror of the repo `backend` names (`semlith attach`): a store folder
    under SEMLITH_HOME/attached whose chunks are read from its engine. Attaching the same
    target again returns the mirror made before (opened to read: the daemon may hold it)."""
    from semlith.store.milvus.target import MilvusTarget

    target = MilvusTarget.parse(backend)
    digest = xxhash.xxh64_hexdigest(str(target).encode())[:8]
    folder = settings.home / "attached" / f"{_SAFE.sub('_', target.repo)[:64]}-{digest}"
    if Store.exists(folder):
        store = Store.open(folder, settings=settings)
    else:
        store = Store.create_mirror(folder, backend=backend, settings=settings)
    try:
        register(settings.home, store)
        return StoreEntry(store.name, str(folder), "", store.model)
    finally:
        store.close()
