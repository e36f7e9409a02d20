"""Exact and regex search over the indexed files' current text (`Library.grep`, #23).

The lines searched are the lines `read` serves (`served_text`): a file withheld as a
secret is not searched, redacted text stays redacted, a document is its extracted text,
and every path is checked to stay inside its root. Patterns run on RE2 (`pattern.py`),
in time linear in the text. The work is bounded by a wall-clock deadline: a search
stops `TIME_BUDGET` seconds after the call arrived, waiting included, and says how far
it got; and one grep searches at a time in a process (`GrepGate`), so that greps cannot
take the cores and threads other clients' searches need (issue #47).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from semlith.errors import BadTarget, Busy
from semlith.ingest.images import is_image
from semlith.local.pattern import Pattern, compile_pattern
from semlith.local.reads import RootPaths, served_text
from semlith.local.sources import Opened
from semlith.store import FileRecord
from semlith.store.query import Selection
from semlith.types import Definition, Filters
from semlith.types.grep import Enclosing, Match, Matches

__all__ = ["GrepGate", "Search", "collect", "compile_pattern", "enclosing", "grep_sides"]

MAX_LIMIT = 10_000
MAX_CONTEXT = 50
TIME_BUDGET = 10.0  # seconds for one call, from its arrival, waiting for the gate included
GREPS_AT_ONCE = 1  # greps searching at once in one process
GREPS_WAITING = 4  # greps that may wait for those; more are turned away at once
HAND_EVERY = 0.001  # seconds of searching between two hands of the GIL to other threads


def grep_sides(limit: int, context: int, before: int | None, after: int | None
               ) -> tuple[int, int]:
    """The lines of context (before, after) a grep's arguments ask for, checked with its
    limit (ValueError names the one out of range)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be from 1 to {MAX_LIMIT}, got {limit}")
    sides = (context if before is None else before, context if after is None else after)
    for name, value in zip(("before", "after"), sides, strict=True):
        if not 0 <= value <= MAX_CONTEXT:
            raise ValueError(f"{name} context must be from 0 to {MAX_CONTEXT} lines, "
                             f"got {value}")
    return sides


class GrepGate:
    """Lets `at_once` greps search at a time; up to `waiting` more wait, each until its
    deadline, and the rest are refused at once (Busy). A waiting grep holds one of the
    daemon's call threads: the bound keeps the others for searches and reads."""

    def __init__(self, at_once: int = GREPS_AT_ONCE, waiting: int = GREPS_WAITING) -> None:
        self._slots = threading.BoundedSemaphore(at_once)
        self._lock = threading.Lock()
        self._waiting = 0
        self._limit = waiting

    @contextlib.contextmanager
    def enter(self, deadline: float) -> Iterator[bool]:
        """Yields whether the grep got its turn before `deadline` (time.monotonic())."""
        got = self._slots.acquire(blocking=False) or self._wait(deadline)
        try:
            yield got
        finally:
            if got:
                self._slots.release()

    def _wait(self, deadline: float) -> bool:
        with self._lock:
            if self._waiting >= self._limit:
                raise Busy(f"{self._waiting} greps are already waiting for the one running; "
                           "try again when one has answered")
            self._waiting += 1
        try:
            return self._slots.acquire(timeout=max(deadline - time.monotonic(), 0))
        finally:
            with self._lock:
                self._waiting -= 1


