"""Text -> chunks whose `start_line`/`end_line` point at the file on disk.

Code is cut at its definitions (tree-sitter, see `definitions.py`): a chunk starts at a
definition (with the comments and decorators above it), small neighbours are packed
together up to the budget, and a long definition is split at its inner definitions, else
at the statements of its body — never inside a line. Markdown is cut at its headings the
same way, and so are documents (Word, sheets, slides, mail...), whose readers render
their structure as Markdown headings. Everything else, and any file whose parse fails or
whose parse or plan runs out of time (issue #26), gets line windows with two lines of
overlap. Each chunk carries the path of what
encloses it (`class Router > method add_route`, or `Deployment > Backups`), which is
prepended only when embedding.
"""

from __future__ import annotations

import bisect
import itertools
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from semlith.ingest.definitions import METHOD_OWNERS, Definition, ParseFailed, find_definitions
from semlith.languages import Language

MAX_CHARS = 800
OVERLAP_LINES = 2
# A 7 MB minified bundle would be 9,000 chunks (10 minutes of embedding here); past this
# many a file is indexed up to the cap and reported as truncated.
MAX_CHUNKS_PER_FILE = 2000
# A plan still running after this falls back to line windows (issue #26). Planning is
# linear: 0.16 s for the 2,000 chunks of a 2.4 MB module of 40,000 functions.
PLAN_SECONDS = 3.0
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True, slots=True)
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str
    kind: str = "lines"
    symbol: str = ""
    context: str = ""  # enclosing definitions or headings; prepended only when embedded

    def embedding_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    chunk: int  # index of the chunk holding the definition's first line


@dataclass(frozen=True, slots=True)
class Chunked:
    chunks: list[Chunk]
    symbols: list[Symbol]
    strategy: str  # "definitions", "headings", "lines", or "lines (why)" after a failure


def split_identifiers(text: str) -> str:
    """The parts of camelCase / snake_case identifiers, for the FTS identifier column.

    `parseHTTPResponse` -> "parse http response", `max_retry_count` -> "max retry count".
    Only identifiers that actually split contribute; plain words are in `text` already.
    """
    parts: list[str] = []
    seen: set[str] = set()
    for ident in _IDENT.findall(text):
        if ident in seen:
            continue
        seen.add(ident)
        pieces = [p.lower() for chunk in ident.split("_") for p in CAMEL.findall(chunk)]
        if len(pieces) > 1:
            parts.append(" ".join(pieces))
    return " ".join(parts)


# -- line windows ----------------------------------------------------------------------

def line_windows(text: str, *, first_line: int = 1, max_chars: int = MAX_CHARS,
                 overlap: int = OVERLAP_LINES) -> list[Chunk]:
    """Line-aligned windows of at most `max_chars` characters, `overlap` lines shared."""
    lines = text.split("\n")
    chunks: list[Chunk] = []
    start = 0
    while start < len(lines) and len(chunks) < MAX_CHUNKS_PER_FILE:
        if len(lines[start]) > max_chars:
            chunks.extend(_hard_split(lines[start], first_line + start, max_chars))
            start += 1
            continue
        end, size = start, 0
        while end < len(lines) and len(lines[end]) <= max_chars and \
                size + len(lines[end]) + 1 <= max_chars:
            size += len(lines[end]) + 1
            end += 1
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(first_line + start, first_line + end - 1, body))
        if end >= len(lines):
            break
        start = max(start + 1, end - overlap) if end - start > overlap else end
    return chunks[:MAX_CHUNKS_PER_FILE]


def _hard_split(line: str, number: int, max_chars: int, kind: str = "lines",
                symbol: str = "", context: str = "") -> list[Chunk]:
    return [Chunk(number, number, line[i : i + max_chars], kind, symbol, context)
            for i in range(0, min(len(line), max_chars * MAX_CHUNKS_PER_FILE), max_chars)
            if line[i : i + max_chars].strip()]


# -- definition trees ------------------------------------------------------------------

def nest(definitions: Sequence[Definition]) -> list[Definition]:
    """Nest definitions by containment of their spans (input sorted by start); the roots."""
    roots: list[Definition] = []
    stack: list[Definition] = []
    for d in definitions:
        d.children = []
        while stack and not (stack[-1].span[0] <= d.span[0] and d.span[1] <= stack[-1].span[1]):
            stack.pop()
        if stack and stack[-1].kind in METHOD_OWNERS and d.kind == "function":
            d.kind = "method"
        (stack[-1].children if stack else roots).append(d)
        stack.append(d)
    return roots


