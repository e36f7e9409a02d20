"""The SQLite catalog: migrations, format refusal, FTS5 kept in sync, safe FTS queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semlith.errors import StoreFormatError, StoreNotFound
from semlith.store.catalog import FORMAT_VERSION, Catalog, ChunkRow, fts_query
from semlith.store.migrations import MIGRATIONS

NASTY_QUERIES = [
    '"unbalanced quote', "NEAR(a b", "foo*", "-bar", "a AND OR NOT b", "(((", ")", "col:value",
    "^start", "a + b", "'single'", "", "   ", "***", '"" ""', "NEAR", "AND", "{x y}", "a:b:c",
    "\x00null", "emoji 🚀 rocket", "Ünïcödé wörds", "x" * 5000,
]


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    cat = Catalog.open(tmp_path / "store.db", create=True)
    with cat.transaction() as db:
        file_id = cat.put_file(db, "src/app.py", size=10, mtime_ns=1)
        cat.replace_chunks(db, file_id, [
            ChunkRow(1, 5, "def parse_args(argv): return argv", idents="parse args"),
            ChunkRow(6, 9, "class RetryPolicy: backoff with jitter", idents="retry policy"),
        ])
    return cat


def test_migrations_applied_and_wal(catalog: Catalog) -> None:
    db = catalog.db
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert catalog.meta("format_version") == str(FORMAT_VERSION)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"meta", "files", "chunks", "chunks_fts", "symbols", "vector_trash"} <= tables


def test_reopen_does_not_reapply(catalog: Catalog) -> None:
    catalog.close()
    again = Catalog.open(catalog.path)
    assert again.counts()["chunks"] == 2


def test_missing_catalog_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFound):
        Catalog.open(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()


def test_newer_format_is_refused_naming_both(catalog: Catalog) -> None:
    catalog.set_meta("format_version", FORMAT_VERSION + 7)
    catalog.close()
    with pytest.raises(StoreFormatError) as info:
        Catalog.open(catalog.path)
    assert f"format {FORMAT_VERSION + 7}" in str(info.value)
    assert f"format {FORMAT_VERSION} " in str(info.value)


def test_newer_schema_is_refused(catalog: Catalog) -> None:
    catalog.db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    catalog.close()
    with pytest.raises(StoreFormatError):
        Catalog.open(catalog.path)


def test_keyword_finds_and_fts_follows_deletes(catalog: Catalog) -> None:
    hits = catalog.keyword("retry backoff", 5)
    assert [catalog.chunks([i])[i].start_line for i, _ in hits] == [6]
    assert catalog.keyword("parse args", 5)  # through the identifier column
    with catalog.transaction() as db:
        catalog.replace_chunks(db, 1, [ChunkRow(1, 2, "something else entirely")])
    assert catalog.keyword("retry backoff", 5) == []
    assert catalog.keyword("entirely", 5)
    # FTS5 integrity: the index is consistent after the deletes above.
    catalog.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")


def test_a_store_from_before_the_contentless_index_is_upgraded(tmp_path: Path) -> None:
    """Migration 5 rebuilds the keyword index of an existing store, which stays in step."""
    path = tmp_path / "store.db"
    old = sqlite3.connect(path)
    for script in MIGRATIONS[:4]:
        old.executescript(script)
    old.executescript(
        "PRAGMA user_version = 4;"
        "INSERT INTO meta VALUES ('format_version', '2'), ('generation', '0');"
        "INSERT INTO files(id, path, hash) VALUES (1, 'a.py', 'h');"
        "INSERT INTO chunks(file_id, ordinal, start_line, end_line, text, idents) VALUES"
        " (1, 0, 1, 3, 'retry with exponential backoff', ''),"
        " (1, 1, 4, 6, 'def parseArgs(argv)', 'parse args');")
    old.close()
    catalog = Catalog.open(path)
    options = catalog.db.execute(
        "SELECT sql FROM sqlite_master WHERE name='chunks_fts'").fetchone()[0]
    assert "content=''" in options and "columnsize=0" in options and "porter" in options
    assert catalog.meta("format_version") == str(FORMAT_VERSION)
    assert [catalog.chunks([i])[i].start_line for i, _ in catalog.keyword("backoff", 5)] == [1]
    # Porter stems: `retries` finds `retry`; the vocabulary holds stems.
    assert [catalog.chunks([i])[i].start_line for i, _ in catalog.keyword("retries", 5)] == [1]
    assert catalog.keyword("parse", 5) and catalog.document_counts(["retri"]) == {"retri": 1}
    with catalog.transaction() as db:
        catalog.replace_chunks(db, 1, [ChunkRow(1, 2, "nothing in common")])
    assert catalog.keyword("backoff", 5) == [] and catalog.keyword("parse", 5) == []
    assert catalog.document_counts(["retri", "common"]) == {"retri": 0, "common": 1}
    catalog.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")


def test_ids_are_never_reused_and_deleted_ids_are_trashed(catalog: Catalog) -> None:
    first = catalog.file_chunk_ids(1)
    with catalog.transaction() as db:
        catalog.delete_files(db, ["src/app.py"])
        file_id = catalog.put_file(db, "src/app.py", size=1, mtime_ns=2)
        again = catalog.replace_chunks(db, file_id, [ChunkRow(1, 1, "x"), ChunkRow(2, 2, "y")])
    assert min(again) > max(first)
    assert sorted(catalog.trash().tolist()) == sorted(first)


def test_hash_stays_empty_until_committed(catalog: Catalog) -> None:
    assert catalog.file("src/app.py").hash == ""  # type: ignore[union-attr]
    with catalog.transaction() as db:
        catalog.commit_hashes(db, [(1, "abc")])
    assert catalog.file("src/app.py").hash == "abc"  # type: ignore[union-attr]


@pytest.mark.parametrize("query", NASTY_QUERIES)
def test_fts_syntax_in_user_text_never_breaks(catalog: Catalog, query: str) -> None:
    catalog.keyword(query, 5)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_fts_query_is_always_valid(text: str) -> None:
    query = fts_query(text)
    if query:
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_rollback_leaves_nothing(catalog: Catalog) -> None:
    with pytest.raises(RuntimeError), catalog.transaction() as db:
        catalog.put_file(db, "b.py", size=1, mtime_ns=1)
        raise RuntimeError("boom")
    assert catalog.file("b.py") is None