class Search:
    """One grep over the opened stores: the matches in order, and where it stopped."""

    def __init__(self, pattern: Pattern, context: tuple[int, int], filters: Filters,
                 budget: float | None = None) -> None:
        self.pattern = pattern
        self.before, self.after = context
        self.selection = Selection.of(filters)
        self.budget = TIME_BUDGET if budget is None else budget
        self.deadline = time.monotonic() + self.budget
        self.searched = 0
        self.total = 0
        self.waited = False  # the deadline passed before its turn came
        self.failed: list[tuple[str, str]] = []
        self._stores: dict[str, Any] = {}
        self._changed: set[tuple[str, str]] = set()  # files changed since indexed

    def run(self, opened: Opened) -> Iterator[Found]:
        """The matches of each file with any, file by file, in store then path order."""
        work = []
        for label, store in opened:
            self._stores[label] = store
            if not store.corpus.reads_files:
                self.failed.append((label, "a mirror: its files are on the machine that "
                                    "indexes it, so only meaning search reaches them"))
                continue
            paths = RootPaths(store.root)
            # ripgrep's order (`rg --sort path`): by name in each folder, so `net/` and
            # all in it come before `net.py`, which a plain string order puts first
            chosen = sorted(store.corpus.file_paths(self.selection), key=_in_folders)
            records = _records(store, chosen)
            work += [(label, store, paths, records.get(p)) for p in chosen if not is_image(p)]
        self.total = len(work)
        handed = time.monotonic()
        for label, store, paths, record in work:
            now = time.monotonic()
            if now > self.deadline:
                return
            # Hand the GIL to any thread waiting for it (a search, the daemon's event
            # loop): a grep holds it for its Python work between files, and each time a
            # search gave it up for I/O it waited up to the 5 ms switch interval to get
            # it back (issue #47). Once a HAND_EVERY, not once a file: a sleep(0) costs
            # ~50 µs (the kernel's timer slack), 40 % of a grep over 1,000 small files.
            if now - handed >= HAND_EVERY:
                time.sleep(0)
                handed = time.monotonic()
            found = self._file(label, store, paths, record)
            if found:
                yield found

    def _file(self, label: str, store: Any, paths: RootPaths, record: FileRecord | None
              ) -> Found | None:
        if record is None:  # forgotten since the listing
            self.searched += 1
            return None
        try:  # withheld, deleted or unreadable now: not served, so not searched
            data, changed = served_text(store, record, paths(record.path))
        except BadTarget:
            data, changed = b"", False
        path = record.path
        numbers, done = self.pattern.lines(data, self.deadline)
        self.searched += done
        if not numbers:
            return None
        if changed:
            self._changed.add((label, path))
        return Found(label, path, numbers, data)

    def described(self, found: Found, room: int) -> list[Match]:
        """The first `room` matches of one file (those shown: the cost follows them, not
        the corpus) with their context, their definitions, one lookup for the file, and
        where the pattern matched. Definitions describe the file as indexed: a changed
        file's may point elsewhere."""
        numbers = found.numbers[:room]
        label, path = found.store, found.path
        defs = [] if (label, path) in self._changed else \
            self._stores[label].corpus.file_definitions(path)
        text, b, a = found.lines(), self.before, self.after
        return [Match(label, path, n + 1, text[n], tuple(text[max(0, n - b):n]),
                      tuple(text[n + 1:n + 1 + a]), inside, self.pattern.spans(text[n]))
                for n, inside in zip(numbers, enclosing(defs, [n + 1 for n in numbers]),
                                     strict=True)]

    @property
    def stopped(self) -> str:
        """A note when the deadline cut the search short, else ''."""
        if self.waited:
            return (f"not searched: other greps held the search for {self.budget:g} s; "
                    "try again")
        if self.searched >= self.total:
            return ""
        return (f"stopped after {self.budget:g} s: {self.searched} of {self.total} files "
                "searched; narrow it with --path, --ext or --lang")


def _in_folders(path: str) -> list[str]:
    return path.split("/")


def _records(store: Any, paths: list[str]) -> dict[str, FileRecord | None]:
    """The records of the files to search: every file's in one query when they are many
    (a query a file was 10 % of a grep over 1,000 files), else one query each."""
    if len(paths) > 100:
        return {r.path: r for r in store.corpus.files()}
    return {path: store.corpus.file(path) for path in paths}


@dataclass(frozen=True, slots=True)
class Found:
    """One file's matching lines (0-based) and its served text, as UTF-8."""

    store: str
    path: str
    numbers: list[int]
    data: bytes

    def lines(self) -> list[str]:
        """The file's lines (after the last newline, none)."""
        lines = self.data.decode(errors="replace").split("\n")
        return lines[:-1] if lines and not lines[-1] else lines


def enclosing(definitions: list[Definition], lines: list[int]) -> list[Enclosing | None]:
    """For each of `lines` (ascending), the innermost of a file's definitions (in line
    order, an outer one before an inner one starting on the same line) whose lines cover
    it: one pass over both, as definitions nest."""
    out: list[Enclosing | None] = []
    open_: list[Definition] = []  # the definitions around the line, outermost first
    at = 0
    for line in lines:
        while at < len(definitions) and definitions[at].start_line <= line:
            open_.append(definitions[at])
            at += 1
        open_ = [d for d in open_ if d.end_line >= line]  # the ones that ended are gone
        best = max(open_, key=lambda d: (d.start_line, -d.end_line), default=None)
        out.append(None if best is None else Enclosing(
            best.kind, best.qualname or best.name, best.start_line, best.end_line))
    return out


def collect(search: Search, opened: Opened, note: str, limit: int, per_file: bool
            ) -> Matches:
    """The first `limit` matches (`per_file`: files, each with its count of matching
    lines, and no lines) and a count of the rest."""
    shown: list[Match] = []
    files: list[str] = []
    counts: list[int] = []
    more_matches = more_files = 0
    for found in search.run(opened):
        count = len(found.numbers)
        room = limit - (len(files) if per_file else len(shown))
        if room <= 0:
            more_matches, more_files = more_matches + count, more_files + 1
            continue
        files.append(f"{found.store}:{found.path}")
        counts.append(count)
        if per_file:
            continue
        shown += search.described(found, room)
        if count > room:  # this file's rest: it counts among the files with more
            more_matches, more_files = more_matches + count - room, more_files + 1
    notes = [n for n in (note, search.stopped) if n]
    return Matches(tuple(shown), tuple(files), more_matches, more_files,
                   tuple(label for label, _ in opened), "; ".join(notes),
                   tuple(f"{label}: {why}" for label, why in [*opened.failed,
                                                              *search.failed]),
                   tuple(counts))
