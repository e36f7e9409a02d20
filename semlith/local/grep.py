"""Exact and regex search over the indexed files' current text (`Library.grep`, #23).

The lines searched are the lines `read` serves (`file_passage`): a file withheld as a
secret is not searched, redacted text stays redacted, a document is its extracted text,
and every path is checked to stay inside its root. The work is bounded three ways: a
regex whose backtracking can explode (a quantifier inside a repeated group, a
backreference) is refused before anything is read, a pattern is tried on the first
`LINE_CAP` characters of a line, and the whole search stops at `TIME_BUDGET` seconds
(saying how far it got).
"""

from __future__ import annotations

import importlib
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from typing import Any

import regex as _regex

from semlith.errors import BadTarget
from semlith.ingest.images import is_image
from semlith.local.locators import Target
from semlith.local.reads import file_passage
from semlith.local.sources import Opened
from semlith.store.query import Selection
from semlith.types import Definition, Filters
from semlith.types.grep import Enclosing, Match, Matches

MAX_LIMIT = 10_000
MAX_CONTEXT = 50
LINE_CAP = 10_000  # characters of one line a pattern is tried on (minified files)
TIME_BUDGET = 10.0  # seconds for one search, over every file
FILE_BUDGET = 2.0  # seconds for one file: a pattern slower than that backtracks
MAX_SPANS = 50  # highlighted matches in one line
_WIDE = 16  # a repeat allowing more than this many repetitions backtracks like `*`

# sre_parse warns on import in 3.11 (filterwarnings = error); its new home is private.
_parser: Any = importlib.import_module("re._parser")


def compile_pattern(pattern: str, regex: bool) -> Any:
    """`pattern` as a literal, or as a Python `re` regex with its catastrophic forms
    refused, compiled by the `regex` package in its `re`-compatible mode (V0) so that a
    search can time out; `.search(line, timeout=seconds)` either way.

    Raises ValueError (one sentence) for an empty, invalid or refused pattern."""
    if not pattern:
        raise ValueError("the pattern is empty")
    if not regex:
        return _regex.compile(_regex.escape(pattern), _regex.V0)
    try:
        re.compile(pattern)  # the syntax is `re`'s, whatever `regex` would also take
        why = _danger(_parser.parse(pattern), inside=False)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a valid regex ({exc}); "
                         "use --exact for a literal") from None
    if why:
        raise ValueError(f"{pattern!r} is refused: {why} can take exponential time; "
                         "rewrite it without the nesting or use --exact")
    try:
        return _regex.compile(pattern, _regex.V0)
    except _regex.error as exc:
        raise ValueError(f"{pattern!r} cannot be searched ({exc})") from None


def _danger(items: Any, *, inside: bool) -> str:
    """What makes a parsed regex backtrack without bound ('' when nothing does):
    a variable repeat inside a wide repeat, or a backreference."""
    for op, av in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "a backreference"
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = av
            if inside and high != low:
                return "a quantifier inside a repeated group"
            wide = high == _parser.MAXREPEAT or high > _WIDE
            if why := _danger(body, inside=inside or wide):
                return why
            continue
        for part in av if isinstance(av, tuple | list) else (av,):
            for sub in part if isinstance(part, list) else (part,):
                if isinstance(sub, _parser.SubPattern) and (
                        why := _danger(sub, inside=inside)):
                    return why
    return ""


