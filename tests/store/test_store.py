"""The Store: create/open, dense search with rescoring, replacement, recovery, refusal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.errors import StoreFormatError, StoreNotFound
from semlith.store import ChunkRow, Store
from semlith.store.catalog import FORMAT_VERSION
from semlith.store.shards import shard_name
from tests.conftest import add_file, unit_vectors

MakeStore = Callable[..., Store]


def test_open_reads_no_vectors(make_store: MakeStore, settings: Settings) -> None:
    store = make_store()
    add_file(store, "a.py", unit_vectors(300, 32))
    store.close()
    reader = Store.open(store.folder, settings=settings)
    assert reader.stats()["shards"]["resident"] == 0
    assert reader.dense_search(unit_vectors(1, 32)[0], 3)
    assert reader.stats()["shards"]["resident"] == 1


def test_dense_search_matches_exact_brute_force(make_store: MakeStore,
                                                settings: Settings) -> None:
    store = make_store(dim=64)
    vecs = unit_vectors(2000, 64, seed=5)
    ids = add_file(store, "a.py", vecs)
    exact_store = Store.open(store.folder, settings=Settings.load(perf=False))
    hits = 0
    for q in range(20):
        query = unit_vectors(1, 64, seed=100 + q)[0]
        truth = [ids[i] for i in np.argsort(-(vecs @ query))[:10]]
        got = [i for i, _ in store.dense_search(query, 10)]
        hits += len(set(got) & set(truth))
        assert [i for i, _ in exact_store.dense_search(query, 10)] == truth
    assert hits / 200 >= 0.95
    # Scores after rescoring are the exact cosine.
    (top, score), *_ = store.dense_search(vecs[7], 1)
    assert top == ids[7] and score == pytest.approx(1.0, abs=1e-5)


def test_changing_a_files_chunks_removes_its_old_vectors(make_store: MakeStore) -> None:
    store = make_store()
    vecs = unit_vectors(10, 32)
    old = add_file(store, "a.py", vecs)
    new = add_file(store, "a.py", unit_vectors(4, 32, seed=9), digest="h2")
    assert min(new) > max(old)
    found = {i for i, _ in store.dense_search(vecs[0], 20)}
    assert found == set(new)
    assert not any(store.vectors.shards.holds_all(0, np.array([i], np.uint64)) for i in old)
    assert store.catalog.trash().size == 0


def test_filtered_search_returns_best_of_the_allowed(make_store: MakeStore) -> None:
    store = make_store()
    vecs = unit_vectors(1000, 32, seed=2)
    ids = np.array(add_file(store, "a.py", vecs), np.uint64)
    query = vecs[0]
    far = np.argsort(vecs @ query)[:20]
    got = [i for i, _ in store.dense_search(query, 5, allowlist=ids[far])]
    truth = [int(ids[far][i]) for i in np.argsort(-(vecs[far] @ query))[:5]]
    assert got == truth


def test_query_dimension_is_checked(make_store: MakeStore) -> None:
    store = make_store()
    with pytest.raises(ValueError, match="dimension 8"):
        store.dense_search(np.ones(8, np.float32), 3)


def test_read_only_store_refuses_writes(make_store: MakeStore, settings: Settings) -> None:
    store = make_store()
    reader = Store.open(store.folder, settings=settings)
    with pytest.raises(PermissionError, match="read-only"):
        reader.add_vectors([1], unit_vectors(1, 32))


def test_missing_store(tmp_path: Path, settings: Settings) -> None:
    with pytest.raises(StoreNotFound, match="no semlith store"):
        Store.open(tmp_path / "none", settings=settings)


def test_newer_format_is_refused(make_store: MakeStore, settings: Settings) -> None:
    store = make_store()
    store.catalog.set_meta("format_version", FORMAT_VERSION + 1)
    store.close()
    with pytest.raises(StoreFormatError, match=f"format {FORMAT_VERSION + 1}, newer"):
        Store.open(store.folder, settings=settings)


def test_generation_counts_commits(make_store: MakeStore) -> None:
    store = make_store()
    before = store.catalog.generation()
    add_file(store, "a.py", unit_vectors(2, 32))
    assert store.catalog.generation() == before + 1


def test_corrupt_shard_answers_exactly_then_is_rebuilt(make_store: MakeStore,
                                                       settings: Settings) -> None:
    store = make_store()
    vecs = unit_vectors(50, 32)
    ids = add_file(store, "a.py", vecs)
    store.catalog.set_meta("writer_clean", 0)  # as if the writer had been killed
    store.catalog.close()
    store.lock.release()  # type: ignore[union-attr]
    (store.folder / "shards" / shard_name(0)).write_bytes(b"\x00" * 100)
    reader = Store.open(store.folder, settings=settings)
    assert reader.dense_search(vecs[3], 1)[0][0] == ids[3]
    assert reader.stats()["shards"]["unreadable"]
    writer = Store.open(store.folder, settings=settings, writable=True)
    assert writer.recovered["rebuilt_shards"] == 1
    assert writer.dense_search(vecs[3], 1)[0][0] == ids[3]
    assert writer.stats()["shards"]["unreadable"] == []
    writer.close()


def test_corrupt_shard_with_pending_trash_is_rebuilt(make_store: MakeStore,
                                                     settings: Settings) -> None:
    """The trash is emptied after the vector space's repair: removing trashed ids from
    a corrupt shard first made every writable open fail."""
    store = make_store()
    add_file(store, "a.py", unit_vectors(5, 32))
    vecs = unit_vectors(5, 32, seed=3)
    kept = add_file(store, "b.py", vecs)
    with store.catalog.transaction() as db:
        store.catalog.delete_files(db, ["a.py"])
    store.catalog.set_meta("writer_clean", 0)
    store.catalog.close()
    store.lock.release()  # type: ignore[union-attr]
    (store.folder / "shards" / shard_name(0)).write_bytes(b"\x00" * 100)
    writer = Store.open(store.folder, settings=settings, writable=True)
    assert writer.recovered["rebuilt_shards"] == 1
    assert writer.recovered["trashed"] == 5
    assert {i for i, _ in writer.dense_search(vecs[0], 10)} == set(kept)
    writer.close()


def test_lost_vectors_send_their_file_back_to_pending(make_store: MakeStore,
                                                      settings: Settings) -> None:
    store = make_store()
    add_file(store, "a.py", unit_vectors(5, 32))
    store.catalog.set_meta("writer_clean", 0)
    store.catalog.close()
    store.lock.release()  # type: ignore[union-attr]
    (store.folder / "shards" / shard_name(0)).unlink()
    (store.folder / "exact.f32").unlink()
    writer = Store.open(store.folder, settings=settings, writable=True)
    assert writer.catalog.file("a.py").hash == ""  # type: ignore[union-attr]
    writer.close()


def test_exact_sidecar_is_compacted_past_threshold(make_store: MakeStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("semlith.store.vectors.COMPACT_MIN", 10)
    store = make_store()
    add_file(store, "a.py", unit_vectors(40, 32))
    add_file(store, "a.py", unit_vectors(5, 32, seed=1), digest="h2")
    assert store.vectors.exact.count() == 5


def test_pending_rows_are_keyword_searchable_before_vectors(make_store: MakeStore) -> None:
    store = make_store()
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, "notes.md", size=1, mtime_ns=1)
        store.catalog.replace_chunks(db, file_id, [ChunkRow(1, 1, "zebra crossing")])
    assert store.catalog.keyword("zebra", 3)
    assert store.dense_search(unit_vectors(1, 32)[0], 3) == []


@pytest.mark.parametrize("perf", [True, False])
def test_a_degraded_dense_search_returns_no_removed_chunk(make_store: MakeStore,
                                                          perf: bool) -> None:
    """With a shard that cannot be read (or SEMLITH_PERF=off) the search scans exact.f32,
    which keeps removed vectors until it compacts: they came back as hits (issue #26)."""
    from semlith.store.folder import SHARDS_DIR
    from semlith.store.shards import shard_name

    store = make_store()
    vecs = unit_vectors(40, 32, seed=3)
    old = add_file(store, "a.py", vecs)
    new = add_file(store, "a.py", vecs[:10], digest="h2")  # 30 of its vectors removed
    store.close()
    if perf:
        (store.folder / SHARDS_DIR / shard_name(0)).write_bytes(b"not a shard")
    reader = Store.open(store.folder, settings=Settings.load(perf=perf))
    found = [i for i, _ in reader.dense_search(vecs[20], 30, live=False)]
    assert found and set(found) <= set(new) and not set(found) & set(old)
    reader.close()
