"""Reading back what a tool printed: every locator form, parsed in one place.

`path:start-end`, `path:line`, `path`, `store:path:start-end` (multi-store answers), an
absolute path inside a root (with or without lines), and `path:start` ranges written
with a Unicode dash or spaces. Anything else is a symbol name for the caller to look up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from semlith.errors import BadTarget


@dataclass(frozen=True, slots=True)
class Target:
    store: str  # "" when the locator names none
    path: str  # as given: relative to a root, or absolute
    start: int | None  # 1-based, inclusive; None: the whole file
    end: int | None

    @property
    def absolute(self) -> bool:
        return is_absolute(self.path)


_LINES = re.compile(r"^(?P<rest>.+?):(?P<start>\d+)(?:\s*[-\u2013:]\s*(?P<end>\d+))?$")
_WINDOWS_ABS = re.compile(r"^[A-Za-z]:[\\/]")


def is_absolute(path: str) -> bool:
    return path.startswith(("/", "\\")) or bool(_WINDOWS_ABS.match(path))


def parse_target(text: str, stores: frozenset[str] = frozenset()) -> Target:
    """Split a locator into (store, path, lines). `stores` are the names a `store:` prefix
    may take; a prefix that is not one of them stays part of the path."""
    text = text.strip()
    if not text:
        raise BadTarget("the target is empty; give path:start-end, a path or a symbol name")
    rest, start, end = text, None, None
    match = _LINES.match(text)
    if match:
        rest = match.group("rest")
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        if start < 1 or end < start:
            raise BadTarget(f"bad line range in {text!r}: lines start at 1 and end >= start")
    store = ""
    if not is_absolute(rest) and ":" in rest:
        prefix, _, path = rest.partition(":")
        if prefix in stores and path:
            store, rest = prefix, path
    return Target(store, rest, start, end)
