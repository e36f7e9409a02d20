"""4-bit TurboQuant vector shards: 65,536 chunk ids per shard, one file per shard.

A shard file is named by the first id it may hold (`shards/0000000000065536.tq`); the
folder listing is the manifest. Files are written through turbovec's durable commit
protocol (`IdMapIndex.sync`: the first write goes to a temp file that is fsynced and
renamed; later commits append only what changed and survive a crash at any byte).

Searching keeps the hottest shards resident within the memory budget and reads the
rest back for the query at hand, then lets them go; `stats()` counts those reads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from turbovec import IdMapIndex

from semlith.base.memory import trim
from semlith.base.private import make_private_folder, tighten

SHARD_SPAN = 65536


# glibc's malloc_trim after a query that read shards back: without it the process kept
# their freed memory (measured: RSS +118 MB at a 64 MB budget on 1M vectors, +83 MB with).
_TRIM = trim
SHARD_SUFFIX = ".tq"
BIT_WIDTH = 4


def shard_name(first_id: int) -> str:
    return f"{first_id:016d}{SHARD_SUFFIX}"


class RWLock:
    """Many concurrent searches, or one mutation (turbovec objects are not shareable then)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._readers:
                self._cond.wait()
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


@dataclass(slots=True)
class _Loaded:
    index: IdMapIndex
    key: tuple[int, int, int] | None  # (inode, mtime_ns, size) of the file it came from
    nbytes: int
    dirty: bool = False
    heat: float = 0.0


@dataclass(slots=True)
class ShardStats:
    shards: int = 0
    disk_bytes: int = 0
    resident: int = 0
    resident_bytes: int = 0
    budget_bytes: int = 0
    reads_per_query: int = 0  # shard loads done for a query because they did not fit
    queries: int = 0
    rebuilt: list[int] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


