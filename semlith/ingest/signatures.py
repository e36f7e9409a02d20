"""A definition's signature: its head up to its body, on one line, comments left out."""

from __future__ import annotations

import re
from typing import Any

BODY_DEPTH = 5  # declaration > declarator > value > body > statement list
# A signature longer than this is cut: 99.7 % of the 105,000 in the development corpora
# are shorter (median 45; the longer: FastAPI's parameter lists, generated C macros).
SIGNATURE_CHARS = 300
_TRAILING_COMMA = re.compile(r",\s*\n\s*([)\]])")
_OPENED = re.compile(r"([(\[]) ")
_CLOSED = re.compile(r" ([)\]])")
# How the comments of the 20 languages start (`#`, `//`, `/*`, `--`, `{-`): a signature
# without any needs no walk over its nodes (that walk and the rewriting took a quarter of
# find_definitions on issue #26's module of 40,000 functions when done for every one).
_COMMENT_START = re.compile(rb"#|//|/\*|--|\{-")


def signature(node: Any, name: Any, head_start: int, lines: list[str], data: bytes) -> str:
    """The definition's head from `head_start` (its first line's start, or the start of
    its `export` when later: a minified file is one line) up to its body, comments left
    out, on one line and capped: `def send(self, request, **kwargs) -> Response:` from a
    signature over six lines, `export function backoff(attempt, base = 100)`. The name's
    line when no body is found (a constant, a type alias, a bodiless method)."""
    body = _body(node, name)
    if body is None:
        row = name.start_point.row
        return lines[row].strip()[:SIGNATURE_CHARS] if row < len(lines) else ""
    raw = data[head_start : body.start_byte]
    if _COMMENT_START.search(raw):  # the tree walk only when a comment may be there
        pieces, at = [], head_start
        for comment in _comments_in(node, head_start, body.start_byte):
            pieces.append(data[at : comment.start_byte])
            at = max(at, comment.end_byte)
        raw = b"".join([*pieces, data[at : body.start_byte]])
    head = raw.decode("utf-8", "replace")
    if "\n" in head:  # one line as the signature: `request,\n)` -> `request)`
        head = _TRAILING_COMMA.sub(r"\1", head)
        head = _OPENED.sub(r"\1", _CLOSED.sub(r"\1", " ".join(head.split())))
    return head.strip()[:SIGNATURE_CHARS]


def _body(node: Any, name: Any) -> Any:
    """The `body` of a definition, looked for down the chain of last children that start
    on the name's line (`proto.handle = function handle(req) {`: statement > assignment >
    function > body); None when there is none."""
    current = node
    for _ in range(BODY_DEPTH):
        body = current.child_by_field_name("body")
        if body is not None:
            return body if body.start_byte >= name.end_byte else None
        named = [c for c in current.named_children if c.end_byte > c.start_byte]
        if not named or named[-1].start_point.row > name.start_point.row:
            return None
        current = named[-1]
    return None


def _comments_in(node: Any, lo: int, hi: int) -> list[Any]:
    """The comment nodes inside `node` within bytes [lo, hi), in order."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.end_byte <= lo or current.start_byte >= hi:
            continue
        if "comment" in current.type:
            found.append(current)
        else:
            stack.extend(reversed(current.children))
    return found
