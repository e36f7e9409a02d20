"""Keep a store current: a watchdog observer on its root, debounced batches, one writer.

File events are collected until the tree has been quiet for a while, then applied as one
batch through the indexer (the same path as `semlith index`): changed files are
re-indexed (an unchanged hash costs nothing), deleted ones removed, a rename becomes a
move (no embedding). The quiet wanted is `first_debounce` (0.15 s) while the batch's
events came within that long of its first one (one save: its events arrive in a
millisecond), and `debounce` (0.5 s) once they keep coming (a copy, a checkout, an
editor writing in pieces): a lone save is searchable in ~0.2 s, a stream still lands in
one batch (issue #25; docs/performance.md, "Keeping stores current"). A file written
again less than `cooldown` seconds after its last write is hot: its next save waits out
the rest of the cooldown, so an editor saving every second costs a write per cooldown,
not per save. The first rewrite after a quiet cooldown is not held: a formatter that
rewrites a file just saved gets its own write at once. Ignore rules apply to events as to
walks; an edited `.gitignore`/`.semlithignore` makes the batch a full incremental pass.
A batch touching more than FULL_PASS_AT paths (a branch switch, a `git pull`) is a full
pass too. When the OS refuses to watch (the inotify limit), the root is rescanned
periodically instead and `stats` says why; a root that disappears is reported and
watched for again.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from semlith.ingest.walk import is_ignored
from semlith.types import IndexReport

# watchdog warns when a folder created during a burst gets its inotify watch twice (it
# keeps one callback): harmless, and under `python -W error` the warning would kill the
# observer thread and with it every later event.
warnings.filterwarnings("ignore", message=r"Callback with id .* already exists for watch",
                        category=RuntimeWarning)

log = logging.getLogger("semlith.index.watch")
DEBOUNCE_SECONDS = 0.5
FIRST_DEBOUNCE_SECONDS = 0.15
COOLDOWN_SECONDS = 3.0
FULL_PASS_AT = 256
RESCAN_SECONDS = 60.0
# How often an idle watcher looks at its root. A deleted root arrives as an event; a
# renamed one does not (inotify reports no move of the watched folder itself).
ROOT_CHECK_SECONDS = 10.0
RETRY_SECONDS = 5.0
IGNORE_FILES = frozenset({".gitignore", ".semlithignore"})
INOTIFY_HINT = ("the OS limit on watched folders is reached (inotify); raise it with "
                "`sudo sysctl fs.inotify.max_user_watches=524288` (and add it to "
                "/etc/sysctl.conf); until then this root is rescanned every "
                f"{RESCAN_SECONDS:.0f} s")

Batch = Callable[[list[str] | None], IndexReport]  # rel paths, or None for a full pass


@dataclass
class WatchState:
    """What `stats` shows about a watched store."""

    mode: str = "starting"  # "events", "rescanning (why)", "root missing", "stopped"
    pending: int = 0
    batches: int = 0
    last_batch_at: float | None = None
    last_batch: str = ""
    last_error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


class StoreWatcher:
    """Watches one root and feeds `run_batch` with debounced batches on its own thread."""

    def __init__(self, root: Path, store_folder: Path, run_batch: Batch, *,
                 debounce: float = DEBOUNCE_SECONDS, cooldown: float = COOLDOWN_SECONDS,
                 first_debounce: float = FIRST_DEBOUNCE_SECONDS,
                 observer_factory: Callable[[], Any] | None = None) -> None:
        self.root = root.resolve()
        self.store_folder = store_folder.resolve()
        self.run_batch = run_batch
        self.debounce = debounce
        self.first_debounce = min(first_debounce, debounce)
        self.cooldown = cooldown
        self.state = WatchState()
        self._observer_factory = observer_factory or _default_observer
        self._observer: Any = None
        self._cond = threading.Condition()
        self._paths: dict[str, float] = {}  # rel path -> time of its last event
        self._since = 0.0  # when the first event of the pending batch came
        self._full = False
        # rel path -> when a batch last wrote it: `_once` after one write, `_written` (hot:
        # its next save waits out the cooldown) after a second within the cooldown.
        self._once: dict[str, float] = {}
        self._written: dict[str, float] = {}
        self._stop = False
        self._look_at_root = False
        self._last_pass = time.monotonic()
        self._retry_at = 0.0
        self.on_batch: Callable[[IndexReport], None] | None = None
        self._thread = threading.Thread(target=self._loop, name=f"semlith-watch-{root.name}",
                                        daemon=True)

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, catch_up: bool = True) -> None:
        """Begin watching; with `catch_up`, first apply what changed while nobody watched."""
        if catch_up:
            self.request_full_pass()
        self._watch()
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._unwatch()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        self.state.mode = "stopped"

    def _watch(self) -> None:
        if not self.root.is_dir():
            self.state.mode = "root missing"
            return
        try:
            observer = self._observer_factory()
            observer.schedule(_Handler(self), str(self.root), recursive=True,
                              event_filter=_changes())
            observer.start()
        except OSError as exc:
            limit = exc.errno in (errno.ENOSPC, errno.EMFILE)
            self.state.mode = f"rescanning ({INOTIFY_HINT if limit else exc})"
            log.warning("watching %s: %s", self.root, self.state.mode)
            return
        self._observer = observer
        self.state.mode = "events"

    def _detach(self) -> Any:
        """The observer, no longer the watcher's (None when there was none)."""
        observer, self._observer = self._observer, None
        return observer

    def _unwatch(self) -> None:
        """Stop watching. Never under `_cond`: see `_loop`."""
        _stop_observer(self._detach())

    # -- events --------------------------------------------------------------------------

    def request_full_pass(self) -> None:
        with self._cond:
            self._full = True
            self._note("", time.monotonic(), keep=True)
            self._cond.notify_all()

    def event(self, path: str) -> None:
        """A path under the root changed (created, modified, deleted, moved from/to)."""
        try:
            rel = Path(path).resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return
        if rel in ("", "."):  # the root itself: deleted, most likely
            with self._cond:
                self._look_at_root = True
                self._cond.notify_all()
            return
        if rel.startswith(".git/") or rel == ".git":
            return
        target = self.root / rel
        if target == self.store_folder or self.store_folder in target.parents:
            return
        name = rel.rsplit("/", 1)[-1]
        if name in IGNORE_FILES:
            self.request_full_pass()  # what the rules cover changed: look at everything
            return
        try:
            if is_ignored(self.root, rel, exclude=[self.store_folder]) is not None:
                return
        except (ValueError, OSError):
            return
        with self._cond:
            self._note(rel, time.monotonic())
            self._cond.notify_all()

    def _note(self, rel: str, now: float, keep: bool = False) -> None:
        """Record an event of `rel` (under the lock); `keep`: an earlier time stays."""
        if not self._paths:
            self._since = now
        if keep:
            self._paths.setdefault(rel, now)
        else:
            self._paths[rel] = now
        self.state.pending = len(self._paths)

    # -- batches -------------------------------------------------------------------------

    def _due(self, now: float) -> float | None:
        """Seconds until the pending batch may run (0: now), None when nothing is pending."""
        if not self._paths:
            return None
        last = max(self._paths.values())
        # One save's events arrive together: a short wait. Events that keep coming past
        # it are a stream (a copy, a checkout): wait for the longer quiet.
        streaming = last - self._since >= self.first_debounce
        quiet = last + (self.debounce if streaming else self.first_debounce) - now
        hot = 0.0 if self._full else max(
            (self._written.get(p, -1e9) + self.cooldown - now for p in self._paths),
            default=0.0)
        return max(0.0, quiet, hot, self._retry_at - now)

    def _loop(self) -> None:
        while True:
            stale = None
            with self._cond:
                while not self._stop and stale is None:
                    wait = self._due(time.monotonic())
                    if wait == 0.0:
                        break
                    self._cond.wait(timeout=self._sleep(wait))
                    stale = self._check_root()
                if not self._stop and stale is None:
                    paths, full, since = sorted(self._paths), self._full, self._since
                    self._paths.clear()
                    self._full = False
            if stale is not None:
                # Stopped with the lock released: the observer's dispatch thread may be
                # waiting for it in `event()` while holding the observer's own lock, which
                # `stop()` needs (a test run hung so, the root deleted mid-dispatch).
                _stop_observer(stale)
                continue
            if self._stop:
                return
            self._apply(None if full or len(paths) > FULL_PASS_AT else paths, since)

    def _sleep(self, due: float | None) -> float:
        """How long the loop may wait for events: the pending batch's due time, bounded
        by the next look at the root: once a second while it is missing or rescanned,
        ROOT_CHECK_SECONDS while events arrive (an idle daemon: issue #25)."""
        if self._look_at_root:
            return 0.0
        look = ROOT_CHECK_SECONDS if self.state.mode == "events" else 1.0
        return look if due is None else min(due, look)

    def _check_root(self) -> Any:
        """Notice a vanished or returned root; pass periodically when events are off.
        Under the lock: a vanished root's observer is detached and returned, for the
        caller to stop once the lock is released (None: nothing to stop)."""
        now = time.monotonic()
        self._look_at_root = False
        if self.state.mode == "root missing":
            if self.root.is_dir():
                self._watch()
                self._full = True
                self._note("", now, keep=True)
        elif not self.root.is_dir():
            self.state.mode = "root missing"
            return self._detach()
        elif self.state.mode.startswith("rescanning") and not self._paths and \
                now - self._last_pass > RESCAN_SECONDS:
            self._full = True
            self._note("", now, keep=True)

    def _note_written(self, paths: list[str] | tuple[()], now: float, since: float) -> None:
        """A batch whose first event came at `since` wrote `paths` (under the lock).

        A file's first write after a quiet cooldown leaves its next save free: a
        formatter's rewrite 0.3 s after a save is searchable ~0.5 s after the save, not
        3 s. A write less than the cooldown after the file's last one makes it hot
        (issue #25; docs/performance.md, "A short first quiet"). Measured from the
        batch's first event, not its end: saves that kept coming while a hot file waited
        keep it hot."""
        for rel in paths:
            last = max(self._once.get(rel, -1e9), self._written.get(rel, -1e9))
            if since - last < self.cooldown:
                self._once.pop(rel, None)
                self._written[rel] = now
            else:
                self._once[rel] = now
        self._once = {p: t for p, t in self._once.items() if now - t < self.cooldown}
        self._written = {p: t for p, t in self._written.items() if now - t < self.cooldown}

    def _apply(self, paths: list[str] | None, since: float) -> None:
        started = time.monotonic()
        try:
            report = self.run_batch(paths)
        except Exception as exc:  # logged, kept for stats, and retried after a pause
            log.exception("a watch batch of %s failed", self.root)
            self.state.last_error = f"{type(exc).__name__}: {exc}"
            with self._cond:
                for rel in paths if paths is not None else [""]:
                    self._note(rel, time.monotonic(), keep=True)
                self._full = self._full or paths is None
                self._retry_at = time.monotonic() + RETRY_SECONDS
                self.state.pending = len(self._paths)
            return
        now = time.monotonic()
        with self._cond:
            self._note_written(paths or (), now, since)
            if paths is None:
                self._last_pass = now
            self.state.pending = len(self._paths)
        self.state.batches += 1
        self.state.last_batch_at = time.time()
        self.state.last_batch = f"{report.summary()} [{now - started:.2f} s]"
        self.state.last_error = None
        if self.on_batch is not None:
            self.on_batch(report)


