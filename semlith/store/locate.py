"""Finding a store: `.semlith` beside the corpus, found by walking up from a folder."""

from __future__ import annotations

from pathlib import Path

from semlith.errors import StoreNotFound
from semlith.store.catalog import CATALOG_NAME

STORE_DIRNAME = ".semlith"


def find_store(start: Path) -> Path | None:
    """The nearest `.semlith` store at or above `start`, or None."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / STORE_DIRNAME / CATALOG_NAME).is_file():
            return folder / STORE_DIRNAME
    return None


def require_store(start: Path) -> Path:
    found = find_store(start)
    if found is None:
        raise StoreNotFound(f"no semlith store at or above {str(start)!r}; "
                            "run `semlith index` there first or pass --store")
    return found