def _headings(lines: list[str]) -> list[Definition]:
    """Markdown sections as definitions, nested by heading level."""
    found: list[tuple[int, Definition]] = []
    fenced = False
    for n, line in enumerate(lines, 1):
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append((len(match.group(1)), Definition("section", match.group(2), n, n,
                                                          len(lines), line.strip()[:200])))
    # A section ends before the next heading of its level or above; the sections still
    # open (their levels rising) are closed by each heading in one pass, the last by the end.
    stack: list[tuple[int, Definition]] = []
    for level, d in [*found, (0, None)]:
        end = d.start_line - 1 if d is not None else len(lines)
        while stack and stack[-1][0] >= level:
            ended = stack.pop()[1]
            ended.end_line, ended.span = end, (ended.start_line, end)
        if d is not None:
            stack.append((level, d))
    return [d for _, d in found]


# -- packing and splitting ---------------------------------------------------------------

@dataclass(slots=True)
class _Item:
    start: int
    end: int
    definition: Definition | None


class PlanOverdue(Exception):
    """The planner ran past PLAN_SECONDS."""


class _Planner:
    """Turns a definition tree over `lines` into chunks of at most `budget` characters."""

    def __init__(self, lines: list[str], budget: int) -> None:
        self.lines = lines
        self.budget = budget
        self.chunks: list[Chunk] = []
        self.deadline = time.monotonic() + PLAN_SECONDS
        # Characters before each line, so that a region's size costs one subtraction.
        self.offsets = [0, *itertools.accumulate(len(line) + 1 for line in lines)]

    def size(self, start: int, end: int) -> int:
        """Characters of lines [start, end] with their newlines (as if sliced)."""
        lo, hi = min(start - 1, len(self.lines)), min(end, len(self.lines))
        return self.offsets[hi] - self.offsets[lo] if hi > lo else 0

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise PlanOverdue(f"planning took over {PLAN_SECONDS:.0f} s")

    def pack(self, lo: int, hi: int, children: list[Definition],
             context: tuple[Definition, ...], owner: Definition | None) -> None:
        group: list[_Item] = []
        for item in _items(lo, hi, children):
            if len(self.chunks) >= MAX_CHUNKS_PER_FILE:
                return
            self.check()
            if self.size(item.start, item.end) > self.budget:
                if group and self.size(group[0].start, group[-1].end) <= self.budget // 3:
                    # A few short lines before a long definition (a comment banner, a
                    # one-line function) open its first part instead of a tiny chunk.
                    item = _Item(group[0].start, item.end, item.definition)
                else:
                    self.emit(group, context, owner)
                group = []
                self.split(item, context, owner)
            elif group and self.size(group[0].start, item.end) > self.budget:
                if self.size(group[0].start, group[-1].end) <= self.budget // 5:
                    group.append(item)  # a comment line alone would be a useless chunk
                    continue
                self.emit(group, context, owner)
                group = [item]
            else:
                group.append(item)
        self.emit(group, context, owner)

    def split(self, item: _Item, context: tuple[Definition, ...],
              owner: Definition | None) -> None:
        d = item.definition
        if d is not None and d.children:
            self.pack(item.start, item.end, d.children, (*context, d), d)
        elif d is not None:
            self.windows(item.start, item.end, set(d.cuts), (*context, d), d)
        else:
            self.windows(item.start, item.end, set(), context, owner)

    def emit(self, group: list[_Item], context: tuple[Definition, ...],
             owner: Definition | None) -> None:
        if not group:
            return
        start, end = group[0].start, group[-1].end
        while start < end and not self.lines[start - 1].strip():
            start += 1
        while end > start and not self.lines[end - 1].strip():
            end -= 1
        text = "\n".join(self.lines[start - 1 : end])
        if not text.strip():
            return
        defs = [it.definition for it in group if it.definition is not None]
        if not defs and self.size(start, end) <= self.budget // 5 and self._extend(start, end):
            return
        label = defs[0] if len(group) == 1 and defs else owner or (defs[0] if defs else None)
        self.chunks.append(Chunk(start, end, text, label.kind if label else "code",
                                 label.name if label else "", _path(context)))

    def _extend(self, start: int, end: int) -> bool:
        """Add lines to the last chunk when only blank lines part them: the `}` or `end`
        left after a split definition is no chunk of its own."""
        last = self.chunks[-1] if self.chunks else None
        if last is None or last.end_line >= start or \
                "".join(self.lines[last.end_line : start - 1]).strip() or \
                last.text != "\n".join(self.lines[last.start_line - 1 : last.end_line]):
            return False
        text = "\n".join(self.lines[last.start_line - 1 : end])
        self.chunks[-1] = Chunk(last.start_line, end, text, last.kind, last.symbol, last.context)
        return True

    def windows(self, start: int, end: int, cuts: set[int],
                context: tuple[Definition, ...], owner: Definition | None) -> None:
        """Split lines [start, end] at statement starts (`cuts`) where possible."""
        kind, symbol = (owner.kind, owner.name) if owner else ("code", "")
        s = start
        while s <= end and len(self.chunks) < MAX_CHUNKS_PER_FILE:
            self.check()
            if len(self.lines[s - 1]) > self.budget:
                self.chunks.extend(_hard_split(self.lines[s - 1], s, self.budget, kind,
                                               symbol, _path(context)))
                s += 1
                continue
            e, size, best = s, 0, None
            while e <= end and size + len(self.lines[e - 1]) + 1 <= self.budget:
                size += len(self.lines[e - 1]) + 1
                if e + 1 in cuts or e == end:
                    best = e
                e += 1
            stop = best or e - 1
            if stop < end and self.size(stop + 1, end) <= self.budget // 5:
                stop = end  # a last sliver joins this part rather than stand alone
            self.emit([_Item(s, stop, None)], context, owner)
            s = stop + 1


