"""The SQLite catalog of a store: meta, files, chunks (+ FTS5), symbols, skip records.

WAL mode, one connection per thread (store/connections.py: readers run concurrently
with the one writer), numbered migrations applied on open (store/migrations.py), rows
as values (store/rows.py). Chunk ids are AUTOINCREMENT: an id is the vector
id in the shards and the sidecar and is never reused, even after its chunk is deleted.
Deleting a chunk puts its id into `vector_trash` (a trigger, same transaction) so the
store removes its vector even if the process dies between the two steps.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semlith.base.text import keyword_words
from semlith.errors import StoreFormatError, StoreNotFound
from semlith.store.connections import ThreadConnections
from semlith.store.migrations import migrate, pending
from semlith.store.rows import ChunkRow, FileRecord, SkipRecord, SpaceRecord
from semlith.types import ChunkPlace, ChunkRecord

if TYPE_CHECKING:  # the vector bookkeeping's only: a reader of text imports no numpy
    import numpy as np

# 2: chunks cut at definitions (symbols filled); a format-1 store is re-chunked.
# 3: the keyword index is contentless, without token counts (migration 5, on open).
# 4: vector spaces: a `spaces` table and each chunk's space (migration 7, on open).
FORMAT_VERSION = 4
CATALOG_NAME = "store.db"


def fts_query(text: str) -> str:
    """User text -> an FTS5 query that cannot be a syntax error: quoted words joined by OR.

    Quotes, NEAR, `*`, `-`, `^`, `:` and parentheses lose their FTS5 meaning; every run of
    word characters becomes one quoted term. Empty when the text holds no word.
    """
    return " OR ".join(f'"{w}"' for w in keyword_words(text))


class Catalog(ThreadConnections):
    """store.db. `Catalog.open(path, create=True)` creates it; otherwise it must exist."""

    @classmethod
    def open(cls, path: Path, *, create: bool = False, readonly: bool = False) -> Catalog:
        """Open (or create) the catalog. A writer applies pending migrations; a reader
        (`readonly`) writes nothing, not even a migration, and refuses a catalog that
        needs one (`pending_migrations` tells a caller beforehand)."""
        if not create and not path.exists():
            raise StoreNotFound(f"no store catalog at {str(path)!r}")
        catalog = cls(path, readonly=readonly)
        if readonly:
            pending = catalog.pending_migrations()
            if pending:
                catalog.close()
                raise StoreFormatError(
                    f"store {str(path.parent)!r} needs an upgrade ({pending} migrations); "
                    "`semlith index` on it (or a running daemon) applies it")
        else:
            catalog._migrate()
        return catalog

    def pending_migrations(self) -> int:
        """Migrations this version would apply; StoreFormatError for a newer store."""
        return pending(self.db, self.path.parent, FORMAT_VERSION)

    def _migrate(self) -> None:
        with self.transaction() as db:
            migrate(db, self.path.parent, FORMAT_VERSION)

    # -- meta ----------------------------------------------------------------------------

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_meta(self, key: str, value: str | int | float) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def generation(self) -> int:
        return int(self.meta("generation", "0") or 0)

    # -- files ---------------------------------------------------------------------------

    def file(self, path: str) -> FileRecord | None:
        row = self.db.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE path=?",
                              (path,)).fetchone()
        return FileRecord(*row) if row else None

    def files(self) -> Iterator[FileRecord]:
        for row in self.db.execute(f"SELECT {_FILE_COLUMNS} FROM files ORDER BY path"):
            yield FileRecord(*row)

    def counts(self) -> dict[str, int]:
        db = self.db
        return {
            "files": db.execute("SELECT COUNT(*) FROM files").fetchone()[0],
            "pending_files": db.execute("SELECT COUNT(*) FROM files WHERE hash=''").fetchone()[0],
            "chunks": db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            # chunks of pending files: keyword-searchable, their vectors not committed yet
            "pending_chunks": db.execute(
                "SELECT COUNT(*) FROM chunks WHERE file_id IN "
                "(SELECT id FROM files WHERE hash='')").fetchone()[0],
            "symbols": db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
        }

    def withheld(self) -> dict[str, int]:
        """What the secret rules kept out: files withheld whole, strings redacted (and in
        how many files)."""
        db = self.db
        strings, files = db.execute(
            "SELECT COALESCE(SUM(redacted), 0), COUNT(*) FROM files WHERE redacted > 0"
        ).fetchone()
        return {
            "secret_files": db.execute(
                "SELECT COUNT(*) FROM skipped WHERE reason='secret'").fetchone()[0],
            "redacted_strings": int(strings),
            "redacted_files": int(files),
        }

    def document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many chunks hold each FTS term (lowercase tokens; absent terms are 0)."""
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        found = dict(self.db.execute(
            f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", list(terms)))
        return {t: int(found.get(t, 0)) for t in terms}

    def has_chunks(self, space: str = "text") -> bool:
        return self.db.execute("SELECT 1 FROM chunks WHERE space=? LIMIT 1",
                               (space,)).fetchone() is not None

    def chunk_count(self) -> int:
        """The number of chunks at the last checkpoint (kept in meta: COUNT(*) is O(n))."""
        return int(self.meta("chunks", "0") or 0)

    def put_file(self, db: sqlite3.Connection, path: str, *, size: int, mtime_ns: int,
                 ext: str = "", lang: str = "", chunker: str = "", chunking: str = "",
                 redacted: int = 0, rules: str = "") -> int:
        """Insert or update a file row with an empty hash (its vectors are not durable yet)."""
        db.execute(
            "INSERT INTO files(path, hash, size, mtime_ns, ext, lang, chunker, chunking,"
            " redacted, rules) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(path) DO UPDATE SET hash='', size=excluded.size,"
            " mtime_ns=excluded.mtime_ns, ext=excluded.ext, lang=excluded.lang,"
            " chunker=excluded.chunker, chunking=excluded.chunking,"
            " redacted=excluded.redacted, rules=excluded.rules",
            (path, size, mtime_ns, ext, lang, chunker, chunking, redacted, rules))
        return int(db.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()[0])

    def set_rules(self, db: sqlite3.Connection, file_ids: Iterable[int], rules: str) -> None:
        """Record that these files were checked with the secret rules `rules`."""
        db.executemany("UPDATE files SET rules=? WHERE id=?", [(rules, i) for i in file_ids])

    def replace_chunks(self, db: sqlite3.Connection, file_id: int,
                       rows: Sequence[ChunkRow]) -> list[int]:
        """Delete a file's chunks (their ids go to the trash) and insert `rows`; new ids."""
        db.execute("DELETE FROM symbols WHERE file_id=?", (file_id,))
        db.execute("DELETE FROM chunks WHERE file_id=?", (file_id,))
        ids = []
        for ordinal, row in enumerate(rows):
            cur = db.execute(
                "INSERT INTO chunks(file_id, ordinal, start_line, end_line, kind, symbol, text,"
                " idents, space) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (file_id, ordinal, row.start_line, row.end_line, row.kind, row.symbol, row.text,
                 row.idents, row.space))
            ids.append(int(cur.lastrowid or 0))
        return ids

    def add_symbols(self, db: sqlite3.Connection, file_id: int,
                    rows: Iterable[tuple[str, str, str, int, int, int | None, str]]) -> None:
        """(name, qualname, kind, start_line, end_line, chunk id, signature) per definition."""
        db.executemany(
            "INSERT INTO symbols(name, qualname, kind, file_id, start_line, end_line, chunk_id,"
            " signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(n, q, k, file_id, s, e, c, sig) for n, q, k, s, e, c, sig in rows])

    def file_chunker(self, file_id: int) -> tuple[str, str]:
        """(strategy, chunking fingerprint) a file was cut with."""
        row = self.db.execute("SELECT chunker, chunking FROM files WHERE id=?",
                              (file_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else ("", "")

    def copy_symbols(self, db: sqlite3.Connection, source: int, target: int,
                     chunk_map: dict[int, int]) -> None:
        """Give file `target` the symbols of `source` (a copy), chunk ids mapped over."""
        rows = db.execute("SELECT name, qualname, kind, start_line, end_line, chunk_id,"
                          " signature FROM symbols WHERE file_id=?", (source,)).fetchall()
        self.add_symbols(db, target, [(n, q, k, s, e, chunk_map.get(c), sig)
                                      for n, q, k, s, e, c, sig in rows])

    def chunkers(self) -> dict[str, int]:
        """How many files each chunking strategy handled ('lines (why)' = a fallback)."""
        return {str(r[0]): int(r[1]) for r in self.db.execute(
            "SELECT chunker, COUNT(*) FROM files GROUP BY chunker ORDER BY 2 DESC")}

    def cut_as_text(self) -> dict[str, str]:
        """The files cut into line windows for a reason (a code file not parsed, or whose
        parse failed: chunker 'lines (why)'), by path, with the reason."""
        return {str(path): str(chunker)[len("lines ("):-1] for path, chunker in self.db.execute(
            "SELECT path, chunker FROM files WHERE chunker LIKE 'lines (%)' ORDER BY path")}

    def commit_hashes(self, db: sqlite3.Connection, done: Iterable[tuple[int, str]]) -> None:
        """Record content hashes: only call once the files' vectors are durable."""
        now = time.time()
        db.executemany("UPDATE files SET hash=?, indexed_at=? WHERE id=?",
                       [(digest, now, file_id) for file_id, digest in done])

    def delete_files(self, db: sqlite3.Connection, paths: Iterable[str]) -> int:
        removed = 0
        for path in paths:
            row = db.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
            if row is None:
                continue
            db.execute("DELETE FROM symbols WHERE file_id=?", (row[0],))
            db.execute("DELETE FROM chunks WHERE file_id=?", (row[0],))
            db.execute("DELETE FROM files WHERE id=?", (row[0],))
            removed += 1
        return removed

    def reset_files_of_chunks(self, db: sqlite3.Connection, chunk_ids: Sequence[int]) -> None:
        """Mark the files owning these chunks pending again (their vectors were lost)."""
        for start in range(0, len(chunk_ids), 500):
            part = [int(i) for i in chunk_ids[start : start + 500]]
            marks = ",".join("?" * len(part))
            db.execute(f"UPDATE files SET hash='' WHERE id IN (SELECT file_id FROM chunks"
                       f" WHERE id IN ({marks}))", part)

    def touch_file(self, db: sqlite3.Connection, file_id: int, size: int, mtime_ns: int) -> None:
        """Record a new size/mtime for a file whose content hash did not change."""
        db.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?", (size, mtime_ns, file_id))

    def move_file(self, db: sqlite3.Connection, file_id: int, new_path: str, *, size: int,
                  mtime_ns: int, ext: str, lang: str) -> None:
        """Rename a file row in place: its chunks and vectors stay as they are."""
        db.execute("DELETE FROM files WHERE path=? AND id != ?", (new_path, file_id))
        db.execute("UPDATE files SET path=?, size=?, mtime_ns=?, ext=?, lang=? WHERE id=?",
                   (new_path, size, mtime_ns, ext, lang, file_id))

    def chunk_rows(self, file_id: int) -> list[tuple[int, ChunkRow]]:
        """(id, row) of a file's chunks in order, for copying them to another path."""
        return [(r[0], ChunkRow(*r[1:])) for r in self.db.execute(
            "SELECT id, start_line, end_line, text, kind, symbol, idents, space FROM chunks"
            " WHERE file_id=? ORDER BY ordinal", (file_id,))]

    def replace_skipped(self, db: sqlite3.Connection, scope: str,
                        rows: Iterable[SkipRecord]) -> None:
        """Forget skip records under `scope` ('' = everything) and record `rows`."""
        if scope:
            db.execute("DELETE FROM skipped WHERE path = ? OR path GLOB ?",
                       (scope, glob_escape(scope.rstrip("/")) + "/*"))
        else:
            db.execute("DELETE FROM skipped")
        self.add_skipped(db, rows)

    def add_skipped(self, db: sqlite3.Connection, rows: Iterable[SkipRecord]) -> None:
        db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?, ?, ?)",
                       [(r.path, r.reason, r.detail, r.size, r.mtime_ns) for r in rows])

    def clear_skipped(self, db: sqlite3.Connection, path: str) -> None:
        db.execute("DELETE FROM skipped WHERE path=?", (path,))

    def skipped(self, scope: str = "") -> dict[str, SkipRecord]:
        """Skip records by path (under `scope`, '' = all), in path order."""
        rows = self.db.execute(
            "SELECT path, reason, detail, size, mtime_ns FROM skipped"
            " WHERE ? = '' OR path = ? OR path GLOB ? ORDER BY path",
            (scope, scope, glob_escape(scope.rstrip("/")) + "/*"))
        return {r[0]: SkipRecord(*r) for r in rows}

    def bump_generation(self, db: sqlite3.Connection) -> int:
        """Count the chunks into meta and advance the generation readers watch."""
        db.execute("INSERT OR REPLACE INTO meta SELECT 'chunks', COUNT(*) FROM chunks")
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
        return int(db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])

    # -- vectors bookkeeping -------------------------------------------------------------

    def trash(self) -> np.ndarray:
        import numpy as np

        rows = self.db.execute("SELECT id FROM vector_trash ORDER BY id").fetchall()
        return np.array([r[0] for r in rows], dtype=np.uint64)

    def clear_trash(self, db: sqlite3.Connection, ids: np.ndarray) -> None:
        db.executemany("DELETE FROM vector_trash WHERE id=?", [(int(i),) for i in ids])

    def vector_ids(self, space: str = "text") -> np.ndarray:
        """Ids of every chunk of `space` whose file is committed (writer maintenance only:
        O(chunks))."""
        import numpy as np

        cur = self.db.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id=c.file_id WHERE f.hash != ''"
            " AND c.space=? ORDER BY c.id", (space,))
        return np.fromiter((r[0] for r in cur), dtype=np.uint64)

    def chunks_upto(self, last: int, space: str = "text") -> int:
        """How many chunks of `space` exist with an id up to `last`."""
        row = self.db.execute("SELECT COUNT(*) FROM chunks WHERE id <= ? AND space=?",
                              (last, space)).fetchone()
        return int(row[0])

    def chunk_ids(self, space: str = "text") -> Iterator[int]:
        """Every chunk id of `space`, increasing."""
        return (r[0] for r in self.db.execute(
            "SELECT id FROM chunks WHERE space=? ORDER BY id", (space,)))

    # -- spaces --------------------------------------------------------------------------

    def spaces(self) -> dict[str, SpaceRecord]:
        return {r[0]: SpaceRecord(r[0], r[1], int(r[2]), r[3]) for r in self.db.execute(
            "SELECT name, model, dim, weights_sha256 FROM spaces ORDER BY name")}

    def add_space(self, db: sqlite3.Connection, space: SpaceRecord) -> None:
        db.execute("INSERT INTO spaces VALUES (?, ?, ?, ?)",
                   (space.name, space.model, space.dim, space.weights_sha256))

    def file_chunk_ids(self, file_id: int) -> list[int]:
        return [r[0] for r in self.db.execute(
            "SELECT id FROM chunks WHERE file_id=? ORDER BY ordinal", (file_id,))]

    # -- reading chunks ------------------------------------------------------------------

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        """The chunks among `ids` that exist, by id (one query, however many ids)."""
        return {row[0]: ChunkRecord(*row) for row in self._by_id(
            "c.id, f.path, c.ordinal, c.start_line, c.end_line, c.kind, c.symbol, c.text",
            ids)}

    def places(self, ids: Sequence[int]) -> dict[int, ChunkPlace]:
        """Where the chunks among `ids` that exist are, by id (their text unread)."""
        return {row[0]: ChunkPlace(*row)
                for row in self._by_id("c.id, f.path, c.start_line, c.end_line, c.kind", ids)}

    def _by_id(self, columns: str, ids: Sequence[int]) -> list[tuple[Any, ...]]:
        if not len(ids):
            return []
        marks = ",".join("?" * len(ids))
        return self.db.execute(
            f"SELECT {columns} FROM chunks c JOIN files f ON f.id=c.file_id"
            f" WHERE c.id IN ({marks})", [int(i) for i in ids]).fetchall()

    def keyword(self, text: str, k: int) -> list[tuple[int, float]]:
        """FTS5 bm25 top-`k` (chunk id, score: higher is better) for free user text."""
        query = fts_query(text)
        return self.match(query, k) if query else []

    def match(self, fts: str, k: int) -> list[tuple[int, float]]:
        """The bm25 top-`k` (chunk id, score: higher is better) of an FTS5 query."""
        rows = self.db.execute(
            "SELECT rowid, -bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?"
            " ORDER BY bm25(chunks_fts) LIMIT ?", (fts, k)).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]


_FILE_COLUMNS = ("id, path, hash, size, mtime_ns, indexed_at, ext, lang, chunking, redacted,"
                 " rules")


def like_escape(text: str) -> str:
    """`text` matching itself in a LIKE pattern with ESCAPE '\\'."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def glob_escape(text: str) -> str:
    """Make `text` match itself literally inside a SQLite GLOB pattern."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
