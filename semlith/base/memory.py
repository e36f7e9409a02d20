"""Handing freed memory back to the operating system.

CPython and glibc keep memory a process freed for its next allocation; after a burst
of calls (SQLite page caches, numpy buffers of shards read per query, MCP sessions that
expired) the daemon's RSS stayed at its peak. glibc's `malloc_trim(0)` returns the free
pages at the top of each arena; elsewhere (macOS, Windows, musl) it is a no-op.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable


def _malloc_trim() -> Callable[[], object]:
    if not sys.platform.startswith("linux"):
        return lambda: None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0)


trim = _malloc_trim()
