"""The store's crash protocol: a file's hash is committed last, and an open repairs
first.

`checkpoint` makes every space's vectors durable, removes trashed vectors, and only
then commits the files' hashes and advances the generation: a process killed anywhere
before leaves those files pending, to be redone by the next run. `recover` is what a
writable open does about whatever the previous writer left: each vector space repairs
itself (temp files, a torn sidecar tail and, after an unclean close, shards that fail to
load or miss a vector), files whose vectors are lost go back to pending, and trashed
vector ids are removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from semlith.store.catalog import Catalog

if TYPE_CHECKING:
    from semlith.store.vectors import VectorSpace


def checkpoint(catalog: Catalog, spaces: Mapping[str, VectorSpace],
               done: Iterable[tuple[int, str]] = ()) -> int:
    """Make vectors durable, drop trashed ones, then commit `done` (file id, hash);
    returns the new store generation."""
    for space in spaces.values():
        space.durable()
    empty_trash(catalog, spaces)
    with catalog.transaction() as db:
        catalog.commit_hashes(db, done)
        generation = catalog.bump_generation(db)
    for name, space in spaces.items():
        space.maybe_compact(partial(catalog.chunks_upto, space=name),
                            partial(catalog.chunk_ids, name))
    return generation


def recover(catalog: Catalog, spaces: Mapping[str, VectorSpace]) -> dict[str, int]:
    """Make the store consistent after whatever the previous writer left behind; returns
    what each repair found, by kind, and how many vectors were trashed."""
    clean = catalog.meta("writer_clean", "1") == "1"
    with catalog.transaction():
        catalog.set_meta("writer_clean", 0)
    counts: dict[str, int] = {}
    lost: list[int] = []
    for name, space in spaces.items():
        found, gone = space.recover(partial(catalog.vector_ids, name), clean)
        for key, value in found.items():
            counts[key] = counts.get(key, 0) + value
        lost += gone
    if lost:  # a committed chunk whose vector the disk lost: embed its file again
        with catalog.transaction() as db:
            catalog.reset_files_of_chunks(db, lost)
    # After the space's repair, so that removing the trash never reads a shard the
    # repair would have rebuilt (a corrupt one would fail the open).
    return {**counts, "trashed": empty_trash(catalog, spaces)}


def empty_trash(catalog: Catalog, spaces: Mapping[str, VectorSpace]) -> int:
    """Remove the vectors of deleted chunks from every space; returns how many."""
    trash = catalog.trash()
    if len(trash):
        for space in spaces.values():  # a space ignores ids it does not hold
            space.remove(trash)
            space.durable()
        with catalog.transaction() as db:
            catalog.clear_trash(db, trash)
    return len(trash)