def _items(lo: int, hi: int, children: list[Definition]) -> list[_Item]:
    """Children of a region and the gaps between them, in order, without overlaps."""
    items: list[_Item] = []
    cur = lo
    for child in children:
        if child.start_line < cur and items:  # shares a line with the previous item
            items[-1].end = max(items[-1].end, min(hi, child.end_line))
            cur = items[-1].end + 1
            continue
        if child.start_line > cur:
            items.append(_Item(cur, child.start_line - 1, None))
        items.append(_Item(max(cur, child.start_line), min(hi, child.end_line), child))
        cur = items[-1].end + 1
    if cur <= hi:
        items.append(_Item(cur, hi, None))
    return items


def _path(context: tuple[Definition, ...]) -> str:
    return " > ".join(d.name if d.kind == "section" else f"{d.kind} {d.qualified_name}"
                      for d in context)


# -- entry point -------------------------------------------------------------------------

def chunk_file(text: str, language: Language | None = None, *,
               max_chars: int = MAX_CHARS) -> Chunked:
    """Chunks and symbols of a file's text; the strategy depends on its language."""
    lines = text.split("\n")
    if language is not None and language.headings:
        sections = _headings(lines)
        if sections:
            try:
                return Chunked(_plan(lines, nest(sections), max_chars), [], "headings")
            except PlanOverdue as exc:
                return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({exc})")
    if language is None or language.grammar is None:
        return Chunked(line_windows(text, max_chars=max_chars), [], "lines")
    try:
        definitions = find_definitions(text, language)
    except ParseFailed as exc:
        return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({exc})")
    roots = nest(definitions)
    try:
        chunks = _plan(lines, roots, max_chars)
    except RecursionError:  # definitions nested thousands deep (generated code)
        return Chunked(line_windows(text, max_chars=max_chars), [], "lines (nested too deep)")
    except PlanOverdue as exc:
        return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({exc})")
    return Chunked(chunks, _symbols(roots, chunks), "definitions")


def strategy_of(language: Language) -> str:
    """How files of `language` are cut when nothing fails: "definitions", "headings" or
    "lines" (what `semlith languages` and docs/languages.md show)."""
    from semlith.ingest.definitions import has_definitions

    if has_definitions(language):
        return "definitions"
    return "headings" if language.headings else "lines"


def chunk_text(text: str, language: Language | None = None, *,
               max_chars: int = MAX_CHARS) -> list[Chunk]:
    return chunk_file(text, language, max_chars=max_chars).chunks


def _plan(lines: list[str], roots: list[Definition], budget: int) -> list[Chunk]:
    planner = _Planner(lines, budget)
    planner.pack(1, len(lines), roots, (), None)
    return planner.chunks[:MAX_CHUNKS_PER_FILE]


def _symbols(roots: list[Definition], chunks: list[Chunk]) -> list[Symbol]:
    """Every definition, with the index of the last chunk holding its first line (or -1).

    Chunks are planned in order and do not overlap, so that chunk is the last one starting
    at or before the line: found by bisection, not by scanning (issue #26: 40,000 symbols
    over 2,000 chunks took 2.2 s).
    """
    starts = [c.start_line for c in chunks]
    out: list[Symbol] = []

    def visit(d: Definition, prefix: str) -> None:
        qualname = f"{prefix}.{d.qualified_name}" if prefix else d.qualified_name
        last = bisect.bisect_right(starts, d.def_line) - 1
        holder = last if last >= 0 and d.def_line <= chunks[last].end_line else -1
        out.append(Symbol(d.name, qualname, d.kind, d.start_line, d.end_line, d.signature,
                          holder))
        for child in d.children:
            visit(child, qualname)

    for root in roots:
        visit(root, "")
    return out
