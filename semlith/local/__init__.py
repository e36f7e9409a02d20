"""The library in this process (docs/architecture.md, "The in-process library").

- library.py: `LocalLibrary`, the `Library` protocol over a `StoreSource`;
- engine.py: what a process shares (settings, models, query threads);
- sources.py: where stores come from (`OnDemand`), opening, creating, registering;
- fleet.py: the daemon's source: stores held writable, watched, following the registry;
- serving.py: the daemon's wiring (engine + fleet + the agents' and the person's library);
- target.py: which store an index, watch or forget request writes;
- indexing.py: one index run; reads.py: a file's lines read back.
"""

from semlith.local.engine import Engine
from semlith.local.library import LocalLibrary

__all__ = ["Engine", "LocalLibrary"]