class ShardSet:
    """The shards of one store. Mutations need the store's writer lock (one writer)."""

    def __init__(self, folder: Path, dim: int, budget_bytes: int) -> None:
        self.folder = folder
        self.dim = dim
        self.budget_bytes = budget_bytes
        self._loaded: dict[int, _Loaded] = {}
        self._heat: dict[int, float] = {}
        self._rw = RWLock()
        self._mutex = threading.Lock()  # guards _loaded / counters
        self._stats = ShardStats(budget_bytes=budget_bytes)

    # -- files -------------------------------------------------------------------------

    def listing(self) -> dict[int, Path]:
        """first id -> shard file, from the folder listing (the manifest)."""
        found: dict[int, Path] = {}
        if not self.folder.is_dir():
            return found
        for path in self.folder.iterdir():
            stem, suffix = path.stem, path.suffix
            if suffix == SHARD_SUFFIX and stem.isdigit():
                found[int(stem)] = path
        return dict(sorted(found.items()))

    def remove_temp_files(self) -> list[Path]:
        """Delete temp files a killed writer left behind (call under the writer lock)."""
        removed = []
        if self.folder.is_dir():
            for path in self.folder.iterdir():
                if ".tmp" in path.name:
                    path.unlink(missing_ok=True)
                    removed.append(path)
        return removed

    @staticmethod
    def _file_key(path: Path) -> tuple[int, int, int] | None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load(self, first: int, path: Path) -> _Loaded:
        key = self._file_key(path)
        try:
            index = IdMapIndex.load(str(path))
        except ValueError:
            # A writer in another process may be committing this very file: read it again.
            key = self._file_key(path)
            index = IdMapIndex.load(str(path))
        index.prepare()
        return _Loaded(index=index, key=key, nbytes=key[2] if key else 0)

    def holds_all(self, first: int, ids: np.ndarray) -> bool:
        """True when shard `first` loads and holds every id in `ids`."""
        path = self.folder / shard_name(first)
        try:
            loaded = self._load(first, path)
        except (ValueError, OSError):
            return False
        return all(loaded.index.contains(int(i)) for i in ids)

    def held(self, ids: np.ndarray) -> np.ndarray:
        """A mask over `ids`: held by their shard (not removed). An id whose shard cannot
        be read counts as held: nothing says it was removed."""
        ids = np.asarray(ids, dtype=np.uint64)
        mask = np.ones(len(ids), dtype=bool)
        firsts = (ids // SHARD_SPAN) * SHARD_SPAN
        listing = self.listing()
        with self._rw.read():
            for first in np.unique(firsts).tolist():
                at = np.flatnonzero(firsts == first)
                path = listing.get(int(first))
                with self._mutex:
                    loaded = self._loaded.get(int(first))
                try:
                    if path is not None and (loaded is None or not loaded.dirty):
                        loaded, _ = self._for_search(int(first), path)
                except (ValueError, OSError):
                    continue
                if loaded is None:  # no shard at all: none of its ids is held
                    mask[at] = False
                    continue
                index = loaded.index
                mask[at] = [index.contains(int(ids[i])) for i in at]
        return mask

    @property
    def degraded(self) -> bool:
        """Whether a shard failed to load since this set was opened."""
        return bool(self._stats.unreadable)

    def note_unreadable(self, reason: str) -> None:
        with self._mutex:
            self._stats.unreadable.append(reason)

    def _new(self) -> _Loaded:
        return _Loaded(index=IdMapIndex(dim=self.dim, bit_width=BIT_WIDTH), key=None, nbytes=0)

    # -- writing -------------------------------------------------------------------------

    def _writable(self, first: int) -> _Loaded:
        loaded = self._loaded.get(first)
        path = self.folder / shard_name(first)
        if loaded is None or (not loaded.dirty and loaded.key != self._file_key(path)):
            loaded = self._load(first, path) if path.exists() else self._new()
            self._loaded[first] = loaded
        return loaded

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add vectors under their chunk ids (not durable until `flush`)."""
        ids = np.asarray(ids, dtype=np.uint64)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        firsts = (ids // SHARD_SPAN) * SHARD_SPAN
        with self._rw.write():
            for first in np.unique(firsts):
                sel = firsts == first
                loaded = self._writable(int(first))
                fresh = ids[sel]
                # Re-adding an id (a resumed run) replaces its vector.
                for chunk_id in fresh[[loaded.index.contains(int(i)) for i in fresh]]:
                    loaded.index.remove(int(chunk_id))
                loaded.index.add_with_ids(vectors[sel], fresh)
                loaded.dirty = True

    def remove(self, ids: np.ndarray) -> int:
        """Remove chunk ids wherever they are; returns how many were present."""
        ids = np.asarray(ids, dtype=np.uint64)
        listing = self.listing()
        removed = 0
        firsts = (ids // SHARD_SPAN) * SHARD_SPAN
        with self._rw.write():
            for first in np.unique(firsts):
                first_id = int(first)
                if first_id not in listing and first_id not in self._loaded:
                    continue
                loaded = self._writable(first_id)
                hit = [loaded.index.remove(int(i)) for i in ids[firsts == first]]
                if any(hit):
                    removed += sum(hit)
                    loaded.dirty = True
        return removed

    def flush(self) -> None:
        """Make every change durable, then trim memory back to the budget."""
        with self._rw.write():
            for first, loaded in self._loaded.items():
                if not loaded.dirty:
                    continue
                path = self.folder / shard_name(first)
                if len(loaded.index) == 0:
                    path.unlink(missing_ok=True)
                else:
                    make_private_folder(self.folder)
                    loaded.index.sync(str(path))
                    tighten(path)  # turbovec writes it with the umask's mode
                loaded.key = self._file_key(path)
                loaded.nbytes = loaded.key[2] if loaded.key else 0
                loaded.dirty = False
            for first in [f for f, ld in self._loaded.items() if ld.key is None]:
                del self._loaded[first]
            self._trim()

    def rebuild(self, first: int, records: Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]],
                live: np.ndarray) -> int:
        """Re-create shard `first` from exact records whose ids are `live`; returns its size."""
        path = self.folder / shard_name(first)
        path.unlink(missing_ok=True)
        with self._rw.write():
            self._loaded.pop(first, None)
            fresh = self._new()
            for ids, vectors in records():
                sel = (ids >= first) & (ids < first + SHARD_SPAN) & np.isin(ids, live)
                if sel.any():
                    fresh.index.add_with_ids(np.ascontiguousarray(vectors[sel]), ids[sel])
            fresh.dirty = True
            self._loaded[first] = fresh
            self._stats.rebuilt.append(first)
            return len(fresh.index)

    # -- searching ----------------------------------------------------------------------

    def _trim(self) -> None:
        """Evict the coldest clean shards until the resident set fits the budget."""
        total = sum(ld.nbytes for ld in self._loaded.values())
        for first in sorted(self._loaded, key=lambda f: self._heat.get(f, 0.0)):
            if total <= self.budget_bytes:
                break
            loaded = self._loaded[first]
            if not loaded.dirty:
                total -= loaded.nbytes
                del self._loaded[first]

    def _for_search(self, first: int, path: Path) -> tuple[_Loaded, bool]:
        """(shard, resident?) — a changed or absent shard is read from disk."""
        with self._mutex:
            loaded = self._loaded.get(first)
            if loaded is not None and (loaded.dirty or loaded.key == self._file_key(path)):
                return loaded, True
        fresh = self._load(first, path)
        with self._mutex:
            resident = sum(ld.nbytes for f, ld in self._loaded.items() if f != first)
            if resident + fresh.nbytes <= self.budget_bytes:
                self._loaded[first] = fresh
                return fresh, True
            coldest = min(self._loaded, key=lambda f: self._heat.get(f, 0.0), default=None)
            if (coldest is not None and not self._loaded[coldest].dirty
                    and self._heat.get(first, 0.0) > self._heat.get(coldest, 0.0)
                    and resident - self._loaded[coldest].nbytes + fresh.nbytes
                    <= self.budget_bytes):
                del self._loaded[coldest]
                self._loaded[first] = fresh
                return fresh, True
            self._stats.reads_per_query += 1
            return fresh, False

    def search(self, query: np.ndarray, k: int,
               allowlist: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Approximate top-`k` (scores, ids) over every shard, best first.

        `allowlist` (chunk ids) is applied inside each shard's scan, so a filter that
        selects a few chunks returns the best of those, not what survives a global top-k.
        Ids in the allowlist that hold no vector are ignored.
        """
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        all_scores: list[np.ndarray] = []
        all_ids: list[np.ndarray] = []
        allow = None if allowlist is None else np.unique(np.asarray(allowlist, np.uint64))
        transient = False
        with self._rw.read():
            for first, path in self.listing().items():
                subset = None
                if allow is not None:
                    lo, hi = np.searchsorted(allow, [first, first + SHARD_SPAN])
                    subset = allow[lo:hi]
                    if len(subset) == 0:
                        continue
                loaded, resident = self._for_search(first, path)
                scores, ids = self._search_one(loaded.index, query, k, subset)
                all_scores.append(scores)
                all_ids.append(ids)
                transient |= not resident
                del loaded
        if transient:
            _TRIM()
        if not all_ids:
            return np.empty(0, np.float32), np.empty(0, np.uint64)
        scores = np.concatenate(all_scores)
        ids = np.concatenate(all_ids)
        order = np.argsort(-scores, kind="stable")[:k]
        scores, ids = scores[order], ids[order]
        with self._mutex:
            self._stats.queries += 1
            # Heat: a decayed count of queries a shard contributed results to.
            for first in np.unique((ids // SHARD_SPAN) * SHARD_SPAN).tolist():
                self._heat[first] = self._heat.get(first, 0.0) * 0.99 + 1.0
        return scores, ids

    @staticmethod
    def _search_one(index: IdMapIndex, query: np.ndarray, k: int,
                    subset: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if len(index) == 0:
            return np.empty(0, np.float32), np.empty(0, np.uint64)
        if subset is not None:
            try:
                scores, ids = index.search(query, k, allowlist=subset)
            except KeyError:
                # Ids without a vector yet (a file still being embedded): keep those present.
                present = subset[[index.contains(int(i)) for i in subset]]
                if len(present) == 0:
                    return np.empty(0, np.float32), np.empty(0, np.uint64)
                scores, ids = index.search(query, k, allowlist=present)
        else:
            scores, ids = index.search(query, k)
        return scores[0], ids[0]

    def stats(self) -> ShardStats:
        with self._mutex:
            s = self._stats
            listing = self.listing()
            return ShardStats(
                shards=len(listing),
                disk_bytes=sum(p.stat().st_size for p in listing.values() if p.exists()),
                resident=len(self._loaded),
                resident_bytes=sum(ld.nbytes for ld in self._loaded.values()),
                budget_bytes=self.budget_bytes,
                reads_per_query=s.reads_per_query,
                queries=s.queries,
                rebuilt=list(s.rebuilt),
                unreadable=list(s.unreadable),
            )
