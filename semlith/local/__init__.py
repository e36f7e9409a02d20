"""The library in this process: `LocalLibrary` over a source of stores (the CLI's,
opened per call, or the daemon's fleet), and what only it uses: scopes, locators,
reads back, grep.

- library.py: `LocalLibrary`, the `Library` protocol over a `StoreSource`;
- engine.py: what a process shares (settings, models, query threads);
- sources.py: where stores come from (`OnDemand`), opening, creating, registering;
- fleet.py: the daemon's source: stores held writable, watched, following the registry;
- serving.py: the daemon's wiring (engine + fleet + the agents' and the person's library);
- target.py: which store an index, watch or forget request writes;
- indexing.py: one index run; reads.py: a file's lines read back.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from semlith.local.engine import Engine
    from semlith.local.library import LocalLibrary

__all__ = ["Engine", "LocalLibrary"]
_HOMES = {"Engine": "semlith.local.engine", "LocalLibrary": "semlith.local.library"}


def __getattr__(name: str) -> Any:
    """`Engine` and `LocalLibrary`, imported on first use: importing `semlith.local.grep`
    must not load the embedding model's modules with them (issue #45)."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
