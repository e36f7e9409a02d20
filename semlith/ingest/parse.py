"""One tree-sitter parse of a file's text, bounded in time, and its query run in windows.

A code file is parsed once at index time (`parse_text`); its definitions (the chunker's)
and its edges (the code graph's) are both read off that one tree.

Issue #43: the read callback's memory. py-tree-sitter 0.26.1's read wrapper
(`parser_read_wrapper` in its parser.c) keeps one reference to every object the callback
returns: it takes a buffer view of the result and releases the view, but never the
result itself. The Scala grammar calls back every 12-25 bytes (a 474 KB generated table
of 3,160 `lazy val`s: 37,805 calls; Python's grammar: once per 2 KiB, 327 calls for a
718 KB module), and each call returned a fresh 64 KiB slice: 2.3 GB kept for that one
file (tracemalloc), ~5.6 MB for every ordinary Scala file, for the life of the process.
So the callback returns one reused `bytearray`, refilled at each call: the wrapper has
released its view of it by then (it does so before calling back), and the references it
keeps pin that one buffer and nothing more. Buffers come from a small pool (one per
parse running at once: the GIL can pass to another thread between two callbacks).
`tests/ingest/test_parse.py` fails if any grammar or binding brings the growth back.

The callback is kept (rather than parsing from bytes, which the binding handles without
a leak) because only a callback-fed parse takes a `progress_callback`, and that is what
ends a parse at its deadline (issue #26): from bytes, a pathological file would hold the
indexer for as long as the parse takes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# A file whose parse, query and definitions take longer than this falls back to line
# windows (issue #26; see parse_text and query_matches for what they cost).
PARSE_SECONDS = 3.0
# Bytes handed to the parser per read: the buffer is refilled at every call, and a
# grammar that calls back every few bytes (Scala) copies this much each time. 64 KiB and
# 4 KiB took 1.31 s and 1.21 s on the 474 KB Scala table (both cores busy elsewhere).
READ_BYTES = 1 << 12
QUERY_WINDOW = 1 << 16  # bytes queried between two looks at the clock

_pool: list[bytearray] = []
_pool_lock = threading.Lock()


class ParseFailed(Exception):
    """The file could not be parsed in time (or at all); str() says why."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A file's text parsed once: its UTF-8 bytes (invalid text replaced, as the tree's
    offsets count them), its lines, the tree, and the deadline its readers share."""

    text: str
    data: bytes
    lines: list[str]
    tree: Any
    deadline: float  # a time.monotonic() value: PARSE_SECONDS after the parse began


class _Reader:
    """The parser's read callback: each call refills one pooled buffer with the bytes
    from `offset` on and returns that same buffer (see the module docstring)."""

    __slots__ = ("buffer", "view")

    def __init__(self, data: bytes, buffer: bytearray) -> None:
        self.view = memoryview(data)
        self.buffer: bytearray | None = buffer

    def __call__(self, offset: int, _point: Any) -> bytes | bytearray:
        if self.buffer is None:  # after the parse: the tree reads its text through this
            return bytes(self.view[offset : offset + READ_BYTES])
        self.buffer[:] = self.view[offset : offset + READ_BYTES]
        return self.buffer

    def detach(self) -> bytearray:
        """The buffer, for the pool; later reads (`Node.text`) get copies."""
        buffer, self.buffer = self.buffer, None
        assert buffer is not None
        return buffer


def _take() -> bytearray:
    with _pool_lock:
        return _pool.pop() if _pool else bytearray()


def _give(buffer: bytearray) -> None:
    try:
        buffer.clear()
    except BufferError:  # still viewed (a binding that releases later): not reused
        return
    with _pool_lock:
        _pool.append(buffer)


def parse_bytes(grammar: str, data: bytes, deadline: float) -> Any:
    """The tree of `data`; ParseFailed once the clock passes `deadline`.

    Issue #26: a read callback that ended the input at the deadline made `Node.text`, which
    reads the source back through it, spin forever. The callback only copies from `data`
    and the parse is cancelled through `progress_callback` (called every ~100 bytes: a 2.4
    MB module parsed in 0.41 s with it, 0.35 s from bytes, which would ignore it).
    """
    from tree_sitter_language_pack import get_parser

    parser = get_parser(grammar)  # type: ignore[arg-type]
    reader = _Reader(data, _take())
    try:
        tree = parser.parse(reader,
                            progress_callback=lambda _at, _error: time.monotonic() > deadline)
    except ValueError:  # "Parsing failed": the progress callback cancelled it
        if time.monotonic() > deadline:
            raise ParseFailed(f"parse took over {PARSE_SECONDS:.0f} s") from None
        raise
    finally:
        _give(reader.detach())
    if tree is None:
        raise ParseFailed("parser returned nothing")
    if time.monotonic() > deadline:  # a short input may finish without calling it back
        raise ParseFailed(f"parse took over {PARSE_SECONDS:.0f} s")
    return tree


def parse_text(text: str, grammar: str) -> Parsed:
    """`text` parsed with `grammar`, the deadline starting now. Raises ParseFailed, also
    for the binding's own errors."""
    deadline = time.monotonic() + PARSE_SECONDS
    data = text.encode("utf-8", "replace")
    try:
        tree = parse_bytes(grammar, data, deadline)
    except ParseFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - the binding raises assorted errors
        raise ParseFailed(f"{type(exc).__name__}: {exc}") from None
    return Parsed(text, data, text.split("\n"), tree, deadline)


def query_matches(query: Any, tree: Any, size: int, deadline: float,
                  what: str = "definitions") -> Iterator[dict[str, Any]]:
    """The query's matches (their captures), a window of bytes at a time, until `deadline`
    (then ParseFailed: "`what` took over ...").

    `QueryCursor.matches(progress_callback=...)` segfaults in py-tree-sitter 0.26.1 (the
    options it gives the cursor are out of scope when the cursor calls them), so the query is
    bounded by running it `QUERY_WINDOW` bytes at a time instead: 0.17 s for the 2.4 MB
    module against 0.16 s at once, 0.47 s against 0.57 s for a 3.9 MB one-line bundle. A
    match that crosses a window's edge comes once per window; the caller keeps the first.
    """
    from tree_sitter import QueryCursor

    for start in range(0, max(size, 1), QUERY_WINDOW):
        if time.monotonic() > deadline:
            raise ParseFailed(f"{what} took over {PARSE_SECONDS:.0f} s")
        cursor = QueryCursor(query)
        cursor.set_byte_range(start, min(size, start + QUERY_WINDOW))
        for _, captures in cursor.matches(tree.root_node):
            yield captures
