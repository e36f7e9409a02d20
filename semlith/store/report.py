"""What `stats` says about one store: counts, vectors, spaces, what recovery did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from semlith.store.catalog import FORMAT_VERSION

if TYPE_CHECKING:
    from semlith.store.store import Store


def store_report(store: Store, *, mirror: bool) -> dict[str, Any]:
    """The store's statistics (a mirror counts its chunks by its vectors)."""
    vectors = store.vectors.stats()
    vectors_held = vectors["exact_records"]
    return {
        "name": store.name,
        "folder": str(store.folder),
        "root": str(store.root),
        "format_version": FORMAT_VERSION,
        "model": store.model,
        "dim": store.dim,
        "generation": store.catalog.generation(),
        **store.catalog.counts(),
        "withheld": store.catalog.withheld(),
        "exact_records": vectors.pop("exact_records"),
        "chunked_by": store.catalog.chunkers(),
        "shards": vectors,
        "spaces": {r.name: {"model": r.model, "dim": r.dim,
                            "vectors": store.spaces[r.name].stats()["exact_records"]}
                   for r in store.catalog.spaces().values() if r.name in store.spaces},
        "recovered": dict(store.recovered),
        **({"chunks": vectors_held} if mirror else {}),
    }
