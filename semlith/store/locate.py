"""Finding a store: `.semlith` beside the corpus, found by walking up from a folder."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from semlith.errors import StoreNotFound
from semlith.store.catalog import CATALOG_NAME

STORE_DIRNAME = ".semlith"


def store_exists(folder: Path) -> bool:
    """Whether `folder` holds a store: a catalog that records its model.

    A catalog without one is a store whose creation did not finish (its first run
    failed before its meta was written): it does not exist yet, and the next `index`
    creates it. A catalog that cannot be read at all counts as a store, so that opening
    it says what is wrong."""
    return _records_model(folder / CATALOG_NAME)


def store_present(folder: Path) -> bool:
    """Whether `folder` has a catalog (one stat): what listing every registered store
    needs (#25). A half-made store passes; `store_exists` tells it apart."""
    return (folder / CATALOG_NAME).is_file()


def find_store(start: Path) -> Path | None:
    """The nearest `.semlith` store at or above `start`, or None."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if store_exists(folder / STORE_DIRNAME):
            return folder / STORE_DIRNAME
    return None


def require_store(start: Path) -> Path:
    found = find_store(start)
    if found is None:
        raise StoreNotFound(f"no semlith store at or above {str(start)!r}; "
                            "run `semlith index` there first or pass --store")
    return found


def _records_model(catalog: Path) -> bool:
    """Whether a catalog file records its model (True too when SQLite cannot read it:
    opening the store then says why)."""
    if not catalog.is_file():
        return False
    try:
        db = sqlite3.connect(f"{catalog.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return True
    try:
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
                      ).fetchone() is None:
            return False  # created, never described
        row = db.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
        return bool(row and row[0])
    except sqlite3.Error:
        return True
    finally:
        db.close()
