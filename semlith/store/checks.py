"""What a store reports of its vectors beyond its own shards, and its check-and-repair.

- A running tally of the vectors each index run found in the machine-wide vector cache
  and those the model embedded (`meta`: vectors_from_cache, vectors_embedded; #25).
- `verify(store)` for `semlith index --verify` (#25): every space against the catalog,
  repaired; a Milvus space by its rows (`milvus_check.verify_rows`), another by the
  recovery of an unclean close.
- `cache_summary(cache)`: the cache's numbers for `stats`, without creating it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from semlith.store.milvus.check import verify_rows
from semlith.store.milvus.space import MilvusSpace

if TYPE_CHECKING:
    from semlith.store.store import Store
    from semlith.store.vector_cache import VectorCache

_TALLY = {"from_cache": "vectors_from_cache", "embedded": "vectors_embedded"}


def count_vectors(store: Store, cached: int, embedded: int) -> int:
    """Add a run's counts to the store's tally; returns `cached`."""
    if cached or embedded:
        catalog = store.catalog
        with catalog.transaction():
            for key, n in ((_TALLY["from_cache"], cached), (_TALLY["embedded"], embedded)):
                catalog.set_meta(key, int(catalog.meta(key, "0") or 0) + n)
    return cached


def vector_tally(store: Store) -> dict[str, int]:
    """The tally as `StoreStats.from_cache` and `.embedded`."""
    return {field: int(store.catalog.meta(key, "0") or 0) for field, key in _TALLY.items()}


def verify(store: Store) -> dict[str, int]:
    """Check every space of a writable store against its catalog and repair; the files of
    chunks left without a vector go back to pending, for the run that follows."""
    counts: dict[str, int] = {}
    lost: list[int] = []
    for name, space in store.spaces.items():
        ids = partial(store.catalog.vector_ids, name)
        found, gone = verify_rows(space, ids) if isinstance(space, MilvusSpace) \
            else space.recover(ids, False)
        for key, value in found.items():
            counts[key] = counts.get(key, 0) + value
        lost += gone
    if lost:
        with store.catalog.transaction() as db:
            store.catalog.reset_files_of_chunks(db, lost)
    counts["chunks_redone"] = len(lost)
    return counts


def cache_summary(cache: VectorCache) -> dict[str, Any]:
    """Entries, bytes, bound, models and errors of the cache (zeros when no process has
    made it yet: asking does not create it)."""
    if not cache.folder.is_dir():
        return {"folder": str(cache.folder), "entries": 0, "bytes": 0,
                "max_bytes": cache.max_bytes, "models": 0, "errors": cache.errors}
    info = cache.info()
    return {"folder": str(info.folder), "entries": info.entries, "bytes": info.bytes,
            "max_bytes": info.max_bytes, "models": info.models, "errors": info.errors}
