"""The `VectorSpace` contract, run against every backend, then the local engine's own
repairs (a torn sidecar tail, a lost shard file) and its brute-force mode."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from semlith.store.folder import EXACT_NAME, SHARDS_DIR
from semlith.store.milvus.space import MilvusSpace
from semlith.store.milvus.target import MilvusTarget
from semlith.store.query import ChunkExport
from semlith.store.shards import SHARD_SPAN, ShardStats, shard_name
from semlith.store.vectors import LocalSpace, VectorSpace
from tests.conftest import unit_vectors

DIM = 32
N = 300
IDS = np.arange(1, 2 * N + 1, 2, dtype=np.uint64)  # increasing, with gaps
VECS = unit_vectors(N, DIM, seed=11)
QUERIES = unit_vectors(8, DIM, seed=12)


def _local(folder: Path, dim: int) -> VectorSpace:
    folder.mkdir(parents=True, exist_ok=True)
    return LocalSpace(folder, dim, budget_bytes=1 << 20, perf=True)


def _milvus(folder: Path, dim: int, uri: str) -> VectorSpace:
    """A Milvus space over a collection named after the test's folder (the real engine)."""
    name = "v_" + re.sub(r"[^a-z0-9]", "_", folder.parent.name.lower())
    target = MilvusTarget.parse(f"{uri}/{name}").named(model="contract", repo="r")

    def rows(ids: Sequence[int]) -> list[ChunkExport]:
        return [ChunkExport(int(i), f"f{i}.py", 0, 1, 1, "", "", f"chunk {i}", ext=".py")
                for i in ids]
    return MilvusSpace(target, model="contract", dim=dim, rows=rows)


# Every backend must pass the contract tests: a new one is one entry.
BACKENDS: dict[str, Callable[..., VectorSpace]] = {"local": _local, "milvus": _milvus}

OpenSpace = Callable[[], VectorSpace]


@pytest.fixture(params=sorted(BACKENDS))
def open_space(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenSpace]:
    """Opens the backend's space over one folder; called again after a close, a reopen."""
    factory = BACKENDS[request.param]
    extra = [request.getfixturevalue("milvus_server").uri] if request.param == "milvus" else []
    opened: list[VectorSpace] = []

    def open_() -> VectorSpace:
        opened.append(factory(tmp_path / "space", DIM, *extra))
        return opened[-1]

    yield open_
    for space in opened:
        space.close()


def filled(open_: OpenSpace) -> VectorSpace:
    space = open_()
    space.add(IDS[:200], VECS[:200])
    space.add(IDS[200:], VECS[200:])
    space.durable()
    return space


