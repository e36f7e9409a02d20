"""The machine-wide vector cache: (model identity, exact text) -> its vector, in SQLite.

A store reuses only its own vectors, so a second clone, a worktree or a branch switched
back was embedded again in full (issue #25). This cache, in `SEMLITH_HOME/vectors/`, is
asked first by every store and run; semlith/embed/cached.py decides model identities.
One WAL database rather than append-only segments: SQLite serialises the daemon's and
CLI runs' writers, commits atomically (kill -9 loses at most the batch in flight) and
makes LRU eviction an indexed delete, for a few ms per 256 lookups against seconds to
embed them (measurements: docs/architecture.md, "The vector cache").

Trust: a row is returned only when its full key equals the one asked, its length is the
model's dimension and a 64-bit blake2b over key and vector matches: bytes changed on
disk are a miss, never a wrong vector. A file SQLite finds corrupt is replaced by the
next generation (`vectors-N.db`). Bound: when the live pages pass `max_bytes`, the least
recently used entries go, down to 90 % of it. Every failure is a miss or a dropped write,
logged and counted (`CacheInfo.errors`): the cache never fails an index run.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semlith.base.private import create_private_file, make_private_folder
from semlith.store.vector_cache_db import (
    CANTOPEN,
    GENERATION,
    SUFFIXES,
    Unusable,
    connect,
    file_name,
    is_corrupt,
    live_bytes,
    transaction,
)

log = logging.getLogger("semlith.vector_cache")

FOLDER = "vectors"  # under SEMLITH_HOME
REFRESH_S = 3600  # a hit rewrites its `used` stamp at most this often
EVICT_TO = 0.9  # eviction frees down to this share of the bound, so it runs rarely
LOOKUP_CHUNK = 500  # ids per SELECT, well under SQLite's 32,766 bound variables


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """What `stats` can show of the cache."""

    folder: Path
    entries: int
    bytes: int  # the database file's pages in use
    max_bytes: int
    models: int  # model identities that have entries
    errors: int  # lookups and writes that failed (answered as misses, or dropped)


def entry_key(identity: str, text: str) -> bytes:
    """The 32-byte key of `text` as embedded by the model `identity`."""
    model = identity.encode("utf-8", "surrogatepass")
    # Length-prefixed, so no (identity, text) pair can spell another one's bytes.
    digest = hashlib.sha256(len(model).to_bytes(4, "big") + model)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


def _row_id(key: bytes) -> int:
    return int.from_bytes(key[:8], "big", signed=True)


def _digest(key: bytes, blob: bytes) -> int:
    """64 bits over key and vector: a changed byte passes it once in 2^64."""
    return int.from_bytes(hashlib.blake2b(key + blob, digest_size=8).digest(), "big",
                          signed=True)


class VectorCache:
    """The cache in `folder`, bounded to `max_bytes`; thread-safe, opened on first use.

    Several processes may use one folder at once. `clock` gives the `used` stamps
    (seconds); tests pass a fake one.
    """

    def __init__(self, folder: Path, max_bytes: int, *,
                 clock: Callable[[], float] = time.time) -> None:
        if max_bytes <= 0:
            raise ValueError(f"a vector cache needs a positive bound, got {max_bytes!r}")
        self.folder = folder
        self.max_bytes = max_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._generation = 0
        self._models: dict[str, int] = {}
        self._off: str | None = None  # why this process does not use the cache
        self._warned: set[str] = set()
        self.errors = 0

    @property
    def path(self) -> Path:
        """The database file in use (generation 0 before the first open)."""
        return self.folder / file_name(self._generation)

    # -- reading and writing ---------------------------------------------------------------

    def get(self, keys: Sequence[bytes], dim: int) -> list[np.ndarray | None]:
        """The cached vector of each key, or None: absent, or failed its check."""
        found: list[np.ndarray | None] = [None] * len(keys)
        if not keys:
            return found
        with self._lock:
            conn = self._connection()
            if conn is None:
                return found
            try:
                stale, broken = self._lookup(conn, keys, dim, found)
            except sqlite3.Error as exc:
                self._failed("lookup", exc)
                return [None] * len(keys)
            if stale or broken:
                self._touch(conn, stale, broken)
        return found

    def _lookup(self, conn: sqlite3.Connection, keys: Sequence[bytes], dim: int,
                found: list[np.ndarray | None]) -> tuple[list[int], list[int]]:
        """Fill `found`; returns (ids whose stamp is old, ids that failed their check)."""
        wanted: dict[int, list[int]] = {}
        for i, key in enumerate(keys):
            wanted.setdefault(_row_id(key), []).append(i)
        ids = list(wanted)
        cutoff = int(self._clock()) - REFRESH_S
        stale: list[int] = []
        broken: list[int] = []
        for start in range(0, len(ids), LOOKUP_CHUNK):
            part = ids[start:start + LOOKUP_CHUNK]
            rows = conn.execute("SELECT id, key, vector, digest, used FROM vectors WHERE id "
                                f"IN ({','.join('?' * len(part))})", part).fetchall()
            for row_id, key, blob, digest, used in rows:
                hits = [i for i in wanted[row_id] if keys[i] == key]
                if not hits:
                    continue  # another text sharing the first 8 bytes: a miss
                if len(blob) != dim * 4 or _digest(key, blob) != digest:
                    broken.append(row_id)
                    continue
                vector = np.frombuffer(blob, np.float32)
                for i in hits:
                    found[i] = vector
                if used < cutoff:
                    stale.append(row_id)
        if broken:
            log.warning("vector cache %s: %d entries failed their check and were dropped",
                        self.path, len(broken))
        return stale, broken

    def _touch(self, conn: sqlite3.Connection, stale: list[int], broken: list[int]) -> None:
        """Stamp hits as used now and drop rows that failed their check."""
        now = int(self._clock())
        try:
            with transaction(conn):
                conn.executemany("UPDATE vectors SET used=? WHERE id=?",
                                 [(now, row_id) for row_id in stale])
                conn.executemany("DELETE FROM vectors WHERE id=?", [(i,) for i in broken])
        except sqlite3.Error as exc:  # the hits stand; their stamps wait for the next one
            self._failed("stamp", exc)

    def put(self, identity: str, keys: Sequence[bytes], vectors: np.ndarray) -> bool:
        """Store `vectors[i]` under `keys[i]` for model `identity`; False if dropped."""
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys for {len(vectors)} vectors")
        if not keys:
            return True
        rows = np.ascontiguousarray(vectors, dtype=np.float32)
        now = int(self._clock())
        with self._lock:
            conn = self._connection()
            if conn is None:
                return False
            try:
                with transaction(conn):
                    model = self._model_id(conn, identity)
                    conn.executemany(
                        "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?, ?)",
                        [(_row_id(k), model, k, blob, _digest(k, blob), now)
                         for k, blob in ((k, r.tobytes()) for k, r in zip(keys, rows,
                                                                         strict=True))])
            except sqlite3.Error as exc:
                self._failed("write", exc)
                return False
            try:
                self._evict(conn)
            except sqlite3.Error as exc:
                self._failed("eviction", exc)
        return True

    def _model_id(self, conn: sqlite3.Connection, identity: str) -> int:
        known = self._models.get(identity)
        if known is None:
            conn.execute("INSERT OR IGNORE INTO models (identity) VALUES (?)", (identity,))
            known = int(conn.execute("SELECT id FROM models WHERE identity=?",
                                     (identity,)).fetchone()[0])
            self._models[identity] = known
        return known

    # -- the bound ---------------------------------------------------------------------------

    def _evict(self, conn: sqlite3.Connection) -> int:
        """Delete least recently used entries while the live pages exceed the bound."""
        evicted = 0
        for _ in range(3):  # the per-entry size is an estimate; a second pass settles it
            if live_bytes(conn) <= self.max_bytes:  # the common case: three header reads
                break
            with transaction(conn):  # inside it, a concurrent eviction is already counted
                size = live_bytes(conn)
                entries = int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
                if size <= self.max_bytes or not entries:
                    break
                count = min(entries, math.ceil(
                    (size - EVICT_TO * self.max_bytes) / (size / entries)))
                conn.execute("DELETE FROM vectors WHERE id IN "
                             "(SELECT id FROM vectors ORDER BY used LIMIT ?)", (count,))
            # Its own statement: Python's execute() frees one page per call here.
            conn.executescript("PRAGMA incremental_vacuum;")
            evicted += count
        if evicted:
            log.debug("vector cache %s: evicted %d entries", self.path, evicted)
        return evicted

    def info(self) -> CacheInfo:
        """Entries, size and errors now (zeros when the cache cannot be opened)."""
        with self._lock:
            conn = self._connection()
            if conn is not None:
                try:
                    entries = int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
                    models = int(conn.execute(
                        "SELECT count(DISTINCT model) FROM vectors").fetchone()[0])
                    return CacheInfo(self.folder, entries, live_bytes(conn), self.max_bytes,
                                     models, self.errors)
                except sqlite3.Error as exc:
                    self._failed("stats", exc)
            return CacheInfo(self.folder, 0, 0, self.max_bytes, 0, self.errors)

    # -- files -------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and self._off is None:
            try:
                self._conn = self._open()
            except (sqlite3.Error, OSError, Unusable) as exc:
                self._off = str(exc)
                self.errors += 1
                log.warning("vector cache in %s is off for this process: %s",
                            self.folder, exc)
        return self._conn

    def _open(self) -> sqlite3.Connection:
        make_private_folder(self.folder)
        for _ in range(5):  # another process may replace the file between list and open
            generation = self._current() or self._new_generation(0)
            try:
                conn = connect(self.folder / file_name(generation))
            except sqlite3.Error as exc:
                if getattr(exc, "sqlite_errorcode", None) == CANTOPEN:
                    continue  # replaced since it was listed: list again
                if not is_corrupt(exc):
                    raise
                self._replace(generation, exc)
                continue
            self._generation, self._models = generation, {}
            self._remove_older(generation)
            return conn
        raise OSError(f"the vector cache in {str(self.folder)!r} kept changing while opened")

    def _generations(self) -> list[int]:
        found = (GENERATION.fullmatch(p.name) for p in self.folder.iterdir())
        return sorted(int(m.group(1)) for m in found if m)

    def _current(self) -> int:
        generations = self._generations()
        return generations[-1] if generations else 0

    def _new_generation(self, after: int) -> int:
        """Create generation after+1 (a no-op when another process just did)."""
        create_private_file(self.folder / file_name(after + 1))
        return after + 1

    def _replace(self, broken: int, why: sqlite3.Error) -> None:
        """Start the generation after `broken` unless another process already has."""
        self.errors += 1
        log.warning("vector cache %s is corrupt (%s); starting a new one",
                    self.folder / file_name(broken), why)
        if self._current() <= broken:
            self._remove_older(self._new_generation(broken))

    def _remove_older(self, generation: int) -> None:
        """Delete the files of replaced generations; one still open elsewhere stays
        readable there (POSIX) or is left for a later open (Windows refuses)."""
        for old in self._generations():
            if old < generation:
                for suffix in SUFFIXES:
                    with contextlib.suppress(OSError):
                        (self.folder / (file_name(old) + suffix)).unlink(missing_ok=True)

    def _failed(self, what: str, exc: sqlite3.Error) -> None:
        if is_corrupt(exc):
            self.close_connection()
            self._replace(self._generation, exc)
            return
        self.errors += 1
        level = logging.DEBUG if what in self._warned else logging.WARNING
        self._warned.add(what)
        log.log(level, "vector cache %s: %s failed (%s); answered as a miss",
                self.path, what, exc)

    def close_connection(self) -> None:
        """Close the database (the next use opens it again)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def close(self) -> None:
        with self._lock:
            self.close_connection()
