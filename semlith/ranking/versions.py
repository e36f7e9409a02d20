"""Old copies kept beside the current code: which candidate paths are an older version.

A repository that keeps `v1/` beside `v2/`, or `v1/` beside the unversioned tree it
was copied from, answers a question with both copies; the old one took the first slots
(issue #21). Among the candidates of one query, a path whose folder is a version
(`v1`, `v2.3`, `1.x`) is an old copy when another candidate lives under a newer version
folder beside it (`src/v3/types.ts` beside `src/v4/core/schemas.ts`: zod rewrote its
tree for version 4 and kept version 3's), or has the same rest of the path under a newer
version folder higher up. The unversioned tree counts as newer than `v1` only:
a `v1/` copy beside it is the old one, but a Go module keeps its newer major versions
in `v2/`, `v3/` beside the unversioned v1, so nothing says which of those is current.
A question that names a version (`v1`, "version 1") keeps every copy as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_VERSION = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(?:\d+|x))?", re.IGNORECASE)
_NAMED = re.compile(r"\bv\d+\b|\bversions?\s+\d+|\b\d+\.x\b", re.IGNORECASE)


Version = tuple[int, int, int]  # (major, minor, 1 for the unversioned tree)
UNVERSIONED: Version = (1, 0, 1)  # newer than v1 and v1.0, older than v1.1 and v2


def _version(part: str) -> Version | None:
    """(major, minor) of a folder named like a version (`v2`, `2.1`, `1.x`), else None.
    A bare number needs a dot: `2` is a folder of days or pages, not a version."""
    match = _VERSION.fullmatch(part)
    if match is None or (part[:1].isdigit() and "." not in part):
        return None
    return int(match.group(1)), int(match.group(2) or 0), 0


def names_version(query: str) -> bool:
    """Whether a question names a version (`v1`, "version 1", `2.x`)."""
    return _NAMED.search(query) is not None


def old_copies(paths: Iterable[str], named: bool) -> frozenset[str]:
    """The paths among `paths` that are an older copy of another one (see the module);
    none when the question names a version (`named`, from `names_version`)."""
    versioned = [(path, rest, found) for path in set(paths)
                 if (rest_found := _versioned(path)) for rest, found in [rest_found]]
    if not versioned or named:
        return frozenset()
    newest: dict[str, Version] = {}  # the rest of a path -> its newest version
    beside: dict[str, Version] = {}  # the folder holding version folders -> the newest
    for _, rest, found in versioned:
        newest[rest] = max(newest.get(rest, found), found)
        beside[_parent(rest)] = max(beside.get(_parent(rest), found), found)
    wanted = set(newest)
    plain = set(paths) - {path for path, _, _ in versioned}
    for path in plain:  # the unversioned tree: where a version folder could have been
        parts = path.split("/")
        for i in range(len(parts)):
            rest = "/".join([*parts[:i], "*", *parts[i:]])
            if rest in wanted:
                newest[rest] = max(newest[rest], UNVERSIONED)
    return frozenset(path for path, rest, found in versioned
                     if newest[rest] > found or beside[_parent(rest)] > found)


def _parent(rest: str) -> str:
    """The folder that holds the version folder of `rest` (a path with it as `*`)."""
    return rest[:rest.index("*")]


def _versioned(path: str) -> tuple[str, Version] | None:
    """(the path with its version folder as `*`, that version), or None."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        found = _version(part)
        if found is not None:
            return "/".join([*parts[:i], "*", *parts[i + 1:]]), found
    return None