def brute_force(query: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[int]:
    rows = np.arange(N) if rows is None else rows
    return [int(IDS[rows][i]) for i in np.argsort(-(VECS[rows] @ query))[:k]]


# -- the contract ------------------------------------------------------------------------


def test_search_is_the_exact_top_k(open_space: OpenSpace) -> None:
    space = filled(open_space)
    assert space.dim == DIM
    for query in QUERIES:
        hits = space.search(query, 10)
        assert [i for i, _ in hits] == brute_force(query, 10)
        exact = {int(i): float(s) for i, s in zip(IDS, VECS @ query, strict=True)}
        assert [s for _, s in hits] == pytest.approx([exact[i] for i, _ in hits], abs=1e-5)


def test_allowlist_restricts_the_answer(open_space: OpenSpace) -> None:
    space = filled(open_space)
    rows = np.random.default_rng(3).choice(N, 40, replace=False)
    allow = np.append(IDS[rows], np.uint64(10_001))  # an id without a vector is ignored
    for query in QUERIES[:3]:
        got = [i for i, _ in space.search(query, 5, allowlist=allow)]
        assert got == brute_force(query, 5, rows)


def test_fetch_returns_exact_vectors_and_a_found_mask(open_space: OpenSpace) -> None:
    space = filled(open_space)
    want = np.array([IDS[7], 2, IDS[299], IDS[0], 10_000], np.uint64)
    found, vectors = space.fetch(want)
    assert found.tolist() == [True, False, True, True, False]
    np.testing.assert_allclose(vectors, VECS[[7, 299, 0]], rtol=1e-6)


def test_removed_ids_are_no_longer_found_by_search(open_space: OpenSpace) -> None:
    space = filled(open_space)
    gone = IDS[::3]
    space.remove(np.append(gone, np.uint64(10_001)))  # an id it does not hold is ignored
    space.durable()
    hits = {i for i, _ in space.search(QUERIES[0], N)}
    assert hits == set(IDS.tolist()) - set(gone.tolist())


def test_adds_are_checked(open_space: OpenSpace) -> None:
    space = filled(open_space)
    with pytest.raises(ValueError, match="shape"):
        space.add(np.array([1000], np.uint64), unit_vectors(1, DIM + 8))
    with pytest.raises(ValueError, match="increase"):
        space.add(IDS[:1], VECS[:1])
    with pytest.raises(ValueError, match="dimension"):
        space.search(np.ones(DIM + 8, np.float32), 3)


def test_durable_vectors_survive_a_reopen(open_space: OpenSpace) -> None:
    space = filled(open_space)
    before = space.search(QUERIES[1], 10)
    space.close()
    space = open_space()
    found, vectors = space.fetch(IDS)
    assert found.all()
    np.testing.assert_allclose(vectors, VECS, rtol=1e-6)
    after = space.search(QUERIES[1], 10)
    assert [i for i, _ in after] == [i for i, _ in before]
    assert [s for _, s in after] == pytest.approx([s for _, s in before])
    assert space.stats()["exact_records"] == N


def test_recover_reads_live_ids_only_after_an_unclean_close(open_space: OpenSpace) -> None:
    filled(open_space).close()
    space = open_space()
    asked: list[bool] = []

    def live() -> np.ndarray:
        asked.append(True)
        return IDS

    counts, lost = space.recover(live, clean=True)
    assert asked == [] and lost == []
    assert all(isinstance(n, int) for n in counts.values())
    _, lost = space.recover(live, clean=False)
    assert asked == [True] and lost == []


def test_recover_reports_a_live_id_it_never_held(open_space: OpenSpace) -> None:
    filled(open_space).close()
    space = open_space()
    never = np.uint64(IDS[-1] + 1)
    _, lost = space.recover(lambda: np.append(IDS, never), clean=False)
    assert lost == [int(never)]
    assert {i for i, _ in space.search(QUERIES[2], 10)} == set(brute_force(QUERIES[2], 10))


def test_compaction_keeps_every_live_vector(open_space: OpenSpace) -> None:
    space = filled(open_space)
    live = IDS[IDS % 4 == 1]
    space.remove(IDS[IDS % 4 != 1])
    space.durable()
    space.maybe_compact(lambda upto: int(np.sum(live <= upto)), lambda: iter(live.tolist()))
    found, _ = space.fetch(live)
    assert found.all()
    query = QUERIES[3]
    rows = np.flatnonzero(IDS % 4 == 1)
    assert [i for i, _ in space.search(query, 10)] == brute_force(query, 10, rows)


# -- the local engine --------------------------------------------------------------------


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Callable[..., LocalSpace]]:
    opened: list[LocalSpace] = []

    def open_(perf: bool = True) -> LocalSpace:
        opened.append(LocalSpace(tmp_path, DIM, budget_bytes=1 << 20, perf=perf))
        return opened[-1]

    yield open_
    for space in opened:
        space.close()


def test_local_recover_removes_temp_files_and_a_torn_tail(local: Callable[..., LocalSpace],
                                                         tmp_path: Path) -> None:
    space = local()
    space.add(IDS, VECS)
    space.durable()
    space.close()
    with open(tmp_path / EXACT_NAME, "ab") as handle:
        handle.write(b"\x07" * 13)  # a record cut short by a killed writer
    (tmp_path / f"{EXACT_NAME}.tmp").write_bytes(b"x")
    (tmp_path / SHARDS_DIR / f"{shard_name(0)}.tmp").write_bytes(b"x")
    space = local()
    counts, lost = space.recover(lambda: IDS, clean=True)
    assert (counts, lost) == ({"temp_files": 2, "torn_bytes": 13}, [])
    assert space.fetch(IDS)[0].all()
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []


