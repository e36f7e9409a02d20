"""The face of semlith, a local semantic search daemon for coding agents and editors.

The face of the library: `open_library(Settings.load())` gives a `Library` (the running
daemon's, or one in this process) whose methods take and return the values named here
and raise the errors named here, every one a `SemlithError` (or a `ValueError` for bad
arguments)::

    import semlith

    library = semlith.open_library(semlith.Settings.load())
    try:
        for hit in library.search("how does retry backoff work", k=5).hits:
            print(hit.locator, hit.score)
    finally:
        library.close()

Each name is imported when it is first used (PEP 562): every `semlith` command imports
this package first, and a grep must not pay for the library's modules (issue #45).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semlith.base.version import __version__

if TYPE_CHECKING:
    from semlith.base.settings import Settings
    from semlith.connect import open_library
    from semlith.errors import (
        BackendError,
        BadRequest,
        BadTarget,
        Busy,
        CannotServe,
        DaemonError,
        DaemonHung,
        DaemonNotRunning,
        ModelError,
        NothingSelected,
        RefusedFolder,
        SemlithError,
        StoreCorrupt,
        StoreFormatError,
        StoreLocked,
        StoreNotFound,
        UnknownStore,
        UnknownSymbol,
    )
    from semlith.library import Library
    from semlith.types import (
        Answer,
        Definition,
        FileEntry,
        Filters,
        Hit,
        IndexReport,
        Passage,
        Progress,
        Scope,
        Status,
        StoreEntry,
        StoreStats,
    )

# Static, so that a type checker sees what the face exports; a test holds it to _HOMES.
__all__ = [
    "Answer", "BackendError", "BadRequest", "BadTarget", "Busy", "CannotServe",
    "DaemonError", "DaemonHung", "DaemonNotRunning", "Definition", "FileEntry", "Filters",
    "Hit", "IndexReport", "Library", "ModelError", "NothingSelected", "Passage", "Progress",
    "RefusedFolder", "Scope", "SemlithError", "Settings", "Status", "StoreCorrupt",
    "StoreEntry", "StoreFormatError", "StoreLocked", "StoreNotFound", "StoreStats",
    "UnknownStore", "UnknownSymbol", "__version__", "open_library",
]
_HOMES = {
    "semlith.library": ("Library",),
    "semlith.connect": ("open_library",),
    "semlith.base.settings": ("Settings",),
    "semlith.types": ("Answer", "Definition", "FileEntry", "Filters", "Hit", "IndexReport",
                      "Passage", "Progress", "Scope", "Status", "StoreEntry", "StoreStats"),
    "semlith.errors": ("BackendError", "BadRequest", "BadTarget", "Busy", "CannotServe",
                       "DaemonError", "DaemonHung", "DaemonNotRunning", "ModelError",
                       "NothingSelected", "RefusedFolder", "SemlithError", "StoreCorrupt",
                       "StoreFormatError", "StoreLocked", "StoreNotFound", "UnknownStore",
                       "UnknownSymbol"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of the face, imported from its module on first use."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value  # the next use is a plain attribute read
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
