"""YAML config files (goose's config.yaml, Continue's): read them, lay out semlith's entry,
and put it in as text.

Like the JSONC editor, this splices lines into the original rather than re-serialising,
so a person's comments, order and quoting stay theirs (goose and Continue write these
files too, and people edit them by hand). It edits block-style mappings and sequences
only, under a top-level key; anything else (flow style, anchors) leaves the text as it
was, and the caller's check that the result parses to the wanted data refuses the edit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import yaml

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./+-]*")
# Words YAML 1.1 (PyYAML, goose's serde_yaml) reads as booleans or null.
_SPECIAL = {"y", "n", "yes", "no", "true", "false", "on", "off", "null"}


def loads(text: str) -> Any:
    """Parse YAML; ValueError (with the line) when it does not parse."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ")) from None


def dumps(config: dict[str, Any]) -> str:
    """The config in block style, two spaces a level, as people write these files."""
    return "\n".join(_mapping(config, 0)) + "\n"


def edit(text: str, config: dict[str, Any], ident: Callable[[Any], object]) -> str:
    """`text` with each member of `config` set under its top-level key: a mapping's
    entries replaced or appended, a sequence's item replaced (same `ident`) or put first."""
    for key, value in config.items():
        if isinstance(value, dict):
            for name, entry in value.items():
                text = _set_member(text, key, name, entry)
        else:
            for item in value:
                text = _put_item(text, key, item, ident)
    return text


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _SPECIAL:
        return text
    if text.isprintable():
        return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one
    return '"' + "".join(_escaped(c) for c in text) + '"'


def _escaped(char: str) -> str:
    """One character inside a double-quoted YAML scalar (YAML's escapes, not JSON's:
    JSON's surrogate pairs do not read back as one character)."""
    if char in '"\\':
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _mapping(config: dict[str, Any], indent: int) -> list[str]:
    pad, lines = " " * indent, []
    for key, value in config.items():
        head = f"{pad}{_scalar(key)}:"
        if isinstance(value, dict) and value:
            lines += [head, *_mapping(value, indent + 2)]
        elif isinstance(value, list) and value:
            lines += [head, *(line for item in value for line in _item(item, indent + 2))]
        else:
            empty = "{}" if isinstance(value, dict) else "[]" if isinstance(value, list) \
                else _scalar(value)
            lines.append(f"{head} {empty}")
    return lines


def _item(item: Any, indent: int) -> list[str]:
    """One sequence item at `indent`: `- value`, or a mapping opening on the dash line."""
    if isinstance(item, dict) and item:
        lines = _mapping(item, indent + 2)
        return [" " * indent + "- " + lines[0][indent + 2:], *lines[1:]]
    return [" " * indent + "- " + _scalar(item)]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _block(lines: list[str], key: str) -> tuple[int, int] | None:
    """(header, end) of the top-level `key:` block; None when it has no block header."""
    head = re.compile(rf"""({re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')"""
                      r"[ \t]*:[ \t]*(\[\]|\{\})?[ \t]*(#.*)?")
    for at, line in enumerate(lines):
        match = head.fullmatch(line)
        if match is None:
            continue
        if match.group(2):  # `key: []` or `key: {}`: empty, laid out as a block from here
            lines[at] = line[:match.start(2)].rstrip() + (" " + match.group(3)
                                                         if match.group(3) else "")
        end = at + 1
        while end < len(lines) and not (_content(lines[end]) and lines[end][0] not in " -"):
            end += 1
        return at, _back_over_gaps(lines, at + 1, end)
    return None


def _back_over_gaps(lines: list[str], start: int, end: int) -> int:
    """Back from `end` over blank lines and comments: they introduce what follows."""
    while end > start and not _content(lines[end - 1]):
        end -= 1
    return end


def _append(text: str, member: dict[str, Any]) -> str:
    sep = "" if not text.strip() or text.endswith("\n") else "\n"
    return text + sep + dumps(member)


def _set_member(text: str, key: str, name: str, entry: Any) -> str:
    lines = text.split("\n")
    found = _block(lines, key)
    if found is None:
        return text if key in (loads(text) or {}) else _append(text, {key: {name: entry}})
    start, end = found
    children = [i for i in range(start + 1, end) if _content(lines[i])]
    indent = _indent(lines[children[0]]) if children else 2
    own = re.compile(" " * indent + rf"""({re.escape(name)}|"{re.escape(name)}"|'{re.escape(
        name)}')[ \t]*:[ \t]*(#.*)?""")
    member = _mapping({name: entry}, indent)
    for at in children:
        if own.fullmatch(lines[at]):
            stop = next((i for i in children if i > at and _indent(lines[i]) <= indent), end)
            stop = _back_over_gaps(lines, at + 1, stop)
            return "\n".join(lines[:at] + member + lines[stop:])
    return "\n".join(lines[:end] + member + lines[end:])


def _put_item(text: str, key: str, item: Any, ident: Callable[[Any], object]) -> str:
    lines = text.split("\n")
    found = _block(lines, key)
    if found is None:
        return text if key in (loads(text) or {}) else _append(text, {key: [item]})
    start, end = found
    dashes = [i for i in range(start + 1, end) if lines[i].lstrip().startswith("-")]
    indent = _indent(lines[dashes[0]]) if dashes else 2
    dashes = [i for i in dashes if _indent(lines[i]) == indent]
    for n, at in enumerate(dashes):
        stop = _back_over_gaps(lines, at + 1, dashes[n + 1] if n + 1 < len(dashes) else end)
        try:
            old = loads("\n".join(lines[at:stop]))
        except ValueError:
            continue
        if isinstance(old, list) and len(old) == 1 and ident(old[0]) == ident(item):
            return "\n".join(lines[:at] + _item(item, indent) + lines[stop:])
    return "\n".join(lines[:start + 1] + _item(item, indent) + lines[start + 1:])