def test_local_recover_rebuilds_a_deleted_shard(local: Callable[..., LocalSpace],
                                                tmp_path: Path) -> None:
    ids = np.concatenate([IDS[:150], IDS[150:] + SHARD_SPAN])  # two shards
    space = local()
    space.add(ids, VECS)
    space.durable()
    space.close()
    (tmp_path / SHARDS_DIR / shard_name(SHARD_SPAN)).unlink()
    space = local()
    counts, lost = space.recover(lambda: ids, clean=False)
    assert counts == {"temp_files": 0, "torn_bytes": 0, "rebuilt_shards": 1} and lost == []
    assert (tmp_path / SHARDS_DIR / shard_name(SHARD_SPAN)).exists()
    assert space.stats()["rebuilt"] == [SHARD_SPAN]
    assert space.search(VECS[200], 1)[0][0] == int(ids[200])


def test_local_recover_reports_vectors_lost_everywhere(local: Callable[..., LocalSpace],
                                                       tmp_path: Path) -> None:
    space = local()
    space.add(IDS, VECS)
    space.durable()
    space.close()
    sidecar = tmp_path / EXACT_NAME
    record = sidecar.stat().st_size // N
    with open(sidecar, "r+b") as handle:  # the disk lost part of the last record...
        handle.truncate(sidecar.stat().st_size - 10)
    (tmp_path / SHARDS_DIR / shard_name(0)).unlink()  # ...and the shard that held it
    space = local()
    counts, lost = space.recover(lambda: IDS, clean=False)
    assert counts == {"temp_files": 0, "torn_bytes": record - 10, "rebuilt_shards": 1}
    assert lost == [int(IDS[-1])]
    assert space.search(VECS[5], 1)[0][0] == int(IDS[5])


def test_local_without_perf_is_the_brute_force_answer(local: Callable[..., LocalSpace]) -> None:
    space = local(perf=False)
    space.add(IDS, VECS)
    rows = np.arange(0, N, 7)
    for query in QUERIES:
        hits = space.search(query, 10)
        assert [i for i, _ in hits] == brute_force(query, 10)
        assert [s for _, s in hits] == pytest.approx(np.sort(VECS @ query)[::-1][:10], abs=1e-6)
        got = [i for i, _ in space.search(query, 4, allowlist=IDS[rows])]
        assert got == brute_force(query, 4, rows)
    assert space.stats()["queries"] == 0  # the shards were never scanned


def test_the_exact_scan_never_returns_removed_ids(local: Callable[..., LocalSpace]) -> None:
    """exact.f32 keeps removed vectors until compaction: the exact scan (SEMLITH_PERF=off)
    returned them (16 of a dense top-30, issue #26)."""
    space = local(perf=False)
    space.add(IDS, VECS)
    removed = IDS[: N // 2]
    space.remove(removed)
    space.durable()
    for query in QUERIES:
        found = [i for i, _ in space.search(query, 30)]
        assert found == brute_force(query, 30, np.arange(N // 2, N))


def test_local_compacts_the_sidecar_past_its_threshold(local: Callable[..., LocalSpace],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    space = local()
    space.add(IDS, VECS)
    space.maybe_compact(lambda upto: pytest.fail("counted below COMPACT_MIN"), lambda: [])
    monkeypatch.setattr("semlith.store.vectors.COMPACT_MIN", 10)
    live = IDS[:20]
    seen: list[int] = []

    def live_count(upto: int) -> int:
        seen.append(upto)
        return int(np.sum(live <= upto))

    space.maybe_compact(live_count, lambda: iter(live.tolist()))
    assert seen == [int(IDS[-1])]
    assert space.stats()["exact_records"] == 20


def test_local_stats_are_the_shard_stats_and_exact_records(
        local: Callable[..., LocalSpace]) -> None:
    space = local()
    space.add(IDS, VECS)
    stats = space.stats()
    assert set(stats) == {f.name for f in fields(ShardStats)} | {"exact_records"}
    assert stats["exact_records"] == N
