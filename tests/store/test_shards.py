"""Vector shards: layout, allowlist inside the scan, removals, memory budget, rebuild."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from semlith.store.shards import SHARD_SPAN, ShardSet, shard_name
from tests.conftest import unit_vectors


def brute_top(vectors: np.ndarray, ids: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    order = np.argsort(-(vectors @ query), kind="stable")[:k]
    return [int(i) for i in ids[order]]


def test_one_file_per_shard_named_by_first_id(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    ids = np.array([1, 2, SHARD_SPAN + 5, 3 * SHARD_SPAN], dtype=np.uint64)
    shards.add(ids, unit_vectors(4, 32))
    shards.flush()
    names = sorted(p.name for p in (tmp_path / "shards").iterdir())
    assert names == [shard_name(0), shard_name(SHARD_SPAN), shard_name(3 * SHARD_SPAN)]
    assert list(shards.listing()) == [0, SHARD_SPAN, 3 * SHARD_SPAN]


def test_search_spans_shards_and_allowlist_applies_inside_scan(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    n = 3000
    vecs = unit_vectors(n, 32, seed=3)
    ids = np.arange(n, dtype=np.uint64) * 97 + 1  # spreads over several shards
    shards.add(ids, vecs)
    shards.flush()
    assert len(shards.listing()) > 2
    query = vecs[10]
    _, top = shards.search(query, 5)
    assert int(top[0]) == int(ids[10])
    # A filter selecting 20 chunks far from the query returns those 20's best, not nothing.
    far = np.argsort(vecs @ query)[:20]
    allow = ids[far]
    _, got = shards.search(query, 5, allowlist=allow)
    assert len(got) == 5 and set(got.tolist()) <= set(allow.tolist())
    # 4-bit scores at dim 32 are rough; the order is made exact by the store's rescoring.
    assert brute_top(vecs[far], allow, query, 1)[0] in got.tolist()


def test_allowlist_ids_without_vectors_are_ignored(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    shards.add(np.array([1, 2, 3], np.uint64), unit_vectors(3, 32))
    shards.flush()
    _, got = shards.search(unit_vectors(1, 32)[0], 5, allowlist=np.array([2, 999], np.uint64))
    assert got.tolist() == [2]
    _, none = shards.search(unit_vectors(1, 32)[0], 5, allowlist=np.array([999], np.uint64))
    assert len(none) == 0


def test_remove_and_reload(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    vecs = unit_vectors(10, 32)
    shards.add(np.arange(1, 11, dtype=np.uint64), vecs)
    shards.flush()
    assert shards.remove(np.array([1, 2, 500], np.uint64)) == 2
    shards.flush()
    fresh = ShardSet(tmp_path / "shards", 32, 1 << 30)
    _, got = fresh.search(vecs[0], 10)
    assert sorted(got.tolist()) == list(range(3, 11))


def test_emptied_shard_file_is_deleted(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    shards.add(np.array([SHARD_SPAN + 1], np.uint64), unit_vectors(1, 32))
    shards.flush()
    shards.remove(np.array([SHARD_SPAN + 1], np.uint64))
    shards.flush()
    assert shards.listing() == {}


def test_budget_keeps_hot_shards_resident_and_reads_the_rest(tmp_path: Path) -> None:
    writer = ShardSet(tmp_path / "shards", 64, 1 << 30)
    vecs = unit_vectors(4000, 64)
    ids = np.concatenate([np.arange(1000, dtype=np.uint64) + f * SHARD_SPAN for f in range(4)])
    writer.add(ids, vecs)
    writer.flush()
    one_shard = (tmp_path / "shards" / shard_name(0)).stat().st_size
    reader = ShardSet(tmp_path / "shards", 64, int(one_shard * 1.5))
    assert reader.stats().resident == 0  # opening reads no vectors
    for q in range(5):
        _, got = reader.search(vecs[q], 3)
        assert int(got[0]) == int(ids[q])
    stats = reader.stats()
    assert stats.resident == 1 and stats.resident_bytes <= stats.budget_bytes
    assert stats.reads_per_query >= 5 * 3
    # The shard every query hit (shard 0) is the resident one.
    roomy = ShardSet(tmp_path / "shards", 64, 1 << 30)
    roomy.search(vecs[0], 3)
    assert roomy.stats().reads_per_query == 0 and roomy.stats().resident == 4


def test_temp_files_are_cleaned(tmp_path: Path) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / (shard_name(0) + ".tmp.123.0.abcd")).write_bytes(b"torn")
    shards = ShardSet(folder, 32, 1 << 30)
    assert len(shards.remove_temp_files()) == 1
    assert list(folder.iterdir()) == []


def test_rebuild_from_records(tmp_path: Path) -> None:
    shards = ShardSet(tmp_path / "shards", 32, 1 << 30)
    vecs = unit_vectors(20, 32)
    ids = np.arange(1, 21, dtype=np.uint64)
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / shard_name(0)).write_bytes(b"garbage, not a shard")
    assert not shards.holds_all(0, ids)
    assert shards.rebuild(0, lambda: iter([(ids, vecs)]), ids[:15]) == 15
    shards.flush()
    assert shards.holds_all(0, ids[:15])
