"""Numbered schema migrations of `store.db`, applied in order on open.

Never edit a migration that has shipped; append a new one. `PRAGMA user_version`
records how many have been applied.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from semlith.errors import StoreFormatError


def pending(db: sqlite3.Connection, store: Path, version: int) -> int:
    """Migrations this semlith would apply to a catalog of format `version` at most;
    StoreFormatError for a newer store (`store` names it)."""
    applied = int(db.execute("PRAGMA user_version").fetchone()[0])
    if applied > len(MIGRATIONS):
        raise StoreFormatError(
            f"store {str(store)!r} was written by a newer semlith "
            f"({applied} migrations; this one knows {len(MIGRATIONS)}); upgrade semlith")
    left = len(MIGRATIONS) - applied
    if not left and applied:
        row = db.execute("SELECT value FROM meta WHERE key='format_version'").fetchone()
        fmt = int(row[0]) if row else version
        if fmt > version:
            raise StoreFormatError(
                f"store {str(store)!r} has format {fmt}, newer than the "
                f"format {version} this semlith reads; upgrade semlith")
        if fmt < version:
            return 1  # the format number itself is a writer's upgrade
    return left


def migrate(db: sqlite3.Connection, store: Path, version: int) -> None:
    """Apply the pending migrations and record format `version`, inside the caller's
    transaction; StoreFormatError for a newer store."""
    applied = db.execute("PRAGMA user_version").fetchone()[0]
    fmt = version
    if applied:
        row = db.execute("SELECT value FROM meta WHERE key='format_version'").fetchone()
        fmt = int(row[0]) if row else version
    if fmt > version or applied > len(MIGRATIONS):
        raise StoreFormatError(
            f"store {str(store)!r} has format {fmt}, newer than the "
            f"format {version} this semlith reads; upgrade semlith")
    for number in range(applied, len(MIGRATIONS)):
        for statement in _statements(MIGRATIONS[number]):
            db.execute(statement)
    if applied < len(MIGRATIONS):
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    if not applied:
        db.execute("INSERT INTO meta VALUES ('format_version', ?)", (str(fmt),))
        db.execute("INSERT INTO meta VALUES ('generation', '0')")
    elif fmt < version:
        # Readable after the migrations above; a format-1 store's files carry no
        # chunking fingerprint, so the next index run cuts them again.
        db.execute("UPDATE meta SET value=? WHERE key='format_version'", (str(version),))


def _statements(script: str) -> list[str]:
    """Split a migration into statements (CREATE TRIGGER bodies hold semicolons)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


