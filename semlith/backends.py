"""What the library does with a store's backend: the Milvus target a store keeps, and
mirrors (`semlith attach`) of repos that other machines index (docs/scale-out.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import xxhash

from semlith.errors import BackendError, BadTarget
from semlith.home import StoreEntry as HomeEntry
from semlith.home import register_store
from semlith.locators import Target
from semlith.settings import Settings
from semlith.store import Store
from semlith.store.milvus_target import MilvusTarget
from semlith.types import ChunkRecord, Passage, StoreEntry

_SAFE = re.compile(r"[^A-Za-z0-9._-]")  # a repo name as a folder name


def attach_mirror(settings: Settings, backend: str) -> StoreEntry:
    """Register a mirror of the repo `backend` names (`semlith attach`): a store folder
    under SEMLITH_HOME/attached whose chunks are read from Milvus. Attaching the same
    target again returns the mirror made before."""
    target = MilvusTarget.parse(backend)
    digest = xxhash.xxh64_hexdigest(str(target).encode())[:8]
    folder = settings.home / "attached" / f"{_SAFE.sub('_', target.repo)[:64]}-{digest}"
    if (folder / "store.db").is_file():
        store = Store.open(folder, settings=settings)
    else:
        store = Store.create_mirror(folder, backend=backend, settings=settings)
    try:
        register_store(settings.home, HomeEntry(str(folder.resolve()), str(store.root),
                                                store.model, store.name))
        return StoreEntry(store.name, str(folder), "", store.model)
    finally:
        store.close()


def refuse_mirror(store: Store) -> None:
    if store.mirror:
        where = store.remote.target if store.remote is not None else "Milvus"
        raise BadTarget(f"store {store.name!r} is a mirror of {where}; its own indexer "
                        "indexes it, on the machine that holds its files")


def mirror_passage(label: str, target: Target, records: Sequence[ChunkRecord],
                    max_lines: int) -> Passage:
    """A mirror's file as its chunks hold it: the file is on the indexer's machine. Lines
    no chunk holds read as empty."""
    lines: dict[int, str] = {}
    for record in records:
        for n, line in enumerate(record.text.split("\n"), start=record.start_line):
            lines.setdefault(n, line)
    total = max(lines)
    start = target.start or 1
    if start > total:
        raise BadTarget(f"{target.path!r} has {total} lines; line {start} does not exist")
    end = min(target.end or total, total, start + max_lines - 1)
    return Passage(label, records[0].path, start, end,
                   tuple(lines.get(n, "") for n in range(start, end + 1)), total)


def same_backend(store: Store, backend: str | None) -> None:
    """A store keeps the backend it was made with: asking for another is an error."""
    if backend is None:
        return
    wanted = MilvusTarget.parse(backend).named(model=store.model, repo=store.name)
    have = store.remote.target if store.remote is not None else None
    if have is None or (wanted.uri, wanted.collection, wanted.repo) != (
            have.uri, have.collection, have.repo):
        raise BackendError(f"store {str(store.folder)!r} keeps its vectors in "
                           f"{have or 'its own folder'}, not {wanted}; use a new --store")
