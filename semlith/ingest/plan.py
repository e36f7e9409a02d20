"""The planner: a definition tree over a file's lines -> chunks (see chunk.py).

A region's definitions and the code between them are packed into chunks of up to the
budget; a function-like definition over it stays whole up to `whole` characters; anything
longer is split at its inner definitions, else at the statements of its body, else at
lines. Each chunk is labelled with the innermost definition it holds or belongs to.
`Chunk` is defined here, with the planner that makes it (chunk.py, the entry point, takes
it from here: no import cycle).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from semlith.base.roles import TEST_KIND
from semlith.ingest.definitions import CLASS_LIKE, METHOD_OWNERS, Definition

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# Over the budget, these are split at their members at once: a namespace or a module
# spans much of a file, a section a document's chapter, and a class's methods are each
# labelled with their own name (issue #21). Any other definition (a function, a method, a
# constant table) stays one chunk up to `whole`.
_CONTAINERS = CLASS_LIKE | {"section"}
# A plan still running after this falls back to line windows (issue #26). Planning is
# linear: 0.16 s for the 2,000 chunks of a 2.4 MB module of 40,000 functions.
PLAN_SECONDS = 3.0


# A 7 MB minified bundle would be 9,000 chunks (10 minutes of embedding here); past this
# many a file is indexed up to the cap and reported as truncated.
MAX_CHUNKS_PER_FILE = 2000


@dataclass(frozen=True, slots=True)
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str
    kind: str = "lines"
    symbol: str = ""
    context: str = ""  # enclosing definitions or headings; prepended only when embedded
    # The name the keyword index adds to the chunk's identifiers when it is not `symbol`
    # (see `_Planner.emit`); empty: `symbol`.
    keyword_name: str = ""

    def embedding_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text

    def keyword_symbol(self) -> str:
        return self.keyword_name or self.symbol


def hard_split(line: str, number: int, max_chars: int, kind: str = "lines",
               symbol: str = "", context: str = "") -> list[Chunk]:
    """Pieces of `max_chars` characters of one over-long line (a minified bundle)."""
    return [Chunk(number, number, line[i : i + max_chars], kind, symbol, context)
            for i in range(0, min(len(line), max_chars * MAX_CHUNKS_PER_FILE), max_chars)
            if line[i : i + max_chars].strip()]


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


def headings(lines: list[str]) -> list[Definition]:
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


class PlanOverdue(Exception):
    """The planner ran past PLAN_SECONDS."""


def plan(lines: list[str], roots: list[Definition], budget: int,
         whole: int | None = None) -> list[Chunk]:
    """Chunks of `lines` cut at the definitions `roots` (nested); PlanOverdue past
    PLAN_SECONDS. `whole` (default: the budget) is the size up to which a function-like
    definition is never split."""
    planner = _Planner(lines, budget, max(budget, whole or budget))
    planner.pack(1, len(lines), roots, (), None)
    return planner.chunks[:MAX_CHUNKS_PER_FILE]


@dataclass(slots=True)
class _Item:
    start: int
    end: int
    definition: Definition | None


class _Planner:
    """Turns a definition tree over `lines` into chunks of at most `budget` characters
    (a function-like definition: `whole`)."""

    def __init__(self, lines: list[str], budget: int, whole: int) -> None:
        self.lines = lines
        self.budget = budget
        self.whole = whole
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

    def kept_whole(self, item: _Item) -> bool:
        d = item.definition
        return d is not None and d.kind not in _CONTAINERS and \
            self.size(item.start, item.end) <= self.whole

    def pack(self, lo: int, hi: int, children: list[Definition],
             context: tuple[Definition, ...], owner: Definition | None) -> None:
        group: list[_Item] = []
        for item in _items(lo, hi, children):
            if len(self.chunks) >= MAX_CHUNKS_PER_FILE:
                return
            self.check()
            if _apart(group, item):  # test code and the code it tests share no chunk
                self.emit(group, context, owner)
                group = []
            if self.size(item.start, item.end) > self.budget:
                if group and self.size(group[0].start, group[-1].end) <= self.budget // 3:
                    # A few short lines before a long definition (a comment banner, a
                    # one-line function) open its chunk instead of a tiny chunk.
                    item = _Item(group[0].start, item.end, item.definition)
                else:
                    self.emit(group, context, owner)
                group = []
                if self.kept_whole(item):
                    self.emit([item], context, owner)
                else:
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
        spans = [(it.end - it.start + 1, d) for it in group if (d := it.definition) is not None]
        defs = [d for _, d in spans]
        if not defs and self.size(start, end) <= self.budget // 5 and self._extend(start, end):
            return
        # The innermost definition the chunk holds or belongs to: its only definition (with
        # the blank lines and comments around it) unless the chunk opens the one being
        # split (`class Router:` and its first method), else that one, else the first that
        # is code: a Go package's `var regEnLetter = regexp.MustCompile(...)` is a value
        # the `IRouter` after it uses, not what the pack is.
        opens = owner is not None and start <= owner.def_line <= end
        first = next((d for d in defs if d.kind != "variable"), defs[0] if defs else None)
        holder = defs[0] if len(defs) == 1 and not opens else owner or first
        # A pack is shown under the definition that is most of its lines (`Find`, not the
        # three-line `isFlagArg` packed before it), while the keyword index keeps counting
        # the holder's name: that name is keyword text, and changing it moved near-tied
        # answers (docs/performance.md, "A pack labelled by its largest definition").
        lines, most = max(spans, key=lambda span: span[0], default=(0, None))
        label = most if len(defs) > 1 and not opens and most is not None and \
            2 * lines > end - start + 1 else holder
        label = _inside_module(label, start, end)
        kept = holder.name if holder is not None and holder is not label else ""
        kind = TEST_KIND if _is_test(context, defs) else label.kind if label else "code"
        self.chunks.append(Chunk(start, end, text, kind, label.name if label else "",
                                 path(context), kept))

    def _extend(self, start: int, end: int) -> bool:
        """Add lines to the last chunk when only blank lines part them: the `}` or `end`
        left after a split definition is no chunk of its own."""
        last = self.chunks[-1] if self.chunks else None
        if last is None or last.end_line >= start or \
                "".join(self.lines[last.end_line : start - 1]).strip() or \
                last.text != "\n".join(self.lines[last.start_line - 1 : last.end_line]):
            return False
        text = "\n".join(self.lines[last.start_line - 1 : end])
        self.chunks[-1] = Chunk(last.start_line, end, text, last.kind, last.symbol, last.context,
                                last.keyword_name)
        return True

    def windows(self, start: int, end: int, cuts: set[int],
                context: tuple[Definition, ...], owner: Definition | None) -> None:
        """Split lines [start, end] at statement starts (`cuts`) where possible."""
        kind, symbol = (owner.kind, owner.name) if owner else ("code", "")
        kind = TEST_KIND if _is_test(context) else kind
        s = start
        while s <= end and len(self.chunks) < MAX_CHUNKS_PER_FILE:
            self.check()
            if len(self.lines[s - 1]) > self.budget:
                self.chunks.extend(hard_split(self.lines[s - 1], s, self.budget, kind,
                                              symbol, path(context)))
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


def _inside_module(label: Definition | None, start: int, end: int) -> Definition | None:
    """The definition a chunk is shown under when its label is a namespace or module
    holding a definition that is most of the namespace's lines in the chunk (C#'s
    `namespace X { class Article ... }`, C++'s `namespace fmt { struct formatter ... }`):
    that definition, as far down as such wrapping goes. The keyword text keeps the name
    it had."""
    while label is not None and label.kind == "module" and label.children:
        inner, child = max(((_overlap(c, start, end), c) for c in label.children),
                           key=lambda pair: pair[0])
        if 2 * inner <= _overlap(label, start, end):
            break
        label = child
    return label


def _overlap(d: Definition, start: int, end: int) -> int:
    """How many of lines [start, end] a definition spans."""
    return max(0, min(end, d.end_line) - max(start, d.start_line) + 1)


def _is_test(context: tuple[Definition, ...], defs: Sequence[Definition] = ()) -> bool:
    """Whether a chunk is test code kept in a source file (a Rust `#[cfg(test)] mod
    tests`, a Zig `test` block: `Definition.test`), of kind `test` for search to weigh as
    a test: inside a test definition, or holding only test definitions (`_apart` keeps
    the others out)."""
    return any(d.test for d in context) or (bool(defs) and all(d.test for d in defs))


def _apart(group: list[_Item], item: _Item) -> bool:
    """Whether `item` is a definition on the other side of the line between test code and
    the rest (`Definition.test`) from the last definition of `group`."""
    last = next((it.definition for it in reversed(group) if it.definition is not None), None)
    return item.definition is not None and last is not None and \
        item.definition.test != last.test


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


def path(context: tuple[Definition, ...]) -> str:
    """The context path of a chunk: `class Router > method add_route`, `Guide > Install`."""
    return " > ".join(d.name if d.kind == "section" else f"{d.kind} {d.qualified_name}"
                      for d in context)