MIGRATIONS: list[str] = [
    # 1: the catalog: files, chunks (+FTS5 kept in sync by triggers), symbols, vector trash.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        hash TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        indexed_at REAL NOT NULL DEFAULT 0,
        ext TEXT NOT NULL DEFAULT '',
        lang TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX files_hash ON files(hash);
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        file_id INTEGER NOT NULL REFERENCES files(id),
        ordinal INTEGER NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        kind TEXT NOT NULL DEFAULT '',
        symbol TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        idents TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX chunks_file ON chunks(file_id, ordinal);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, idents, content='chunks', content_rowid='id'
    );
    CREATE TABLE vector_trash (id INTEGER PRIMARY KEY);
    CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, idents) VALUES (new.id, new.text, new.idents);
    END;
    CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, idents)
            VALUES ('delete', old.id, old.text, old.idents);
        INSERT OR IGNORE INTO vector_trash(id) VALUES (old.id);
    END;
    CREATE TRIGGER chunks_au AFTER UPDATE OF text, idents ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, idents)
            VALUES ('delete', old.id, old.text, old.idents);
        INSERT INTO chunks_fts(rowid, text, idents) VALUES (new.id, new.text, new.idents);
    END;
    CREATE TABLE symbols (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        qualname TEXT NOT NULL,
        kind TEXT NOT NULL,
        file_id INTEGER NOT NULL REFERENCES files(id),
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        chunk_id INTEGER
    );
    CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
    CREATE INDEX symbols_file ON symbols(file_id);
    """,
    # 2: what the last walk skipped, with its reason (`semlith files --skipped`).
    """
    CREATE TABLE skipped (
        path TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL DEFAULT -1,
        mtime_ns INTEGER NOT NULL DEFAULT -1
    );
    """,
    # 3: a view of the FTS vocabulary: chunks per term, to drop near-universal terms.
    """
    CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
    """,
    # 4: definition-aware chunking: how each file was chunked (strategy, and the
    # fingerprint of its language's chunking, to re-cut it when that changes), signatures.
    """
    ALTER TABLE files ADD COLUMN chunker TEXT NOT NULL DEFAULT '';
    ALTER TABLE files ADD COLUMN chunking TEXT NOT NULL DEFAULT '';
    ALTER TABLE symbols ADD COLUMN signature TEXT NOT NULL DEFAULT '';
    CREATE INDEX symbols_qualname ON symbols(qualname COLLATE NOCASE);
    """,
    # 5: a contentless keyword index of Porter stems without per-chunk token counts.
    # FTS5's bm25 read each matching chunk's size from `chunks_fts_docsize`: ~1.3 µs a
    # matching chunk, ~0.3 µs without (docs/performance.md, "query"). Without sizes it
    # ranks as BM25 with no length normalisation (k1 = 0.3): chunks are size-capped
    # anyway. Stems let `registered` find `register` (measured: NDCG@10 +0.008).
    # The triggers of migration 1 stay: they name the table, and already pass the old
    # text to 'delete', as a contentless table needs.
    """
    DROP TABLE chunks_vocab;
    DROP TABLE chunks_fts;
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, idents, content='', columnsize=0, tokenize='porter unicode61');
    INSERT INTO chunks_fts(rowid, text, idents) SELECT id, text, idents FROM chunks;
    CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
    """,
    # 6: per file, how many credential-shaped strings were redacted (for `stats`) and the
    # secret rules it was read with (ingest/secrets.py), so that files read before a rule
    # changed are checked again, and only those.
    """
    ALTER TABLE files ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE files ADD COLUMN rules TEXT NOT NULL DEFAULT '';
    """,
    # 7: vector spaces (issue #14): one per embedding model (text, image), each with its
    # model, width and weights hash; each chunk belongs to one. A store from before holds
    # the text space only: its row comes from meta (a new store's row is written by
    # `Store.create`, after these run).
    """
    CREATE TABLE spaces (
        name TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        weights_sha256 TEXT NOT NULL DEFAULT ''
    );
    INSERT INTO spaces(name, model, dim)
        SELECT 'text', m.value, CAST(d.value AS INTEGER) FROM meta m, meta d
        WHERE m.key = 'model' AND d.key = 'dim';
    ALTER TABLE chunks ADD COLUMN space TEXT NOT NULL DEFAULT 'text';
    """,
    # 8: the code graph's edges (issue #22), per file and as written: calls, imports,
    # inheritance, containment, typed locals, and per file the edge extraction it was
    # made with (a fingerprint, so a store from before gets its edges on the next run
    # without re-embedding anything) and why it has none. Deleted with their file.
    # IF NOT EXISTS: a test rebuilds an older store by undoing only migration 7.
    """
    CREATE TABLE IF NOT EXISTS edge_files (
        file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
        fingerprint TEXT NOT NULL,
        package TEXT NOT NULL DEFAULT '',
        failed TEXT NOT NULL DEFAULT '',
        truncated INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS edge_calls (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        name TEXT NOT NULL,
        receiver TEXT NOT NULL,
        qualifier TEXT NOT NULL,
        caller TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS edge_calls_name ON edge_calls(name);
    CREATE INDEX IF NOT EXISTS edge_calls_file ON edge_calls(file_id, caller);
    CREATE TABLE IF NOT EXISTS edge_imports (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        module TEXT NOT NULL,
        name TEXT NOT NULL,
        alias TEXT NOT NULL,
        kind TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS edge_imports_file ON edge_imports(file_id);
    CREATE TABLE IF NOT EXISTS edge_inherits (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        child TEXT NOT NULL,
        parent TEXT NOT NULL,
        kind TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS edge_inherits_file ON edge_inherits(file_id);
    CREATE TABLE IF NOT EXISTS edge_contains (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        parent TEXT NOT NULL,
        child TEXT NOT NULL,
        kind TEXT NOT NULL,
        line INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS edge_contains_file ON edge_contains(file_id, child);
    CREATE TABLE IF NOT EXISTS edge_locals (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        name TEXT NOT NULL,
        type_name TEXT NOT NULL,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        field INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS edge_locals_file ON edge_locals(file_id);
    """,
    # 9: the code graph's module lookups on demand (issue #22): a question finds the
    # files an import names through these instead of loading every file first (40-80
    # ms on a 112k-chunk store). On expressions of the path (its folder with its slash,
    # its own name, its folder's own name), so a moved file needs no upkeep;
    # store/edges.py spells them the same way, which is what lets a query use them.
    """
    CREATE INDEX IF NOT EXISTS files_folder ON files(rtrim(path, replace(path, '/', '')));
    CREATE INDEX IF NOT EXISTS files_name
        ON files(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1));
    CREATE INDEX IF NOT EXISTS files_folder_name ON files(
        substr(rtrim(rtrim(path, replace(path, '/', '')), '/'),
               length(rtrim(rtrim(rtrim(path, replace(path, '/', '')), '/'),
                            replace(rtrim(rtrim(path, replace(path, '/', '')), '/'), '/', '')))
               + 1));
    CREATE INDEX IF NOT EXISTS edge_files_package ON edge_files(package);
    """,
]