class Search:
    """One grep over the opened stores: the matches in order, and where it stopped."""

    def __init__(self, pattern: Any, context: tuple[int, int], filters: Filters) -> None:
        self.pattern = pattern
        self.before, self.after = context
        self.selection = Selection.of(filters)
        self.deadline = time.monotonic() + TIME_BUDGET
        self.searched = 0
        self.total = 0
        self.failed: list[tuple[str, str]] = []
        self.slow = ""  # the file a pattern timed out on
        self._stores: dict[str, Any] = {}
        self._changed: set[tuple[str, str]] = set()  # files changed since indexed

    def run(self, opened: Opened) -> Iterator[list[Match]]:
        """The matches of each file with any, file by file, in store then path order."""
        work = []
        for label, store in opened:
            self._stores[label] = store
            if not store.corpus.reads_files:
                self.failed.append((label, "a mirror: its files are on the machine that "
                                    "indexes it, so only meaning search reaches them"))
                continue
            work += [(label, store, p) for p in store.corpus.file_paths(self.selection)
                     if not is_image(p)]
        self.total = len(work)
        for label, store, path in work:
            if time.monotonic() > self.deadline or self.slow:
                return
            self.searched += 1
            found = self._file(label, store, path)
            if found:
                yield found

    def _file(self, label: str, store: Any, path: str) -> list[Match]:
        try:  # withheld, deleted or unreadable now: not served, so not searched
            passage = file_passage(label, store, Target(label, path, None, None), sys.maxsize)
        except BadTarget:
            return []
        lines, found = passage.lines, list[Match]()
        if lines and not lines[-1]:  # after the last newline: no line, as ripgrep counts
            lines = lines[:-1]
        b, a, search = self.before, self.after, self.pattern.search
        until = min(self.deadline, time.monotonic() + FILE_BUDGET)
        for i, line in enumerate(lines):
            try:
                hit = search(line[:LINE_CAP], timeout=max(until - time.monotonic(), 0.001))
            except TimeoutError:
                self.slow = f"{label}:{path}:{i + 1}"
                return found
            if hit:
                found.append(Match(label, path, i + 1, line, lines[max(0, i - b):i] if b else (),
                                   lines[i + 1:i + 1 + a] if a else ()))
        if found and passage.changed:
            self._changed.add((label, path))
        return found

    def described(self, found: list[Match]) -> list[Match]:
        """One file's matches (those shown: the cost follows them, not the corpus) with
        their definitions, one lookup for the file, and where the pattern matched.
        Definitions describe the file as indexed: a changed file's may point elsewhere."""
        if not found:
            return found
        label, path = found[0].store, found[0].path
        defs = [] if (label, path) in self._changed else \
            self._stores[label].corpus.file_definitions(path)
        return [replace(m, definition=inside, spans=self._spans(m.text))
                for m, inside in zip(found, enclosing(defs, [m.line for m in found]),
                                     strict=True)]

    def _spans(self, text: str) -> tuple[tuple[int, int], ...]:
        """Where the pattern matches in a matching line (the first `MAX_SPANS`)."""
        try:
            found = islice(self.pattern.finditer(text[:LINE_CAP], timeout=FILE_BUDGET),
                           MAX_SPANS)
            return tuple((m.start(), m.end()) for m in found if m.end() > m.start())
        except TimeoutError:
            return ()

    @property
    def stopped(self) -> str:
        """A note when a time budget cut the search short, else ''."""
        if self.slow:
            return (f"stopped at {self.slow}: the pattern took over {FILE_BUDGET:g} s on one "
                    f"file ({self.searched} of {self.total} files searched); it backtracks, "
                    "so simplify it")
        if self.searched >= self.total:
            return ""
        return (f"stopped after {TIME_BUDGET:g} s: {self.searched} of {self.total} files "
                "searched; narrow it with --path, --ext or --lang")


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
        room = limit - (len(files) if per_file else len(shown))
        if room <= 0:
            more_matches, more_files = more_matches + len(found), more_files + 1
            continue
        files.append(f"{found[0].store}:{found[0].path}")
        counts.append(len(found))
        if per_file:
            continue
        shown += search.described(found[:room])
        if found[room:]:  # this file's rest: it counts among the files with more
            more_matches, more_files = more_matches + len(found[room:]), more_files + 1
    notes = [n for n in (note, search.stopped) if n]
    return Matches(tuple(shown), tuple(files), more_matches, more_files,
                   tuple(label for label, _ in opened), "; ".join(notes),
                   tuple(f"{label}: {why}" for label, why in [*opened.failed,
                                                              *search.failed]),
                   tuple(counts))
