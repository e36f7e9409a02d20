"""Streaming XML for document parts: expat with no DTD, bounded depth and element count.

Every part of a zip container is parsed by `parse_xml`, which calls a handler for each
element start, end and run of text, reading the part in 64 KiB pieces (a 64 MB sheet
is never held whole). Office and OpenDocument parts never carry a DTD, so any DOCTYPE
is refused: with no DTD there are no entity declarations, so no external entity is
fetched (XXE) and no entity is expanded (billion laughs). Tags are "namespace local".
"""

from __future__ import annotations

import pyexpat
from collections.abc import Callable
from typing import Protocol

from semlith.ingest.formats.limits import MAX_XML_DEPTH, MAX_XML_ELEMENTS, Unreadable

_PIECE = 64 << 10


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class Handler(Protocol):
    def start(self, tag: str, attrs: dict[str, str]) -> None: ...
    def end(self, tag: str) -> None: ...
    def text(self, data: str) -> None: ...


class XmlLimit(Exception):
    """A volume cap was reached (elements, bytes of a part); the text so far is kept.

    str(exc) says which, for the `[truncated: ...]` line.
    """


class Budget:
    """Elements parsed across every part of one document."""

    def __init__(self, elements: int | None = None) -> None:
        self.cap = elements or MAX_XML_ELEMENTS
        self.left = self.cap


def tag(namespace: str) -> Callable[[str], str]:
    """`tag(W)("p")` -> the tag string `parse_xml` reports for <w:p>."""
    return lambda local: f"{namespace} {local}"


def parse_xml(source: Readable | bytes, handler: Handler, budget: Budget, *,
              name: str = "XML") -> None:
    """Parse `source`, calling `handler`; `name` (the part) goes into error messages.

    Raises:
        Unreadable: malformed XML, a DOCTYPE, or nesting deeper than MAX_XML_DEPTH.
        XmlLimit: the budget ran out (the caller keeps what it has).
    """
    parser = pyexpat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True  # one text call per run of text, not per line
    depth = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        budget.left -= 1
        if depth > MAX_XML_DEPTH:
            raise Unreadable(f"{name}: XML nested deeper than {MAX_XML_DEPTH} levels")
        if budget.left < 0:
            raise XmlLimit(f"more than {budget.cap:,} XML elements")
        handler.start(tag, attrs)

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        handler.end(tag)

    def doctype(*_: object) -> None:
        raise Unreadable(f"{name}: XML with a DOCTYPE (refused: entities are never expanded)")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = handler.text
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype  # unreachable without a DOCTYPE; kept as a backstop
    try:
        if isinstance(source, bytes):
            parser.Parse(source, True)
            return
        while piece := source.read(_PIECE):
            parser.Parse(piece, False)
        parser.Parse(b"", True)
    except pyexpat.ExpatError as exc:
        raise Unreadable(f"{name}: malformed XML ({exc})") from None
