"""The index runs a process knows of: the ones in progress, and each store's last one.

A `RunBoard` lives on the `Engine` (semlith/local.py), so the daemon's libraries and its
watcher share one: a run the CLI asked for, a watcher batch and a run started from the
portal all show in `Library.runs()`, and `Library.stop_run(store)` asks the one in
progress to stop. A stopped run ends as a time budget ends it: between two files, the
files done committed, the rest left for the next run (the store stays consistent).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

from semlith.types import IndexReport, Progress
from semlith.types.activity import Run


class Tracked:
    """One run on the board: fed its progress, then finished or failed."""

    def __init__(self, board: RunBoard, run: Run) -> None:
        self.board = board
        self.run = run
        self.stop = threading.Event()

    def progress(self, p: Progress) -> None:
        if p.phase == "model":  # loading the model: the counts so far still stand
            self.board._update(self, dataclasses.replace(self.run, phase=p.phase))
            return
        self.board._update(self, dataclasses.replace(
            self.run, phase=p.phase, files_done=p.files_done, files_total=p.files_total,
            chunks_done=p.chunks_done, chunks_total=p.chunks_total,
            chunks_per_s=round(p.chunks_per_s, 1),
            eta_s=None if p.eta_s is None else round(p.eta_s, 1), path=p.path))

    def finish(self, report: IndexReport) -> None:
        state = "stopped" if self.stop.is_set() and report.pending else "done"
        self.board._end(self, state, report.summary())

    def fail(self, exc: BaseException) -> None:
        self.board._end(self, "failed", str(exc) or type(exc).__name__)


class RunBoard:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._running: dict[int, Tracked] = {}
        self._last: dict[str, Run] = {}  # store -> its last finished run

    def start(self, store: str, root: str, by: str) -> Tracked:
        tracked = Tracked(self, Run(store, root, "running", by, self.clock()))
        with self._lock:
            self._running[id(tracked)] = tracked
        return tracked

    def _update(self, tracked: Tracked, run: Run) -> None:
        with self._lock:
            tracked.run = run

    def _end(self, tracked: Tracked, state: str, summary: str) -> None:
        with self._lock:
            self._running.pop(id(tracked), None)
            run = dataclasses.replace(tracked.run, state=state, finished=self.clock(),
                                      eta_s=None, summary=summary)
            tracked.run = self._last[run.store] = run

    def runs(self) -> list[Run]:
        """Runs in progress (oldest first), then each store's last finished run."""
        with self._lock:
            running = [t.run for t in self._running.values()]
            busy = {r.store for r in running}
            last = [r for s, r in sorted(self._last.items()) if s not in busy]
        return sorted(running, key=lambda r: r.started) + last

    def stop(self, store: str) -> bool:
        """Ask the run in progress on `store` to stop; False when none runs."""
        with self._lock:
            found = [t for t in self._running.values() if t.run.store == store]
        for tracked in found:
            tracked.stop.set()
        return bool(found)
