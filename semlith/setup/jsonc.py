"""JSON with comments and trailing commas (JSONC): read it, and edit one member in place.

Editors' settings files are JSONC. Reading blanks comments and trailing commas to spaces
(so `json` reports the file's own line and column); editing splices text into the
original, so comments and layout outside the edited member survive.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_SPACE = " \t\r\n"


@dataclass(frozen=True, slots=True)
class _Span:
    key: str | None  # None for an array item
    start: int  # of the key (of the value for an item)
    value: int  # where the value starts
    end: int  # just past the value


def loads(text: str) -> Any:
    """Parse JSONC; ValueError (json.JSONDecodeError) at the file's own line and column."""
    out = list(text)
    pending_comma: int | None = None
    i, n = 0, len(text)
    while i < n:
        if text.startswith(("//", "/*"), i):
            end = _comment_end(text, i)
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
            continue
        c = text[i]
        if c not in _SPACE:
            if c in "}]" and pending_comma is not None:
                out[pending_comma] = " "
            pending_comma = i if c == "," else None
        i = _string_end(text, i) if c == '"' else i + 1
    return json.loads("".join(out))


def set_member(text: str, path: list[str], name: str, value: Any) -> str:
    """Set `name` to `value` in the object at `path` (created if missing) under the root."""
    obj = _skip(text, 0)
    for depth, key in enumerate(path):
        found = _find(_members(text, obj), key)
        if found is None:
            nested: Any = {name: value}
            for outer in reversed(path[depth + 1:]):
                nested = {outer: nested}
            return _insert(text, obj, key, nested)
        obj = found.value
    found = _find(_members(text, obj), name)
    if found is None:
        return _insert(text, obj, name, value)
    return text[:found.value] + dumps(value, _indent(text, found.start)) + text[found.end:]


def put_item(text: str, key: str, item: Any, ident: Callable[[Any], object]) -> str:
    """Replace the item of the root's list `key` with `item`'s identity, or put it first."""
    root = _skip(text, 0)
    found = _find(_members(text, root), key)
    if found is None:
        return _insert(text, root, key, [item])
    same = [s for s in _items(text, found.value) if ident(loads(text[s.value:s.end]))
            == ident(item)]
    if same:
        last = same[-1]
        return text[:last.value] + dumps(item, _indent(text, last.start)) + text[last.end:]
    return _insert(text, found.value, None, item)


def _insert(text: str, at: int, key: str | None, value: Any) -> str:
    """Put a member (or, without key, an item) first in the container opening at `at`."""
    spans = _members(text, at) if key is not None else _items(text, at)
    head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    close = _close(text, at)
    if spans and text[:spans[0].start].rsplit("\n", 1)[-1].strip():
        # The first member shares a line with what precedes it: stay on one line.
        return text[:at + 1] + head + json.dumps(value, ensure_ascii=False) + ", " + text[at + 1:]
    indent = _indent(text, spans[0].start) if spans else _indent(text, at) + "  "
    member = head + dumps(value, indent)
    if spans:
        return text[:at + 1] + "\n" + indent + member + "," + text[at + 1:]
    if not text[at + 1:close].strip():  # empty: lay it out afresh
        return text[:at + 1] + "\n" + indent + member + "\n" + _indent(text, at) + text[close:]
    return text[:at + 1] + "\n" + indent + member + text[at + 1:]  # only comments inside


def dumps(value: Any, indent: str = "") -> str:
    """JSON laid out as people write configs: an object per line, a list of plain values
    on one line; `indent` prefixes every line after the first."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        members = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(v, inner)}"
                   for k, v in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _indent(text: str, at: int) -> str:
    line = text[text.rfind("\n", 0, at) + 1:at]
    return line[:len(line) - len(line.lstrip(" \t"))]


def _find(spans: list[_Span], key: str) -> _Span | None:
    # The last one wins, as in json.loads.
    return next((s for s in reversed(spans) if s.key == key), None)


def _members(text: str, at: int) -> list[_Span]:
    if text[at:at + 1] != "{":
        raise ValueError(f"expected an object at offset {at}")
    spans, i = [], _skip(text, at + 1)
    while text[i] != "}":
        key_end = _string_end(text, i)
        value = _skip(text, _skip(text, key_end) + 1)  # past the colon
        end = _value_end(text, value)
        spans.append(_Span(json.loads(text[i:key_end]), i, value, end))
        i = _skip(text, end)
        i = _skip(text, i + 1) if text[i] == "," else i
    return spans


def _items(text: str, at: int) -> list[_Span]:
    if text[at:at + 1] != "[":
        raise ValueError(f"expected a list at offset {at}")
    spans, i = [], _skip(text, at + 1)
    while text[i] != "]":
        end = _value_end(text, i)
        spans.append(_Span(None, i, i, end))
        i = _skip(text, end)
        i = _skip(text, i + 1) if text[i] == "," else i
    return spans


def _close(text: str, at: int) -> int:
    return _value_end(text, at) - 1


def _value_end(text: str, i: int) -> int:
    if text[i] == '"':
        return _string_end(text, i)
    if text[i] not in "{[":
        while i < len(text) and text[i] not in ",}]/" + _SPACE:
            i += 1
        return i
    depth = 0
    while True:
        i = _skip(text, i)
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        depth += 1 if c in "{[" else -1 if c in "}]" else 0
        i += 1
        if depth == 0:
            return i


def _skip(text: str, i: int) -> int:
    """The next index that is neither white space nor inside a comment."""
    while i < len(text):
        if text[i] in _SPACE:
            i += 1
        elif text.startswith(("//", "/*"), i):
            i = _comment_end(text, i)
        else:
            break
    return i


def _comment_end(text: str, i: int) -> int:
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    end = text.find("*/", i + 2)
    if end < 0:
        raise ValueError(f"a /* comment at offset {i} is never closed")
    return end + 2


def _string_end(text: str, i: int) -> int:
    """Just past the string opening at `i` (the end of the text if it never closes)."""
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)
