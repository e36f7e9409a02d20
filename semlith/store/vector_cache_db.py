"""One generation of the vector cache's database (store/vector_cache.py): its file
name, how it is opened and tuned, its migrations and transactions, its size.

A file SQLite finds corrupt is replaced by the next generation, `vectors-N.db`; the
cache decides when (`VectorCache._replace`), this module what a generation's file is.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from semlith.base.private import tighten

# 1,879 bytes per 384-wide entry at 8 KiB pages, 2,301 at 4 KiB (rows of 1.6 KB pack
# badly into 4 KiB pages), 1,905 at 16 KiB; 8 KiB also looked up fastest (measured).
PAGE_SIZE = 8192
BUSY_S = 10.0  # a write waits this long for another process's write (each takes ~50 ms)
CANTOPEN = 14  # SQLITE_CANTOPEN
_CORRUPT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
GENERATION = re.compile(r"vectors-(\d+)\.db")  # a generation's file name
SUFFIXES = ("", "-wal", "-shm")  # the files of one generation

# Numbered migrations, applied on open; never edit one that has shipped.
MIGRATIONS: list[tuple[str, ...]] = [
    ("CREATE TABLE models (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE)",
     # id: the key's first 8 bytes, so a lookup is one rowid search, no second index
     "CREATE TABLE vectors (id INTEGER PRIMARY KEY, model INTEGER NOT NULL, "
     "key BLOB NOT NULL, vector BLOB NOT NULL, digest INTEGER NOT NULL, "
     "used INTEGER NOT NULL)",
     "CREATE INDEX vectors_used ON vectors (used)"),
]


class Unusable(Exception):
    """The cache file cannot be used by this version (written by a newer semlith)."""


def file_name(generation: int) -> str:
    return f"vectors-{generation}.db"


def is_corrupt(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) in _CORRUPT


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # a corrupt file may refuse this too
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def connect(path: Path) -> sqlite3.Connection:
    """An open, migrated connection to `path`; closed again when anything fails."""
    # mode=rw: never create a file here, so a generation deleted after it was listed is
    # CANTOPEN (list again), not a stray empty database under a dead name.
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True,
                           isolation_level=None, check_same_thread=False, timeout=BUSY_S)
    try:
        for suffix in SUFFIXES:
            tighten(path.with_name(path.name + suffix))
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # these two act on a new file only
        conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # so that eviction shrinks the file
        conn.execute("PRAGMA journal_mode=WAL")  # readers never wait; -wal/-shm get 0600
        conn.execute("PRAGMA synchronous=NORMAL")  # kill -9 loses nothing committed
        _migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        applied = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if applied > len(MIGRATIONS):
            raise Unusable(f"written by a newer semlith ({applied} migrations; this one "
                           f"knows {len(MIGRATIONS)})")
        for number in range(applied, len(MIGRATIONS)):
            for statement in MIGRATIONS[number]:
                conn.execute(statement)
        if applied < len(MIGRATIONS):
            conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")


def live_bytes(conn: sqlite3.Connection) -> int:
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    return (pages - free) * int(conn.execute("PRAGMA page_size").fetchone()[0])