def _stop_observer(observer: Any) -> None:
    if observer is not None:
        observer.stop()
        observer.join(timeout=10)


class _Handler:
    """watchdog's event handler protocol: every event reduces to the paths it touches."""

    def __init__(self, watcher: StoreWatcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads, not changes
        if event.is_directory and event.event_type == "modified":
            return  # a folder's mtime moved because a file in it changed: that file's event
            # brings the change itself
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path:  # bytes from some observers: a name that is not UTF-8 must not raise
                self.watcher.event(os.fsdecode(path))


class _FileHandler:
    """watchdog's handler protocol: `changed()` when an event names the file."""

    def __init__(self, name: str, changed: Callable[[], None]) -> None:
        self.name = name
        self.changed = changed

    def dispatch(self, event: Any) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path and os.path.basename(os.fsdecode(path)) == self.name:
                self.changed()
                return


def watch_file(path: Path, changed: Callable[[], None], *,
               observer_factory: Callable[[], Any] | None = None) -> Any | None:
    """A started observer that calls `changed` (on its thread) whenever `path` is written,
    replaced by a rename or removed: its folder is watched, not recursively. None when
    the folder is missing or the OS refuses a watch; the caller then polls."""
    try:
        observer = (observer_factory or _default_observer)()
        observer.schedule(_FileHandler(path.name, changed), str(path.parent),
                          recursive=False, event_filter=_changes())
        observer.start()
    except OSError as exc:
        log.warning("cannot watch %s (%s); polling it instead", path, exc)
        return None
    return observer


def _changes() -> list[type]:
    """The events that change a file, as watchdog's `event_filter`: asked of the OS, so
    that reads (inotify's IN_OPEN and IN_CLOSE_NOWRITE) are never delivered. Each grep,
    read and indexing pass opens the files it reads; the watcher's thread took and
    dropped two events a file, and the GIL with them: a third of a daemon's grep over
    1,000 files (py-spy, issue #45). The handlers still skip them (other observers)."""
    from watchdog.events import (
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileClosedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    return [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent,
            FileClosedEvent, DirCreatedEvent, DirDeletedEvent, DirMovedEvent]


def _default_observer() -> Any:
    from watchdog.observers import Observer

    return Observer()
