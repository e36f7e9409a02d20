"""The daemon's stores: held writable, watched, and kept in step with the registry.

A `Fleet` is the `StoreSource` of the daemon's libraries (semlith/local/sources.py). It opens
every registered store as its one writer, loads their models in the background, and
serialises index runs per store while searches run concurrently on worker threads
(SQLite connections are per thread; shards and the sidecar have their own locks).

It follows the registry (`stores.json` under SEMLITH_HOME, watched for changes, or
polled twice a second where the OS refuses a watch): a store indexed after the daemon
started is served at once. One whose registration disappears is dropped once its
in-flight calls finish, and one whose folder disappears within FOLLOW_SECONDS (a stat of
each catalog). A store another process holds (a `semlith index` started before the
daemon) is read without its lock meanwhile, and taken over when it is free (tried every
RETRY_LOCKED_SECONDS). Between those the follower thread sleeps: an idle daemon wakes
for nothing (issue #25; docs/performance.md, "Idle, wake-up by wake-up").
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semlith.base.home import REGISTRY, RegisteredStore, registered_stores
from semlith.base.memory import trim
from semlith.base.version import __version__
from semlith.embed.prebuild import build_apart
from semlith.errors import SemlithError, StoreLocked
from semlith.index.watch import StoreWatcher, watch_file
from semlith.local.engine import Engine
from semlith.local.indexing import run_index
from semlith.local.scope import Known, unique_label
from semlith.local.sources import (
    Opened,
    open_for_writing,
    open_or_note,
    open_to_read,
    registered_known,
)
from semlith.store import Store
from semlith.store.locate import store_present
from semlith.types import IndexReport, Status

log = logging.getLogger("semlith.fleet")
MODEL_WAIT_SECONDS = 120.0
FOLLOW_SECONDS = 10.0
POLL_SECONDS = 0.5  # the registry's stat when its folder cannot be watched
RETRY_LOCKED_SECONDS = 5.0
# After this long without a call the daemon hands freed memory back (semlith/base/memory.py):
# a burst's page caches and buffers kept its RSS at the peak for good (issue #26).
QUIET_TRIM_SECONDS = 20.0


@dataclass(eq=False)  # compared and hashed by identity
class Held:
    """One store the daemon holds, with its writer lock for index runs and its watcher."""

    name: str
    store: Store
    writing: threading.Lock = field(default_factory=threading.Lock)
    watcher: StoreWatcher | None = None
    users: int = 0  # calls reading it now; it is closed only when none is left


class Fleet:
    def __init__(self, engine: Engine, *, follow_registry: bool = True) -> None:
        self.engine = engine
        self.settings = engine.settings
        self.held: dict[str, Held] = {}
        self.problems: dict[str, str] = {}  # store folder -> why it is not served
        self.model_ready = threading.Event()
        self.model_error: str | None = None
        self.started = time.time()
        self.searches = 0  # answered, for `status` (and tests that check who answered)
        self.port = 0
        self.served_by = os.getpid()
        self.follow_registry = follow_registry
        self._cond = threading.Condition()
        self._debounce: float | None = None  # watching, with this debounce, when set
        self._registry_seen: tuple[int, int] | None = None
        self._retry_at = 0.0
        self._wake = threading.Event()  # the follower looks now: registry, trim, stop
        self._stopping = False
        self._poller: threading.Thread | None = None
        self._registry_watch: Any = None
        self._loader: threading.Thread | None = None
        self._last_call = time.monotonic()
        self._trimmed = True  # nothing to give back since the last trim

    # -- lifecycle -----------------------------------------------------------------------

    def open(self, stores: Iterable[RegisteredStore | Path]) -> None:
        """Open every store (a registry entry or a store folder) writable; one that cannot
        be opened is reported, not fatal."""
        for store in stores:
            self._take(store if isinstance(store, Path) else Path(store.folder))

    def _take(self, folder: Path) -> Held | None:
        try:
            store = Store.open(folder, settings=self.settings, writable=True,
                               command="semlith serve")
        except (SemlithError, OSError, ValueError) as exc:
            if self.problems.get(str(folder)) != str(exc):
                log.warning("not serving %s: %s", folder, exc)
            self.problems[str(folder)] = str(exc)
            return None
        self.problems.pop(str(folder), None)
        return self._hold(store)

    def _hold(self, store: Store) -> Held:
        with self._cond:
            held = Held(unique_label(store.name, self.held), store)
            self.held[held.name] = held
        if self._debounce is not None:
            self._watch(held, self._debounce)
        return held

    def start_loading_models(self) -> None:
        """`load_models` on a background thread, which `close` waits for."""
        self._loader = threading.Thread(target=self.load_models, name="semlith-model")
        self._loader.start()

    def load_models(self) -> None:
        """Load each store's model (documents and queries); run on a background thread."""
        try:
            for model in sorted({h.store.model for h in list(self.held.values())}):
                build_apart(model, self.engine.settings)  # the build's memory stays there
                self.engine.pool.for_queries(model)
        except Exception as exc:  # reported to every later search, and logged
            self.model_error = str(exc)
            log.exception("loading the embedding model failed")
        finally:
            self.model_ready.set()

    def start_watching(self, debounce: float) -> None:
        """Catch up with changes made while no daemon ran, then keep every store current."""
        self._debounce = debounce
        for held in list(self.held.values()):
            self._watch(held, debounce)

    def _watch(self, held: Held, debounce: float) -> None:
        if not held.store.corpus.writable:  # a mirror: its files are on the machine that
            return  # indexes it
        watcher = StoreWatcher(held.store.root, held.store.folder,
                               functools.partial(self._batch, held), debounce=debounce)
        watcher.on_batch = functools.partial(self._batched, held)
        held.watcher = watcher
        watcher.start(catch_up=True)

    def _batch(self, held: Held, paths: list[str] | None) -> IndexReport:
        store = held.store
        with held.writing:
            return run_index(store, self.engine.pool,
                             [store.root / p for p in paths] if paths else [],
                             track=self.engine.runs.start(held.name, str(store.root),
                                                          "watch"))

    def _batched(self, held: Held, report: IndexReport) -> None:
        assert held.watcher is not None
        if held.watcher.state.batches == 1:  # the catch-up pass
            print(f"semlith: {held.name}: caught up with changes made while no daemon ran: "
                  f"{report.summary()}", file=sys.stderr, flush=True)

    def follow(self) -> None:
        """Start following the registry on a background thread."""
        self._registry_seen = self._registry_stamp()
        self._registry_watch = watch_file(self.settings.home / REGISTRY, self._wake.set)
        self._poller = threading.Thread(target=self._poll, name="semlith-registry",
                                        daemon=True)
        self._poller.start()

    def _poll(self) -> None:
        while True:
            self._wake.wait(self._next_look())
            self._wake.clear()
            if self._stopping:
                return
            try:
                self.refresh()
            except Exception:  # logged; the next look tries again
                log.exception("following the store registry failed")
            if not self._trimmed and time.monotonic() - self._last_call > QUIET_TRIM_SECONDS:
                self._trimmed = True
                trim()

    def _next_look(self) -> float:
        """Seconds the follower may sleep: until the slow look at the folders (the
        registry's poll when it is not watched), a locked store's retry, a due trim."""
        now = time.monotonic()
        wait = FOLLOW_SECONDS if self._registry_watch is not None else POLL_SECONDS
        if self.problems:
            wait = min(wait, self._retry_at - now)
        if not self._trimmed:
            wait = min(wait, self._last_call + QUIET_TRIM_SECONDS - now)
        return max(wait, 0.01)

    def _called(self) -> None:
        self._last_call = time.monotonic()
        if self._trimmed:  # the follower has a trim to schedule now
            self._trimmed = False
            self._wake.set()

    def _registry_stamp(self) -> tuple[int, int] | None:
        try:
            st = (self.settings.home / REGISTRY).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def refresh(self, force: bool = False) -> None:
        """Serve newly registered stores, drop vanished ones, retry locked ones."""
        stamp = self._registry_stamp()
        now = time.monotonic()
        # A held store was finished when taken: it is gone when its catalog is (one stat
        # each poll; reading every catalog took ~1 ms a store, twice a second, #25).
        gone = [h for h in list(self.held.values()) if not store_present(h.store.folder)]
        changed = force or stamp != self._registry_seen
        retry = bool(self.problems) and now >= self._retry_at
        if not (changed or retry or gone):
            return
        self._registry_seen = stamp
        self._retry_at = now + RETRY_LOCKED_SECONDS
        entries = registered_stores(self.settings.home)
        wanted = {Path(e.folder).resolve() for e in entries}
        held_folders = {h.store.folder.resolve() for h in self.held.values()}
        if self.follow_registry:
            for entry in entries:
                folder = Path(entry.folder)
                new = folder.resolve() not in held_folders and Store.exists(folder)
                if new and self._take(folder) is not None:
                    log.warning("now serving %s", folder)
            for held in list(self.held.values()):
                if held.store.folder.resolve() not in wanted:
                    gone.append(held)
        for held in dict.fromkeys(gone):
            self._drop(held)

    def _drop(self, held: Held) -> None:
        with self._cond:
            if self.held.get(held.name) is not held:
                return
            del self.held[held.name]
            self._cond.wait_for(lambda: held.users == 0, timeout=60)
        log.warning("no longer serving %s", held.store.folder)
        if held.watcher is not None:
            held.watcher.stop()
        _close(held)

    def close(self) -> None:
        # A model still loading when the process exits dies inside onnxruntime while the
        # interpreter tears down (SIGABRT, "terminate called without an active exception":
        # 16 of 40 daemons stopped at once, before this wait). Loading cannot be cancelled;
        # it ends in a few seconds.
        if self._loader is not None:
            self._loader.join()
        self._stopping = True
        self._wake.set()
        if self._poller is not None:
            self._poller.join(timeout=5)
        if self._registry_watch is not None:
            self._registry_watch.stop()
            self._registry_watch.join(timeout=10)
        for held in list(self.held.values()):
            if held.watcher is not None:
                held.watcher.stop()
        for held in list(self.held.values()):
            _close(held)
        self.held.clear()

    # -- StoreSource ---------------------------------------------------------------------

    def known(self) -> list[Known]:
        """The held stores, then registered ones it could not take (read without a lock)."""
        with self._cond:
            held = [Known(h.name, h.store.folder, h.store.root) for h in self.held.values()]
        if not self.problems:  # the common case: no registry read on the query path
            return held
        folders = {k.folder.resolve() for k in held}
        extra = registered_known(self.settings, lambda e: e.folder in self.problems
                                 and Path(e.folder).resolve() not in folders)
        names = {k.name for k in held}
        return held + [Known(k.name if k.name not in names else f"{k.name}~", k.folder,
                             k.root) for k in extra]

    @contextlib.contextmanager
    def reading(self, chosen: Sequence[Known]) -> Iterator[Opened]:
        self._called()
        borrowed: list[Held] = []
        extra: list[Store] = []
        opened = Opened()
        try:
            for known in chosen:
                with self._cond:
                    held = self.held.get(known.name)
                    if held is not None and held.store.folder == known.folder:
                        held.users += 1
                        borrowed.append(held)
                        opened.append((held.name, held.store))
                        continue
                store = open_or_note(opened, known, len(chosen), functools.partial(
                    open_to_read, known.folder, self.settings))
                if store is not None:
                    extra.append(store)
                    opened.append((known.name, store))
            yield opened
        finally:
            for store in extra:
                store.close()
            with self._cond:
                for held in borrowed:
                    held.users -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def writing(self, folder: Path, create: Callable[[], Store] | None
                ) -> Iterator[tuple[str, Store]]:
        self._called()
        held = self._held_at(folder)
        if held is None:
            store = open_for_writing(self.settings, folder, create, command="semlith serve")
            held = self._hold(store)
            self._registry_seen = self._registry_stamp()
        if not held.writing.acquire(timeout=600):
            raise StoreLocked(f"store {held.name!r} is being indexed; try again shortly")
        try:
            yield held.name, held.store
        finally:
            held.writing.release()

    def _held_at(self, folder: Path) -> Held | None:
        resolved = folder.resolve()
        with self._cond:
            return next((h for h in self.held.values()
                         if h.store.folder.resolve() == resolved), None)

    def ready(self) -> None:
        if not self.model_ready.wait(MODEL_WAIT_SECONDS):
            raise SemlithError("the embedding model is still loading; try again in a minute")
        if self.model_error:
            raise SemlithError(f"the embedding model failed to load: {self.model_error}")
        self.searches += 1

    def describe(self, name: str) -> tuple[bool, dict[str, Any] | None]:
        held = self.held.get(name)
        if held is None:
            return False, None
        watch = held.watcher.state.as_json() if held.watcher else None
        return held.writing.locked(), watch

    def status(self) -> Status:
        with self._cond:
            stores = {name: {"folder": str(h.store.folder), "root": str(h.store.root),
                             "model": h.store.model, "indexing": h.writing.locked(),
                             "watch": h.watcher.state.as_json() if h.watcher else None}
                      for name, h in self.held.items()}
        return Status(__version__, os.getpid(), self.port,
                      round(time.time() - self.started, 1),
                      self.model_ready.is_set() and not self.model_error, self.model_error,
                      tuple(self.engine.pool.loaded()), self.searches, stores,
                      dict(self.problems))


def _close(held: Held) -> None:
    """Close a held store once its index run is over; a store whose folder was deleted
    cannot record its clean close, and that is no reason to fail a shutdown."""
    with held.writing:
        try:
            held.store.close()
        except (OSError, sqlite3.Error) as exc:
            log.warning("closing %s: %s", held.store.folder, exc)
