"""The exact.f32 sidecar: append in id order, fetch by id, repair, compaction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from semlith.store.exact import ExactSidecar
from tests.conftest import unit_vectors


def test_append_and_fetch_by_id(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 16)
    vecs = unit_vectors(100, 16)
    ids = np.arange(5, 305, 3, dtype=np.uint64)
    side.append(ids[:60], vecs[:60])
    side.append(ids[60:], vecs[60:])
    assert side.count() == 100 and side.last_id() == int(ids[-1])
    want = np.array([ids[7], 4, ids[99], ids[0], 10_000], dtype=np.uint64)
    found, got = side.fetch(want)
    assert found.tolist() == [True, False, True, True, False]
    np.testing.assert_array_equal(got, vecs[[7, 99, 0]])
    assert (tmp_path / "exact.f32").stat().st_size == 100 * (8 + 16 * 4)


def test_ids_must_increase(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 8)
    side.append(np.array([3, 4], np.uint64), unit_vectors(2, 8))
    with pytest.raises(ValueError, match="must increase"):
        side.append(np.array([4], np.uint64), unit_vectors(1, 8))


def test_torn_tail_is_repaired(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 8)
    side.append(np.array([1, 2], np.uint64), unit_vectors(2, 8))
    with open(side.path, "ab") as handle:
        handle.write(b"\x07" * 13)
    assert side.repair() == 13
    assert side.count() == 2 and side.fetch(np.array([2], np.uint64))[0].all()


def test_compaction_keeps_only_live_records(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 8)
    vecs = unit_vectors(50, 8)
    side.append(np.arange(1, 51, dtype=np.uint64), vecs)
    assert side.compact(range(1, 51, 5)) == 40
    assert side.count() == 10
    found, got = side.fetch(np.array([1, 2, 46], np.uint64))
    assert found.tolist() == [True, False, True]
    np.testing.assert_array_equal(got, vecs[[0, 45]])
    assert not side.path.with_name("exact.f32.tmp").exists()


def test_empty_sidecar(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 8)
    found, got = side.fetch(np.array([1], np.uint64))
    assert not found.any() and got.shape == (0, 8)
    assert side.last_id() == 0 and list(side.scan()) == []


def test_fetch_across_sample_segments_with_gaps(tmp_path: Path) -> None:
    side = ExactSidecar(tmp_path / "exact.f32", 8)
    rng = np.random.default_rng(1)
    ids = np.cumsum(rng.integers(1, 4, 20_000)).astype(np.uint64)  # irregular gaps
    vecs = unit_vectors(len(ids), 8)
    side.append(ids[:12_345], vecs[:12_345])
    side.fetch(ids[:3])  # builds the sample, then the file grows past it
    side.append(ids[12_345:], vecs[12_345:])
    keep = rng.random(len(ids)) < 0.6
    side.compact(ids[keep].tolist())
    probe = rng.integers(0, len(ids), 400)
    found, got = side.fetch(ids[probe])
    assert found.tolist() == keep[probe].tolist()
    np.testing.assert_array_equal(got, vecs[probe][keep[probe]])
    absent = np.array([0, int(ids[-1]) + 1, 10**12], np.uint64)
    assert not side.fetch(absent)[0].any()
