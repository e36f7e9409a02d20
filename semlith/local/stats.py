"""`stats` of the stores one call reads: a `StoreStats` each, saying why for a store
that could not be counted (issue #47).

A store that could not be opened or counted (its Milvus engine down, its catalog
unreadable) gets one that says why in `error`, so one failing store does not hide the
others. Asked of one store, its failure is the call's error, as for search."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semlith.base.home import registered_stores
from semlith.local.scope import Known
from semlith.local.sources import STORE_ERRORS, Opened, StoreSource
from semlith.store.checks import vector_tally
from semlith.types import StoreStats


def store_stats(opened: Opened, chosen: Sequence[Known], source: StoreSource,
                shared_cache: dict[str, Any] | None, home: Path) -> list[StoreStats]:
    """The stats of every store in `opened`, then an error entry per store that failed."""
    out: list[StoreStats] = []
    failed = list(opened.failed)
    for label, store in opened:
        indexing, watch = source.describe(label)
        try:
            info = store.stats()
            tally = vector_tally(store)
        except STORE_ERRORS as exc:
            if len(chosen) <= 1:
                raise
            failed.append((label, str(exc)))
            continue
        out.append(StoreStats(**{**info, **tally, "name": label}, indexing=indexing,
                              watch=watch, served_by=source.served_by,
                              vector_cache=shared_cache))
    if failed:
        out += _failures(failed, chosen, source.served_by, home)
    return out


def _failures(failed: list[tuple[str, str]], chosen: Sequence[Known], served_by: int,
              home: Path) -> list[StoreStats]:
    """An entry per store that failed: what the registry knows of it, and why."""
    known = {k.name: k for k in chosen}
    models = {Path(e.folder).resolve(): e.model for e in registered_stores(home)}
    out = []
    for label, why in failed:
        k = known.get(label)
        out.append(StoreStats(
            label, str(k.folder) if k else "", str(k.root or "") if k else "",
            models.get(k.folder.resolve(), "") if k else "", dim=0, format_version=0,
            generation=0, files=0, pending_files=0, chunks=0, symbols=0, exact_records=0,
            served_by=served_by, error=why))
    return out
