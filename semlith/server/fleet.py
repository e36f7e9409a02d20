"""The daemon's stores, one model pool for all of them, and their writer locks.

A `Fleet` opens each store writable (the daemon is its one writer), loads the models in
the background, and serialises index runs per store while searches run concurrently on
worker threads (SQLite connections are per thread; shards and the sidecar have their
own locks).
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semlith import api
from semlith.api import App
from semlith.errors import SemlithError, StoreLocked
from semlith.home import StoreEntry
from semlith.indexer import IndexReport
from semlith.search import Filters, Hit
from semlith.store import Store
from semlith.watch import StoreWatcher

log = logging.getLogger("semlith.fleet")
MODEL_WAIT_SECONDS = 120.0


class UnknownStore(SemlithError):
    """A request named a store the daemon does not serve."""


class PathOutsideRoots(SemlithError):
    """A path an agent gave resolves outside every root the daemon serves."""


@dataclass
class Held:
    """One store the daemon holds, with its writer lock for index runs and its watcher."""

    name: str
    store: Store
    writing: threading.Lock = field(default_factory=threading.Lock)
    watcher: StoreWatcher | None = None


class Fleet:
    def __init__(self, app: App) -> None:
        self.app = app
        self.held: dict[str, Held] = {}
        self.problems: dict[str, str] = {}  # store folder -> why it is not served
        self.model_ready = threading.Event()
        self.model_error: str | None = None
        self.started = time.time()
        self.searches = 0  # answered, for `status` (and tests that check who answered)
        self._loader: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def open(self, entries: Sequence[StoreEntry]) -> None:
        """Open every store writable; one that cannot be opened is reported, not fatal."""
        for entry in entries:
            try:
                store = Store.open(Path(entry.folder), settings=self.app.settings,
                                   writable=True, command="semlith serve")
            except (SemlithError, OSError, ValueError) as exc:
                self.problems[entry.folder] = str(exc)
                log.warning("not serving %s: %s", entry.folder, exc)
                continue
            name = store.name
            n = 2
            while name in self.held:
                name, n = f"{store.name}#{n}", n + 1
            self.held[name] = Held(name, store)

    def start_loading_models(self) -> None:
        """`load_models` on a background thread, which `close` waits for."""
        self._loader = threading.Thread(target=self.load_models, name="semlith-model")
        self._loader.start()

    def load_models(self) -> None:
        """Load each store's model (documents and queries); run on a background thread."""
        try:
            for model in sorted({h.store.model for h in self.held.values()}):
                self.app.pool.for_queries(model)
        except Exception as exc:  # reported to every later search, and logged
            self.model_error = str(exc)
            log.exception("loading the embedding model failed")
        finally:
            self.model_ready.set()

    def start_watching(self, debounce: float) -> None:
        """Catch up with changes made while no daemon ran, then keep every store current."""
        for held in self.held.values():
            watcher = StoreWatcher(held.store.root, held.store.folder,
                                   functools.partial(self._batch, held), debounce=debounce)
            watcher.on_batch = functools.partial(self._batched, held)
            held.watcher = watcher
            watcher.start(catch_up=True)

    def _batch(self, held: Held, paths: list[str] | None) -> IndexReport:
        root = held.store.root
        return self.index(held.name, [str(root / p) for p in paths] if paths else [])

    def _batched(self, held: Held, report: IndexReport) -> None:
        assert held.watcher is not None
        if held.watcher.state.batches == 1:  # the catch-up pass
            print(f"semlith: {held.name}: caught up with changes made while no daemon ran: "
                  f"{report.summary()}", file=sys.stderr, flush=True)

    def close(self) -> None:
        # A model still loading when the process exits dies inside onnxruntime while the
        # interpreter tears down (SIGABRT, "terminate called without an active exception":
        # 16 of 40 daemons stopped at once, before this wait). Loading cannot be cancelled;
        # it ends in a few seconds.
        if self._loader is not None:
            self._loader.join()
        for held in self.held.values():
            if held.watcher is not None:
                held.watcher.stop()
        for held in self.held.values():
            with held.writing:
                held.store.close()
        self.held.clear()

    # -- requests ------------------------------------------------------------------------

    def choose(self, name: str | None) -> list[Held]:
        """The stores a request addresses: one by name, or all of them."""
        if not self.held:
            raise UnknownStore("the daemon serves no store; run `semlith index DIR` first")
        if name is None or name == "":
            return list(self.held.values())
        if name not in self.held:
            raise UnknownStore(f"unknown store {name!r}; the stores are: "
                               f"{', '.join(sorted(self.held))}")
        return [self.held[name]]

    def wait_for_model(self) -> None:
        if not self.model_ready.wait(MODEL_WAIT_SECONDS):
            raise SemlithError("the embedding model is still loading; try again in a minute")
        if self.model_error:
            raise SemlithError(f"the embedding model failed to load: {self.model_error}")

    def search(self, query: str, k: int, filters: Filters | None = None,
               store: str | None = None, folders: Sequence[str] = ()) -> list[Hit]:
        """Search one store by name, the stores at `folders`, or all of them."""
        chosen = [self.by_folder(f) for f in folders] if folders else self.choose(store)
        self.wait_for_model()
        hits = api.search(self.app, [(h.name, h.store) for h in chosen], query, k, filters)
        self.searches += 1
        return hits

    def index(self, store: str | None, paths: Sequence[str] = (), *,
              time_budget: float | None = None) -> IndexReport:
        """Index paths of one store (the one whose root holds them, if not named)."""
        held, resolved = self.locate(store, paths)
        if not held.writing.acquire(timeout=time_budget or 600):
            raise StoreLocked(f"store {held.name!r} is being indexed; try again shortly")
        try:
            return api.run_index(self.app, held.store, resolved, time_budget=time_budget)
        finally:
            held.writing.release()

    def forget(self, store: str | None, path: str) -> int:
        held, (resolved,) = self.locate(store, [path])
        with held.writing:
            return api.forget(held.store, resolved)

    def locate(self, name: str | None, raw: Sequence[str]) -> tuple[Held, list[Path]]:
        """The store whose root holds every path, and the paths resolved inside it.

        Relative paths are relative to the root. A path that leaves the root (`..`, a
        symlink pointing elsewhere, another folder) is refused: nothing outside a served
        root is read or written on an agent's behalf.
        """
        candidates = self.choose(name)
        for held in candidates:
            root = held.store.root.resolve()
            resolved = [(Path(p) if Path(p).is_absolute() else root / p).resolve() for p in raw]
            if all(p == root or root in p.parents for p in resolved) and \
                    (raw or len(candidates) == 1):
                return held, resolved
        roots = ", ".join(f"{h.name}: {h.store.root}" for h in candidates)
        if not raw:
            raise UnknownStore(f"name the store; the stores are: {roots}")
        raise PathOutsideRoots(f"{', '.join(map(str, raw))} is not inside a served root "
                               f"({roots})")

    def by_folder(self, folder: str) -> Held:
        resolved = Path(folder).resolve()
        for held in self.held.values():
            if held.store.folder.resolve() == resolved:
                return held
        raise UnknownStore(f"the daemon does not serve the store at {folder!r}")

    def status(self) -> dict[str, Any]:
        return {
            "stores": {name: {"folder": str(h.store.folder), "root": str(h.store.root),
                              "model": h.store.model, "indexing": h.writing.locked(),
                              "watch": h.watcher.state.as_json() if h.watcher else None}
                       for name, h in self.held.items()},
            "not_served": dict(self.problems),
            "model_ready": self.model_ready.is_set() and not self.model_error,
            "model_error": self.model_error,
            "models_loaded": self.app.pool.loaded(),
            "uptime_s": round(time.time() - self.started, 1),
            "searches": self.searches,
        }
