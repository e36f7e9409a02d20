"""One SQLite file's connections: one per thread, closed when its thread ends.

WAL mode for a writer, `query_only` for a reader (which then never waits on the
writer). A daemon's worker threads come and go; each thread's connection is owned by a
`_Lease` in that thread's locals and closed when they are freed (issue #26: a
connection per thread per store leaked until the daemon ran out of descriptors).
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ThreadConnections:
    """The connections to the database at `path`, one per thread that uses it."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self._local = threading.local()
        # Every open connection, held weakly: a thread's `_Lease` (in `_local`) owns its
        # connection and closes it when the thread ends and its locals are freed.
        self._leases: weakref.WeakSet[_Lease] = weakref.WeakSet()
        self._all_lock = threading.Lock()

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; use `transaction()` to group writes)."""
        lease: _Lease | None = getattr(self._local, "lease", None)
        if lease is None:
            lease = _Lease(self._connect())
            self._local.lease = lease
            with self._all_lock:
                self._leases.add(lease)
        return lease.conn

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=30.0)
        if self.readonly:  # a reader never writes, so it never waits on the writer
            conn.execute("PRAGMA query_only=ON")
        else:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def connections(self) -> int:
        """How many connections are open now (one per live thread that has read)."""
        with self._all_lock:
            return len(self._leases)

    def close(self) -> None:
        with self._all_lock:
            for lease in list(self._leases):
                lease.close()
            self._leases = weakref.WeakSet()
        self._local = threading.local()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on error."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


class _Lease:
    """One thread's connection: closed when the thread's locals are freed (the thread
    ended) or when its `ThreadConnections` closes, whichever comes first."""

    __slots__ = ("__weakref__", "_done", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._done = weakref.finalize(self, conn.close)

    def close(self) -> None:
        self._done()
